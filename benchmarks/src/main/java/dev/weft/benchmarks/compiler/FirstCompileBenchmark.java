package dev.weft.benchmarks.compiler;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.benchmarks.kernels.KernelsForReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.runtime.spi.KernelBackend;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
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

/**
 * {@code mvn -q -pl benchmarks -am package -DskipTests -Djmh.args="FirstCompileBenchmark"}
 *
 * <p>First-launch compile time: one shot per fresh JVM (every fork is one), the time the SIMD backend takes to
 * compile a kernel the JVM has never compiled before, called as a first launch calls it (the backend SPI's {@code
 * compile} with the CTA shape the kernel's benchmark launches it in): the compile a first launch pays, of the one
 * CTA-shape variant that shape runs. {@code compileReport} compiles every variant and writes the listing, which a
 * launch never reads: each fork does it after the measurement and prints how long it took ({@code # compileReport}).
 * (Until session 18 the score included the listing, 2-5 ms.)
 * <ul>
 * <li>{@code kernelsBefore = 0}: the first kernel this JVM compiles. It pays for whatever of the compiler's
 * one-time cost (class loading, running the compiler interpreted) the background warm-up, started when the
 * device was created, has not yet absorbed; {@code pauseMs} is the application's own set-up between creating
 * the device and its first launch (0: launch at once).
 * <li>{@code kernelsBefore = 2}: a kernel compiled after two others (the first two other benchmark kernels,
 * each for its own launch's shape): the cost of each further kernel.
 * </ul>
 * For a kernel with barriers ({@code sgemm}, {@code reduction}, {@code scan}) this is the first tier: the class
 * with the general methods; the methods per resume point follow from a background compile (see the backend's
 * {@code Compiler.Resumed}), not measured here.
 * Wall-clock single shots on a shared machine: read medians and compare the rows, not the digits. Each fork also
 * prints the compiling thread's CPU time ({@code # compiling thread CPU}), which other load on the machine
 * disturbs less than the wall time. With {@code -jvmArgsAppend -Dweft.bench.threads=true} (Linux) each fork also
 * says where the compile's wall time went: the compiling thread running, waiting for a core, or blocked, and the
 * CPU every other thread of the JVM took meanwhile ({@link ThreadTimes}; reading it adds a few ms to the score).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 5, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class FirstCompileBenchmark {

    @Param({"saxpy", "mandelbrot", "blackScholes", "nbody", "sgemm", "reduction", "scan"})
    public String kernel;

    @Param({"0", "500"})
    public int pauseMs;

    @Param({"0", "2"})
    public int kernelsBefore;

    private Device device;
    private Kernel target;
    /** The CTA shape the kernel's benchmark launches it in: a launch compiles the variant for that shape. */
    private Dim3 block;
    private KernelBackend simd;
    private DeviceShape shape;
    private long listingNanos;
    private Compilation compilation;
    private java.lang.management.ThreadMXBean threads;
    private long cpuNanos;
    /** The diagnostic mode's readings; null without {@code -Dweft.bench.threads=true}. */
    private ThreadTimes times;

    @Setup(Level.Trial)
    public void setup() throws InterruptedException {
        // Loaded before the device, so that the measured compile does not pay for it.
        threads = java.lang.management.ManagementFactory.getThreadMXBean();
        threads.getCurrentThreadCpuTime();
        if (Boolean.getBoolean("weft.bench.threads")) {
            times = new ThreadTimes();
        }
        device = Device.create();
        DeviceConfig config = DeviceConfig.defaults();
        shape = new DeviceShape(config.warpSize(), config.sharedMemoryPerBlockBytes());
        for (KernelBackend b : ServiceLoader.load(KernelBackend.class)) {
            if (b.name().equals("simd")) {
                simd = b;
            }
        }
        if (simd == null) {
            throw new IllegalStateException("no simd backend on the class path");
        }
        var all = KernelsForReport.kernels();
        target = all.get(kernel);
        if (target == null) {
            throw new IllegalArgumentException("no benchmark kernel " + kernel + "; have " + all.keySet());
        }
        var blocks = KernelsForReport.blocks();
        block = blocks.get(kernel);
        Thread.sleep(pauseMs);
        int compiled = 0;
        for (var e : all.entrySet()) {
            if (compiled == kernelsBefore) {
                break;
            }
            if (!e.getKey().equals(kernel)
                    && simd.compile(e.getValue(), shape, blocks.get(e.getKey())) instanceof Compilation.Compiled) {
                compiled++;
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        // Outside the measured method: a launch never asks for a report.
        long report0 = System.nanoTime();
        ((Compilation.Compiled) compilation).kernel().report();
        listingNanos = System.nanoTime() - report0;
        System.out.println("# compiling thread CPU: " + (cpuNanos / 100_000) / 10.0 + " ms (" + kernel + ", pauseMs "
                + pauseMs + ", kernelsBefore " + kernelsBefore + ")");
        System.out.println("# compileReport: " + (listingNanos / 100_000) / 10.0 + " ms more (every variant, and the listing)");
        if (times != null) {
            System.out.println(times);
        }
        device.close();
    }

    @Benchmark
    public Compilation firstCompile() {
        if (times != null) {
            times.begin();
        }
        long wall0 = System.nanoTime();
        long cpu0 = threads.getCurrentThreadCpuTime();
        Compilation c = simd.compile(target, shape, block);
        cpuNanos = threads.getCurrentThreadCpuTime() - cpu0;
        if (times != null) {
            times.end(System.nanoTime() - wall0);
        }
        if (!(c instanceof Compilation.Compiled)) {
            throw new IllegalStateException(kernel + " did not compile: " + ((Compilation.Declined) c).reasons());
        }
        compilation = c;
        return c;
    }
}
