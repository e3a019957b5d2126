package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SaxpyPairedBenchmark -f 3 -wi 4 -w 1 -i 5 -r 1 -jvmArgsAppend -Dweft.bench.settle=15"}
 *
 * <p>{@link SaxpyBenchmark}'s {@code weft} and {@code vectorApi} variants measured in the same fork, in
 * alternating blocks of {@link #BLOCK_RUNS} runs each, so that both see the same state of the machine. Why:
 * on this machine (2 KVM cores) the memory system changes speed every few seconds, for every thread at once:
 * the 8 MiB saxpy, hand-written or compiled, runs at about 100 µs or about 200 µs, while a compute-only loop
 * keeps its time within 1%. {@code SaxpyBenchmark} measures each variant in its own forks, minutes apart, so
 * its weft/vectorApi ratio per fork mixes two machine states and spread from 0.63 to 0.96 with no change to
 * either variant's code; here each measurement iteration holds both variants' time over the same seconds.
 *
 * <p>What it reports: the invocation rate (one invocation is a block of each), and, as secondary results,
 * {@code weftNanos} and {@code vectorApiNanos}, the time each variant took in the iteration for the same
 * number of runs. Their quotient {@code vectorApiNanos / weftNanos} is weft's throughput relative to the
 * hand-written code, for the iteration or (from the per-fork scores) for the fork; the fork also prints it
 * after each iteration. What you should see: the quotient steadier from fork to fork than
 * {@code SaxpyBenchmark}'s ratio, while both nanosecond counts move together with the machine.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class SaxpyPairedBenchmark {

    /**
     * Runs of one variant before the other takes over: long enough (about 6 ms) that the one switch per
     * block, where an idle thread of one variant parks and the other's wakes, costs under 2% of it.
     */
    static final int BLOCK_RUNS = 64;
    /** SaxpyBenchmark's sizes, so that both benchmarks measure the same launches and chunks. */
    private static final int N = SaxpyBenchmark.N;
    private static final int BLOCK = SaxpyBenchmark.BLOCK;
    private static final int CHUNK = SaxpyBenchmark.CHUNK;

    private final float a = 0.5f;
    private float[] x;
    private float[] y;
    private Device device;
    private Kernel kernel;

    /** The time each variant took in this iteration. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Times {
        /** Nanoseconds the weft launches took. */
        public long weftNanos;
        /** Nanoseconds the hand-written Vector API runs took. */
        public long vectorApiNanos;

        /** Zeroes the times at every iteration so each reports its own. */
        @Setup(Level.Iteration)
        public void reset() {
            weftNanos = 0;
            vectorApiNanos = 0;
        }

        /** Prints the iteration's weft/vectorApi throughput ratio. */
        @TearDown(Level.Iteration)
        public void print() {
            if (weftNanos > 0) {
                System.out.printf("# weft/vectorApi this iteration: %.3f%n", (double) vectorApiNanos / weftNanos);
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom r = new SplittableRandom(1);
        x = new float[N];
        y = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = (float) r.nextDouble(-1, 1);
            y[i] = (float) r.nextDouble(-1, 1);
        }
        device = Devices.create(false);
        kernel = SaxpyBenchmark.saxpyKernel(N, a, x, y);
        Devices.describe("saxpy paired", "weft", device, kernel);
        verify();
        Devices.settle("weft", this::weft);
    }

    /** Checks once that both variants compute the plain loop's saxpy. */
    private void verify() {
        float[] y0 = y.clone();
        float[] expected = y.clone();
        SaxpyBenchmark.javaSerial(N, a, x, expected, 0, N);
        for (Runnable variant : new Runnable[] {this::weft, this::vectorApi}) {
            System.arraycopy(y0, 0, y, 0, N);
            variant.run();
            if (!Arrays.equals(expected, y)) {
                throw new IllegalStateException("a variant computes a different saxpy than the plain loop");
            }
        }
        System.arraycopy(y0, 0, y, 0, N);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        device.close();
    }

    @Benchmark
    public void saxpyBlocks(Times times, Blackhole bh) {
        long start = System.nanoTime();
        for (int i = 0; i < BLOCK_RUNS; i++) {
            weft();
        }
        long mid = System.nanoTime();
        for (int i = 0; i < BLOCK_RUNS; i++) {
            vectorApi();
        }
        long end = System.nanoTime();
        times.weftNanos += mid - start;
        times.vectorApiNanos += end - mid;
        bh.consume(y);
    }

    private void weft() {
        device.launch(Dim3.of(N / BLOCK), Dim3.of(BLOCK), kernel);
    }

    private void vectorApi() {
        Parallel.forEachChunk(N / CHUNK, c -> SaxpyBenchmark.vectorApi(N, a, x, y, c * CHUNK, (c + 1) * CHUNK));
    }
}
