package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The folded warp scan (the {@code shflUp} loop compiled as one in-register scan, {@code front.WarpScans}) against
 * the reference executor: full and partial warps, 1-thread and 1024-thread CTAs, 2D CTAs, 8-thread warps, active
 * masks that are a prefix of the warp and masks that are not (the lane-by-lane path), sums that wrap; the spellings
 * of the loop that fold, and the near misses that must stay loops (and still match).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WarpScanTest {

    @AutoClose
    static final Differential d = new Differential();

    private static int[] data(int n, long seed) {
        // large magnitudes: the sums of a warp wrap
        return Differential.ints(n, seed, -(1 << 29), 1 << 29);
    }

    /** The CUDA warp scan, every thread of the CTA in it (threads past n scan a zero). */
    static Kernel scan(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.blockIdxX() * t.blockDimX() * t.blockDimY() + t.linearThreadIdx();
            int v = i < n ? x[i] : 0;
            int lane = t.laneId();
            for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                int below = t.shflUp(v, dd);
                if (lane >= dd) {
                    v += below;
                }
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    /** Other spellings of the same loop: {@code *= 2}, {@code d <= lane}, {@code below + v}, width the constant 32. */
    static Kernel scanSpelledOtherwise(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            for (int dd = 1; dd < 32; dd *= 2) {
                int below = t.shflUp(v, dd, 32);
                if (dd <= t.laneId()) {
                    v = below + v;
                }
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    /** Scans of a uniform value (the count of lanes up to this one, times c) and of an affine one (laneId). */
    static Kernel scanOfUniformAndAffine(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        int c = x[0];
        return t -> {
            int i = t.globalIdX();
            int u = c;
            int l = t.laneId();
            for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                int below = t.shflUp(u, dd);
                if (t.laneId() >= dd) {
                    u += below;
                }
            }
            for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                int below = t.shflUp(l, dd);
                if (t.laneId() >= dd) {
                    l += below;
                }
            }
            if (i < n) {
                out[i] = u * 31 + l;
            }
        };
    }

    /** The scan under a divergent guard: threads past n and every fifth one leave (masks that are not a prefix). */
    static Kernel scanOfSomeLanes(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                int v = x[i];
                for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                    int below = t.shflUp(v, dd);
                    if (t.laneId() >= dd) {
                        v += below;
                    }
                }
                out[i] = v;
            }
        };
    }

    /** The scan of the lanes below a uniform bound: a prefix mask inside a divergent branch. */
    static Kernel scanOfLowLanes(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        int bound = out.length == n ? 20 : 7;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            if (t.laneId() < bound) {
                for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                    int below = t.shflUp(v, dd);
                    if (t.laneId() >= dd) {
                        v += below;
                    }
                }
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    /** Segments of 16: width and bound 16 (not folded: only whole-warp scans are). */
    static Kernel segmentScan(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            for (int dd = 1; dd < 16; dd <<= 1) {
                int below = t.shflUp(v, dd, 16);
                if ((t.laneId() & 15) >= dd) {
                    v += below;
                }
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    /** Whole-warp shuffles but only up to d = 8 (bound 16): a partial scan, not folded. */
    static Kernel shortScan(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            for (int dd = 1; dd < 16; dd <<= 1) {
                int below = t.shflUp(v, dd);
                if (t.laneId() >= dd) {
                    v += below;
                }
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    /** The loop's d read after it: not folded. */
    static Kernel scanThenStep(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            int dd = 1;
            for (; dd < t.warpSize(); dd <<= 1) {
                int below = t.shflUp(v, dd);
                if (t.laneId() >= dd) {
                    v += below;
                }
            }
            if (i < n) {
                out[i] = v + dd;
            }
        };
    }

    /** The scan benchmark's CTA scan: warps by the scan, warp totals through shared memory, two barriers. */
    static Kernel ctaScan(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int[] ctaTotals = (int[]) a[2];
        int n = in.length;
        return t -> {
            int[] warpTotals = t.sharedInts(32);
            int i = t.globalIdX();
            int lane = t.laneId();
            int warp = t.warpId();
            int warps = (t.blockDimX() + t.warpSize() - 1) / t.warpSize();
            int v = i < n ? in[i] : 0;
            for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                int below = t.shflUp(v, dd);
                if (lane >= dd) {
                    v += below;
                }
            }
            if (lane == t.warpSize() - 1 || t.threadIdxX() == t.blockDimX() - 1) {
                warpTotals[warp] = v;
            }
            t.syncThreads();
            if (warp == 0) {
                int w = lane < warps ? warpTotals[lane] : 0;
                for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                    int below = t.shflUp(w, dd);
                    if (lane >= dd) {
                        w += below;
                    }
                }
                if (lane < warps) {
                    warpTotals[lane] = w;
                }
            }
            t.syncThreads();
            if (warp > 0) {
                v += warpTotals[warp - 1];
            }
            if (i < n) {
                out[i] = v;
            }
            if (t.threadIdxX() == t.blockDimX() - 1) {
                ctaTotals[t.blockIdxX()] = v;
            }
        };
    }

    private static boolean folded(Function<Object[], Kernel> k) {
        return d.report(k, new int[64], new int[64], new int[64]).listing().contains("scanAdd(");
    }

    @Test
    void warpScan_fullAndPartialWarps_matchReference() {
        for (int n : new int[] {1, 32, 77, 4096}) {
            d.check(Dim3.of((n + 255) / 256), Dim3.of(256), WarpScanTest::scan, data(n, 1), new int[n]);
        }
        d.check(Dim3.of(11), Dim3.of(100), WarpScanTest::scan, data(1000, 2), new int[1000]);
        d.check(Dim3.of(5), Dim3.of(1), WarpScanTest::scan, data(5, 3), new int[5]);
        d.check(Dim3.of(2), Dim3.of(1024), WarpScanTest::scan, data(2048, 4), new int[2048]);
        d.check(Dim3.of(3), Dim3.of(7, 9), WarpScanTest::scan, data(189, 5), new int[189]);
        d.check(Dim3.of(2), Dim3.of(33), WarpScanTest::scan, data(66, 6), new int[66]);
    }

    @Test
    void warpScan_uniformAndAffineValues_matchReference() {
        assertTrue(folded(WarpScanTest::scanOfUniformAndAffine));
        for (int block : new int[] {256, 100, 1, 1024}) {
            int n = 1100;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanOfUniformAndAffine, data(n, 15),
                    new int[n]);
        }
    }

    @Test
    void warpScan_wrappingSums_matchReference() {
        int n = 256;
        int[] big = new int[n];
        for (int i = 0; i < n; i++) {
            big[i] = i % 3 == 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE + i;
        }
        d.check(Dim3.of(1), Dim3.of(256), WarpScanTest::scan, big, new int[n]);
    }

    @Test
    void warpScan_otherSpellings_foldAndMatchReference() {
        assertTrue(folded(WarpScanTest::scan));
        assertTrue(folded(WarpScanTest::scanSpelledOtherwise));
        for (int block : new int[] {256, 100, 1, 1024}) {
            int n = 1000;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanSpelledOtherwise, data(n, 7),
                    new int[n]);
        }
    }

    @Test
    void warpScan_maskNotAPrefix_matchesReference() {
        assertTrue(folded(WarpScanTest::scanOfSomeLanes));
        for (int block : new int[] {96, 40, 1, 1024}) {
            int n = 1500;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanOfSomeLanes, data(n, 8),
                    new int[n]);
        }
    }

    @Test
    void warpScan_prefixMaskInDivergentBranch_matchesReference() {
        assertTrue(folded(WarpScanTest::scanOfLowLanes));
        for (int block : new int[] {256, 100, 1}) {
            int n = 700;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanOfLowLanes, data(n, 9),
                    new int[n]);
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanOfLowLanes, data(n, 10),
                    new int[n + 1]);
        }
    }

    @Test
    void nearMisses_stayLoops_matchReference() {
        for (Function<Object[], Kernel> k : List.<Function<Object[], Kernel>>of(WarpScanTest::segmentScan,
                WarpScanTest::shortScan, WarpScanTest::scanThenStep)) {
            assertFalse(folded(k));
            for (int block : new int[] {256, 100, 1}) {
                int n = 600;
                d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), k, data(n, 11), new int[n]);
            }
        }
    }

    @Test
    void ctaScan_barriersAndSharedTotals_matchReference() {
        assertTrue(folded(WarpScanTest::ctaScan));
        for (int block : new int[] {256, 100, 1, 1024, 32}) {
            for (int n : new int[] {1, 1000, 3000}) {
                int ctas = (n + block - 1) / block;
                d.check(Dim3.of(ctas), Dim3.of(block), WarpScanTest::ctaScan, data(n, 12), new int[n], new int[ctas]);
            }
        }
    }

    @Test
    void warpScan_smallWarps_matchReference() {
        try (Differential d8 = new Differential(WarpOpsTest.SMALL_WARP)) {
            for (int block : new int[] {21, 50, 8, 1}) {
                int n = 100;
                d8.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scan, data(n, 13), new int[n]);
                d8.check(Dim3.of((n + block - 1) / block), Dim3.of(block), WarpScanTest::scanOfSomeLanes, data(n, 14),
                        new int[n]);
            }
        }
    }
}
