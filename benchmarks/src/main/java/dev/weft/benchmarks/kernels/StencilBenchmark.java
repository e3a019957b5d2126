package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="StencilBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/stencil.json"}
 *
 * <p>One Jacobi sweep of a 5-point stencil over a 2048 × 2048 float grid (16 MiB in, 16 MiB out):
 * {@code out = 0.5·c + 0.125·(north + south + west + east)} at every interior point, the border left
 * alone. Memory-bound, with neighbours that a cache (or a GPU's L1) turns into one read per point. The
 * Weft kernel is the plain CUDA one: a 2D grid of 32 × 8-thread CTAs, one thread per point, every
 * neighbour read from global memory. Reported per interior point, in GB/s at 8 bytes per point (one read
 * of the input, one write of the output: the traffic that must reach memory) and GFLOP/s at 6 flops.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} sweeps 1024 × 1024, and {@code weft}
 * too unless AUTO compiles the kernel ({@link Devices#fullProblem}). The hand-written Vector API code
 * loads the five neighbours of a vector of points as five unaligned vectors; chunks are bands of rows.
 * Every variant evaluates the same expression in the same order with separate multiplies and adds, so
 * every variant is checked bit for bit against {@code javaSerial}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class StencilBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 2048;
    /** The weft launch's CTA shape: a warp along each grid row. */
    static final int BLOCK_X = 32;
    static final int BLOCK_Y = 8;
    private static final int REFERENCE_N = 1024;
    private static final int ROWS_PER_CHUNK = 16;
    private static final float CENTER = 0.5f;
    private static final float NEIGHBOUR = 0.125f;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int w;
    private int h;
    private float[] in;
    private float[] out;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        w = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("stencil")) ? N : REFERENCE_N;
        h = w;
        SplittableRandom r = new SplittableRandom(23);
        in = new float[w * h];
        for (int i = 0; i < w * h; i++) {
            in[i] = (float) r.nextDouble(-1, 1);
        }
        out = new float[w * h];
        if (device != null) {
            kernel = stencilKernel(w, h, CENTER, NEIGHBOUR, in, out);
            Devices.describe("stencil", impl, device, kernel);
        }
        float[] expected = new float[w * h];
        javaRows(w, h, in, expected, 1, h - 1);
        run();
        if (!Arrays.equals(expected, out)) {
            throw new IllegalStateException(impl + " computes a different sweep than the plain loops");
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: one thread per point, 2D grid, neighbours from global memory. */
    static Kernel stencilKernel(int w, int h, float center, float neighbour, float[] in, float[] out) {
        return t -> {
            int x = t.globalIdX();
            int y = t.globalIdY();
            if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
                int i = y * w + x;
                out[i] = center * in[i] + neighbour * (in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
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
    public void stencil(Work work, Blackhole bh) {
        run();
        long points = (long) (w - 2) * (h - 2);
        work.add(points, 6 * points, 8 * points);
        bh.consume(out);
    }

    private void run() {
        int bands = (h - 2 + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK;
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((w + BLOCK_X - 1) / BLOCK_X, (h + BLOCK_Y - 1) / BLOCK_Y), Dim3.of(BLOCK_X, BLOCK_Y), kernel);
            case "vectorApi" -> Parallel.forEachChunk(bands,
                    b -> vectorRows(w, in, out, 1 + b * ROWS_PER_CHUNK, Math.min(h - 1, 1 + (b + 1) * ROWS_PER_CHUNK)));
            case "vectorApiSerial" -> vectorRows(w, in, out, 1, h - 1);
            case "javaSerial" -> javaRows(w, h, in, out, 1, h - 1);
            case "javaParallel" -> IntStream.range(1, h - 1).parallel().forEach(y -> javaRows(w, h, in, out, y, y + 1));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    /** Interior rows {@code [from, to)}. */
    static void javaRows(int w, int h, float[] in, float[] out, int from, int to) {
        for (int y = from; y < to; y++) {
            for (int x = 1; x < w - 1; x++) {
                int i = y * w + x;
                out[i] = CENTER * in[i] + NEIGHBOUR * (in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
            }
        }
    }

    /** Interior rows {@code [from, to)}, a vector of points at a time, the row's remainder scalar. */
    static void vectorRows(int w, float[] in, float[] out, int from, int to) {
        for (int y = from; y < to; y++) {
            int i = y * w + 1;
            int end = y * w + w - 1;
            for (int upper = i + FS.loopBound(end - i); i < upper; i += FS.length()) {
                FloatVector sum = FloatVector.fromArray(FS, in, i - w).add(FloatVector.fromArray(FS, in, i + w))
                        .add(FloatVector.fromArray(FS, in, i - 1)).add(FloatVector.fromArray(FS, in, i + 1));
                FloatVector.fromArray(FS, in, i).mul(CENTER).add(sum.mul(NEIGHBOUR)).intoArray(out, i);
            }
            for (; i < end; i++) {
                out[i] = CENTER * in[i] + NEIGHBOUR * (in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
            }
        }
    }
}
