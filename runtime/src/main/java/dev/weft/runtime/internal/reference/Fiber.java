package dev.weft.runtime.internal.reference;

/**
 * A kernel thread of the reference executor that can stop in the middle (at a barrier or warp operation)
 * and be resumed later by the CTA's scheduler. Exactly one of the scheduler and its fibers runs at a time.
 *
 * <p>Implementation notes. Two implementations. {@link ContinuationFiber} runs on the JDK's internal
 * one-shot continuations (the machinery under virtual threads): a suspend and resume cost about 150 ns
 * measured here, but need {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}. Without that
 * option, {@link ThreadFiber} runs each kernel thread as a virtual thread handing a baton back and forth
 * with the scheduler: the same semantics, about 30 times slower per suspension. Rejected: a virtual thread
 * per kernel thread meeting at a {@code Phaser} (about 4 µs a barrier measured here, and a real concurrency
 * problem where the sequential schedule makes none).
 */
sealed interface Fiber permits ContinuationFiber, ThreadFiber {

    /** Runs the fiber until it suspends or its body returns. Called by the scheduler only. */
    void resume();

    /** Whether the body has returned (normally or not). */
    boolean isDone();

    /** Suspends the fiber, returning to the scheduler. Called from inside the fiber only. */
    void suspend();

    /** Abandons a suspended fiber: it will never be resumed, and must free what it holds. */
    void cancel();

    /** Creates a fiber for {@code body} with the best mechanism available. */
    static Fiber create(Runnable body) {
        return ContinuationFiber.AVAILABLE && !ThreadFiber.forced ? new ContinuationFiber(body) : new ThreadFiber(body);
    }

    /** The mechanism fibers use now, for reports: {@code "continuation"} or {@code "virtual-thread"}. */
    static String mechanism() {
        return ContinuationFiber.AVAILABLE && !ThreadFiber.forced ? "continuation" : "virtual-thread";
    }
}
