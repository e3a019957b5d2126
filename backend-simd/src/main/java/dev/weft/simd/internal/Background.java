package dev.weft.simd.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The compiler's background threads (the warm-up, the methods per resume point, the binder's handle chain), and
 * the gate that makes some of their work give way while a user's compile runs.
 *
 * <p>Why. On two cores a user's first compile shared the CPU with the warm-up (compiling, then running CTAs in
 * the interpreter for some 3 s), the JIT threads and the compiler's other background work: measured by thread
 * (fresh JVMs, per-thread CPU from /proc during the compile), a tiled sgemm compiled 0.5 s after the device was
 * created got 135 ms of CPU while the warm-up took 140 and the JIT threads 230. Java thread priorities do not
 * reach the Linux scheduler by default, so background work checks this gate at its phase boundaries and waits
 * while any user compile is under way: the warm-up's CTA runs, the second tier's methods, the binder's chains.
 * The warm-up's own compiles do not wait: they load and link the classes a user's compile needs (tried: with
 * them waiting too, a saxpy compiled 0.5 s after the device was created took 22-42 ms of the compiling thread's
 * CPU instead of 16-18, the work the warm-up no longer did for it). A checkpoint never waits longer than
 * {@link #MAX_WAIT_NANOS}, so a compile that waited on background work could only be slowed, not stopped.
 */
public final class Background {

    /** User (foreground) compiles under way. */
    private static final AtomicInteger FOREGROUND = new AtomicInteger();
    /** Background jobs whose results a launch will use (the methods per resume point) still under way. */
    private static final AtomicInteger PENDING = new AtomicInteger();
    /** Background jobs that ended in an internal error (logged; see {@link #internalErrors}). */
    private static final AtomicInteger INTERNAL_ERRORS = new AtomicInteger();
    /** The longest one checkpoint waits for foreground compiles: longer than any compile measured here. */
    public static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often a waiting background thread looks again. */
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    private Background() {
    }

    /**
     * A daemon thread of the compiler's background work, at minimum priority. (A class, not lambdas: this runs on
     * a user's first compile, where each lambda's first use spins a class.)
     */
    private static final class Worker extends Thread {
        private final Runnable task;
        private final boolean pending;

        Worker(Runnable task, String name, boolean pending) {
            super(name);
            this.task = task;
            this.pending = pending;
            setDaemon(true);
            setPriority(Thread.MIN_PRIORITY);
        }

        @Override
        public void run() {
            try {
                task.run();
            } finally {
                if (pending) {
                    PENDING.decrementAndGet();
                }
            }
        }
    }

    /** Starts {@code task} on a new background thread. */
    static void start(String name, Runnable task) {
        new Worker(task, name, false).start();
    }

    /** Starts a job whose result launches will pick up (see {@link #awaitIdle}). */
    static void startPending(String name, Runnable task) {
        PENDING.incrementAndGet();
        new Worker(task, name, true).start();
    }

    /** Whether the current thread is one of the compiler's background threads. */
    static boolean isBackground() {
        return Thread.currentThread() instanceof Worker;
    }

    /** A user's compile starts: background work waits at its next checkpoint. Pair with {@link #foregroundEnd}. */
    public static void foregroundBegin() {
        FOREGROUND.incrementAndGet();
    }

    /** A user's compile ended. */
    public static void foregroundEnd() {
        FOREGROUND.decrementAndGet();
    }

    /**
     * A compile starts on the current thread: a user's (background work waits meanwhile) unless this is a background
     * thread. Pass the result to {@link #compileEnd}.
     */
    static boolean compileBegin() {
        boolean foreground = !isBackground();
        if (foreground) {
            foregroundBegin();
        }
        return foreground;
    }

    /** The compile {@link #compileBegin} began ended. */
    static void compileEnd(boolean foreground) {
        if (foreground) {
            foregroundEnd();
        }
    }

    /**
     * A checkpoint of background work: on a background thread, waits while a user's compile is under way (at
     * most {@link #MAX_WAIT_NANOS}); elsewhere returns at once.
     */
    public static void yieldToForeground() {
        if (isBackground()) {
            waitForForeground();
        }
    }

    /** Waits while a user's compile is under way (at most {@link #MAX_WAIT_NANOS}). */
    private static void waitForForeground() {
        if (FOREGROUND.get() == 0) {
            return;
        }
        long deadline = System.nanoTime() + MAX_WAIT_NANOS;
        while (FOREGROUND.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /**
     * Waits until no background job that launches pick up is under way (for tests: the methods per resume point
     * of every kernel compiled so far are then in place, or known not to fit).
     *
     * @return whether they all ended within {@code millis}
     */
    public static boolean awaitIdle(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (PENDING.get() > 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    /**
     * A background job failed with an internal error: logs {@code what} and its cause, and counts it (see {@link
     * #internalErrors}). The kernel runs on without the job's result: the same results, more slowly.
     */
    static void internalError(String what, Throwable cause) {
        INTERNAL_ERRORS.incrementAndGet();
        System.getLogger("dev.weft").log(System.Logger.Level.WARNING, "weft: internal error (please report): " + what + ": " + cause);
    }

    /**
     * Background jobs so far that ended in an internal error. Such a failure changes no result, only speed, so a
     * differential test cannot see it: tests assert that this stays 0.
     */
    public static int internalErrors() {
        return INTERNAL_ERRORS.get();
    }
}
