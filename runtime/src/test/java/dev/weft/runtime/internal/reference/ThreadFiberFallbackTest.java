package dev.weft.runtime.internal.reference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.runtime.ConvergenceTest;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.KernelException;
import dev.weft.runtime.SharedMemoryTest;
import dev.weft.runtime.WarpIntrinsicsTest;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reference executor's fallback, {@link ThreadFiber} (virtual threads passing a baton), forced on
 * where continuations are available, running the barrier, warp and shared memory suites again.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThreadFiberFallbackTest {

    private static boolean saved;

    @BeforeAll
    static void forceFallback() {
        saved = ThreadFiber.forced;
        ThreadFiber.forced = true;
    }

    @AfterAll
    static void restore() {
        ThreadFiber.forced = saved;
    }

    @Test
    void forced_kernelThreadsRunOnVirtualThreads() {
        assertEquals("virtual-thread", ReferenceKernel.fiberMechanism());
        boolean[] virtual = new boolean[64];
        try (Device device = Device.create(DeviceConfig.defaults().withSmCount(2).withExecutor(ExecutorChoice.REFERENCE))) {
            device.launch(Dim3.of(2), Dim3.of(32), t -> {
                t.syncThreads();
                virtual[t.globalIdX()] = Thread.currentThread().isVirtual();
            });
        }
        for (boolean v : virtual) {
            assertTrue(v);
        }
    }

    @Test
    void failedCta_withThreadsSuspended_nextLaunchOnSameSmRuns() {
        // One SM, so the next launch reuses the scheduler (and its kernel threads' records) of the failed one.
        try (Device device = Device.create(DeviceConfig.defaults().withSmCount(1).withExecutor(ExecutorChoice.REFERENCE))) {
            for (int round = 0; round < 20; round++) {
                KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(64), t -> {
                    if (t.threadIdxX() == 40) {
                        throw new IllegalStateException("boom");
                    }
                    t.syncThreads();
                }));
                assertEquals(Dim3.of(40, 0, 0), e.threadIdx().orElseThrow());
                int[] sum = new int[1];
                device.launch(Dim3.of(1), Dim3.of(64), t -> {
                    t.syncThreads();
                    int votes = Integer.bitCount(t.ballot(true));
                    t.syncThreads();
                    if (t.threadIdxX() == 0) {
                        sum[0] = votes;
                    }
                });
                assertEquals(32, sum[0]);
            }
        }
    }

    @Test
    void kernelCatchingTheCancellation_cannotSuspendAgain() {
        try (Device device = Device.create(DeviceConfig.defaults().withSmCount(1).withExecutor(ExecutorChoice.REFERENCE))) {
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(4), t -> {
                if (t.threadIdxX() == 3) {
                    throw new IllegalStateException("boom");
                }
                try {
                    t.syncThreads();
                } catch (Throwable cancelled) {
                    t.syncThreads(); // a kernel swallowing everything must still be abandoned, not hang the SM
                }
            }));
            assertInstanceOf(IllegalStateException.class, e.getCause());
            int[] ran = new int[1];
            device.launch(Dim3.of(1), Dim3.of(4), t -> {
                t.syncThreads();
                ran[0]++;
            });
            assertEquals(4, ran[0]);
        }
    }

    @Nested
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    class Convergence extends ConvergenceTest {
        @BeforeEach
        void fallbackIsForced() {
            assertEquals("virtual-thread", ReferenceKernel.fiberMechanism());
        }
    }

    @Nested
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    class WarpIntrinsics extends WarpIntrinsicsTest {
        @BeforeEach
        void fallbackIsForced() {
            assertEquals("virtual-thread", ReferenceKernel.fiberMechanism());
        }
    }

    @Nested
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    class SharedMemory extends SharedMemoryTest {
        @BeforeEach
        void fallbackIsForced() {
            assertEquals("virtual-thread", ReferenceKernel.fiberMechanism());
        }
    }
}
