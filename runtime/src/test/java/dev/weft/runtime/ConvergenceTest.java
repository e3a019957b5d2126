package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Barriers and warp operations: kernels that follow the convergence rules get CUDA's results; kernels that
 * break them fail with an error naming the CTA and where each thread was, and never hang.
 * Public so that the reference executor's fiber fallback can run it again.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public class ConvergenceTest {

    private Device device;

    @BeforeEach
    void createDevice() {
        device = TestDevices.reference(2);
    }

    @AfterEach
    void closeDevice() {
        device.close();
    }

    private KernelException failing(Dim3 grid, Dim3 block, Kernel k) {
        KernelException e = assertThrows(KernelException.class, () -> device.launch(grid, block, k));
        assertTrue(e.threadIdx().isEmpty(), "a convergence error is the CTA's, not one thread's: " + e.getMessage());
        assertNull(e.getCause());
        // the device is fine afterwards
        int[] ran = new int[1];
        device.launch(Dim3.of(2), Dim3.of(64), t -> {
            t.syncThreads();
            int all = t.ballot(true);
            if (t.globalIdX() == 0) {
                ran[0] = all;
            }
        });
        assertEquals(-1, ran[0]);
        return e;
    }

    /** The distinct source lines of this file that a message names, in order of appearance. */
    private static List<Integer> lines(String message) {
        Matcher m = Pattern.compile("ConvergenceTest\\.java:(\\d+)").matcher(message);
        return m.results().map(r -> Integer.parseInt(r.group(1))).distinct().toList();
    }

    // ---- kernels that follow the rules ---------------------------------------------------------

    @Test
    void syncThreads_inLoop_everyIterationSeesAllWrites() {
        // Hillis-Steele inclusive scan over a 2D CTA, one barrier pair per step
        int bx = 16, by = 8, n = bx * by, ctas = 3;
        int[] out = new int[ctas * n];
        device.launch(Dim3.of(ctas), Dim3.of(bx, by), t -> {
            int tid = t.linearThreadIdx();
            int[] s = t.sharedInts(n);
            s[tid] = tid + t.blockIdxX();
            t.syncThreads();
            for (int offset = 1; offset < n; offset *= 2) {
                int add = tid >= offset ? s[tid - offset] : 0;
                t.syncThreads();
                s[tid] += add;
                t.syncThreads();
            }
            out[t.blockIdxX() * n + tid] = s[tid];
        });
        for (int b = 0; b < ctas; b++) {
            int sum = 0;
            for (int tid = 0; tid < n; tid++) {
                sum += tid + b;
                assertEquals(sum, out[b * n + tid], "CTA " + b + " thread " + tid);
            }
        }
    }

    @Test
    void syncThreads_afterDivergentWork_andCtaUniformTripCounts_converge() {
        int n = 96;
        int[] out = new int[4 * n];
        device.launch(Dim3.of(4), Dim3.of(n), t -> {
            int tid = t.threadIdxX();
            int[] s = t.sharedInts(n);
            int v = 0;
            // divergent work, then every thread meets at the same barrier
            if (tid % 3 == 0) {
                for (int i = 0; i < tid; i++) {
                    v += i;
                }
            } else {
                v = -tid;
            }
            s[tid] = v;
            t.syncThreads();
            // a loop whose trip count differs between CTAs but not within one
            int acc = 0;
            for (int round = 0; round <= t.blockIdxX(); round++) {
                acc += s[(tid + round) % n];
                t.syncThreads();
            }
            out[t.blockIdxX() * n + tid] = acc;
        });
        int[] s = new int[n];
        for (int tid = 0; tid < n; tid++) {
            s[tid] = tid % 3 == 0 ? tid * (tid - 1) / 2 : -tid;
        }
        for (int b = 0; b < 4; b++) {
            for (int tid = 0; tid < n; tid++) {
                int acc = 0;
                for (int round = 0; round <= b; round++) {
                    acc += s[(tid + round) % n];
                }
                assertEquals(acc, out[b * n + tid]);
            }
        }
    }

    @Test
    void warpOps_inDivergentWarps_eachWarpResolvesAlone() {
        // warp 0 votes three times, warp 1 once, then all meet at the barrier
        int[] out = new int[64];
        device.launch(Dim3.of(1), Dim3.of(64), t -> {
            int v = 0;
            if (t.warpId() == 0) {
                for (int i = 0; i < 3; i++) {
                    v += Integer.bitCount(t.ballot(t.laneId() < 10 + i));
                }
            } else {
                v = t.shfl(t.laneId() * 2, 31);
            }
            t.syncThreads();
            out[t.threadIdxX()] = v;
        });
        int[] want = new int[64];
        for (int i = 0; i < 64; i++) {
            want[i] = i < 32 ? 10 + 11 + 12 : 62;
        }
        assertArrayEquals(want, out);
    }

    // ---- barrier errors ------------------------------------------------------------------------

    @Test
    void syncThreads_afterEarlyReturn_failsNamingCtaAndArrivedThreads() {
        KernelException e = failing(Dim3.of(4), Dim3.of(64), t -> {
            if (t.blockIdxX() == 2 && t.threadIdxX() >= 40) {
                return;
            }
            t.syncThreads();
        });
        assertEquals(Dim3.of(2, 0, 0), e.blockIdx());
        String m = e.getMessage();
        assertTrue(m.contains("failed in CTA blockIdx=(2, 0, 0): syncThreads() not reached by all threads of the CTA: "
                + "40 threads wait in syncThreads() at ConvergenceTest.lambda$"), m);
        assertTrue(m.contains("(linear thread ids 0-39); 24 threads returned (linear thread ids 40-63)"), m);
        assertEquals(1, lines(m).size(), m);
        assertTrue(e.kernel().startsWith("ConvergenceTest.lambda$"), e.kernel());
    }

    @Test
    void syncThreads_inBranchOnly_othersAtLaterBarrier_failsNamingBothSites() {
        KernelException e = failing(Dim3.of(1), Dim3.of(8, 8), t -> {
            if (t.linearThreadIdx() < 16) {
                t.syncThreads();
            }
            t.syncThreads();
        });
        String m = e.getMessage();
        assertTrue(m.contains("syncThreads() not reached by all threads of the CTA: 16 threads wait in syncThreads() at "), m);
        assertTrue(m.contains("(linear thread ids 0-15); 48 threads wait in syncThreads() at "), m);
        assertTrue(m.contains("(linear thread ids 16-63)"), m);
        assertEquals(2, lines(m).size(), m);
    }

    @Test
    void syncThreads_twoCallSites_failsNamingBoth() {
        KernelException e = failing(Dim3.of(1), Dim3.of(64), t -> {
            if (t.threadIdxX() % 2 == 0) {
                t.syncThreads();
            } else {
                t.syncThreads();
            }
        });
        String m = e.getMessage();
        assertTrue(m.contains("32 threads wait in syncThreads() at "), m);
        assertTrue(m.contains("(linear thread ids 0, 2, 4, "), m);
        assertTrue(m.contains("(linear thread ids 1, 3, 5, "), m);
        assertEquals(2, lines(m).size(), m);
    }

    @Test
    void syncThreads_notReached_inLargeCta_namesThreadRanges() {
        KernelException e = failing(Dim3.of(1), Dim3.of(32, 32), t -> {
            if (t.threadIdxY() != 17) {
                t.syncThreads();
            }
        });
        assertTrue(e.getMessage().contains("992 threads wait in syncThreads()"), e.getMessage());
        assertTrue(e.getMessage().contains("(linear thread ids 0-543, 576-1023); 32 threads returned (linear thread ids 544-575)"),
                e.getMessage());
    }

    @Test
    void syncThreads_brokenInOneCtaOfMany_namesThatCta() {
        KernelException e = failing(Dim3.of(4, 3), Dim3.of(32), t -> {
            if (t.blockIdxX() == 3 && t.blockIdxY() == 1 && t.threadIdxX() == 7) {
                return;
            }
            t.syncThreads();
        });
        assertEquals(Dim3.of(3, 1, 0), e.blockIdx());
        assertTrue(e.getMessage().contains("1 thread returned (linear thread ids 7)"), e.getMessage());
    }

    // ---- warp operation errors -----------------------------------------------------------------

    @Test
    void ballot_divergentAtDifferentSites_failsNamingWarpAndSites() {
        KernelException e = failing(Dim3.of(2), Dim3.of(64), t -> {
            if (t.blockIdxX() == 1 && t.warpId() == 1 && t.laneId() < 16) {
                t.ballot(true);
            } else {
                t.ballot(false);
            }
        });
        assertEquals(Dim3.of(1, 0, 0), e.blockIdx());
        String m = e.getMessage();
        assertTrue(m.contains("warp 1 diverged at a warp operation: 16 threads wait in ballot() at "), m);
        assertTrue(m.contains("(linear thread ids 32-47); 16 threads wait in ballot() at "), m);
        assertTrue(m.contains("(linear thread ids 48-63)"), m);
        assertEquals(2, lines(m).size(), m);
    }

    @Test
    void warp_someLanesAtBarrier_othersAtShuffle_failsNamingBoth() {
        KernelException e = failing(Dim3.of(1), Dim3.of(32), t -> {
            if (t.laneId() < 16) {
                t.syncThreads();
            } else {
                t.shfl(1, 0);
            }
        });
        String m = e.getMessage();
        assertTrue(m.contains("16 threads wait in syncThreads() at "), m);
        assertTrue(m.contains("16 threads wait in shfl(int, width 32) at "), m);
        assertTrue(m.contains("(linear thread ids 0-15)") && m.contains("(linear thread ids 16-31)"), m);
    }

    @Test
    void warp_someLanesAtShuffle_otherWarpAtBarrier_fails() {
        KernelException e = failing(Dim3.of(1), Dim3.of(64), t -> {
            if (t.warpId() == 1 && t.laneId() >= 8) {
                t.shflXor(1f, 1);
            }
            t.syncThreads();
        });
        String m = e.getMessage();
        assertTrue(m.contains("24 threads wait in shflXor(float, width 32) at "), m);
        assertTrue(m.contains("40 threads wait in syncThreads() at "), m);
    }

    @Test
    void shuffle_sameSiteDifferentWidths_failsAsDivergence() {
        KernelException e = failing(Dim3.of(1), Dim3.of(32), t -> t.shflDown(1, 1, t.laneId() < 4 ? 8 : 16));
        String m = e.getMessage();
        assertTrue(m.contains("warp 0 diverged at a warp operation: 4 threads wait in shflDown(int, width 8) at "), m);
        assertTrue(m.contains("28 threads wait in shflDown(int, width 16) at "), m);
    }

    @Test
    void differentVoteOps_divergent_fail() {
        KernelException e = failing(Dim3.of(1), Dim3.of(32), t -> {
            boolean r = t.laneId() == 3 ? t.any(true) : t.all(true);
        });
        assertTrue(e.getMessage().contains("diverged at a warp operation: "), e.getMessage());
        assertTrue(e.getMessage().contains("any()") && e.getMessage().contains("all()"), e.getMessage());
    }
}
