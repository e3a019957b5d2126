package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="MandelbrotBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/mandelbrot.json"}
 *
 * <p>Mandelbrot, 1024 x 512 pixels of [-2.2, 1.0] x [-1.2, 1.2], at most 256 iterations, in float: the
 * divergent loop, where neighbouring lanes leave after very different iteration counts and a SIMD
 * implementation runs each vector until its last lane is done. Reported per pixel and in GFLOP/s at 7
 * flops per iteration actually run (zx², zy², their sum, their difference plus cx, and 2·zx·zy + cy;
 * the comparison is not counted), summed over the pixels' real iteration counts.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} draws the same region at 256 x 128 (a
 * sixteenth of the pixels, with about the same mix of iteration counts: compare per-pixel and per-flop
 * rates), and {@code weft} too unless AUTO compiles the kernel ({@link Devices#fullProblem}). The
 * hand-written Vector API code keeps a mask of the lanes still iterating, as the SIMD
 * backend must. Each variant is checked once against {@code javaSerial}: iteration counts must be equal.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class MandelbrotBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final int MAX_ITER = 256;
    /** The weft launch's CTA shape: a warp along each image row. */
    static final int BLOCK_X = 32;
    static final int BLOCK_Y = 8;
    private static final int ROWS_PER_CHUNK = 4;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int width;
    private int height;
    private float x0;
    private float y0;
    private float dx;
    private float dy;
    private int[] out;
    private long iterations;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        boolean full = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("mandelbrot"));
        width = full ? 1024 : 256;
        height = full ? 512 : 128;
        x0 = -2.2f;
        y0 = -1.2f;
        dx = 3.2f / width;
        dy = 2.4f / height;
        out = new int[width * height];
        if (device != null) {
            kernel = mandelbrotKernel(width, height, x0, y0, dx, dy, MAX_ITER, out);
            Devices.describe("mandelbrot", impl, device, kernel);
        }
        int[] expected = new int[width * height];
        for (int row = 0; row < height; row++) {
            javaRow(row, width, x0, y0, dx, dy, expected);
        }
        iterations = Arrays.stream(expected).asLongStream().sum();
        run();
        if (!Arrays.equals(expected, out)) {
            throw new IllegalStateException(impl + " computes different iteration counts than the plain loop");
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: one thread per pixel, 2D grid. */
    static Kernel mandelbrotKernel(int w, int h, float x0, float y0, float dx, float dy, int maxIter, int[] out) {
        return t -> {
            int px = t.globalIdX();
            int py = t.globalIdY();
            if (px < w && py < h) {
                float cx = x0 + px * dx;
                float cy = y0 + py * dy;
                float zx = 0f;
                float zy = 0f;
                int it = 0;
                while (it < maxIter && zx * zx + zy * zy <= 4f) {
                    float nx = zx * zx - zy * zy + cx;
                    zy = 2f * zx * zy + cy;
                    zx = nx;
                    it++;
                }
                out[py * w + px] = it;
            }
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void mandelbrot(Work work, Blackhole bh) {
        run();
        work.add((long) width * height, 7 * iterations, 4L * width * height);
        bh.consume(out);
    }

    private void run() {
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((width + BLOCK_X - 1) / BLOCK_X, (height + BLOCK_Y - 1) / BLOCK_Y), Dim3.of(BLOCK_X, BLOCK_Y), kernel);
            case "vectorApi" -> Parallel.forEachChunk((height + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK, c -> {
                for (int row = c * ROWS_PER_CHUNK; row < Math.min(height, (c + 1) * ROWS_PER_CHUNK); row++) {
                    vectorRow(row, width, x0, y0, dx, dy, out);
                }
            });
            case "vectorApiSerial" -> {
                for (int row = 0; row < height; row++) {
                    vectorRow(row, width, x0, y0, dx, dy, out);
                }
            }
            case "javaSerial" -> {
                for (int row = 0; row < height; row++) {
                    javaRow(row, width, x0, y0, dx, dy, out);
                }
            }
            case "javaParallel" -> IntStream.range(0, height).parallel().forEach(row -> javaRow(row, width, x0, y0, dx, dy, out));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    static void javaRow(int py, int w, float x0, float y0, float dx, float dy, int[] out) {
        float cy = y0 + py * dy;
        for (int px = 0; px < w; px++) {
            float cx = x0 + px * dx;
            float zx = 0f;
            float zy = 0f;
            int it = 0;
            while (it < MAX_ITER && zx * zx + zy * zy <= 4f) {
                float nx = zx * zx - zy * zy + cx;
                zy = 2f * zx * zy + cy;
                zx = nx;
                it++;
            }
            out[py * w + px] = it;
        }
    }

    /** One row, a vector of pixels at a time; a lane stops counting once it escapes. Width: a multiple of the lanes. */
    static void vectorRow(int py, int w, float x0, float y0, float dx, float dy, int[] out) {
        float cyScalar = y0 + py * dy;
        FloatVector cy = FloatVector.broadcast(FS, cyScalar);
        FloatVector two = FloatVector.broadcast(FS, 2f);
        FloatVector four = FloatVector.broadcast(FS, 4f);
        FloatVector lane = FloatVector.zero(FS).addIndex(1);
        for (int px = 0; px < w; px += FS.length()) {
            // (float) (px + lane) * dx, exactly as the scalar loop converts px
            FloatVector cx = lane.add((float) px).mul(dx).add(x0);
            FloatVector zx = FloatVector.zero(FS);
            FloatVector zy = FloatVector.zero(FS);
            IntVector count = IntVector.zero(IS);
            VectorMask<Float> active = FS.maskAll(true);
            for (int it = 0; it < MAX_ITER; it++) {
                FloatVector zx2 = zx.mul(zx);
                FloatVector zy2 = zy.mul(zy);
                active = active.and(zx2.add(zy2).compare(VectorOperators.LE, four));
                if (!active.anyTrue()) {
                    break;
                }
                FloatVector nx = zx2.sub(zy2).add(cx);
                zy = two.mul(zx).mul(zy).add(cy);
                zx = nx;
                count = count.add(1, active.cast(IS));
            }
            count.intoArray(out, py * w + px);
        }
    }
}
