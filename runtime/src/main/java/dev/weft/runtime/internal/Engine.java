package dev.weft.runtime.internal;

import dev.weft.runtime.spi.Cta;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The work distributor and its SMs: a queue of launches whose CTAs idle SM workers pull a chunk at a time, so
 * an uneven grid balances itself, as the GPU's compute work distributor streams CTAs to free SMs.
 *
 * <p>Implementation notes. Each SM worker is a platform daemon thread with its own {@link Cta} (and with
 * it the SM's shared memory, reused from CTA to CTA). A thread waiting for a launch ({@link #helpUntil})
 * runs CTAs itself instead of blocking, in the place of one SM: a synchronous launch wakes one worker fewer
 * than the device has SMs, so it runs on {@code smCount} threads, the caller included, and a one-CTA launch
 * never leaves the caller's thread. CTAs are claimed from the launch's atomic counter, so any thread takes
 * any chunk still unclaimed: a late or descheduled thread delays only the chunk it holds.
 *
 * <p>No more threads wait busily than the machine has processors: a thread that spins while a core is
 * taken from the process steals the time of the thread it waits for, and a worker descheduled in the
 * middle of a chunk stalls the whole launch for a scheduler time slice (milliseconds). Before this design
 * two workers spun between launches and the caller helped: 3 busy threads on 2 cores, and saxpy (2^20
 * floats) was bimodal across JMH forks, 0.79 or 0.33 of the hand-written Vector API code, the slow forks
 * being those where another process held a core. So: at most {@code min(smCount, processors) - 1} idle workers spin for the next
 * launch ({@link #maxSpinning}), for {@link #WORKER_SPIN_NANOS} at most, then park; the caller of a launch
 * spins for {@link #CALLER_SPIN_NANOS} once it finds nothing left to claim, then parks until the launch
 * completes. A thread that parks also fares better when it has to share its core: the scheduler favours a
 * thread that sleeps over one that spins, so it runs its chunks at once instead of losing a time slice in
 * the middle of one. Rejected: {@code Thread.yield()} while waiting. Since Linux 6.17 (EEVDF,
 * {@code yield_task_fair}) a yield forfeits the rest of the thread's time slice whenever another thread
 * wants the core, so a caller that yielded while waiting for a worker would then queue behind the thread
 * that took the core, for milliseconds, on the launch's critical path.
 *
 * <p>The wake-up is a Dekker handshake on volatiles: a worker leaving its spin publishes {@code parked}
 * and re-checks the queue before parking; the submitter publishes the launch before reading
 * {@code spinning} and {@code parked}; so a wake-up is never lost, and a worker counted as spinning sees
 * the launch before it parks. A parked caller is unparked by the launch's completion, and also re-checks
 * the queue every {@link #CALLER_PARK_NANOS} (its launch may be submitted only when a predecessor on its
 * stream finishes, with no worker woken for it).
 *
 * <p>What saxpy's two launch speeds are (2^20 floats, 2 KVM cores; traced per launch in a scratch build that
 * logged submit, unpark, park and each thread's chunks). On a machine with nothing else running, slow launches
 * (about 190 µs) and fast ones (about 100 µs) go through this class identically: the one idle worker is spinning
 * when the launch is queued (93% of slow launches, 100% of fast ones), both threads start within 1 µs, split the
 * 128 chunks 64/64 (p10-p90 51-77), finish within 3 µs of each other (p10-p90), and the caller parks in under 1%
 * of them; only each chunk takes twice as long on both threads. In the same seconds a single-threaded saxpy over
 * its own private 8 MiB slows alike (from 122 to 180-290 µs) while a compute-only loop keeps its 37.1 µs, and the
 * hand-written Vector API saxpy interleaved launch by launch slows by the same factor: the memory system's speed,
 * not ours. It splits {@code SaxpyBenchmark}'s per-fork ratio because the two variants run in forks minutes apart;
 * {@code PairedBenchmark} measures them in the same seconds. A core taken by another process is different,
 * and does cost Weft more: with one busy process, 84% of launches ran on one thread only (the woken worker
 * displaced the caller, or never ran), and weft/vectorApi fell from 0.94-1.0 (steady windows) to 0.76-0.83, in
 * alternating 1-s windows of one JVM. Tried there and rejected (A/B in one JVM, alternating 0.2-s windows, time of
 * B over time of A, mean ± standard error): idle workers that never spin 1.046 ± 0.020; a caller that parks at
 * once 1.06 ± 0.05, and with neither spinning 1.06 ± 0.04; workers that {@code Thread.yield()} while they spin,
 * with 64-CTA chunks, 1.006 ± 0.018 (0.989 ± 0.013 with no core taken). Traced with the busy process, 37% of
 * launches ran on the woken worker alone, which had taken the caller's core: the caller returned 39 µs after the
 * launch completed, the worker's idle spin; but a worker that parks at once after completing a launch the caller
 * claimed no chunk of took 1.022 ± 0.022. Also rejected, without the busy process: the caller claiming chunks from
 * the front of the grid and the workers from the back, so each core keeps its half of the data from launch to
 * launch (front-only took 1.019 ± 0.012 the time of two-ended); 128-CTA chunks instead of 32 (0.976 ± 0.026).
 */
public final class Engine implements AutoCloseable {

    /**
     * How long an idle worker waits busily for the next launch before parking: longer than the caller's gap
     * between back-to-back launches (a few microseconds), shorter than a launch.
     */
    static final long WORKER_SPIN_NANOS = 30_000;
    /** How long a caller with nothing left to claim spins for the launch's last chunks before parking. */
    static final long CALLER_SPIN_NANOS = 20_000;
    /** How long a parked caller sleeps before it looks at the queue again. */
    static final long CALLER_PARK_NANOS = 1_000_000;

    private final ConcurrentLinkedQueue<LaunchJob> queue = new ConcurrentLinkedQueue<>();
    private final Worker[] workers;
    private final ThreadLocal<Cta> helperCta = new ThreadLocal<>() {
        // Not withInitial(Cta::new), nor a lambda below: each spins a class the first time it runs, on a first launch.
        @Override
        protected Cta initialValue() {
            return new Cta();
        }
    };
    /** Idle workers now spinning for work. */
    private final AtomicInteger spinning = new AtomicInteger();
    /** The most idle workers that may spin at once: the helping caller is the last busy thread. */
    private final int maxSpinning;
    private volatile boolean closed;

    public Engine(String deviceName, int smCount) {
        this(deviceName, smCount, Runtime.getRuntime().availableProcessors());
    }

    /** An engine of {@code smCount} SM workers on a machine of {@code processors} processors. */
    Engine(String deviceName, int smCount, int processors) {
        maxSpinning = Math.max(0, Math.min(smCount, processors) - 1);
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

    /** The most idle workers that may spin at once. */
    int maxSpinning() {
        return maxSpinning;
    }

    /** The number of SM workers. */
    public int smCount() {
        return workers.length;
    }

    /**
     * Queues a launch and engages up to {@code wake} SMs for it (fewer when the launch has fewer CTAs): workers
     * spinning for work count first, parked ones are woken for the rest.
     */
    public void submit(LaunchJob job, int wake) {
        if (closed) {
            job.skip(new IllegalStateException("device is closed"));
            return;
        }
        queue.offer(job);
        long want = Math.min(job.ctaCount(), wake) - spinning.get();
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
     * an SM while it would otherwise only wait.
     */
    public void helpUntil(CompletableFuture<?> f) {
        Cta cta = helperCta.get();
        boolean unparkOnDone = false;
        boolean interrupted = false;
        while (!f.isDone()) {
            if (runSome(cta) || (unparkOnDone ? !queue.isEmpty() : awaitWorkOrDone(f))) {
                continue;
            }
            // Nothing to claim for a while: the launch's last CTAs run on other SMs, or it is not yet submitted.
            if (!unparkOnDone) {
                Thread caller = Thread.currentThread();
                f.whenComplete(new java.util.function.BiConsumer<Object, Throwable>() {
                    @Override
                    public void accept(Object ok, Throwable failed) {
                        LockSupport.unpark(caller);
                    }
                });
                unparkOnDone = true;
            }
            // An interrupt does not end the wait (the launch runs on), but would make parkNanos return at once.
            interrupted |= Thread.interrupted();
            if (!f.isDone()) {
                LockSupport.parkNanos(f, CALLER_PARK_NANOS);
            }
        }
        if (interrupted || Thread.interrupted()) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits busily, with nothing to claim, until {@code f} is done or a launch is queued; false when
     * {@link #CALLER_SPIN_NANOS} have passed and the caller should park.
     */
    private boolean awaitWorkOrDone(CompletableFuture<?> f) {
        long start = System.nanoTime();
        for (int i = 1; ; i++) {
            if (f.isDone() || !queue.isEmpty()) {
                return true;
            }
            Thread.onSpinWait();
            if ((i & 63) == 0 && System.nanoTime() - start > CALLER_SPIN_NANOS) {
                return false;
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

    /** One SM: a duty cycle of claiming CTAs, spinning briefly when idle (if few enough others do), then parking. */
    private final class Worker implements Runnable {
        Thread thread;
        volatile boolean parked;
        private final Cta cta = new Cta();

        @Override
        public void run() {
            while (!closed) {
                if (runSome(cta) || spinForWork()) {
                    continue;
                }
                parked = true;
                if (queue.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                parked = false;
                if (Thread.currentThread().isInterrupted()) {
                    return; // whoever interrupted an SM wants it gone; the flag stays set
                }
            }
        }

        /**
         * Waits busily for a launch for {@link #WORKER_SPIN_NANOS}, if fewer than {@link #maxSpinning} workers
         * do already; true if one was queued meanwhile.
         */
        private boolean spinForWork() {
            if (spinning.incrementAndGet() > maxSpinning) {
                spinning.decrementAndGet();
                return false;
            }
            try {
                long start = System.nanoTime();
                for (int i = 1; ; i++) {
                    if (!queue.isEmpty() || closed) {
                        return true;
                    }
                    Thread.onSpinWait();
                    if ((i & 63) == 0 && System.nanoTime() - start > WORKER_SPIN_NANOS) {
                        return false;
                    }
                }
            } finally {
                spinning.decrementAndGet();
            }
        }
    }
}
