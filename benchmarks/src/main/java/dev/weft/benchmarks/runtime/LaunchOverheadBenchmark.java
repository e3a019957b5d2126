package dev.weft.benchmarks.runtime;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="LaunchOverhead"}
 *
 * <p>What an empty launch of one CTA costs, from the caller's {@code launch} to its return: validation,
 * executor lookup, binding, the work distributor, and running the CTA's threads. Users launch small grids
 * in loops, so this must be microseconds. For scale, the same run measures a plain call of the kernel body
 * and a round trip through an {@link ExecutorService}, the usual way Java hands work to another thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LaunchOverheadBenchmark {

    /** Threads in the one CTA. */
    @Param({"1", "32"})
    public int threads;

    /** Which executor runs the kernel: the reference executor, or whatever AUTO picks. */
    @Param({"REFERENCE", "AUTO"})
    public ExecutorChoice executor;

    private Device device;
    private ExecutorService pool;
    private final int[] sink = new int[1];
    private final Kernel empty = t -> { };
    private final Runnable body = () -> sink[0]++;

    @Setup
    public void setUp() {
        device = Device.create(DeviceConfig.defaults().withExecutor(executor));
        pool = Executors.newSingleThreadExecutor();
        device.launch(Dim3.of(1), Dim3.of(threads), empty);
    }

    @TearDown
    public void tearDown() {
        device.close();
        pool.shutdownNow();
    }

    @Benchmark
    public void weftEmptyLaunch() {
        device.launch(Dim3.of(1), Dim3.of(threads), empty);
    }

    @Benchmark
    public void plainCall(Blackhole bh) {
        body.run();
        bh.consume(sink);
    }

    @Benchmark
    public void executorServiceRoundTrip() throws Exception {
        Future<?> f = pool.submit(body);
        f.get();
    }
}
