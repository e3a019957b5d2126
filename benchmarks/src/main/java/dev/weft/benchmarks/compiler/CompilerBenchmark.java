package dev.weft.benchmarks.compiler;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.SimdBackend;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests && mvn -q -o -pl benchmarks exec:exec -Djmh.args="CompilerBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1"}
 *
 * <p>A scratch benchmark of the SIMD compiler's code quality, one core: the compiled kernel's CTA program run
 * CTA by CTA on the benchmark thread ({@code *Compiled}), against a hand-written Vector API loop of the same
 * algorithm ({@code *Hand}), plain Java ({@code *Scalar}) and the reference executor on a one-SM device
 * ({@code *Reference}). The official kernel benchmarks are in {@code dev.weft.benchmarks.kernels}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@State(Scope.Thread)
public class CompilerBenchmark {

    static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;

    static final int N = 1 << 20;
    static final int W = 1024;
    static final int H = 512;
    static final int MAX_ITER = 256;

    float[] x;
    float[] y;
    int[] image;
    CtaProgram saxpy;
    CtaProgram mandelbrot;
    Kernel saxpyKernel;
    Kernel mandelbrotKernel;
    Device reference;
    final Cta cta = new Cta();

    @Setup(Level.Trial)
    public void setup() {
        x = new float[N];
        y = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = i * 0.001f;
            y[i] = 1;
        }
        image = new int[W * H];
        saxpyKernel = saxpy(2.5f, x, y, N);
        mandelbrotKernel = mandelbrot(image, W, H, MAX_ITER);
        saxpy = bind(saxpyKernel);
        mandelbrot = bind(mandelbrotKernel);
        reference = Device.create(DeviceConfig.defaults().withSmCount(1).withExecutor(ExecutorChoice.REFERENCE));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        reference.close();
    }

    private static CtaProgram bind(Kernel k) {
        Compilation c = new SimdBackend().compile(k, new DeviceShape(32, 48 * 1024));
        if (!(c instanceof Compilation.Compiled compiled)) {
            throw new IllegalStateException("not compiled: " + c);
        }
        return compiled.kernel().bind(k);
    }

    static Kernel saxpy(float a, float[] x, float[] y, int n) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = a * x[i] + y[i];
            }
        };
    }

    static Kernel mandelbrot(int[] out, int w, int h, int maxIter) {
        return t -> {
            int px = t.globalIdX();
            int py = t.globalIdY();
            if (px >= w || py >= h) {
                return;
            }
            float cx = -2.0f + px * (3.0f / w);
            float cy = -1.0f + py * (2.0f / h);
            float zx = 0;
            float zy = 0;
            int it = 0;
            while (zx * zx + zy * zy <= 4f && it < maxIter) {
                float t2 = zx * zx - zy * zy + cx;
                zy = 2 * zx * zy + cy;
                zx = t2;
                it++;
            }
            out[py * w + px] = it;
        };
    }

    private void runGrid(CtaProgram p, Dim3 grid, Dim3 block) {
        for (int bz = 0; bz < grid.z(); bz++) {
            for (int by = 0; by < grid.y(); by++) {
                for (int bx = 0; bx < grid.x(); bx++) {
                    cta.start(bx, by, bz, grid, block, 32, null, 48 * 1024, "limit");
                    p.runCta(cta);
                }
            }
        }
    }

    // ---- saxpy -------------------------------------------------------------------------------

    @Benchmark
    public void saxpyCompiled(Blackhole bh) {
        runGrid(saxpy, Dim3.of(N / 256), Dim3.of(256));
        bh.consume(y);
    }

    @Benchmark
    public void saxpyHand(Blackhole bh) {
        float a = 2.5f;
        int i = 0;
        for (; i < FS.loopBound(N); i += FS.length()) {
            FloatVector.fromArray(FS, x, i).mul(a).add(FloatVector.fromArray(FS, y, i)).intoArray(y, i);
        }
        for (; i < N; i++) {
            y[i] = a * x[i] + y[i];
        }
        bh.consume(y);
    }

    @Benchmark
    public void saxpyScalar(Blackhole bh) {
        float a = 2.5f;
        for (int i = 0; i < N; i++) {
            y[i] = a * x[i] + y[i];
        }
        bh.consume(y);
    }

    // ---- mandelbrot --------------------------------------------------------------------------

    @Benchmark
    public void mandelbrotCompiled(Blackhole bh) {
        runGrid(mandelbrot, Dim3.of(W / 32, H / 8), Dim3.of(32, 8));
        bh.consume(image);
    }

    @Benchmark
    public void mandelbrotHand(Blackhole bh) {
        float sx = 3.0f / W;
        float sy = 2.0f / H;
        for (int py = 0; py < H; py++) {
            float cy = -1.0f + py * sy;
            for (int px = 0; px < W; px += FS.length()) {
                FloatVector cx = ((FloatVector) IntVector.broadcast(IS, px).addIndex(1).convert(VectorOperators.I2F, 0)).mul(sx).add(-2.0f);
                FloatVector zx = FloatVector.zero(FS);
                FloatVector zy = FloatVector.zero(FS);
                IntVector count = IntVector.zero(IS);
                for (int it = 0; it < MAX_ITER; it++) {
                    VectorMask<Float> inside = zx.mul(zx).add(zy.mul(zy)).compare(VectorOperators.LE, 4f);
                    if (!inside.anyTrue()) {
                        break;
                    }
                    count = count.add(1, inside.cast(IS));
                    FloatVector t2 = zx.mul(zx).sub(zy.mul(zy)).add(cx);
                    zy = zx.mul(zy).mul(2f).add(cy);
                    zx = t2;
                }
                count.intoArray(image, py * W + px);
            }
        }
        bh.consume(image);
    }

    @Benchmark
    public void mandelbrotScalar(Blackhole bh) {
        for (int py = 0; py < H; py++) {
            for (int px = 0; px < W; px++) {
                float cx = -2.0f + px * (3.0f / W);
                float cy = -1.0f + py * (2.0f / H);
                float zx = 0;
                float zy = 0;
                int it = 0;
                while (zx * zx + zy * zy <= 4f && it < MAX_ITER) {
                    float t2 = zx * zx - zy * zy + cx;
                    zy = 2 * zx * zy + cy;
                    zx = t2;
                    it++;
                }
                image[py * W + px] = it;
            }
        }
        bh.consume(image);
    }

    @Benchmark
    public void mandelbrotReference(Blackhole bh) {
        reference.launch(Dim3.of(W / 32, H / 8), Dim3.of(32, 8), mandelbrotKernel);
        bh.consume(image);
    }
}
