package dev.weft.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * A point in a stream's work: complete when every launch queued on the stream before it was recorded has
 * finished. Another stream can {@linkplain Stream#waitFor wait} for it; the host can
 * {@linkplain #synchronize() block} on it or compose its {@linkplain #future() future}.
 *
 * <p>CUDA: {@code cudaEvent_t}, recorded with {@code cudaEventRecord}.
 */
public final class Event {

    private final CompletableFuture<Void> future;

    Event(CompletableFuture<Void> future) {
        this.future = future;
    }

    /** Whether the work before this event has finished (successfully or not). CUDA: {@code cudaEventQuery}. */
    public boolean isComplete() {
        return future.isDone();
    }

    /**
     * Blocks until the work before this event has finished.
     *
     * @throws KernelException if a launch before it failed
     * @throws LaunchSkippedException if a launch before it was skipped after an earlier failure
     * CUDA: {@code cudaEventSynchronize}.
     */
    public void synchronize() {
        Stream.await(future);
    }

    /** A future that completes with this event; completing it does not affect the event. */
    public CompletableFuture<Void> future() {
        return future.copy();
    }

    CompletableFuture<Void> internalFuture() {
        return future;
    }
}
