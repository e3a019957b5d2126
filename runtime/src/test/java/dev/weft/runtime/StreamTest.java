package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streams, events and futures, and their error semantics as {@link Stream}'s javadoc states them: a failed
 * launch fails its future, poisons its stream (later launches are skipped with
 * {@link LaunchSkippedException} whose cause is the failure) until {@code synchronize()} reports and clears
 * it. And {@link Device#close()}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StreamTest {

    private Device device;
    private final int[] counter = new int[1];
    /** Counts its threads: 2 CTAs of 32. */
    private final Kernel counting = t -> Atomics.add(counter, 0, 1);

    @BeforeEach
    void createDevice() {
        device = TestDevices.reference(2);
    }

    @AfterEach
    void closeDevice() {
        device.close();
    }

    private CompletableFuture<Void> count(Stream s) {
        return s.launch(Dim3.of(2), Dim3.of(32), counting);
    }

    /** A one-CTA kernel that waits for {@code gate}, then throws in thread 0 if {@code fail}. */
    private static Kernel gated(CountDownLatch gate, boolean fail) {
        return t -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            if (fail && t.threadIdxX() == 0) {
                throw new IllegalStateException("gated launch fails");
            }
        };
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return e.getCause();
    }

    // ---- order, futures, events ----------------------------------------------------------------

    @Test
    void launches_onOneStream_runInOrder_eachAfterThePreviousFinished() throws Exception {
        int launches = 40;
        int ctas = 4;
        int block = 32;
        int[] done = new int[launches];
        int[] violations = new int[1];
        Stream s = device.createStream();
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int k = 0; k < launches; k++) {
            int launch = k;
            futures.add(s.launch(Dim3.of(ctas), Dim3.of(block), t -> {
                if (launch > 0 && Atomics.add(done, launch - 1, 0) != ctas * block) {
                    Atomics.add(violations, 0, 1);
                }
                Atomics.add(done, launch, 1);
            }));
        }
        s.synchronize();
        assertEquals(0, violations[0], "a launch started before the previous one on its stream finished");
        for (int k = 0; k < launches; k++) {
            assertEquals(ctas * block, done[k]);
            assertTrue(futures.get(k).isDone());
            assertNull(futures.get(k).get());
        }
        assertTrue(s.isIdle());
    }

    @Test
    void synchronize_returned_everyLaunchFutureIsDone() {
        Stream s = device.createStream();
        for (int round = 0; round < 300; round++) {
            CompletableFuture<Void> a = count(s);
            CompletableFuture<Void> b = count(s);
            s.synchronize();
            assertTrue(a.isDone() && b.isDone(), "round " + round + ": a launch's future was not done after synchronize");
            CompletableFuture<Void> c = count(s);
            device.synchronize();
            assertTrue(c.isDone(), "round " + round + ": a launch's future was not done after device.synchronize");
        }
        assertEquals(300 * 3 * 64, counter[0]);
    }

    @Test
    void launchFutureCallback_synchronizingItsOwnStream_doesNotWaitForItself() throws Exception {
        Stream s = device.createStream();
        for (int round = 0; round < 50; round++) {
            CompletableFuture<Void> f = count(s);
            CompletableFuture<Void> callback = f.thenRun(s::synchronize);
            assertNull(callback.get(20, TimeUnit.SECONDS));
        }
        s.synchronize();
        assertEquals(50 * 64, counter[0]);
    }

    @Test
    void launch_returnsAtOnce_futureCompletesWhenKernelHasRun() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        Stream s = device.createStream();
        CompletableFuture<Void> f = s.launch(Dim3.of(1), Dim3.of(4), gated(gate, false));
        assertFalse(f.isDone());
        assertFalse(s.isIdle());
        gate.countDown();
        assertNull(f.get(20, TimeUnit.SECONDS));
        s.synchronize();
        assertTrue(s.isIdle());
    }

    @Test
    void launchFuture_cannotBeCompletedOrCancelledByCaller_streamWaitsForTheLaunch() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        int[] order = new int[2];
        int[] step = new int[1];
        Stream s = device.createStream();
        CompletableFuture<Void> first = s.launch(Dim3.of(1), Dim3.of(1), t -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            order[0] = ++step[0];
        });
        assertThrows(UnsupportedOperationException.class, () -> first.complete(null));
        assertThrows(UnsupportedOperationException.class, () -> first.completeExceptionally(new RuntimeException()));
        assertThrows(UnsupportedOperationException.class, () -> first.obtrudeValue(null));
        assertThrows(UnsupportedOperationException.class, () -> first.completeAsync(() -> null));
        assertFalse(first.cancel(true));
        CompletableFuture<Void> timedOut = first.orTimeout(1, TimeUnit.MILLISECONDS);
        assertInstanceOf(java.util.concurrent.TimeoutException.class, failureOf(timedOut));
        assertFalse(first.isDone(), "a timeout applies to a copy, not to the launch");
        CompletableFuture<Void> second = s.launch(Dim3.of(1), Dim3.of(1), t -> order[1] = ++step[0]);
        assertFalse(second.isDone());
        gate.countDown();
        second.get(20, TimeUnit.SECONDS);
        assertTrue(first.isDone());
        assertFalse(first.isCancelled());
        assertEquals(1, order[0]);
        assertEquals(2, order[1]);
    }

    @Test
    void event_joinsStreams_waitingStreamRunsAfterRecordedWork() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        int n = 256;
        int[] produced = new int[n];
        int[] consumed = new int[n];
        Stream producer = device.createStream();
        Stream consumer = device.createStream();
        producer.launch(Dim3.of(1), Dim3.of(1), gated(gate, false));
        producer.launch(Dim3.of(2), Dim3.of(128), t -> produced[t.globalIdX()] = t.globalIdX() + 1);
        Event e = producer.record();
        consumer.waitFor(e);
        CompletableFuture<Void> f = consumer.launch(Dim3.of(2), Dim3.of(128), t -> consumed[t.globalIdX()] = produced[t.globalIdX()] * 2);
        // later launches on the producer are not part of the event
        producer.launch(Dim3.of(1), Dim3.of(1), gated(new CountDownLatch(0), false));
        assertFalse(e.isComplete());
        assertFalse(f.isDone(), "the consumer ran before the event it waits for");
        gate.countDown();
        f.get(20, TimeUnit.SECONDS);
        assertTrue(e.isComplete());
        e.synchronize();
        assertNull(e.future().get());
        for (int i = 0; i < n; i++) {
            assertEquals(2 * (i + 1), consumed[i]);
        }
        device.synchronize();
    }

    @Test
    void event_onIdleStream_isComplete() {
        Event e = device.createStream().record();
        assertTrue(e.isComplete());
        e.synchronize();
    }

    @Test
    void deviceLaunch_afterAsyncLaunchOnDefaultStream_runsAfterIt() {
        CountDownLatch gate = new CountDownLatch(1);
        int[] seen = new int[1];
        int[] flag = new int[1];
        device.defaultStream().launch(Dim3.of(1), Dim3.of(1), t -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            flag[0] = 1;
        });
        Thread.ofPlatform().start(() -> {
            // releases the gate from elsewhere, as the synchronous launch below blocks this thread
            gate.countDown();
        });
        device.launch(Dim3.of(1), Dim3.of(1), t -> seen[0] = flag[0]);
        assertEquals(1, seen[0]);
    }

    @Test
    void streams_launchedFromManyHostThreads_allRunCorrectly() throws InterruptedException {
        int hostThreads = 4;
        int perThread = 15;
        int n = 200;
        int[][] out = new int[hostThreads][n];
        List<Thread> hosts = new ArrayList<>();
        for (int h = 0; h < hostThreads; h++) {
            int host = h;
            hosts.add(Thread.ofPlatform().start(() -> {
                Stream s = device.createStream();
                for (int k = 0; k < perThread; k++) {
                    s.launch(Dim3.of(2), Dim3.of(100), t -> out[host][t.globalIdX()] += t.globalIdX());
                }
                s.synchronize();
            }));
        }
        for (Thread t : hosts) {
            t.join();
        }
        device.synchronize();
        for (int h = 0; h < hostThreads; h++) {
            for (int i = 0; i < n; i++) {
                assertEquals(perThread * i, out[h][i], "host " + h + " element " + i);
            }
        }
    }

    // ---- failures ------------------------------------------------------------------------------

    @Test
    void failedLaunch_failsItsFuture_skipsLaterLaunches_untilSynchronizeReportsAndClears() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        Stream s = device.createStream();
        CompletableFuture<Void> failing = s.launch(Dim3.of(1), Dim3.of(4), gated(gate, true));
        CompletableFuture<Void> queuedBefore1 = count(s); // queued while the failing launch still runs
        CompletableFuture<Void> queuedBefore2 = count(s);
        gate.countDown();
        KernelException failure = assertInstanceOf(KernelException.class, failureOf(failing));
        assertEquals("gated launch fails", failure.getCause().getMessage());
        CompletableFuture<Void> queuedAfter = count(s); // queued after the failure, before synchronize
        for (CompletableFuture<Void> skipped : List.of(queuedBefore1, queuedBefore2, queuedAfter)) {
            LaunchSkippedException e = assertInstanceOf(LaunchSkippedException.class, failureOf(skipped));
            assertSame(failure, e.getCause());
            assertTrue(e.getMessage().contains("gated launch fails"), e.getMessage());
        }
        assertEquals(0, counter[0], "a skipped launch ran");

        assertSame(failure, assertThrows(KernelException.class, s::synchronize), "synchronize reports the failure");
        s.synchronize(); // and clears it

        CompletableFuture<Void> after = count(s);
        assertNull(after.get(20, TimeUnit.SECONDS));
        s.synchronize();
        assertEquals(64, counter[0], "launches made after synchronize run again");
    }

    @Test
    void failedAsyncLaunch_reportedByDeviceSynchronize_thenCleared() throws Exception {
        Stream s = device.createStream();
        Stream other = device.createStream();
        count(other);
        CompletableFuture<Void> f = s.launch(Dim3.of(3), Dim3.of(8), t -> {
            if (t.blockIdxX() == 2 && t.threadIdxX() == 7) {
                throw new UnsupportedOperationException("async");
            }
        });
        KernelException e = assertThrows(KernelException.class, device::synchronize);
        assertEquals(Dim3.of(2, 0, 0), e.blockIdx());
        assertEquals(Dim3.of(7, 0, 0), e.threadIdx().orElseThrow());
        assertSame(e, failureOf(f));
        assertEquals(32 * 2, counter[0], "the other stream ran");
        device.synchronize(); // cleared
        s.synchronize();
        count(s).get(20, TimeUnit.SECONDS);
        assertEquals(32 * 4, counter[0]);
    }

    @Test
    void deviceSynchronize_failuresOnTwoStreams_firstThrown_otherSuppressed_bothCleared() {
        Stream a = device.createStream();
        Stream b = device.createStream();
        Kernel fails = t -> {
            throw new IllegalStateException("stream failure");
        };
        a.launch(Dim3.of(1), Dim3.of(1), fails);
        b.launch(Dim3.of(1), Dim3.of(1), fails);
        KernelException e = assertThrows(KernelException.class, device::synchronize);
        assertEquals(1, e.getSuppressed().length);
        assertInstanceOf(KernelException.class, e.getSuppressed()[0]);
        device.synchronize();
        a.synchronize();
        b.synchronize();
    }

    @Test
    void failedWorkBeforeEvent_poisonsTheWaitingStream() throws Exception {
        Stream s1 = device.createStream();
        Stream s2 = device.createStream();
        CompletableFuture<Void> failing = s1.launch(Dim3.of(1), Dim3.of(1), t -> {
            throw new IllegalStateException("producer fails");
        });
        Event e = s1.record();
        s2.waitFor(e);
        CompletableFuture<Void> skipped = count(s2);
        KernelException failure = assertInstanceOf(KernelException.class, failureOf(failing));
        LaunchSkippedException se = assertInstanceOf(LaunchSkippedException.class, failureOf(skipped));
        assertSame(failure, se.getCause());
        assertSame(failure, assertThrows(KernelException.class, e::synchronize));
        assertTrue(e.isComplete());
        assertSame(failure, assertThrows(KernelException.class, s2::synchronize));
        count(s2).get(20, TimeUnit.SECONDS);
        assertEquals(64, counter[0], "the waiting stream runs again after its synchronize");
        assertSame(failure, assertThrows(KernelException.class, s1::synchronize), "the producer reports its own failure");
    }

    @Test
    void eventAfterSkippedLaunch_poisonsWaitingStreamWithTheOriginalFailure() throws Exception {
        Stream s1 = device.createStream();
        Stream s2 = device.createStream();
        CompletableFuture<Void> failing = s1.launch(Dim3.of(1), Dim3.of(1), t -> {
            throw new IllegalStateException("root");
        });
        count(s1); // skipped; the event below follows it
        Event e = s1.record();
        s2.waitFor(e);
        CompletableFuture<Void> skipped = count(s2);
        KernelException failure = assertInstanceOf(KernelException.class, failureOf(failing));
        LaunchSkippedException se = assertInstanceOf(LaunchSkippedException.class, failureOf(skipped));
        assertSame(failure, se.getCause(), "the cause of a skipped launch is the failure, however far it travelled");
        assertSame(failure, assertThrows(KernelException.class, s2::synchronize));
        assertSame(failure, assertThrows(KernelException.class, s1::synchronize));
        assertEquals(0, counter[0]);
    }

    @Test
    void eventAfterSkippedLaunch_synchronizeThrowsLaunchSkipped() {
        Stream s = device.createStream();
        s.launch(Dim3.of(1), Dim3.of(1), t -> {
            throw new IllegalStateException("first");
        });
        count(s);
        Event e = s.record();
        LaunchSkippedException skipped = assertThrows(LaunchSkippedException.class, e::synchronize);
        assertInstanceOf(KernelException.class, skipped.getCause());
        assertThrows(KernelException.class, s::synchronize);
    }

    @Test
    void deviceLaunch_afterFailedAsyncLaunchOnDefaultStream_reportsThatFailure_thenRuns() {
        CompletableFuture<Void> f = device.defaultStream().launch(Dim3.of(1), Dim3.of(1), t -> {
            throw new IllegalStateException("async on default");
        });
        KernelException failure = assertInstanceOf(KernelException.class, failureOf(f));
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(2), Dim3.of(32), counting));
        assertSame(failure, e, "the synchronous launch reports the stream's pending failure");
        assertEquals(0, counter[0], "and was skipped");
        device.launch(Dim3.of(2), Dim3.of(32), counting);
        assertEquals(64, counter[0]);
    }

    // ---- close ---------------------------------------------------------------------------------

    @Test
    void close_isIdempotent_andLaterLaunchesAreRejected() {
        Stream s = device.createStream();
        device.launch(Dim3.of(1), Dim3.of(1), counting);
        device.close();
        device.close();
        assertEquals("device is closed", assertThrows(IllegalStateException.class,
                () -> device.launch(Dim3.of(1), Dim3.of(1), counting)).getMessage());
        assertEquals("device is closed", assertThrows(IllegalStateException.class, () -> count(s)).getMessage());
        assertEquals("device is closed", assertThrows(IllegalStateException.class, device::createStream).getMessage());
        device.synchronize(); // nothing pending: nothing to report
        assertEquals(1, counter[0]);
    }

    @Test
    void close_withLaunchesQueued_failsThem_runningOneCompletes() throws Exception {
        // One SM: it is busy in the running launch, so no other SM has dropped that launch from the queue.
        device.close();
        device = TestDevices.reference(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Stream s = device.createStream();
        Kernel gatedKernel = gated(gate, false);
        CompletableFuture<Void> running = s.launch(Dim3.of(1), Dim3.of(1), t -> {
            started.countDown();
            gatedKernel.run(t);
        });
        CompletableFuture<Void> queued = count(s);
        started.await();
        device.close();
        gate.countDown();
        assertNull(running.get(20, TimeUnit.SECONDS), "the launch that was running finished");
        Throwable e = failureOf(queued);
        assertTrue(e instanceof IllegalStateException || e instanceof LaunchSkippedException, String.valueOf(e));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertEquals(0, counter[0], "the queued launch did not run");
    }
}
