package dev.weft.benchmarks.kernels;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * How the hand-written multi-threaded variants split their work, chosen to match Weft's own: one worker
 * per available processor, the calling thread being one of them (as it is one of Weft's SMs during a
 * launch), pulling chunks from a shared counter (as SMs pull CTAs from the work distributor), so an uneven
 * workload such as mandelbrot balances itself the same way.
 */
public final class Parallel {

    /** The workers: available processors, the caller included. */
    public static final int WORKERS = Runtime.getRuntime().availableProcessors();

    private static final ExecutorService POOL = Executors.newFixedThreadPool(Math.max(1, WORKERS - 1), r -> {
        Thread t = new Thread(r, "bench-worker");
        t.setDaemon(true);
        return t;
    });

    private Parallel() {
    }

    /** Runs {@code chunk.accept(c)} for every {@code c} in {@code [0, chunks)} on {@link #WORKERS} threads. */
    public static void forEachChunk(int chunks, IntConsumer chunk) {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int helpers = Math.min(WORKERS - 1, chunks - 1);
        CountDownLatch done = new CountDownLatch(Math.max(0, helpers));
        Runnable work = () -> {
            for (int c; (c = next.getAndIncrement()) < chunks; ) {
                chunk.accept(c);
            }
        };
        for (int i = 0; i < helpers; i++) {
            POOL.execute(() -> {
                try {
                    work.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                } finally {
                    done.countDown();
                }
            });
        }
        work.run();
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed", failure.get());
        }
    }
}
