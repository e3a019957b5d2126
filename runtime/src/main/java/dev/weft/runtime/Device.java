package dev.weft.runtime;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.internal.Checks;
import dev.weft.runtime.internal.Engine;
import dev.weft.runtime.internal.KernelSelector;
import dev.weft.runtime.internal.LaunchJob;
import dev.weft.runtime.internal.LaunchProfiler;
import dev.weft.runtime.spi.DeviceShape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated GPU: SM worker threads fed by a work distributor, running kernels over grids of CTAs.
 *
 * {@snippet :
 * try (Device device = Device.create()) {
 *     float[] x = ..., y = ...;
 *     device.launch(Dim3.of((n + 255) / 256), Dim3.of(256), t -> {
 *         int i = t.globalIdX();
 *         if (i < n) y[i] = 2f * x[i] + y[i];
 *     });
 * }
 * }
 *
 * <p>{@link #launch(Dim3, Dim3, Kernel) launch} runs a kernel and returns when it is done; {@link Stream}s
 * queue launches asynchronously. A failed launch throws {@link KernelException} with the CTA and thread
 * at fault, cancels its remaining CTAs, and leaves the device ready for the next launch.
 *
 * <h2>Launch limits (CUDA's)</h2>
 * {@code blockDim.x, .y <= 1024}, {@code blockDim.z <= 64}, at most 1024 threads per CTA;
 * {@code gridDim.x <= 2^31 - 1}, {@code gridDim.y, .z <= 65535}; every dimension at least 1; declared shared
 * memory at most the device's per-CTA limit. A launch that breaks one fails before any thread runs.
 *
 * <p>Thread-safe. Close it to stop its SM workers. CUDA: a device with its primary context.
 */
public final class Device implements AutoCloseable {

    /** The most threads a CTA may have. CUDA: {@code maxThreadsPerBlock}. */
    public static final int MAX_THREADS_PER_BLOCK = 1024;

    private static final AtomicInteger IDS = new AtomicInteger();

    private final DeviceConfig config;
    private final Engine engine;
    private final KernelSelector selector;
    private final Stream defaultStream;
    // Weak: a stream the program dropped is forgotten once idle (pending launches keep it reachable
    // through their futures), so creating a stream per request does not leak.
    private final Set<Stream> streams = Collections.newSetFromMap(new WeakHashMap<>());
    private volatile boolean closed;

    private Device(DeviceConfig config) {
        this.config = config;
        this.engine = new Engine("weft" + IDS.getAndIncrement(), config.smCount());
        this.selector = new KernelSelector(config.executor(), new DeviceShape(config.warpSize(), config.sharedMemoryPerBlockBytes()));
        this.defaultStream = new Stream(this);
        streams.add(defaultStream); // not yet shared: no lock needed
    }

    /** A device with {@link DeviceConfig#defaults()}. */
    public static Device create() {
        return new Device(DeviceConfig.defaults());
    }

    /** A device configured by {@code config}. */
    public static Device create(DeviceConfig config) {
        return new Device(Checks.notNull("config", config));
    }

    /** This device's configuration. */
    public DeviceConfig config() {
        return config;
    }

    /**
     * Runs {@code kernel} over {@code grid} CTAs of {@code block} threads and returns when every thread has
     * finished. Runs on the default stream, after anything queued there; if an earlier asynchronous launch
     * on the default stream failed, this launch is skipped and that failure is thrown (CUDA's sticky
     * errors, reported at the next synchronizing call).
     *
     * @throws IllegalArgumentException if a dimension is out of its limit (the message names it)
     * @throws KernelException if a thread failed or broke a convergence rule
     * CUDA: {@code kernel<<<grid, block>>>(...); cudaDeviceSynchronize();}
     */
    public void launch(Dim3 grid, Dim3 block, Kernel kernel) {
        launch(LaunchConfig.of(grid, block), kernel);
    }

    /**
     * Runs a launch described by {@code config} and returns when it is done.
     *
     * @throws IllegalArgumentException if a dimension or the shared memory size is out of its limit
     * @throws KernelException if a thread failed or broke a convergence rule
     */
    public void launch(LaunchConfig config, Kernel kernel) {
        LaunchJob job = prepare(config, kernel, false);
        // The calling thread is one of the SMs until the launch is done, so wake one worker fewer.
        defaultStream.enqueue(job, engine.smCount() - 1);
        defaultStream.synchronize();
    }

    /**
     * Runs a launch as {@link #launch(LaunchConfig, Kernel)} does, counting what its warps do, and returns the
     * counts: CTAs, warps, warp instructions issued and the threads active in them (the warp execution
     * efficiency), and how often warps split at each divergent branch. See {@link LaunchProfile} for what is
     * counted and on which executor.
     *
     * <p>A compiled kernel runs a separate variant compiled with counters (on the first profiled launch of its
     * class), so a profiled launch runs slower than an ordinary one, and ordinary launches of the same kernel
     * are not affected. Time ordinary launches, not profiled ones.
     *
     * @throws IllegalArgumentException if a dimension or the shared memory size is out of its limit
     * @throws KernelException if a thread failed or broke a convergence rule
     * CUDA: running the launch under {@code nvprof --metrics warp_execution_efficiency} or Nsight Compute.
     */
    public LaunchProfile profile(LaunchConfig config, Kernel kernel) {
        LaunchJob job = prepare(config, kernel, true);
        defaultStream.enqueue(job, engine.smCount() - 1);
        defaultStream.synchronize();
        return job.profile();
    }

    /**
     * Profiles a launch of {@code grid} CTAs of {@code block} threads; see {@link #profile(LaunchConfig, Kernel)}.
     *
     * @throws IllegalArgumentException if a dimension is out of its limit (the message names it)
     * @throws KernelException if a thread failed or broke a convergence rule
     */
    public LaunchProfile profile(Dim3 grid, Dim3 block, Kernel kernel) {
        return profile(LaunchConfig.of(grid, block), kernel);
    }

    /** The stream {@link #launch} uses. CUDA: the default stream. */
    public Stream defaultStream() {
        return defaultStream;
    }

    /** A new stream. CUDA: {@code cudaStreamCreate}. */
    public Stream createStream() {
        checkOpen();
        Stream s = new Stream(this);
        synchronized (streams) {
            streams.add(s);
        }
        return s;
    }

    /**
     * Blocks until every stream of this device is idle; throws the first failure any of them had since it
     * was last synchronized (the others are attached as suppressed), clearing them all.
     * CUDA: {@code cudaDeviceSynchronize}.
     */
    public void synchronize() {
        RuntimeException first = null;
        List<Stream> live;
        synchronized (streams) {
            live = new ArrayList<>(streams);
        }
        for (Stream s : live) {
            try {
                s.synchronize();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Which executor runs {@code kernel}, why, and what it runs: for a compiled kernel, a listing of the
     * code one warp executes, in every CTA shape. Compiles the kernel for every shape (a launch compiles for its
     * own); where that code is too large but launches compiled theirs, lists those, with the reasons.
     */
    public CompileReport compileReport(Kernel kernel) {
        return selector.report(Checks.notNull("kernel", kernel));
    }

    /**
     * As {@link #compileReport(Kernel)}, for launches in CTAs of shape {@code blockDim}: the listing of the code
     * those CTAs run, compiled as such a launch compiles it (a launch of that shape then compiles nothing).
     */
    public CompileReport compileReport(Kernel kernel, Dim3 blockDim) {
        return selector.report(Checks.notNull("kernel", kernel), Checks.notNull("blockDim", blockDim));
    }

    /** Stops the SM workers. Queued launches fail. Idempotent. */
    @Override
    public void close() {
        closed = true;
        engine.close();
    }

    int smCount() {
        return engine.smCount();
    }

    Engine engine() {
        return engine;
    }

    /**
     * Validates a launch and binds its program (its profiling variant if {@code profiled}): everything that can
     * fail before a thread runs.
     */
    LaunchJob prepare(LaunchConfig launch, Kernel kernel, boolean profiled) {
        checkOpen();
        if (LaunchJob.callerIsInKernel()) {
            throw new UnsupportedOperationException(
                    "launching a kernel from inside a kernel (CUDA's dynamic parallelism) is not supported");
        }
        Checks.notNull("launch", launch);
        Checks.notNull("kernel", kernel);
        Dim3 g = launch.grid();
        Dim3 b = launch.block();
        Checks.inRange("gridDim.x", g.x(), 1, Integer.MAX_VALUE);
        Checks.inRange("gridDim.y", g.y(), 1, 65535);
        Checks.inRange("gridDim.z", g.z(), 1, 65535);
        Checks.inRange("blockDim.x", b.x(), 1, 1024);
        Checks.inRange("blockDim.y", b.y(), 1, 1024);
        Checks.inRange("blockDim.z", b.z(), 1, 64);
        Checks.check(b.volume() <= MAX_THREADS_PER_BLOCK,
                "blockDim.x * blockDim.y * blockDim.z must be <= %d threads per CTA: %d", MAX_THREADS_PER_BLOCK, b.volume());
        int limit = config.sharedMemoryPerBlockBytes();
        Checks.check(launch.sharedMemoryBytes() <= limit,
                "sharedMemoryBytes must be <= the device's %d bytes of shared memory per CTA: %d", limit, launch.sharedMemoryBytes());
        boolean declared = launch.sharedMemoryBytes() > 0;
        int sharedLimit = declared ? launch.sharedMemoryBytes() : limit;
        String sharedLimitName = declared ? "launch's declared sharedMemoryBytes" : "device's per-CTA shared memory limit";
        if (profiled) {
            return new LaunchJob(kernel, LaunchProfiler.of(kernel, selector, b, config.warpSize()), g, b, config.warpSize(),
                    engine.smCount(), sharedLimit, sharedLimitName);
        }
        return new LaunchJob(kernel, selector.bind(kernel, b), g, b, config.warpSize(), engine.smCount(), sharedLimit,
                sharedLimitName);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("device is closed");
        }
    }
}
