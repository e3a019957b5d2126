package dev.weft.runtime;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.internal.Checks;
import dev.weft.runtime.internal.LaunchJob;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * An ordered queue of launches: each starts after the previous one on the same stream has finished;
 * launches on different streams may run at the same time. Launching returns at once with a future.
 *
 * <h2>Errors</h2>
 * Bad launch parameters throw at the call, before anything is queued. A launch that fails while running
 * completes its future with the {@link KernelException}, and poisons its stream: every launch queued after it
 * is skipped, its future failing with {@link LaunchSkippedException} whose cause is the failure, so no launch
 * runs on the bad state a failed one left. {@link #synchronize()} reports the failure by throwing it, and
 * clears it: launches made after that run again. Waiting for an {@link Event} whose work failed poisons the
 * waiting stream the same way.
 *
 * <p>Thread-safe. CUDA: {@code cudaStream_t}.
 */
public final class Stream {

    private final Device device;
    private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
    private Throwable error;

    Stream(Device device) {
        this.device = device;
    }

    /**
     * Queues a launch of {@code grid} CTAs of {@code block} threads.
     *
     * @return a future completing when the launch has run, exceptionally if it failed or was skipped
     * @throws IllegalArgumentException if a dimension is out of its limit (the message names it)
     * @throws NullPointerException if an argument is null
     * CUDA: {@code kernel<<<grid, block, 0, stream>>>(...)}.
     */
    public CompletableFuture<Void> launch(Dim3 grid, Dim3 block, Kernel kernel) {
        return launch(LaunchConfig.of(grid, block), kernel);
    }

    /**
     * Queues a launch described by {@code config}.
     *
     * @return a future completing when the launch has run, exceptionally if it failed or was skipped; it is
     *         done once {@link #synchronize()} has returned. Only the runtime completes it: {@code complete}
     *         and its kind throw {@link UnsupportedOperationException}, {@code cancel} returns false.
     * @throws IllegalArgumentException if a dimension or the shared memory size is out of its limit
     * @throws NullPointerException if an argument is null
     * CUDA: {@code kernel<<<grid, block, sharedMemoryBytes, stream>>>(...)}.
     */
    public CompletableFuture<Void> launch(LaunchConfig config, Kernel kernel) {
        return enqueue(device.prepare(config, kernel, false), device.smCount());
    }

    /**
     * Queues a profiled launch described by {@code config}: as {@link #launch(LaunchConfig, Kernel)}, counting
     * what its warps do (see {@link Device#profile(LaunchConfig, Kernel)} and {@link LaunchProfile}).
     *
     * @return a future of the launch's profile, completing exceptionally if the launch failed or was skipped
     * @throws IllegalArgumentException if a dimension or the shared memory size is out of its limit
     * @throws NullPointerException if an argument is null
     * CUDA: a launch on {@code stream} under a profiler.
     */
    public CompletableFuture<LaunchProfile> profile(LaunchConfig config, Kernel kernel) {
        LaunchJob job = device.prepare(config, kernel, true);
        return enqueue(job, device.smCount()).thenApply(done -> job.profile());
    }

    /** Queues {@code job}, waking up to {@code wake} SMs once it may start; returns its own future. */
    CompletableFuture<Void> enqueue(LaunchJob job, int wake) {
        CompletableFuture<Void> prev;
        synchronized (this) {
            prev = tail;
            tail = job.done();
        }
        // Not a lambda: each lambda spins a class the first time it runs, a cost of a device's first launch.
        prev.whenComplete(new java.util.function.BiConsumer<Void, Throwable>() {
            @Override
            public void accept(Void ok, Throwable failed) {
                start(job, failed, wake);
            }
        });
        return job.done();
    }

    private void start(LaunchJob job, Throwable failedBefore, int wake) {
        try {
            startOrSkip(job, failedBefore, wake);
        } catch (Throwable bug) {
            // Runs inside whenComplete, whose outcome nobody reads: a throw here would leave the launch
            // pending forever and synchronize() hanging. Fail the launch instead.
            job.skip(bug);
        }
    }

    private void startOrSkip(LaunchJob job, Throwable failedBefore, int wake) {
        Throwable poison;
        synchronized (this) {
            if (error == null && failedBefore != null) {
                error = rootFailure(failedBefore);
            }
            poison = error;
        }
        if (poison != null) {
            job.skip(new LaunchSkippedException(
                    "launch skipped: an earlier launch on this stream failed (" + poison.getMessage() + ")", poison));
        } else {
            device.engine().submit(job, wake);
        }
    }

    /**
     * An event that completes when everything queued on this stream so far has finished.
     * CUDA: {@code cudaEventRecord(event, stream)}.
     */
    public Event record() {
        synchronized (this) {
            return new Event(tail);
        }
    }

    /**
     * Makes launches queued on this stream from now on wait for {@code event}, which may belong to
     * another stream. If the event's work fails, this stream is poisoned by that failure.
     * CUDA: {@code cudaStreamWaitEvent(stream, event)}.
     */
    public void waitFor(Event event) {
        CompletableFuture<Void> other = Checks.notNull("event", event).internalFuture();
        synchronized (this) {
            tail = CompletableFuture.allOf(tail, other);
        }
    }

    /**
     * Blocks until every launch queued on this stream has finished, running CTAs on the calling thread
     * meanwhile. Reports the stream's first failure since the last call by throwing it, and clears it.
     *
     * @throws KernelException if a launch failed
     * CUDA: {@code cudaStreamSynchronize}.
     */
    public void synchronize() {
        CompletableFuture<Void> waitingFor;
        synchronized (this) {
            waitingFor = tail;
        }
        device.engine().helpUntil(waitingFor);
        Throwable failure;
        synchronized (this) {
            failure = error;
            if (failure == null && waitingFor.isCompletedExceptionally()) {
                failure = rootFailure(waitingFor.exceptionNow());
            }
            error = null;
            if (tail == waitingFor && waitingFor.isCompletedExceptionally()) {
                tail = CompletableFuture.completedFuture(null);
            }
        }
        if (failure != null) {
            throw asRuntime(failure);
        }
    }

    /** Whether every launch queued so far has finished. CUDA: {@code cudaStreamQuery}. */
    public synchronized boolean isIdle() {
        return tail.isDone();
    }

    static void await(CompletableFuture<?> f) {
        try {
            f.get();
        } catch (ExecutionException e) {
            throw asRuntime(unwrap(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException("interrupted while waiting", e);
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * The failure that poisons a stream: through wrappers, and through skipped launches (an event recorded
     * after one carries its skip to other streams) to the launch that really failed.
     */
    private static Throwable rootFailure(Throwable t) {
        Throwable f = unwrap(t);
        while (f instanceof LaunchSkippedException skipped && skipped.getCause() != null) {
            f = unwrap(skipped.getCause());
        }
        return f;
    }

    static RuntimeException asRuntime(Throwable t) {
        return t instanceof RuntimeException r ? r : new CompletionException(t);
    }
}
