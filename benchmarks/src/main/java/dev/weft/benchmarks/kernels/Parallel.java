package dev.weft.benchmarks.kernels;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * How the hand-written multi-threaded variants split their work, chosen to match Weft's own: one worker
 * per available processor, the calling thread being one of them (as it is one of Weft's SMs during a
 * launch), pulling chunks from a shared counter (as SMs pull CTAs from the work distributor), so an uneven
 * workload such as mandelbrot balances itself the same way.
 *
 * <p>The helper threads wait for the next call as Weft's SM workers wait for the next launch: busily for
 * {@value #SPIN_NANOS} ns, then parked. With a plain thread pool (helpers parked at once, woken per call) the
 * helper of a benchmark calling back to back joined each call late, which made Weft look faster than it is:
 * on a quiet machine, 2^20-float saxpy calls took 67-75 µs with the caller doing 55-58% of the chunks, and
 * 52 µs with 50% this way. The caller returns once every chunk is done, not waiting for a helper that
 * arrives after the last one was taken.
 */
public final class Parallel {

    /** The workers: available processors, the caller included. */
    public static final int WORKERS = Runtime.getRuntime().availableProcessors();

    /** How long a helper waits busily for the next call before parking: Weft's SM workers' spin. */
    static final long SPIN_NANOS = 30_000;

    private static final Helper[] HELPERS = startHelpers();

    /** The latest call's work; helpers take chunks of it until none is left. */
    private static volatile Job current;

    private Parallel() {
    }

    /** Runs {@code chunk.accept(c)} for every {@code c} in {@code [0, chunks)} on {@link #WORKERS} threads. */
    public static synchronized void forEachChunk(int chunks, IntConsumer chunk) {
        if (chunks <= 0) {
            return;
        }
        Job job = new Job(chunks, chunk, Thread.currentThread());
        current = job;
        for (Helper h : HELPERS) {
            if (h.parked) {
                LockSupport.unpark(h.thread);
            }
        }
        job.work();
        job.awaitDone();
        current = null;
        if (job.failure != null) {
            throw new IllegalStateException("a worker failed", job.failure);
        }
    }

    private static Helper[] startHelpers() {
        Helper[] helpers = new Helper[Math.max(0, WORKERS - 1)];
        for (int i = 0; i < helpers.length; i++) {
            helpers[i] = new Helper();
            helpers[i].thread = new Thread(helpers[i], "bench-worker");
            helpers[i].thread.setDaemon(true);
            helpers[i].thread.start();
        }
        return helpers;
    }

    /** One call's chunks: the next to take, and how many are done. */
    private static final class Job {
        final int chunks;
        final IntConsumer chunk;
        final Thread caller;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger done = new AtomicInteger();
        volatile boolean callerParked;
        volatile Throwable failure;

        Job(int chunks, IntConsumer chunk, Thread caller) {
            this.chunks = chunks;
            this.chunk = chunk;
            this.caller = caller;
        }

        void work() {
            for (int c; (c = next.getAndIncrement()) < chunks; ) {
                try {
                    chunk.accept(c);
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    if (done.incrementAndGet() == chunks && callerParked) {
                        LockSupport.unpark(caller);
                    }
                }
            }
        }

        /** Returns when every chunk is done: busily for a while (chunks end within microseconds), then parked. */
        void awaitDone() {
            long start = System.nanoTime();
            for (int i = 1; done.get() < chunks; i++) {
                Thread.onSpinWait();
                if ((i & 63) == 0 && System.nanoTime() - start > SPIN_NANOS) {
                    callerParked = true;
                    while (done.get() < chunks) {
                        LockSupport.park(this);
                    }
                    return;
                }
            }
        }
    }

    private static final class Helper implements Runnable {
        Thread thread;
        volatile boolean parked;

        @Override
        public void run() {
            Job last = null;
            while (true) {
                Job job = awaitJob(last);
                last = job;
                job.work();
            }
        }

        /** The next call's job once there is one: busily for {@link #SPIN_NANOS}, then parked. */
        private Job awaitJob(Job last) {
            long start = System.nanoTime();
            for (int i = 1; ; i++) {
                Job job = current;
                if (job != null && job != last) {
                    return job;
                }
                Thread.onSpinWait();
                if ((i & 63) == 0 && System.nanoTime() - start > SPIN_NANOS) {
                    break;
                }
            }
            while (true) {
                parked = true;
                Job job = current;
                if (job != null && job != last) {
                    parked = false;
                    return job;
                }
                LockSupport.park(this);
                parked = false;
            }
        }
    }
}
