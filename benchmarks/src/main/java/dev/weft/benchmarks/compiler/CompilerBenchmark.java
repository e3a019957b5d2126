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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="CompilerBenchmark -f 1 -wi 5 -w 1 -i 6 -r 1"}
 * (where the modules' artifacts are not installed, run {@code org.openjdk.jmh.Main} with the modules'
 * {@code target/classes} and the JMH jars on the class path, and {@code --add-modules jdk.incubator.vector}).
 *
 * <p>A scratch benchmark of the SIMD compiler's code quality, one core: the compiled kernel's CTA program run
 * CTA by CTA on the benchmark thread ({@code *Compiled}), against a hand-written Vector API loop of the same
 * algorithm ({@code *Hand}), plain Java ({@code *Scalar}) and the reference executor on a one-SM device
 * ({@code *Reference}), and the compiled kernel launched on a one-SM device like the reference's
 * ({@code *Device}: the fair comparison with {@code *Reference}, both with the launching thread helping). The
 * official kernel benchmarks are in {@code dev.weft.benchmarks.kernels}.
 *
 * <p>What you should see (AVX2, 8 float lanes, a shared 2-core machine): the compiled mandelbrot about 1.3 times
 * faster than the hand-written loop (16-thread groups interleave two registers' dependency chains) and about 11
 * times the reference executor; black-scholes about 0.9 times hand-written and 12 to 16 times the reference;
 * n-body about 1.2 times hand-written, 3.4 times the reference (division and square root bound: the
 * hand-written loop is only 2.8 times the reference itself); saxpy 0.6 times hand-written with 256-thread CTAs
 * (some 16 ns of per-CTA overhead on 7 ns of work) and 1.1 times with 1024-thread CTAs.
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

    static final int OPTIONS = 1 << 18;
    static final int BODIES = 2048;

    float[] x;
    float[] y;
    int[] image;
    float[] spot;
    float[] strike;
    float[] years;
    float[] call;
    float[] put;
    float[] px;
    float[] py;
    float[] pz;
    float[] ax;
    float[] ay;
    float[] az;
    CtaProgram blackScholes;
    CtaProgram nbody;
    Kernel blackScholesKernel;
    Kernel nbodyKernel;
    CtaProgram saxpy;
    CtaProgram mandelbrot;
    Kernel saxpyKernel;
    Kernel mandelbrotKernel;
    Device reference;
    Device simd;
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
        java.util.Random r = new java.util.Random(1);
        spot = new float[OPTIONS];
        strike = new float[OPTIONS];
        years = new float[OPTIONS];
        call = new float[OPTIONS];
        put = new float[OPTIONS];
        for (int i = 0; i < OPTIONS; i++) {
            spot[i] = 5 + 25 * r.nextFloat();
            strike[i] = 1 + 99 * r.nextFloat();
            years[i] = 0.25f + 9.75f * r.nextFloat();
        }
        px = new float[BODIES];
        py = new float[BODIES];
        pz = new float[BODIES];
        ax = new float[BODIES];
        ay = new float[BODIES];
        az = new float[BODIES];
        for (int i = 0; i < BODIES; i++) {
            px[i] = r.nextFloat();
            py[i] = r.nextFloat();
            pz[i] = r.nextFloat();
        }
        blackScholesKernel = blackScholes(spot, strike, years, call, put);
        nbodyKernel = nbody(px, py, pz, ax, ay, az, BODIES);
        blackScholes = bind(blackScholesKernel);
        nbody = bind(nbodyKernel);
        reference = Device.create(DeviceConfig.defaults().withSmCount(1).withExecutor(ExecutorChoice.REFERENCE));
        simd = Device.create(DeviceConfig.defaults().withSmCount(1));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        reference.close();
        simd.close();
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

    static Kernel blackScholes(float[] s, float[] k, float[] tt, float[] call, float[] put) {
        float r = 0.02f;
        float v = 0.30f;
        int n = s.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float sqrtT = (float) Math.sqrt(tt[i]);
            float d1 = ((float) Math.log(s[i] / k[i]) + (r + 0.5f * v * v) * tt[i]) / (v * sqrtT);
            float d2 = d1 - v * sqrtT;
            float cnd1 = cnd(d1);
            float cnd2 = cnd(d2);
            float expRT = (float) Math.exp(-r * tt[i]);
            call[i] = s[i] * cnd1 - k[i] * expRT * cnd2;
            put[i] = k[i] * expRT * (1f - cnd2) - s[i] * (1f - cnd1);
        };
    }

    static float cnd(float d) {
        float k = 1f / (1f + 0.2316419f * Math.abs(d));
        float w = 1f - 0.39894228f * (float) Math.exp(-0.5f * d * d)
                * (k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f)))));
        return d < 0 ? 1f - w : w;
    }

    static Kernel nbody(float[] px, float[] py, float[] pz, float[] ax, float[] ay, float[] az, int n) {
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float xi = px[i];
            float yi = py[i];
            float zi = pz[i];
            float fx = 0;
            float fy = 0;
            float fz = 0;
            for (int j = 0; j < n; j++) {
                float dx = px[j] - xi;
                float dy = py[j] - yi;
                float dz = pz[j] - zi;
                float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
                float inv = 1f / (float) Math.sqrt(d2);
                float inv3 = inv * inv * inv;
                fx += dx * inv3;
                fy += dy * inv3;
                fz += dz * inv3;
            }
            ax[i] = fx;
            ay[i] = fy;
            az[i] = fz;
        };
    }

    // ---- black-scholes -----------------------------------------------------------------------

    @Benchmark
    public void blackScholesCompiled(Blackhole bh) {
        runGrid(blackScholes, Dim3.of(OPTIONS / 256), Dim3.of(256));
        bh.consume(call);
    }

    static FloatVector cndHand(FloatVector d) {
        FloatVector k = FloatVector.broadcast(FS, 1f).div(d.abs().mul(0.2316419f).add(1f));
        FloatVector poly = k.mul(1.330274429f).add(-1.821255978f).mul(k).add(1.781477937f).mul(k).add(-0.356563782f).mul(k)
                .add(0.31938153f).mul(k);
        FloatVector w = FloatVector.broadcast(FS, 1f).sub(d.mul(d).mul(-0.5f).lanewise(VectorOperators.EXP).mul(0.39894228f).mul(poly));
        return w.blend(FloatVector.broadcast(FS, 1f).sub(w), d.compare(VectorOperators.LT, 0f));
    }

    @Benchmark
    public void blackScholesHand(Blackhole bh) {
        float r = 0.02f;
        float v = 0.30f;
        for (int i = 0; i < OPTIONS; i += FS.length()) {
            FloatVector s = FloatVector.fromArray(FS, spot, i);
            FloatVector k = FloatVector.fromArray(FS, strike, i);
            FloatVector t = FloatVector.fromArray(FS, years, i);
            FloatVector sqrtT = t.sqrt();
            FloatVector d1 = s.div(k).lanewise(VectorOperators.LOG).add(t.mul(r + 0.5f * v * v)).div(sqrtT.mul(v));
            FloatVector d2 = d1.sub(sqrtT.mul(v));
            FloatVector c1 = cndHand(d1);
            FloatVector c2 = cndHand(d2);
            FloatVector e = t.mul(-r).lanewise(VectorOperators.EXP);
            s.mul(c1).sub(k.mul(e).mul(c2)).intoArray(call, i);
            k.mul(e).mul(FloatVector.broadcast(FS, 1f).sub(c2)).sub(s.mul(FloatVector.broadcast(FS, 1f).sub(c1))).intoArray(put, i);
        }
        bh.consume(call);
    }

    @Benchmark
    public void blackScholesDevice(Blackhole bh) {
        simd.launch(Dim3.of(OPTIONS / 256), Dim3.of(256), blackScholesKernel);
        bh.consume(call);
    }

    @Benchmark
    public void blackScholesReference(Blackhole bh) {
        reference.launch(Dim3.of(OPTIONS / 256), Dim3.of(256), blackScholesKernel);
        bh.consume(call);
    }

    // ---- n-body ------------------------------------------------------------------------------

    @Benchmark
    public void nbodyCompiled(Blackhole bh) {
        runGrid(nbody, Dim3.of(BODIES / 128), Dim3.of(128));
        bh.consume(ax);
    }

    @Benchmark
    public void nbodyHand(Blackhole bh) {
        for (int i = 0; i < BODIES; i += FS.length()) {
            FloatVector xi = FloatVector.fromArray(FS, px, i);
            FloatVector yi = FloatVector.fromArray(FS, py, i);
            FloatVector zi = FloatVector.fromArray(FS, pz, i);
            FloatVector fx = FloatVector.zero(FS);
            FloatVector fy = fx;
            FloatVector fz = fx;
            for (int j = 0; j < BODIES; j++) {
                FloatVector dx = FloatVector.broadcast(FS, px[j]).sub(xi);
                FloatVector dy = FloatVector.broadcast(FS, py[j]).sub(yi);
                FloatVector dz = FloatVector.broadcast(FS, pz[j]).sub(zi);
                FloatVector d2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz)).add(0.01f);
                FloatVector inv = FloatVector.broadcast(FS, 1f).div(d2.sqrt());
                FloatVector inv3 = inv.mul(inv).mul(inv);
                fx = fx.add(dx.mul(inv3));
                fy = fy.add(dy.mul(inv3));
                fz = fz.add(dz.mul(inv3));
            }
            fx.intoArray(ax, i);
            fy.intoArray(ay, i);
            fz.intoArray(az, i);
        }
        bh.consume(ax);
    }

    @Benchmark
    public void nbodyDevice(Blackhole bh) {
        simd.launch(Dim3.of(BODIES / 128), Dim3.of(128), nbodyKernel);
        bh.consume(ax);
    }

    @Benchmark
    public void nbodyReference(Blackhole bh) {
        reference.launch(Dim3.of(BODIES / 128), Dim3.of(128), nbodyKernel);
        bh.consume(ax);
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
    public void mandelbrotDevice(Blackhole bh) {
        simd.launch(Dim3.of(W / 32, H / 8), Dim3.of(32, 8), mandelbrotKernel);
        bh.consume(image);
    }

    @Benchmark
    public void mandelbrotReference(Blackhole bh) {
        reference.launch(Dim3.of(W / 32, H / 8), Dim3.of(32, 8), mandelbrotKernel);
        bh.consume(image);
    }
}
