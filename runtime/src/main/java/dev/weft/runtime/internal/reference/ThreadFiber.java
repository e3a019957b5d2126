package dev.weft.runtime.internal.reference;

import java.util.concurrent.locks.LockSupport;

/**
 * A fiber as a virtual thread that passes a baton with the scheduler: only the holder of the baton runs.
 * Used when continuations are not exported to Weft.
 */
final class ThreadFiber implements Fiber {

    /**
     * Whether to use this implementation even where continuations are available: for tests, and for
     * measuring the fallback ({@code -Dweft.reference.virtualThreads=true}).
     */
    static volatile boolean forced = Boolean.getBoolean("weft.reference.virtualThreads");

    /** Thrown inside a cancelled fiber to unwind the kernel thread's stack. */
    private static final class Cancelled extends Error {
        private static final long serialVersionUID = 1L;

        Cancelled() {
            super("CTA cancelled", null, false, false);
        }
    }

    private final Thread thread;
    private volatile Thread scheduler;
    private volatile boolean fiberTurn;
    private volatile boolean done;
    private volatile boolean cancelled;

    ThreadFiber(Runnable body) {
        this.thread = Thread.ofVirtual().name("weft-reference-thread").unstarted(() -> {
            try {
                waitForTurn();
                body.run();
            } catch (Cancelled ignored) {
                // the CTA was abandoned
            } finally {
                done = true;
                fiberTurn = false;
                LockSupport.unpark(scheduler);
            }
        });
    }

    @Override
    public void resume() {
        scheduler = Thread.currentThread();
        fiberTurn = true;
        if (thread.getState() == Thread.State.NEW) {
            thread.start();
        } else {
            LockSupport.unpark(thread);
        }
        while (fiberTurn) {
            LockSupport.park(this);
        }
    }

    @Override
    public boolean isDone() {
        return done;
    }

    @Override
    public void suspend() {
        if (cancelled) {
            throw new Cancelled(); // a kernel that caught Cancelled must not park again: cancel() waits for it
        }
        fiberTurn = false;
        LockSupport.unpark(scheduler);
        waitForTurn();
    }

    private void waitForTurn() {
        while (!fiberTurn) {
            LockSupport.park(this);
        }
        if (cancelled) {
            throw new Cancelled();
        }
    }

    /**
     * Unwinds the suspended kernel thread and waits until it has finished: its {@link RefThread} is reused by
     * the next CTA on this SM, and an unwinding thread still writes to it (its state, its failure).
     */
    @Override
    public void cancel() {
        if (!done && thread.getState() != Thread.State.NEW) {
            scheduler = Thread.currentThread();
            cancelled = true;
            fiberTurn = true;
            LockSupport.unpark(thread);
            while (!done) {
                LockSupport.park(this);
            }
        }
    }
}
