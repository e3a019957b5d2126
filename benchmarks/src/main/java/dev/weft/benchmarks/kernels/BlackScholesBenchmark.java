package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="BlackScholesBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/blackscholes.json"}
 *
 * <p>Black-Scholes call and put prices for 2^18 European options in float, as in the CUDA SDK sample:
 * per option one log, three exps (one in each cumulative normal and the discount), a sqrt and a divide,
 * over 20 bytes of memory (three inputs, two outputs). Compute-bound on the transcendentals; reported in
 * options per second (no flop count: the cost is in exp and log).
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} prices 2^14 options, and {@code weft} too
 * unless AUTO compiles the kernel ({@link Devices#fullProblem}). The hand-written Vector API code uses the
 * lane-wise {@code LOG}, {@code EXP} and {@code SQRT}, whose accuracy is that of {@code Math}'s (within 1
 * ulp), so it is checked against {@code javaSerial} within 1e-3 (prices up to
 * 100; the corpus test's blackScholes case derives the bound), and the scalar variants bit for bit.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class BlackScholesBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 1 << 18;
    /** Threads per CTA of the weft launch (1D). */
    static final int BLOCK = 128;
    private static final int REFERENCE_N = 1 << 14;
    private static final int CHUNK = 1 << 12;
    private static final float R = 0.02f;
    private static final float V = 0.30f;
    private static final double TOLERANCE = 1e-3;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private float[] price;
    private float[] strike;
    private float[] years;
    private float[] call;
    private float[] put;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("blackScholes")) ? N : REFERENCE_N;
        SplittableRandom r = new SplittableRandom(3);
        price = new float[n];
        strike = new float[n];
        years = new float[n];
        for (int i = 0; i < n; i++) {
            price[i] = (float) r.nextDouble(5, 100);
            strike[i] = (float) r.nextDouble(1, 100);
            years[i] = (float) r.nextDouble(0.25, 10);
        }
        call = new float[n];
        put = new float[n];
        if (device != null) {
            kernel = blackScholesKernel(n, R, V, price, strike, years, call, put);
            Devices.describe("blackScholes", impl, device, kernel);
        }
        float[] expectedCall = new float[n];
        float[] expectedPut = new float[n];
        javaRange(0, n, price, strike, years, expectedCall, expectedPut);
        run();
        boolean exact = !impl.startsWith("vectorApi");
        for (int i = 0; i < n; i++) {
            boolean ok = exact ? call[i] == expectedCall[i] && put[i] == expectedPut[i]
                    : Math.abs(call[i] - expectedCall[i]) <= TOLERANCE && Math.abs(put[i] - expectedPut[i]) <= TOLERANCE;
            if (!ok) {
                throw new IllegalStateException(impl + " prices option " + i + " at " + call[i] + "/" + put[i]
                        + ", the plain loop at " + expectedCall[i] + "/" + expectedPut[i]);
            }
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: one thread per option. */
    static Kernel blackScholesKernel(int n, float r, float v, float[] price, float[] strike, float[] years, float[] call, float[] put) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float s = price[i];
                float x = strike[i];
                float tt = years[i];
                float sqrtT = (float) Math.sqrt(tt);
                float d1 = ((float) Math.log(s / x) + (r + 0.5f * v * v) * tt) / (v * sqrtT);
                float d2 = d1 - v * sqrtT;
                float cndD1 = cnd(d1);
                float cndD2 = cnd(d2);
                float expRT = (float) Math.exp(-r * tt);
                call[i] = s * cndD1 - x * expRT * cndD2;
                put[i] = x * expRT * (1f - cndD2) - s * (1f - cndD1);
            }
        };
    }

    /** The cumulative normal distribution, polynomial approximation (Abramowitz and Stegun 26.2.17). */
    static float cnd(float d) {
        final float a1 = 0.31938153f;
        final float a2 = -0.356563782f;
        final float a3 = 1.781477937f;
        final float a4 = -1.821255978f;
        final float a5 = 1.330274429f;
        final float rsqrt2pi = 0.39894228040143267793994605993438f;
        float k = 1f / (1f + 0.2316419f * Math.abs(d));
        float c = rsqrt2pi * (float) Math.exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
        return d > 0 ? 1f - c : c;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void blackScholes(Work work, Blackhole bh) {
        run();
        work.add(n, 0, 20L * n);
        bh.consume(call);
        bh.consume(put);
    }

    private void run() {
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((n + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), kernel);
            case "vectorApi" -> Parallel.forEachChunk((n + CHUNK - 1) / CHUNK,
                    c -> vectorRange(c * CHUNK, Math.min(n, (c + 1) * CHUNK), price, strike, years, call, put));
            case "vectorApiSerial" -> vectorRange(0, n, price, strike, years, call, put);
            case "javaSerial" -> javaRange(0, n, price, strike, years, call, put);
            case "javaParallel" -> IntStream.range(0, n).parallel().forEach(i -> javaOne(i, price, strike, years, call, put));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    static void javaRange(int from, int to, float[] price, float[] strike, float[] years, float[] call, float[] put) {
        for (int i = from; i < to; i++) {
            javaOne(i, price, strike, years, call, put);
        }
    }

    static void javaOne(int i, float[] price, float[] strike, float[] years, float[] call, float[] put) {
        float s = price[i];
        float x = strike[i];
        float tt = years[i];
        float sqrtT = (float) Math.sqrt(tt);
        float d1 = ((float) Math.log(s / x) + (R + 0.5f * V * V) * tt) / (V * sqrtT);
        float d2 = d1 - V * sqrtT;
        float cndD1 = cnd(d1);
        float cndD2 = cnd(d2);
        float expRT = (float) Math.exp(-R * tt);
        call[i] = s * cndD1 - x * expRT * cndD2;
        put[i] = x * expRT * (1f - cndD2) - s * (1f - cndD1);
    }

    /**
     * Options {@code [from, to)} a vector at a time, the last few as {@link #javaOne} does them. Unmasked on purpose:
     * the same loop masked on every vector had C2 box its vectors in some compiles (up to 1 MB allocated per
     * invocation, JMH {@code -prof gc}), which made the hand-written code the slower one for the wrong reason.
     */
    static void vectorRange(int from, int to, float[] price, float[] strike, float[] years, float[] call, float[] put) {
        int i = from;
        for (int upper = from + FS.loopBound(to - from); i < upper; i += FS.length()) {
            FloatVector s = FloatVector.fromArray(FS, price, i);
            FloatVector x = FloatVector.fromArray(FS, strike, i);
            FloatVector tt = FloatVector.fromArray(FS, years, i);
            FloatVector sqrtT = tt.lanewise(VectorOperators.SQRT);
            FloatVector vSqrtT = sqrtT.mul(V);
            FloatVector d1 = s.div(x).lanewise(VectorOperators.LOG).add(tt.mul(R + 0.5f * V * V)).div(vSqrtT);
            FloatVector d2 = d1.sub(vSqrtT);
            FloatVector cndD1 = cnd(d1);
            FloatVector cndD2 = cnd(d2);
            FloatVector expRT = tt.mul(-R).lanewise(VectorOperators.EXP);
            FloatVector xe = x.mul(expRT);
            s.mul(cndD1).sub(xe.mul(cndD2)).intoArray(call, i);
            xe.mul(cndD2.neg().add(1f)).sub(s.mul(cndD1.neg().add(1f))).intoArray(put, i);
        }
        for (; i < to; i++) {
            javaOne(i, price, strike, years, call, put);
        }
    }

    static FloatVector cnd(FloatVector d) {
        FloatVector k = d.abs().mul(0.2316419f).add(1f);
        k = FloatVector.broadcast(FS, 1f).div(k);
        FloatVector poly = k.mul(1.330274429f).add(-1.821255978f).mul(k).add(1.781477937f).mul(k).add(-0.356563782f).mul(k)
                .add(0.31938153f).mul(k);
        FloatVector c = d.mul(d).mul(-0.5f).lanewise(VectorOperators.EXP).mul(0.39894228040143267793994605993438f).mul(poly);
        return c.neg().add(1f).blend(c, d.compare(VectorOperators.LE, 0f));
    }
}
