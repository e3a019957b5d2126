package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Shared memory: one array per allocation per CTA, visible to all its threads after a barrier, private to
 * the CTA, zeroed at every CTA start, allocated identically by every thread, and bounded by a limit.
 * Public so that the reference executor's fiber fallback can run it again.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public class SharedMemoryTest {

    @Test
    void sharedArrays_writtenBeforeBarrier_visibleToAllThreadsAfter() {
        int n = 256;
        int ctas = 3;
        int[] outInt = new int[ctas * n];
        long[] outLong = new long[ctas * n];
        float[] outFloat = new float[ctas * n];
        double[] outDouble = new double[ctas * n];
        try (Device device = TestDevices.reference(2)) {
            device.launch(Dim3.of(ctas), Dim3.of(n), t -> {
                int tid = t.threadIdxX();
                int[] si = t.sharedInts(n);
                long[] sl = t.sharedLongs(n);
                float[] sf = t.sharedFloats(n);
                double[] sd = t.sharedDoubles(n);
                si[tid] = tid * 3 + t.blockIdxX();
                sl[tid] = (long) tid << 33;
                sf[tid] = tid + 0.5f;
                sd[tid] = tid * 0.25;
                t.syncThreads();
                int other = n - 1 - tid;
                int g = t.blockIdxX() * n + tid;
                outInt[g] = si[other];
                outLong[g] = sl[other];
                outFloat[g] = sf[other];
                outDouble[g] = sd[other];
            });
        }
        for (int b = 0; b < ctas; b++) {
            for (int tid = 0; tid < n; tid++) {
                int other = n - 1 - tid;
                int g = b * n + tid;
                assertEquals(other * 3 + b, outInt[g]);
                assertEquals((long) other << 33, outLong[g]);
                assertEquals(other + 0.5f, outFloat[g]);
                assertEquals(other * 0.25, outDouble[g]);
            }
        }
    }

    @Test
    void sharedArray_kthAllocation_sameArrayForEveryThreadOfCta() {
        int n = 96;
        int[] sameFirst = new int[1];
        int[] sameSecond = new int[1];
        try (Device device = TestDevices.reference(1)) {
            device.launch(Dim3.of(1), Dim3.of(n), t -> {
                int[] a = t.sharedInts(4);
                float[] b = t.sharedFloats(4);
                // each thread marks its own bit-count; an array private to a thread would see 1
                Atomics.add(a, 0, 1);
                Atomics.add(b, 0, 1f);
                t.syncThreads();
                if (t.threadIdxX() == n - 1) {
                    sameFirst[0] = a[0];
                    sameSecond[0] = (int) b[0];
                }
            });
        }
        assertEquals(n, sameFirst[0]);
        assertEquals(n, sameSecond[0]);
    }

    @Test
    void sharedArrays_manyCtasOnSeveralSms_isolatedBetweenCtas() {
        int ctas = 300;
        int n = 64;
        int[] violations = new int[1];
        int[] done = new int[ctas];
        try (Device device = TestDevices.reference(4)) {
            device.launch(Dim3.of(ctas), Dim3.of(n), t -> {
                int tid = t.threadIdxX();
                int me = t.blockIdxX() + 1;
                int[] s = t.sharedInts(n);
                for (int round = 0; round < 4; round++) {
                    s[tid] = me * 1000 + round;
                    t.syncThreads();
                    for (int i = 0; i < n; i++) {
                        if (s[i] != me * 1000 + round) {
                            Atomics.add(violations, 0, 1);
                        }
                    }
                    t.syncThreads();
                }
                if (tid == 0) {
                    Atomics.add(done, t.blockIdxX(), 1);
                }
            });
        }
        assertEquals(0, violations[0], "a CTA saw another CTA's shared memory");
        for (int b = 0; b < ctas; b++) {
            assertEquals(1, done[b]);
        }
    }

    @Test
    void sharedArrays_zeroedAtEveryCtaStart_evenWhenSmReusesThem() {
        int ctas = 60;
        int n = 32;
        int[] dirty = new int[1];
        Set<Integer> identities = ConcurrentHashMap.newKeySet();
        try (Device device = TestDevices.reference(1)) {
            for (int launch = 0; launch < 2; launch++) {
                device.launch(Dim3.of(ctas), Dim3.of(n), t -> {
                    int tid = t.threadIdxX();
                    int[] si = t.sharedInts(n);
                    long[] sl = t.sharedLongs(n);
                    float[] sf = t.sharedFloats(n);
                    double[] sd = t.sharedDoubles(n);
                    if (tid == 0) {
                        identities.add(System.identityHashCode(si));
                    }
                    if (si[tid] != 0 || sl[tid] != 0 || Float.floatToRawIntBits(sf[tid]) != 0
                            || Double.doubleToRawLongBits(sd[tid]) != 0) {
                        Atomics.add(dirty, 0, 1);
                    }
                    t.syncThreads();
                    si[tid] = -1;
                    sl[tid] = -1;
                    sf[tid] = -0f;
                    sd[tid] = Double.NaN;
                });
            }
        }
        assertEquals(0, dirty[0], "a thread saw a value left by an earlier CTA");
        // the premise of this test: the SMs (a worker and the launching thread) did reuse their arrays
        assertTrue(identities.size() < ctas, "shared arrays were never reused: " + identities.size());
    }

    @Test
    void sharedArray_lengthZero_allowed() {
        int[] lengths = new int[1];
        try (Device device = TestDevices.reference(1)) {
            device.launch(Dim3.of(2), Dim3.of(4), t -> lengths[0] = t.sharedInts(0).length + t.sharedFloats(3).length);
        }
        assertEquals(3, lengths[0]);
    }

    @Test
    void sharedAllocation_lengthMismatchAcrossThreads_failsWithMessage() {
        try (Device device = TestDevices.reference(1)) {
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(8), t -> {
                t.sharedInts(16);
                t.sharedInts(t.threadIdxX() == 5 ? 8 : 32);
            }));
            assertEquals(Dim3.of(0, 0, 0), e.blockIdx());
            assertEquals(Dim3.of(5, 0, 0), e.threadIdx().orElseThrow());
            IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertEquals("shared allocation #1 was int[32] for another thread of this CTA, here int[8]: "
                    + "every thread must make the same allocations in the same order", cause.getMessage());
            assertTrue(e.getMessage().contains(cause.getMessage()), e.getMessage());
        }
    }

    @Test
    void sharedAllocation_typeMismatchAcrossThreads_failsWithMessage() {
        try (Device device = TestDevices.reference(1)) {
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(4), t -> {
                if (t.threadIdxX() < 2) {
                    t.sharedFloats(10);
                } else {
                    t.sharedInts(10);
                }
            }));
            assertEquals(Dim3.of(2, 0, 0), e.threadIdx().orElseThrow());
            assertEquals("shared allocation #0 was float[10] for another thread of this CTA, here int[10]: "
                    + "every thread must make the same allocations in the same order", e.getCause().getMessage());
        }
    }

    @Test
    void sharedAllocation_negativeLength_failsWithMessage() {
        try (Device device = TestDevices.reference(1)) {
            KernelException e = assertThrows(KernelException.class,
                    () -> device.launch(Dim3.of(1), Dim3.of(1), t -> t.sharedDoubles(-1)));
            assertEquals("shared array length must be >= 0: -1", e.getCause().getMessage());
        }
    }

    @Test
    void sharedAllocation_overDeviceLimit_failsNamingLimit() {
        DeviceConfig config = TestDevices.config(1).withSharedMemoryPerBlockBytes(1024);
        try (Device device = Device.create(config)) {
            // exactly at the limit is fine
            device.launch(Dim3.of(2), Dim3.of(4), t -> {
                t.sharedInts(128);
                t.sharedDoubles(64);
            });
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(2), Dim3.of(4), t -> {
                t.sharedInts(128);
                t.sharedLongs(65);
            }));
            IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertEquals("shared memory of this CTA would reach 1032 bytes with long[65], over the device's per-CTA "
                    + "shared memory limit of 1024 bytes", cause.getMessage());
            // the device is fine afterwards
            device.launch(Dim3.of(1), Dim3.of(4), t -> t.sharedInts(256));
        }
    }

    @Test
    void sharedAllocation_overDeclaredBytes_failsNamingDeclaration() {
        try (Device device = TestDevices.reference(1)) {
            LaunchConfig launch = LaunchConfig.of(Dim3.of(1), Dim3.of(4)).withSharedMemoryBytes(512);
            device.launch(launch, t -> t.sharedFloats(128));
            KernelException e = assertThrows(KernelException.class, () -> device.launch(launch, t -> t.sharedFloats(129)));
            assertEquals("shared memory of this CTA would reach 516 bytes with float[129], over the launch's declared "
                    + "sharedMemoryBytes of 512 bytes", e.getCause().getMessage());
        }
    }

    @Test
    void launch_declaredSharedMemoryOverDeviceLimit_rejectedBeforeAnyThreadRuns() {
        int[] ran = new int[1];
        try (Device device = Device.create(TestDevices.config(1).withSharedMemoryPerBlockBytes(4096))) {
            LaunchConfig launch = LaunchConfig.of(Dim3.of(4), Dim3.of(32)).withSharedMemoryBytes(4097);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> device.launch(launch, t -> Atomics.add(ran, 0, 1)));
            assertEquals("sharedMemoryBytes must be <= the device's 4096 bytes of shared memory per CTA: 4097", e.getMessage());
            IllegalArgumentException async = assertThrows(IllegalArgumentException.class,
                    () -> device.createStream().launch(launch, t -> Atomics.add(ran, 0, 1)));
            assertEquals(e.getMessage(), async.getMessage());
            device.launch(launch.withSharedMemoryBytes(4096), t -> Atomics.add(ran, 0, 1));
        }
        assertEquals(4 * 32, ran[0], "only the valid launch ran");
    }
}
