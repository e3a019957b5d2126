/**
 * Weft's runtime: a simulated GPU that runs {@link dev.weft.Kernel}s over grids of CTAs.
 *
 * <p>A {@link dev.weft.runtime.Device} owns SM worker threads (one per core by default) and a work
 * distributor that hands them CTAs one at a time, so an uneven grid balances itself. A synchronous
 * {@link dev.weft.runtime.Device#launch(dev.weft.Dim3, dev.weft.Dim3, dev.weft.Kernel) launch} returns when
 * every thread has finished; {@link dev.weft.runtime.Stream}s queue launches asynchronously, in order per
 * stream, and {@link dev.weft.runtime.Event}s join streams.
 *
 * {@snippet :
 * try (Device device = Device.create()) {
 *     Stream copy = device.createStream();
 *     Stream compute = device.createStream();
 *     copy.launch(grid, block, fill);
 *     compute.waitFor(copy.record());          // compute starts after fill has finished
 *     CompletableFuture<Void> done = compute.launch(grid, block, scale);
 *     done.join();
 * }
 * }
 *
 * <h2>Executors</h2>
 * Every kernel can run on the <em>reference executor</em>: each thread runs the lambda as ordinary Java,
 * suspended at barriers and warp operations. It is the specification, and the debugging mode
 * ({@link dev.weft.runtime.ExecutorChoice#REFERENCE}, or {@code -Dweft.executor=reference}). A backend found
 * on the class path (the SIMD backend) compiles the kernels it can; {@link
 * dev.weft.runtime.Device#compileReport} says which executor runs a kernel and why.
 *
 * <h2>Profiling</h2>
 * {@link dev.weft.runtime.Device#profile(dev.weft.runtime.LaunchConfig, dev.weft.Kernel) Device.profile} (and
 * {@link dev.weft.runtime.Stream#profile Stream.profile}) run a launch with counters and return a {@link
 * dev.weft.runtime.LaunchProfile}: CTAs, warps, warp instructions issued and the threads active in them (the
 * warp execution efficiency, as Nsight reports it), and per divergent branch how often it split a warp.
 * A compiled kernel is profiled by a separately compiled variant, so ordinary launches pay nothing; the
 * reference executor counts CTAs and warps only, and says so.
 *
 * <h2>Errors</h2>
 * Launch parameters are checked before any thread runs; a kernel's failure becomes a
 * {@link dev.weft.runtime.KernelException} naming the CTA and thread; a barrier or warp operation not
 * reached by all threads fails the launch instead of hanging. After any of these the device stays usable.
 * {@link dev.weft.runtime.Stream} documents how a failure affects later launches on its stream.
 *
 * <h2>Performance notes</h2>
 * An empty one-CTA launch costs a few microseconds; the calling thread runs CTAs itself while it waits.
 * On the reference executor a barrier costs about 0.16 µs per thread; kernels that cannot wait run without
 * suspending threads at all. Create a kernel's lambda once per call site: the executor is chosen and
 * compiled once per lambda class.
 *
 * <p>Null policy: no method of this package accepts {@code null}; methods return {@code null} never.
 */
package dev.weft.runtime;
