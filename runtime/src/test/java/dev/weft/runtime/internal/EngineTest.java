package dev.weft.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The work distributor's threads: how many idle workers may spin, and a waiting caller that must not miss work. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineTest {

    private static LaunchJob countingJob(int ctas, AtomicInteger runs, int smCount) {
        Kernel k = t -> { };
        return new LaunchJob(k, cta -> runs.incrementAndGet(), Dim3.of(ctas), Dim3.of(1), 32, smCount, 1024, "test limit");
    }

    @Test
    void maxSpinning_isOneLessThanTheBusyThreadsTheMachineHolds() {
        try (Engine twoOnFour = new Engine("t", 2, 4);
                Engine fourOnTwo = new Engine("t", 4, 2);
                Engine one = new Engine("t", 1, 8)) {
            assertEquals(1, twoOnFour.maxSpinning());
            assertEquals(1, fourOnTwo.maxSpinning()); // the caller is the second busy thread on 2 processors
            assertEquals(0, one.maxSpinning()); // one SM: the caller takes its place, the worker parks
        }
    }

    @Test
    void helpUntil_launchSubmittedLaterWithNoWorkerWoken_callerRunsIt() throws InterruptedException {
        try (Engine engine = new Engine("t", 1, 1)) {
            AtomicInteger runs = new AtomicInteger();
            LaunchJob job = countingJob(5, runs, 1);
            Thread late = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(30); // past the caller's spinning and yielding: it has parked by now
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                engine.submit(job, 0); // wakes nobody: the waiting caller must look at the queue again
            });
            engine.helpUntil(job.done());
            late.join();
            assertTrue(job.done().isDone());
            assertEquals(5, runs.get());
        }
    }

    @Test
    void submit_asyncLaunchWakingEverySm_runsWithoutAHelper() throws Exception {
        try (Engine engine = new Engine("t", 3, 2)) {
            for (int round = 0; round < 200; round++) {
                AtomicInteger runs = new AtomicInteger();
                LaunchJob job = countingJob(1 + round % 40, runs, 3);
                engine.submit(job, engine.smCount());
                job.done().get(20, TimeUnit.SECONDS);
                assertEquals(1 + round % 40, runs.get(), "round " + round);
                if (round % 50 == 0) {
                    Thread.sleep(2); // let the workers park between some rounds: waking them must work too
                }
            }
        }
    }

    @Test
    void close_whileACallerIsParkedOnARunningLaunch_theLaunchCompletes_andWakesTheCaller() throws Exception {
        Engine engine = new Engine("t", 1, 1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        LaunchJob running = new LaunchJob(t -> { }, cta -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, Dim3.of(1), Dim3.of(1), 32, 1, 1024, "test limit");
        engine.submit(running, 1);
        started.await(); // its only CTA is claimed: nothing left for the caller to run
        Thread waiter = Thread.ofPlatform().start(() -> engine.helpUntil(running.done()));
        Thread.sleep(20); // the waiter has spun, yielded and parked by now
        engine.close();
        release.countDown();
        waiter.join();
        running.done().get(10, TimeUnit.SECONDS); // a claimed launch is running, not queued: close lets it finish
        assertTrue(running.done().isDone());
    }
}
