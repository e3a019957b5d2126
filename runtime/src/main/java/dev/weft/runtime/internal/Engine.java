package dev.weft.runtime.internal;

import dev.weft.runtime.spi.Cta;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The work distributor and its SMs: a queue of launches whose CTAs idle SM workers pull one at a time, so
 * an uneven grid balances itself, as the GPU's compute work distributor streams CTAs to free SMs.
 *
 * <p>Implementation notes. Each SM worker is a platform daemon thread with its own {@link Cta} (and with
 * it the SM's shared memory, reused from CTA to CTA). A worker with nothing to do spins briefly, then
 * parks; {@link #submit} unparks as many as the launch has CTAs for. The wake-up is a Dekker handshake on
 * volatiles: the worker publishes {@code parked} and re-checks the queue before parking; the submitter
 * publishes the launch before reading {@code parked}; so a wake-up is never lost. A thread waiting for a
 * launch ({@link #helpUntil}) runs CTAs itself instead of blocking: a one-CTA launch never leaves the
 * caller's thread, which is what makes an empty launch cost microseconds.
 */
public final class Engine implements AutoCloseable {

    private static final int SPINS_BEFORE_PARK = 2_000;

    private final ConcurrentLinkedQueue<LaunchJob> queue = new ConcurrentLinkedQueue<>();
    private final Worker[] workers;
    private final ThreadLocal<Cta> helperCta = ThreadLocal.withInitial(Cta::new);
    private volatile boolean closed;

    public Engine(String deviceName, int smCount) {
        workers = new Worker[smCount];
        for (int i = 0; i < smCount; i++) {
            workers[i] = new Worker();
            Thread t = Thread.ofPlatform().daemon().name(deviceName + "-sm-" + i).unstarted(workers[i]);
            workers[i].thread = t;
        }
        for (Worker w : workers) {
            w.thread.start();
        }
    }

    /** The number of SM workers. */
    public int smCount() {
        return workers.length;
    }

    /**
     * Queues a launch and wakes up to {@code wake} parked SMs (fewer when the launch has fewer CTAs).
     */
    public void submit(LaunchJob job, int wake) {
        if (closed) {
            job.skip(new IllegalStateException("device is closed"));
            return;
        }
        queue.offer(job);
        long want = Math.min(job.ctaCount(), wake);
        for (int i = 0; i < workers.length && want > 0; i++) {
            Worker w = workers[i];
            if (w.parked) {
                LockSupport.unpark(w.thread);
                want--;
            }
        }
    }

    /**
     * Runs queued CTAs on the calling thread until {@code f} completes, then returns. The caller acts as
     * an extra SM while it would otherwise only wait.
     */
    public void helpUntil(CompletableFuture<?> f) {
        Cta cta = helperCta.get();
        int idle = 0;
        while (!f.isDone()) {
            if (runSome(cta)) {
                idle = 0;
            } else if (++idle < SPINS_BEFORE_PARK) {
                Thread.onSpinWait();
            } else {
                // Nothing left to claim: the last CTAs run on other SMs. Block until they finish.
                try {
                    f.join();
                } catch (RuntimeException ignored) {
                    // the caller reads the outcome from f
                }
                return;
            }
        }
    }

    /** Claims and runs one CTA of the oldest launch with CTAs left; false if there is none. */
    private boolean runSome(Cta cta) {
        for (LaunchJob job = queue.peek(); job != null; job = queue.peek()) {
            if (job.runOne(cta)) {
                return true;
            }
            queue.remove(job);
        }
        return false;
    }

    /** Stops the SM workers; launches still queued are skipped. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
        for (LaunchJob job; (job = queue.poll()) != null; ) {
            // A launch whose CTAs are all claimed is running, not queued: the SMs running them complete it.
            if (!job.drained()) {
                job.fail(new IllegalStateException("device closed while the launch was queued"));
            }
        }
    }

    /** One SM: a duty cycle of claiming CTAs, spinning briefly when idle, then parking. */
    private final class Worker implements Runnable {
        Thread thread;
        volatile boolean parked;
        private final Cta cta = new Cta();

        @Override
        public void run() {
            int idle = 0;
            while (!closed) {
                if (runSome(cta)) {
                    idle = 0;
                } else if (++idle < SPINS_BEFORE_PARK) {
                    Thread.onSpinWait();
                } else {
                    parked = true;
                    if (queue.isEmpty() && !closed) {
                        LockSupport.park(this);
                    }
                    parked = false;
                    idle = 0;
                    if (Thread.currentThread().isInterrupted()) {
                        return; // whoever interrupted an SM wants it gone; the flag stays set
                    }
                }
            }
        }
    }
}
