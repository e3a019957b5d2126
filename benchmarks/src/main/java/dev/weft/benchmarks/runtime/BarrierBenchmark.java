package dev.weft.benchmarks.runtime;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="BarrierBenchmark"}
 *
 * <p>The cost of one {@code syncThreads()} per thread: one CTA of 256 threads passes {@value #BARRIERS}
 * barriers, and each score is the time per barrier per thread ({@code @OperationsPerInvocation}). The
 * reference executor suspends every thread at every barrier; measured with its continuation fibers (the
 * default) and with its virtual-thread fallback (what runs without the {@code --add-exports} option).
 * For comparison, the textbook Java alternative: one virtual thread per kernel thread, meeting at a
 * {@link Phaser}. {@link CtaBarrierBenchmark} compares the compiled executor's barrier with this one's, per CTA.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BarrierBenchmark {

    static final int BARRIERS = 50;
    /** The reference executor's switch to its virtual-thread fallback. */
    private static final String FALLBACK_PROPERTY = "weft.reference.virtualThreads";
    static final int THREADS = 256;

    /** Which executor runs the kernel. */
    @Param({"REFERENCE"})
    public ExecutorChoice executor;

    private Device device;
    private final Kernel barriers = t -> {
        for (int i = 0; i < BARRIERS; i++) {
            t.syncThreads();
        }
    };

    @Setup
    public void setUp(BenchmarkParams params) {
        requireFallbackSwitch(params.getBenchmark(), Boolean.getBoolean(FALLBACK_PROPERTY));
        device = Device.create(DeviceConfig.defaults().withExecutor(executor));
    }

    /**
     * Fails the fallback's method unless its fork has the switch on. The switch is the fork's -D option; a
     * command-line -jvmArgsAppend replaces the annotation's, and the method would then measure the continuations
     * again under the fallback's name (seen in session 24).
     */
    static void requireFallbackSwitch(String benchmark, boolean switchOn) {
        if (benchmark.endsWith(".weftSyncThreadsVirtualThreadFallback") && !switchOn) {
            throw new IllegalStateException("weftSyncThreadsVirtualThreadFallback needs -D" + FALLBACK_PROPERTY
                    + "=true in its fork; a -jvmArgsAppend on the command line replaces the benchmark's own, so add it there");
        }
    }

    @TearDown
    public void tearDown() {
        device.close();
    }

    @Benchmark
    @OperationsPerInvocation(BARRIERS * THREADS)
    public void weftSyncThreads() {
        device.launch(Dim3.of(1), Dim3.of(THREADS), barriers);
    }

    @Benchmark
    @OperationsPerInvocation(BARRIERS * THREADS)
    @Fork(value = 1, jvmArgsAppend = "-D" + FALLBACK_PROPERTY + "=true")
    public void weftSyncThreadsVirtualThreadFallback() {
        device.launch(Dim3.of(1), Dim3.of(THREADS), barriers);
    }

    @Benchmark
    @OperationsPerInvocation(BARRIERS * THREADS)
    public void virtualThreadsOnPhaser() throws InterruptedException {
        Phaser phaser = new Phaser(THREADS);
        Thread[] vts = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            vts[i] = Thread.ofVirtual().start(() -> {
                for (int b = 0; b < BARRIERS; b++) {
                    phaser.arriveAndAwaitAdvance();
                }
            });
        }
        for (Thread vt : vts) {
            vt.join();
        }
    }
}
