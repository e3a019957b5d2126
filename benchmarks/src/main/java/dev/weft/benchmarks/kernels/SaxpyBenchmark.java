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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SaxpyBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/saxpy.json"}
 *
 * <p>SAXPY, {@code y[i] = a * x[i] + y[i]} over 2^20 floats (4 MiB per array): a memory-bound kernel, so
 * it measures how close each variant gets to the machine's bandwidth, and what a launch costs. Reported
 * as GB/s at 12 bytes per element (read x and y, write y) and 2 flops per element.
 *
 * <p>Variants ({@code impl}): {@code weft} the kernel on a default (AUTO) device, compiled by the SIMD
 * backend when it is installed; {@code weftReference} the same kernel on the reference executor, over
 * 2^16 elements because it costs a continuation per thread (compare the per-element rates, not the
 * invocation rates), and {@code weft} too unless AUTO compiles the kernel ({@link Devices#fullProblem});
 * {@code vectorApi} hand-written Vector API code split into chunks over one thread per
 * processor the way Weft splits CTAs over SMs ({@link Parallel}); {@code vectorApiSerial} the same loop on
 * one thread; {@code javaSerial} a plain loop; {@code javaParallel} a plain loop over
 * {@code IntStream.parallel()}. Every variant is checked once, bit for bit against {@code javaSerial}
 * (mul then add, no fma: the same rounding in every variant), before it is measured.
 *
 * <p>What you should see: the memory-bound variants ({@code vectorApi}, {@code javaParallel} and a
 * compiled {@code weft}) close together; {@code weftReference} two orders of magnitude slower.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class SaxpyBenchmark {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static final int N = 1 << 20;
    private static final int REFERENCE_N = 1 << 16;
    static final int BLOCK = 256;
    /**
     * Elements per chunk of the multi-threaded hand-written code: 16 chunks, as fast as 8 and faster than 64
     * (weft/vectorApi paired read 0.78-0.85 against 2^16 and 2^17, 0.87-0.88 against 2^14: fewer claims of the
     * shared counter, fewer new stretches of the arrays per thread).
     */
    static final int CHUNK = 1 << 16;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private float a;
    private float[] x;
    private float[] y;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("saxpy")) ? elements() : REFERENCE_N;
        SplittableRandom r = new SplittableRandom(1);
        x = new float[n];
        y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextDouble(-1, 1);
            y[i] = (float) r.nextDouble(-1, 1);
        }
        a = 0.5f;
        if (device != null) {
            kernel = saxpyKernel(n, a, x, y);
            Devices.describe("saxpy", impl, device, kernel);
        }
        verify();
        Devices.settle(impl, this::run);
    }

    /** Elements of x and y: 2^20, 4 MiB per array, which stays in this machine's last-level cache. */
    int elements() {
        return N;
    }

    /** The Weft kernel, as a CUDA programmer writes it. */
    static Kernel saxpyKernel(int n, float a, float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = a * x[i] + y[i];
            }
        };
    }

    /** Runs this variant once on copies of the inputs and compares with the plain loop. */
    private void verify() {
        float[] y0 = y.clone();
        float[] expected = y.clone();
        javaSerial(n, a, x, expected, 0, n);
        run();
        if (!Arrays.equals(expected, y)) {
            throw new IllegalStateException(impl + " computes a different saxpy than the plain loop");
        }
        System.arraycopy(y0, 0, y, 0, n);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void saxpy(Work work, Blackhole bh) {
        run();
        work.add(n, 2L * n, 12L * n);
        bh.consume(y);
    }

    private void run() {
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((n + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), kernel);
            case "vectorApi" -> Parallel.forEachChunk((n + CHUNK - 1) / CHUNK,
                    c -> vectorApi(n, a, x, y, c * CHUNK, Math.min(n, (c + 1) * CHUNK)));
            case "vectorApiSerial" -> vectorApi(n, a, x, y, 0, n);
            case "javaSerial" -> javaSerial(n, a, x, y, 0, n);
            case "javaParallel" -> IntStream.range(0, n).parallel().forEach(i -> y[i] = a * x[i] + y[i]);
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    static void vectorApi(int n, float a, float[] x, float[] y, int from, int to) {
        int i = from;
        FloatVector va = FloatVector.broadcast(SPECIES, a);
        for (int upper = from + SPECIES.loopBound(to - from); i < upper; i += SPECIES.length()) {
            FloatVector vx = FloatVector.fromArray(SPECIES, x, i);
            FloatVector vy = FloatVector.fromArray(SPECIES, y, i);
            va.mul(vx).add(vy).intoArray(y, i);
        }
        for (; i < to; i++) {
            y[i] = a * x[i] + y[i];
        }
    }

    static void javaSerial(int n, float a, float[] x, float[] y, int from, int to) {
        for (int i = from; i < to; i++) {
            y[i] = a * x[i] + y[i];
        }
    }
}
