package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A kernel that throws fails its launch with a {@link KernelException} naming the kernel, the CTA, the
 * thread and the cause; the launch's other CTAs are cancelled; the device runs the next launch normally.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KernelFailureTest {

    private Device device;

    @BeforeEach
    void createDevice() {
        device = TestDevices.reference(2);
    }

    @AfterEach
    void closeDevice() {
        device.close();
    }

    private void assertDeviceStillWorks() {
        int n = 3000;
        int[] out = new int[n];
        device.launch(Dim3.of((n + 127) / 128), Dim3.of(128), t -> {
            int i = t.globalIdX();
            t.syncThreads();
            if (i < n) {
                out[i] = i + 1;
            }
        });
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, out[i]);
        }
    }

    @Test
    void launch_threadThrows_failsWithCtaThreadAndOriginalCause() {
        AtomicReference<RuntimeException> thrown = new AtomicReference<>();
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(4, 3, 2), Dim3.of(8, 4, 2), t -> {
            if (t.blockIdxX() == 2 && t.blockIdxY() == 1 && t.blockIdxZ() == 1
                    && t.threadIdxX() == 3 && t.threadIdxY() == 2 && t.threadIdxZ() == 1) {
                RuntimeException boom = new IllegalStateException("boom");
                thrown.set(boom);
                throw boom;
            }
        }));
        assertEquals(Dim3.of(2, 1, 1), e.blockIdx());
        assertEquals(Dim3.of(3, 2, 1), e.threadIdx().orElseThrow());
        assertSame(thrown.get(), e.getCause());
        assertTrue(e.kernel().startsWith("KernelFailureTest.lambda$"), e.kernel());
        assertEquals("kernel " + e.kernel() + " failed in CTA blockIdx=(2, 1, 1) thread threadIdx=(3, 2, 1): "
                + "java.lang.IllegalStateException: boom", e.getMessage());
        assertDeviceStillWorks();
    }

    @Test
    void launch_indexOutOfBounds_failsWithThatCause() {
        int[] small = new int[100];
        KernelException e = assertThrows(KernelException.class,
                () -> device.launch(Dim3.of(2), Dim3.of(64), t -> small[t.globalIdX()] = 1));
        assertEquals(Dim3.of(1, 0, 0), e.blockIdx());
        assertEquals(Dim3.of(36, 0, 0), e.threadIdx().orElseThrow());
        assertInstanceOf(ArrayIndexOutOfBoundsException.class, e.getCause());
        assertDeviceStillWorks();
    }

    @Test
    void launch_threadThrowsError_failsWithThatError() {
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(32), t -> {
            if (t.threadIdxX() == 31) {
                throw new AssertionError("invariant");
            }
        }));
        assertInstanceOf(AssertionError.class, e.getCause());
        assertEquals(Dim3.of(31, 0, 0), e.threadIdx().orElseThrow());
        assertDeviceStillWorks();
    }

    @Test
    void launch_threadThrowsWhileOthersWaitAtBarrier_reportsTheException_notAConvergenceError() {
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(256), t -> {
            t.syncThreads();
            if (t.threadIdxX() == 200) {
                throw new IllegalArgumentException("late");
            }
            t.syncThreads();
        }));
        assertEquals(Dim3.of(200, 0, 0), e.threadIdx().orElseThrow());
        assertEquals("late", e.getCause().getMessage());
        assertDeviceStillWorks();
    }

    @Test
    void launch_firstCtaThrows_otherCtasOfBigGridCancelled() {
        int ctas = 200_000;
        AtomicInteger ran = new AtomicInteger();
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(ctas), Dim3.of(32), t -> {
            if (t.threadIdxX() == 0) {
                ran.incrementAndGet();
            }
            if (t.blockIdxX() == 0) {
                throw new IllegalStateException("first CTA fails");
            }
        }));
        assertEquals(Dim3.of(0, 0, 0), e.blockIdx());
        assertTrue(ran.get() >= 1);
        assertTrue(ran.get() < ctas / 10, "CTAs that ran after the failure: " + ran.get() + " of " + ctas);
        assertDeviceStillWorks();
    }

    @Test
    void launch_failure_waitsForCtasStillRunningOnOtherSms() {
        // CTA 1 is busy on another SM when CTA 0 fails; the launch must not return (and let the next launch
        // start) while CTA 1 still runs.
        AtomicBoolean started = new AtomicBoolean();
        AtomicBoolean failing = new AtomicBoolean();
        AtomicBoolean finished = new AtomicBoolean();
        assertThrows(KernelException.class, () -> device.launch(Dim3.of(2), Dim3.of(1), t -> {
            if (t.blockIdxX() == 1) {
                started.set(true);
                while (!failing.get()) {
                    Thread.onSpinWait();
                }
                long until = System.nanoTime() + 50_000_000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                finished.set(true);
            } else {
                while (!started.get()) {
                    Thread.onSpinWait();
                }
                failing.set(true);
                throw new IllegalStateException("CTA 0 fails while CTA 1 runs");
            }
        }));
        assertTrue(finished.get(), "the launch returned while one of its CTAs was still running");
    }

    @Test
    void launch_severalCtasFail_oneIsReported_othersSuppressedOrCancelled() {
        int[] ran = new int[1];
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(64), Dim3.of(32), t -> {
            Atomics.add(ran, 0, 1);
            if (t.threadIdxX() == 5) {
                throw new IllegalStateException("CTA " + t.blockIdxX());
            }
        }));
        assertEquals(Dim3.of(5, 0, 0), e.threadIdx().orElseThrow());
        assertEquals("CTA " + e.blockIdx().x(), e.getCause().getMessage());
        for (Throwable s : e.getSuppressed()) {
            assertInstanceOf(KernelException.class, s);
        }
        assertDeviceStillWorks();
    }

    @Test
    void kernelException_serializes_withCoordinatesAndCause() throws Exception {
        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(3), Dim3.of(4, 2), t -> {
            if (t.blockIdxX() == 2 && t.threadIdxX() == 1 && t.threadIdxY() == 1) {
                throw new IllegalStateException("sent elsewhere");
            }
        }));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(e);
        }
        KernelException back;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            back = (KernelException) in.readObject();
        }
        assertEquals(e.getMessage(), back.getMessage());
        assertEquals(Dim3.of(2, 0, 0), back.blockIdx());
        assertEquals(Dim3.of(1, 1, 0), back.threadIdx().orElseThrow());
        assertEquals(e.kernel(), back.kernel());
        assertEquals("sent elsewhere", back.getCause().getMessage());
    }

    @Test
    void launch_manyFailuresInARow_deviceKeepsWorking() {
        for (int i = 0; i < 50; i++) {
            int bad = i % 7;
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(8), Dim3.of(16), t -> {
                t.syncThreads();
                if (t.blockIdxX() == bad && t.threadIdxX() == 3) {
                    throw new IllegalStateException();
                }
                t.syncThreads();
            }));
            assertEquals(Dim3.of(bad, 0, 0), e.blockIdx());
        }
        assertDeviceStillWorks();
    }
}
