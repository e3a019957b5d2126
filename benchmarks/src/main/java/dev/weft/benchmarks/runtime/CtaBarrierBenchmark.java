package dev.weft.benchmarks.runtime;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="CtaBarrierBenchmark -f 1 -wi 2 -w 1 -i 3 -r 1"}
 *
 * <p>The cost of one {@code syncThreads()} per CTA, compiled against the reference executor, in one run: a
 * grid of {@value #CTAS} CTAs of {@value #THREADS} threads, each CTA passing {@value #BARRIERS} barriers
 * in a loop of uniform trip count; the score is the time per barrier per CTA
 * ({@code @OperationsPerInvocation(BARRIERS * CTAS)}, all SMs busy, so it is a throughput cost: divide by
 * {@value #THREADS} for the cost per thread that {@link BarrierBenchmark} reports). Two kernels:
 * {@code bare}, nothing but the barriers; {@code exchange}, what barriers are for: every round each
 * thread writes its value to shared memory, meets the others at a barrier, adds its neighbour's value,
 * and meets them again before the next write (two barriers a round).
 *
 * <p>{@code executor=AUTO} runs compiled only if the SIMD backend compiles the kernel; until it compiles
 * barriers it falls back to the reference executor. So that a result is never labelled with an executor
 * that did not run it, the set-up prints the compile report, and the secondary metric {@code compiledLaunches}
 * counts the launches that ran compiled code (0 means the AUTO rows measured the reference executor).
 *
 * <p>What you should see: on the reference executor a barrier costs a continuation switch per thread
 * (about 0.1-0.2 µs each, so tens of µs per 256-thread CTA); compiled, a barrier is the end of one loop
 * over the CTA's warps and the start of the next, nanoseconds per CTA.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
public class CtaBarrierBenchmark {

    static final int BARRIERS = 64;
    static final int THREADS = 256;
    static final int CTAS = 32;

    /** Which executor the device asks for. */
    @Param({"AUTO", "REFERENCE"})
    public ExecutorChoice executor;

    /** {@code bare}: barriers only; {@code exchange}: a shared-memory exchange between every two barriers. */
    @Param({"bare", "exchange"})
    public String kernel;

    private Device device;
    private Kernel k;
    private boolean compiled;
    private final int[] out = new int[CTAS * THREADS];

    /** Launches that ran compiled code, reported next to the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Executed {
        /** Launches of this iteration that the SIMD backend's code ran. */
        public long compiledLaunches;

        @Setup(Level.Iteration)
        public void reset() {
            compiledLaunches = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        device = Device.create(DeviceConfig.defaults().withExecutor(executor));
        k = kernel.equals("bare") ? bareKernel() : exchangeKernel(out);
        CompileReport report = device.compileReport(k);
        compiled = report.compiled();
        System.out.println("# CtaBarrierBenchmark " + kernel + " executor=" + executor + ": " + report.summary()
                + (executor == ExecutorChoice.AUTO && !compiled ? " -- these AUTO results measure the reference executor" : ""));
        device.launch(Dim3.of(CTAS), Dim3.of(THREADS), k);
        if (kernel.equals("exchange")) {
            verify();
        }
    }

    /** {@value #BARRIERS} barriers and nothing else. */
    static Kernel bareKernel() {
        return t -> {
            for (int i = 0; i < BARRIERS; i++) {
                t.syncThreads();
            }
        };
    }

    /** {@value #BARRIERS} / 2 rounds of: write own slot, barrier, add the neighbour's, barrier. */
    static Kernel exchangeKernel(int[] out) {
        return t -> {
            int[] slots = t.sharedInts(t.blockDimX());
            int tid = t.threadIdxX();
            int v = tid;
            for (int round = 0; round < BARRIERS / 2; round++) {
                slots[tid] = v;
                t.syncThreads();
                v += slots[(tid + 1) % t.blockDimX()];
                t.syncThreads();
            }
            out[t.globalIdX()] = v;
        };
    }

    /** The exchange computed in plain Java: a barrier that does not hold warps back gives other values. */
    private void verify() {
        int[] v = new int[THREADS];
        for (int tid = 0; tid < THREADS; tid++) {
            v[tid] = tid;
        }
        for (int round = 0; round < BARRIERS / 2; round++) {
            int[] slots = v.clone();
            for (int tid = 0; tid < THREADS; tid++) {
                v[tid] += slots[(tid + 1) % THREADS];
            }
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i] != v[i % THREADS]) {
                throw new IllegalStateException("executor " + executor + " exchanged wrongly at thread " + i + ": " + out[i]
                        + " instead of " + v[i % THREADS]);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        device.close();
    }

    @Benchmark
    @OperationsPerInvocation(BARRIERS * CTAS)
    public void barrierPerCta(Executed executed) {
        device.launch(Dim3.of(CTAS), Dim3.of(THREADS), k);
        if (compiled) {
            executed.compiledLaunches++;
        }
    }
}
