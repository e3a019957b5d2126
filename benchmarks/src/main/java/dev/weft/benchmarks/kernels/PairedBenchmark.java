package dev.weft.benchmarks.kernels;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="PairedBenchmark -p kernel=saxpy,sgemm -f 3 -wi 4 -w 1 -i 5 -r 1 -jvmArgsAppend -Dweft.bench.settle=15"}
 *
 * <p>A kernel benchmark's {@code weft} and {@code vectorApi} variants measured in the same fork, in
 * alternating blocks of about {@link #BLOCK_NANOS} each, so that both see the same state of the machine.
 * Why: on this machine (2 KVM cores) the memory system changes speed every few seconds, for every thread at
 * once: the 8 MiB saxpy, hand-written or compiled, takes about 100 µs or about 200 µs per run, while a
 * compute-only loop keeps its time within 1%. The kernel benchmarks run each variant in its own forks,
 * minutes apart, so their weft/vectorApi ratio per fork mixes two machine states: saxpy's spread from 0.62
 * to 0.96 over sessions with no change to either variant's code, and the hand-written rates alone moved
 * 20-60% from one session to the next. Here each iteration holds both variants' time over the same seconds.
 *
 * <p>Each variant is the kernel benchmark's own state ({@link KernelStates}): the same sizes, the same check
 * of the result against the plain loop at set-up, the same settle time for weft's JIT.
 *
 * <p>What it reports: the invocation rate (one invocation is a block of each variant: not a rate to
 * compare), and, as secondary results, each variant's elements processed and nanoseconds taken. The
 * report tool ({@code ResultsTable}) divides them into weft's per-element throughput relative to the
 * hand-written code, over all iterations and per iteration; the fork also prints it after each iteration.
 * What you should see: that ratio steadier from fork to fork than the kernel benchmark's, while both
 * variants' rates move together with the machine.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class PairedBenchmark {

    /**
     * A block's length: one variant runs invocations until this much time has passed, then the other. Long
     * enough that the one switch per block (an idle thread of one variant parks, the other's wakes) costs
     * under 2% of it; short enough that a change of the machine's state mostly falls inside both variants'
     * time of one iteration.
     */
    static final long BLOCK_NANOS = 20_000_000;

    /**
     * The kernel, by {@link KernelsForReport}'s name, against its benchmark's {@code vectorApi} variant; {@code
     * kernel:variant} pairs it with another variant of that benchmark instead: {@code sgemm:vectorApiTiled}, the
     * tiled sgemm against the same tiled algorithm written by hand (as well as against the register-blocked
     * code), and {@code reduction}, {@code histogram} and {@code scan} against theirs ({@code vectorApiCta});
     * {@code nbody:weftReference}, weft against the reference executor in the same seconds (issue #4's
     * goals of 5× the reference, whose separate forks read 4.2× to 6.4× for the n-body step over four sessions).
     */
    @Param({"saxpy", "reduction", "reduction:vectorApiCta", "mandelbrot", "mandelbrot:weftReference", "sgemm",
            "sgemm:vectorApiTiled", "sgemmRegisterBlocked", "histogram", "histogram:vectorApiCta", "blackScholes",
            "blackScholes:weftReference", "nbody", "nbody:weftReference", "transpose", "scan", "scan:vectorApiCta", "stencil"})
    public String kernel;

    private KernelStates.State weft;
    private KernelStates.State vectorApi;

    /** Each variant's work and time in this iteration; the report divides them into rates. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Pair {
        /** Elements the weft variant processed. */
        public long weftElements;
        /** Nanoseconds the weft variant took for them. */
        public long weftNanos;
        /** Elements the other variant processed ({@code vectorApi} unless {@link #kernel} names one). */
        public long vectorApiElements;
        /** Nanoseconds the other variant took for them. */
        public long vectorApiNanos;

        private final Work weftWork = new Work();
        private final Work vectorApiWork = new Work();

        /** Zeroes the counts at every iteration so each reports its own. */
        @Setup(Level.Iteration)
        public void reset() {
            weftElements = weftNanos = vectorApiElements = vectorApiNanos = 0;
            weftWork.reset();
            vectorApiWork.reset();
        }

        /** Prints the iteration's per-element throughput ratio of weft to the other variant. */
        @TearDown(Level.Iteration)
        public void print() {
            if (weftNanos > 0 && vectorApiElements > 0) {
                System.out.printf("# weft/other variant this iteration: %.3f%n",
                        (double) weftElements / weftNanos / ((double) vectorApiElements / vectorApiNanos));
            }
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        vectorApi = KernelStates.create(kernelOf(kernel), otherVariantOf(kernel));
        vectorApi.setUp();
        weft = KernelStates.create(kernelOf(kernel), "weft");
        weft.setUp();
    }

    /** The kernel a {@link #kernel} value names: {@code sgemm} of {@code sgemm:vectorApiTiled}. */
    public static String kernelOf(String param) {
        int colon = param.indexOf(':');
        return colon < 0 ? param : param.substring(0, colon);
    }

    /** The variant weft runs against for a {@link #kernel} value: {@code vectorApi} unless it names one. */
    public static String otherVariantOf(String param) {
        int colon = param.indexOf(':');
        return colon < 0 ? "vectorApi" : param.substring(colon + 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        weft.tearDown();
        vectorApi.tearDown();
    }

    @Benchmark
    public void pair(Pair pair, Blackhole bh) {
        pair.weftNanos += block(weft, pair.weftWork, bh);
        pair.weftElements = pair.weftWork.elements;
        pair.vectorApiNanos += block(vectorApi, pair.vectorApiWork, bh);
        pair.vectorApiElements = pair.vectorApiWork.elements;
    }

    /** Runs {@code variant} for at least one invocation and {@link #BLOCK_NANOS}; returns the nanoseconds taken. */
    private static long block(KernelStates.State variant, Work work, Blackhole bh) {
        long start = System.nanoTime();
        long now;
        do {
            variant.invoke(work, bh);
            now = System.nanoTime();
        } while (now - start < BLOCK_NANOS);
        return now - start;
    }
}
