package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="LaunchLatencyBenchmark -f 1 -wi 3 -w 1 -i 3 -r 2"}
 *
 * <p>The latency distribution of one launch (p50, p90, p99 from JMH's sample-time mode) of {@link SaxpyBenchmark}'s
 * kernel at its size (2^20 floats, 4,096 CTAs of 256 threads) on a default device, against the same work done
 * by the hand-written Vector API loop split over one thread per processor ({@link Parallel}). A launch spreads
 * its CTAs over the SM workers and the launching thread, so its latency is set by its slowest thread: the tail
 * percentiles show what a thread that the operating system descheduled mid-launch costs. Run it with a core
 * taken (another process busy on one core, or the JVM under {@code taskset -c 0}) to see that case.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class LaunchLatencyBenchmark {

    private static final int N = 1 << 20;
    private static final int BLOCK = 256;
    private static final int CHUNK = 1 << 14;
    private static final int SETTLED_LAUNCHES = 2_000;
    private static final long SETTLED_NANOS = 2_000_000;
    private static final long SETTLE_LIMIT_NANOS = 120_000_000_000L;

    @Param({"weft", "vectorApi"})
    public String impl;

    private final float a = 0.5f;
    private float[] x;
    private float[] y;
    private Device device;
    private Kernel kernel;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(1);
        x = new float[N];
        y = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = (float) r.nextDouble(-1, 1);
            y[i] = (float) r.nextDouble(-1, 1);
        }
        if (impl.equals("weft")) {
            device = Devices.create(false);
            kernel = SaxpyBenchmark.saxpyKernel(N, a, x, y);
            Devices.describe("launch latency (saxpy)", impl, device, kernel);
            settle();
        }
    }

    /**
     * Launches until {@link #SETTLED_LAUNCHES} launches in a row each took under {@link #SETTLED_NANOS}, at most
     * {@link #SETTLE_LIMIT_NANOS}. Why: the generated kernel stays interpreted (a Vector API kernel then takes
     * 10 to 800 ms a launch) until C2 compiles it, and on a loaded machine that outlasts JMH's warm-up, so
     * the percentiles would mix the interpreter's launches with the compiled ones. An interpreted launch is
     * never under 2 ms; a compiled one is about 0.1 ms.
     */
    private void settle() {
        long limit = System.nanoTime() + SETTLE_LIMIT_NANOS;
        for (int fast = 0; fast < SETTLED_LAUNCHES && System.nanoTime() < limit; ) {
            long start = System.nanoTime();
            device.launch(Dim3.of(N / BLOCK), Dim3.of(BLOCK), kernel);
            fast = System.nanoTime() - start < SETTLED_NANOS ? fast + 1 : 0;
        }
    }

    @TearDown
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void saxpyLaunch(Blackhole bh) {
        if (device != null) {
            device.launch(Dim3.of(N / BLOCK), Dim3.of(BLOCK), kernel);
        } else {
            Parallel.forEachChunk(N / CHUNK, c -> SaxpyBenchmark.vectorApi(N, a, x, y, c * CHUNK, (c + 1) * CHUNK));
        }
        bh.consume(y);
    }
}
