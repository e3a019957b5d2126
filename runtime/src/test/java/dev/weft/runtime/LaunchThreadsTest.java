package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which threads run a launch: the SM workers and, for a synchronous launch, the caller in one SM's place. A
 * launch must run every CTA exactly once however the threads that take its chunks meet, whether or not its
 * caller waits, with one SM or several, and from many host threads at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaunchThreadsTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void launches_manySmallFromSeveralHostThreads_eachCtaRunsOnce(int smCount) throws InterruptedException {
        int hostThreads = 4;
        int launchesPerHost = 200;
        try (Device device = TestDevices.reference(smCount)) {
            List<Thread> hosts = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int h = 0; h < hostThreads; h++) {
                int host = h;
                hosts.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int k = 0; k < launchesPerHost; k++) {
                            int ctas = 1 + (k + host) % 9;
                            int[] runs = new int[ctas];
                            device.launch(Dim3.of(ctas), Dim3.of(8), t -> {
                                if (t.threadIdxX() == 0) {
                                    Atomics.add(runs, t.blockIdxX(), 1);
                                }
                            });
                            for (int c = 0; c < ctas; c++) {
                                assertEquals(1, runs[c], "host " + host + " launch " + k + " CTA " + c);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : hosts) {
                t.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void streamLaunch_callerNeverWaits_runsOnTheWorkers(int smCount) throws Exception {
        try (Device device = TestDevices.reference(smCount)) {
            Stream stream = device.createStream();
            Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
            int[] count = new int[1];
            CompletableFuture<Void> f = stream.launch(Dim3.of(16), Dim3.of(4), t -> {
                ranOn.add(Thread.currentThread());
                Atomics.add(count, 0, 1);
            });
            // Not synchronize(): a future's get does not help, so only the SM workers can run the launch.
            f.get(30, TimeUnit.SECONDS);
            assertEquals(16 * 4, count[0]);
            assertFalse(ranOn.contains(Thread.currentThread()), "the caller did not wait, so it ran no CTA");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void launch_faultWhileCallerHelps_reportsItsCtaAndThread_deviceStaysUsable(int smCount) {
        try (Device device = TestDevices.reference(smCount)) {
            Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(64), Dim3.of(8), t -> {
                ranOn.add(Thread.currentThread());
                if (t.blockIdxX() == 37 && t.threadIdxX() == 5) {
                    throw new IllegalStateException("CTA 37 fails");
                }
            }));
            assertEquals(new Dim3(37, 0, 0), e.blockIdx());
            assertEquals(new Dim3(5, 0, 0), e.threadIdx().orElseThrow());
            int[] count = new int[1];
            device.launch(Dim3.of(64), Dim3.of(8), t -> Atomics.add(count, 0, 1));
            assertEquals(64 * 8, count[0]);
        }
    }

    @Test
    void deviceLaunch_oneSm_afterAsyncLaunchOnDefaultStream_runsAfterIt() {
        try (Device device = TestDevices.reference(1)) {
            CountDownLatch gate = new CountDownLatch(1);
            int[] flag = new int[1];
            int[] seen = new int[1];
            device.defaultStream().launch(Dim3.of(1), Dim3.of(1), t -> {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                flag[0] = 1;
            });
            Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(20); // the caller below is waiting by now, likely parked
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                gate.countDown();
            });
            // Submitted by the worker when the launch above ends, with no worker woken for it (the caller is the SM).
            device.launch(Dim3.of(3), Dim3.of(1), t -> Atomics.add(seen, 0, flag[0]));
            assertEquals(3, seen[0]);
        }
    }

    @Test
    void launch_fromInterruptedThread_completes_andKeepsTheFlag() {
        try (Device device = TestDevices.reference(2)) {
            int[] count = new int[1];
            Thread.currentThread().interrupt();
            try {
                device.launch(Dim3.of(32), Dim3.of(4), t -> Atomics.add(count, 0, 1));
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
            assertEquals(32 * 4, count[0]);
        }
    }

    @Test
    void launch_whileWorkersBusyWithAnotherStream_callerRunsItsOwn() throws Exception {
        try (Device device = TestDevices.reference(1)) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            // Holds the only worker until released.
            CompletableFuture<Void> blocker = device.createStream().launch(Dim3.of(1), Dim3.of(1), t -> {
                started.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            started.await();
            Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
            device.launch(Dim3.of(8), Dim3.of(2), t -> ranOn.add(Thread.currentThread()));
            assertEquals(Set.of(Thread.currentThread()), ranOn);
            gate.countDown();
            blocker.get(30, TimeUnit.SECONDS);
        }
    }
}
