package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.KernelException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Barriers and shared memory in compiled kernels against the reference executor: phases split at barriers,
 * values kept across them, barriers in uniform loops, the run-time check of barriers not every thread reaches,
 * and shared allocations with their limit errors.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BarrierTest {

    @AutoClose
    static final Differential d = new Differential();

    private static final Dim3[][] LINES = {
        {Dim3.of(3), Dim3.of(100)},
        {Dim3.of(2), Dim3.of(1024)},
        {Dim3.of(5), Dim3.of(1)},
        {Dim3.of(4), Dim3.of(32)},
        {Dim3.of(2), Dim3.of(33)},
    };

    private static final Dim3[][] ALL_SHAPES = {
        {Dim3.of(3), Dim3.of(100)},
        {Dim3.of(2), Dim3.of(1024)},
        {Dim3.of(5), Dim3.of(1)},
        {Dim3.of(2, 3), Dim3.of(7, 9)},
        {Dim3.of(2, 1, 2), Dim3.of(32, 2, 3)},
        {Dim3.of(1, 2), Dim3.of(64, 4)},
        {Dim3.of(1, 1, 2), Dim3.of(8, 8, 16)},
    };

    private static int n(Dim3 grid, Dim3 block) {
        return grid.x() * grid.y() * grid.z() * block.x() * block.y() * block.z();
    }

    private static int threads(Dim3 block) {
        return block.x() * block.y() * block.z();
    }

    static Kernel reverse(Object[] a) {
        float[] x = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            float[] tile = t.sharedFloats(t.blockDimX() * t.blockDimY() * t.blockDimZ());
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * threads + t.linearThreadIdx();
            tile[t.linearThreadIdx()] = x[i];
            t.syncThreads();
            out[i] = tile[threads - 1 - t.linearThreadIdx()];
        };
    }

    @Test
    void reverseThroughShared_everyShape_matchesReference() {
        for (Dim3[] s : ALL_SHAPES) {
            int n = n(s[0], s[1]);
            d.check(s[0], s[1], BarrierTest::reverse, Differential.floats(n, 1, -1f, 1f), new float[n]);
        }
    }

    static Kernel treeSum(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int[] partial = t.sharedInts(t.blockDimX());
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            partial[tid] = x[i];
            t.syncThreads();
            for (int s = t.blockDimX() / 2; s > 0; s >>= 1) {
                if (tid < s) {
                    partial[tid] += partial[tid + s];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = partial[0];
            }
        };
    }

    @Test
    void treeReduction_powerOfTwoBlocks_matchesReference() {
        for (int block : new int[] {1, 2, 32, 64, 256, 1024}) {
            int grid = 3;
            d.check(Dim3.of(grid), Dim3.of(block), BarrierTest::treeSum, Differential.ints(grid * block, 2, -1000, 1000), new int[grid]);
        }
    }

    static Kernel tiledMatmul(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] out = (float[]) a[2];
        int n = (Integer) a[3];
        return t -> {
            float[] as = t.sharedFloats(256);
            float[] bs = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * 16 + ty;
            int col = t.blockIdxX() * 16 + tx;
            float acc = 0f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                as[ty * 16 + tx] = row < n && k0 + tx < n ? x[row * n + k0 + tx] : 0f;
                bs[ty * 16 + tx] = col < n && k0 + ty < n ? y[(k0 + ty) * n + col] : 0f;
                t.syncThreads();
                for (int k = 0; k < 16; k++) {
                    acc += as[ty * 16 + k] * bs[k * 16 + tx];
                }
                t.syncThreads();
            }
            if (row < n && col < n) {
                out[row * n + col] = acc;
            }
        };
    }

    @Test
    void tiledMatmul_16x16Tiles_matchesReference() {
        for (int n : new int[] {16, 40, 64}) {
            int tiles = (n + 15) / 16;
            d.check(Dim3.of(tiles, tiles), Dim3.of(16, 16), BarrierTest::tiledMatmul,
                    Differential.floats(n * n, 3, -1f, 1f), Differential.floats(n * n, 4, -1f, 1f), new float[n * n], n);
        }
    }

    /** An inclusive scan of a CTA: shuffles within warps, warp totals through shared memory, a barrier between. */
    static Kernel scan(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int[] totals = t.sharedInts(32);
            int i = t.globalIdX();
            int lane = t.laneId();
            int v = x[i];
            for (int d = 1; d < 32; d <<= 1) {
                int up = t.shflUp(v, d);
                if (lane >= d) {
                    v += up;
                }
            }
            if (lane == 31) {
                totals[t.warpId()] = v;
            }
            t.syncThreads();
            int before = 0;
            for (int w = 0; w < t.warpId(); w++) {
                before += totals[w];
            }
            out[i] = v + before;
        };
    }

    @Test
    void scanWithShufflesAndWarpTotals_fullWarps_matchesReference() {
        for (int block : new int[] {32, 64, 256, 1024}) {
            d.check(Dim3.of(2), Dim3.of(block), BarrierTest::scan, Differential.ints(2 * block, 5, -100, 100), new int[2 * block]);
        }
    }

    static Kernel histogram(Object[] a) {
        int[] x = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = x.length;
        return t -> {
            int[] local = t.sharedInts(16);
            int i = t.globalIdX();
            if (i < n) {
                Atomics.add(local, x[i] & 15, 1);
            }
            t.syncThreads();
            if (t.threadIdxX() < 16) {
                Atomics.add(bins, t.threadIdxX(), local[t.threadIdxX()]);
            }
        };
    }

    @Test
    void sharedHistogramWithAtomics_everyLine_matchesReference() {
        for (Dim3[] s : LINES) {
            int n = n(s[0], s[1]) - 3;
            d.check(s[0], s[1], BarrierTest::histogram, Differential.ints(Math.max(n, 1), 6, 0, 1000), new int[16]);
        }
    }

    static Kernel sharedAtomicOldValues(Object[] a) {
        int[] out = (int[]) a[0];
        float[] fout = (float[]) a[1];
        return t -> {
            int[] counter = t.sharedInts(1);
            float[] fmax = t.sharedFloats(2);
            int old = Atomics.add(counter, 0, 1);
            Atomics.max(fmax, 1, (float) t.linearThreadIdx());
            t.syncThreads();
            out[t.globalIdX()] = old * 1000 + counter[0];
            fout[t.globalIdX()] = fmax[1];
        };
    }

    @Test
    void sharedAtomics_oldValuesInLaneOrder_matchReference() {
        for (Dim3[] s : LINES) {
            int n = n(s[0], s[1]);
            d.check(s[0], s[1], BarrierTest::sharedAtomicOldValues, new int[n], new float[n]);
        }
    }

    /** Uniform and varying values of all four types, a varying condition and an affine index, live across two barriers. */
    static Kernel keptAcross(Object[] a) {
        int[] xi = (int[]) a[0];
        long[] xl = (long[]) a[1];
        float[] xf = (float[]) a[2];
        double[] xd = (double[]) a[3];
        double[] out = (double[]) a[4];
        int scale = (Integer) a[5];
        return t -> {
            int[] shared = t.sharedInts(t.blockDimX() * t.blockDimY() * t.blockDimZ());
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * threads + t.linearThreadIdx();
            int vi = xi[i] * scale;
            long vl = xl[i] ^ (long) t.threadIdxY() << 33;
            float vf = xf[i] * 0.5f;
            double vd = xd[i] + t.threadIdxZ();
            long ul = (long) t.blockIdxX() << 40;
            float uf = t.blockIdxY() * 1.5f;
            double ud = t.blockIdxZ() * 0.25;
            boolean odd = (xi[i] & 1) != 0;
            shared[t.linearThreadIdx()] = vi;
            t.syncThreads();
            int neighbour = shared[(t.linearThreadIdx() + 1) % threads];
            t.syncThreads();
            shared[t.linearThreadIdx()] = neighbour + 1;
            t.syncThreads();
            double r = odd ? vl + ul : vf + uf + vd + ud;
            out[i] = r + shared[threads - 1 - t.linearThreadIdx()] + neighbour * 0.5;
        };
    }

    @Test
    void valuesOfEveryTypeAndMasks_keptAcrossBarriers_matchReference() {
        for (Dim3[] s : ALL_SHAPES) {
            int n = n(s[0], s[1]);
            d.check(s[0], s[1], BarrierTest::keptAcross, Differential.ints(n, 7, -1000, 1000), Differential.longs(n, 8),
                    Differential.floats(n, 9, -10f, 10f), Differential.doubles(n, 10, -10, 10), new double[n], 3);
        }
    }

    /** A barrier inside a loop whose trip count is uniform but comes from data, with a divergent branch around work. */
    static Kernel stencil(Object[] a) {
        float[] x = (float[]) a[0];
        float[] out = (float[]) a[1];
        int steps = (Integer) a[2];
        int n = x.length;
        return t -> {
            float[] cur = t.sharedFloats(t.blockDimX() + 2);
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            float v = i < n ? x[i] : 0f;
            for (int step = 0; step < steps; step++) {
                cur[tid + 1] = v;
                if (tid == 0) {
                    cur[0] = cur[1];
                    cur[t.blockDimX() + 1] = 0f;
                }
                t.syncThreads();
                if ((tid & 3) != 1) {
                    v = 0.25f * cur[tid] + 0.5f * cur[tid + 1] + 0.25f * cur[tid + 2];
                } else {
                    v = cur[tid + 1] - 0.1f * cur[tid];
                }
                t.syncThreads();
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    @Test
    void barrierInUniformLoopAroundDivergentCode_matchesReference() {
        for (Dim3[] s : LINES) {
            int n = n(s[0], s[1]) - 1;
            d.check(s[0], s[1], BarrierTest::stencil, Differential.floats(Math.max(n, 1), 11, -1f, 1f), new float[Math.max(n, 1)], 5);
        }
    }

    /**
     * Float accumulators carried around a loop with two barriers, one of them updated only on a divergent branch
     * and one only by the threads of a partial last tile: they go to the float spill row at each barrier and come
     * back at the next phase, blended where only some threads wrote them.
     */
    static Kernel blockedAccumulators(Object[] a) {
        float[] x = (float[]) a[0];
        float[] out = (float[]) a[1];
        int len = (int) a[2];
        return t -> {
            float[] tile = t.sharedFloats(t.blockDimX());
            int tx = t.threadIdxX();
            float acc0 = 0f;
            float acc1 = 1f;
            float acc2 = -1f;
            for (int k0 = 0; k0 < len; k0 += t.blockDimX()) {
                tile[tx] = k0 + tx < len ? x[k0 + tx] : 0f;
                t.syncThreads();
                for (int k = 0; k < t.blockDimX(); k++) {
                    float v = tile[k];
                    acc0 += v * (tx + 1);
                    if (tx % 3 != 0) {
                        acc1 = acc1 * 0.5f + v;
                    }
                    if (k0 + k < len && (tx & 1) == 0) {
                        acc2 -= v;
                    }
                }
                t.syncThreads();
            }
            int i = t.globalIdX();
            out[3 * i] = acc0;
            out[3 * i + 1] = acc1;
            out[3 * i + 2] = acc2;
        };
    }

    @Test
    void floatAccumulatorsAcrossBarriersWithDivergentUpdates_matchReference() {
        for (Dim3[] s : LINES) {
            int n = n(s[0], s[1]);
            int len = 3 * s[1].x() + 5;
            d.check(s[0], s[1], BarrierTest::blockedAccumulators, Differential.floats(len, 17, -1f, 1f), new float[3 * n], len);
        }
    }

    static Kernel barrierUnderDivergentBranch(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            if (t.threadIdxX() < 40) {
                t.syncThreads();
            }
            out[t.globalIdX()] = 1;
        };
    }

    @Test
    void barrierNotReachedByAll_failsLikeReference() {
        assertSameCtaFault(Dim3.of(1), Dim3.of(64), BarrierTest::barrierUnderDivergentBranch, new int[64]);
        // Every thread takes the branch: no error in either executor.
        d.check(Dim3.of(2), Dim3.of(40), BarrierTest::barrierUnderDivergentBranch, new int[80]);
    }

    static Kernel returnBeforeBarrier(Object[] a) {
        int[] x = (int[]) a[0];
        int n = x.length;
        return t -> {
            int[] s = t.sharedInts(t.blockDimX());
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            s[t.threadIdxX()] = x[i];
            t.syncThreads();
            x[i] = s[0];
        };
    }

    @Test
    void threadReturningBeforeBarrier_failsLikeReference() {
        assertSameCtaFault(Dim3.of(2), Dim3.of(64), BarrierTest::returnBeforeBarrier, new int[100]);
        // A CTA whose threads all return early is no error.
        d.check(Dim3.of(3), Dim3.of(32), BarrierTest::returnBeforeBarrier, Differential.ints(64, 13, 0, 9));
        d.check(Dim3.of(2), Dim3.of(64), BarrierTest::returnBeforeBarrier, Differential.ints(128, 12, 0, 9));
    }

    static Kernel warpUniformBarrier(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            for (int k = 0; k <= t.warpId(); k++) {
                t.syncThreads();
            }
            out[t.globalIdX()] = t.warpId();
        };
    }

    @Test
    void barrierCountDifferingBetweenWarps_failsLikeReference() {
        assertSameCtaFault(Dim3.of(1), Dim3.of(96), BarrierTest::warpUniformBarrier, new int[96]);
        d.check(Dim3.of(3), Dim3.of(32), BarrierTest::warpUniformBarrier, new int[96]);
    }

    static Kernel twoBarriersByWarp(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            if (t.warpId() == 0) {
                t.syncThreads();
            } else {
                t.syncThreads();
            }
            out[t.globalIdX()] = 1;
        };
    }

    @Test
    void warpsAtDifferentBarriers_failLikeReference() {
        assertSameCtaFault(Dim3.of(1), Dim3.of(64), BarrierTest::twoBarriersByWarp, new int[64]);
    }

    static Kernel faultBeforeBarrier(Object[] a) {
        int[] x = (int[]) a[0];
        return t -> {
            int[] s = t.sharedInts(t.blockDimX());
            s[t.threadIdxX()] = x[t.globalIdX() * 2];
            t.syncThreads();
            x[t.globalIdX()] = s[0] / (t.threadIdxX() - 70);
        };
    }

    @Test
    void faultsAroundBarriers_sameThreadAsReference() {
        // Out of bounds before the barrier (thread 50 of CTA 0 reads x[100]), division by zero after it.
        d.check(Dim3.of(1), Dim3.of(96), BarrierTest::faultBeforeBarrier, new int[100]);
        d.check(Dim3.of(1), Dim3.of(96), BarrierTest::faultBeforeBarrier, new int[400]);
    }

    static Kernel overLimit(Object[] a) {
        int[] out = (int[]) a[0];
        int len = (Integer) a[1];
        return t -> {
            int[] small = t.sharedInts(16);
            double[] big = t.sharedDoubles(len);
            small[t.threadIdxX() & 15] = 1;
            t.syncThreads();
            out[t.globalIdX()] = small[0] + big.length;
        };
    }

    @Test
    void sharedAllocationOverLimit_failsLikeReference() {
        d.check(Dim3.of(1), Dim3.of(64), BarrierTest::overLimit, new int[64], 1 << 20);
        d.check(Dim3.of(1), Dim3.of(64), BarrierTest::overLimit, new int[64], -1);
        d.check(Dim3.of(1), Dim3.of(64), BarrierTest::overLimit, new int[64], 100);
    }

    static Kernel lengthByWarp(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int[] s = t.sharedInts(8 + t.warpId());
            out[t.globalIdX()] = s.length;
        };
    }

    @Test
    void sharedAllocationDifferingBetweenWarps_failsLikeReference() {
        d.check(Dim3.of(1), Dim3.of(64), BarrierTest::lengthByWarp, new int[64]);
    }

    static Kernel allocationInLoop(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int sum = 0;
            for (int k = 0; k < 3; k++) {
                int[] s = t.sharedInts(4);
                sum += s.length;
            }
            out[t.globalIdX()] = sum;
        };
    }

    @Test
    void allocationInLoop_declinedWithReason() {
        CompileReport r = d.report(BarrierTest::allocationInLoop, new int[32]);
        assertTrue(!r.compiled() && r.summary().contains("inside a loop") && r.summary().contains("BarrierTest.java"), r.summary());
    }

    @Test
    void listing_showsBarriersAndKeptValues() {
        CompileReport r = d.report(BarrierTest::treeSum, new int[64], new int[1]);
        assertTrue(r.compiled(), r.summary());
        assertTrue(r.listing().contains("syncThreads()"), r.listing());
        assertTrue(r.listing().contains("barrier 2") && r.listing().contains("live across it: u4, u17"), r.listing());
    }

    @Test
    void groupsOfSeveralWarps_narrowWarps_matchReference() {
        // Warps of 8 and 16 threads: a group (a register's lanes or more) holds several warps, all of which must
        // reach the barrier; warp ids are then varying within a group.
        for (int warp : new int[] {8, 16}) {
            try (Differential narrow = new Differential(warp)) {
                for (Dim3[] s : ALL_SHAPES) {
                    int n = n(s[0], s[1]);
                    narrow.check(s[0], s[1], BarrierTest::keptAcross, Differential.ints(n, 14, -1000, 1000), Differential.longs(n, 15),
                            Differential.floats(n, 16, -10f, 10f), Differential.doubles(n, 17, -10, 10), new double[n], 3);
                }
                for (int block : new int[] {1, 8, 64, 1024}) {
                    narrow.check(Dim3.of(2), Dim3.of(block), BarrierTest::treeSum, Differential.ints(2 * block, 18, -9, 9), new int[2]);
                }
                CompileReport r = narrow.report(BarrierTest::warpUniformBarrier, new int[64]);
                assertTrue(r.compiled(), r.summary());
                KernelException e = assertThrows(KernelException.class,
                        () -> narrow.simd.launch(Dim3.of(1), Dim3.of(64), BarrierTest.warpUniformBarrier(new Object[] {new int[64]})));
                assertTrue(e.getMessage().contains("syncThreads() not reached by all threads of the CTA"), e.getMessage());
            }
        }
    }

    /** A barrier in a helper: one call instruction, so threads calling the helper from different places meet. */
    static void sync(dev.weft.ThreadContext t) {
        t.syncThreads();
    }

    static Kernel helperBarrierFromTwoPlaces(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int[] s = t.sharedInts(t.blockDimX());
            int tid = t.threadIdxX();
            int v;
            if (t.warpId() == 0) {
                s[tid] = tid + 1;
                sync(t);
                v = s[(tid + 32) % t.blockDimX()];
            } else {
                s[tid] = -tid;
                sync(t);
                v = s[tid - 32] * 2;
            }
            out[t.globalIdX()] = v;
        };
    }

    @Test
    void helperBarrierReachedFromTwoPlaces_warpsMeetAsInReference() {
        // Warp 0 and the others wait at two inlined copies of one call instruction: the reference releases them
        // together, and so must the compiled kernel (each group resumes after its own copy).
        d.check(Dim3.of(2), Dim3.of(64), BarrierTest::helperBarrierFromTwoPlaces, new int[128]);
        d.check(Dim3.of(1), Dim3.of(128), BarrierTest::helperBarrierFromTwoPlaces, new int[128]);
    }

    /** Both executors fail the launch in the same CTA with a convergence error naming the barrier. */
    private static void assertSameCtaFault(Dim3 grid, Dim3 block, java.util.function.Function<Object[], Kernel> make, Object... data) {
        CompileReport report = d.report(make, data);
        assertTrue(report.compiled(), report.summary());
        KernelException re = assertThrows(KernelException.class, () -> d.reference.launch(grid, block, make.apply(Differential.copy(data))));
        KernelException ve = assertThrows(KernelException.class, () -> d.simd.launch(grid, block, make.apply(Differential.copy(data))));
        assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
        assertTrue(ve.threadIdx().isEmpty(), ve.getMessage());
        assertTrue(re.threadIdx().isEmpty(), re.getMessage());
        // The first barrier named, and where its threads wait, as the reference names them.
        String where = re.getMessage().substring(re.getMessage().indexOf("wait in syncThreads() at "));
        where = where.substring(0, where.indexOf(')') + 1);
        assertTrue(ve.getMessage().contains(where), () -> "reference: " + re.getMessage() + "\nsimd: " + ve.getMessage());
        assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"), ve.getMessage());
        assertTrue(re.getMessage().contains("syncThreads() not reached by all threads of the CTA"), re.getMessage());
    }
}
