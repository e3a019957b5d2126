package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Divergent loops whose exit compares an affine value with a uniform bound (CUDA's grid-stride loop): the fast
 * path that runs whole iterations without masks, against the reference, at the edges where it must hand over
 * to the masked loop (partial last iterations, bounds smaller than a group, empty loops, int overflow of the
 * induction variable, faults), and in the listing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StrideLoopTest {

    @AutoClose
    static final Differential d = new Differential();

    /** a: {float[] in, float[] out, int[] {n}}: per thread, the grid-stride sum of in[0, n), in order. */
    static Kernel gridStrideSum(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            out[t.globalIdX()] = sum;
        };
    }

    private static void gridStride(int n, int ctas, int block) {
        d.check(Dim3.of(ctas), Dim3.of(block), StrideLoopTest::gridStrideSum,
                Differential.floats(Math.max(n, 1), 21, -1, 1), new float[ctas * block], new int[] {n});
    }

    @Test
    void gridStrideSum_boundNotAMultipleOfAnything_matchesReference() {
        gridStride(100_003, 7, 128);
    }

    @Test
    void gridStrideSum_boundSmallerThanAGroup_matchesReference() {
        gridStride(5, 2, 64);
    }

    @Test
    void gridStrideSum_emptyLoop_matchesReference() {
        gridStride(0, 3, 64);
    }

    @Test
    void gridStrideSum_blockNotAMultipleOfTheGroup_matchesReference() {
        gridStride(10_007, 5, 40);
        gridStride(3_001, 3, 24);
    }

    @Test
    void gridStrideSum_listing_showsTheFastPath() {
        String listing = d.report(StrideLoopTest::gridStrideSum, new float[8], new float[8], new int[] {8}).listing();
        assertTrue(listing.contains("grid-stride fast path: while"), listing);
    }

    /** Strides not a multiple of the group, the bound on the left, {@code <=} and {@code !=}. */
    static Kernel oddStrides(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int g = t.globalIdX();
            float s = 0f;
            for (int i = g; i < n; i += 3) {
                s += in[i];
            }
            for (int i = g; n > i; i += t.blockDimX() + 5) {
                s = s * 0.5f + in[i];
            }
            for (int i = g; i <= n - 1; i += 17) {
                s -= in[i];
            }
            int count = 0;
            for (int i = t.threadIdxX(); i != n; i++) {
                count++;
            }
            out[g] = s + count;
        };
    }

    @Test
    void oddStrides_matchesReference() {
        int n = 1_000;
        d.check(Dim3.of(4), Dim3.of(64), StrideLoopTest::oddStrides, Differential.floats(n, 22, -1, 1), new float[256],
                new int[] {n});
    }

    /** A decreasing induction variable: stride -1 across the lanes, bound tested with {@code >=}. */
    static Kernel downwards(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float s = 0f;
            for (int i = n - 1 - t.globalIdX(); i >= 0; i -= t.blockDimX() * t.gridDimX()) {
                s += in[i];
            }
            out[t.globalIdX()] = s;
        };
    }

    @Test
    void downwards_negativeLaneStride_matchesReference() {
        for (int n : new int[] {0, 7, 999, 4_096}) {
            d.check(Dim3.of(3), Dim3.of(96), StrideLoopTest::downwards, Differential.floats(Math.max(n, 1), 23, -1, 1),
                    new float[288], new int[] {n});
        }
        String listing = d.report(StrideLoopTest::downwards, new float[8], new float[8], new int[] {8}).listing();
        assertTrue(listing.contains("grid-stride fast path"), listing);
    }

    /**
     * The induction variable overflows: each thread runs until {@code i} wraps past Integer.MAX_VALUE. The
     * lanes of a group wrap in different iterations, where a scalar test on the first lane alone would be wrong.
     */
    static Kernel overflow(Object[] a) {
        int[] out = (int[]) a[0];
        int start = ((int[]) a[1])[0];
        int step = ((int[]) a[1])[1];
        return t -> {
            int count = 0;
            int last = 0;
            for (int i = start + t.globalIdX(); i > 0; i += step) {
                count++;
                last = i;
            }
            out[t.globalIdX()] = count * 31 + last;
        };
    }

    @Test
    void overflow_nearIntegerMaxValue_matchesReference() {
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::overflow, new int[128], new int[] {Integer.MAX_VALUE - 1_000, 37});
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::overflow, new int[128], new int[] {Integer.MAX_VALUE - 100, 1});
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::overflow, new int[128], new int[] {Integer.MAX_VALUE - 5_000, 1 << 10});
    }

    /**
     * Bounds near the ends of the int range (the loops stop before {@code i} could wrap), where the lanes' values
     * come close to overflowing.
     */
    static Kernel largeBounds(Object[] a) {
        int[] out = (int[]) a[0];
        int lo = ((int[]) a[1])[0];
        int hi = ((int[]) a[1])[1];
        return t -> {
            int count = 0;
            for (int i = lo + t.globalIdX(); i < hi; i += 3) {
                count++;
            }
            for (int i = hi - t.globalIdX(); i > lo + 5; i -= 5) {
                count += 2;
            }
            out[t.globalIdX()] = count;
        };
    }

    @Test
    void largeBounds_matchesReference() {
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::largeBounds, new int[128], new int[] {Integer.MAX_VALUE - 300, Integer.MAX_VALUE - 2});
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::largeBounds, new int[128], new int[] {Integer.MIN_VALUE, Integer.MIN_VALUE + 400});
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::largeBounds, new int[128], new int[] {-1_000, -20});
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::largeBounds, new int[128], new int[] {50, -50});
    }

    /** A 2D CTA: the linear thread index as the induction variable's start. */
    static Kernel twoD(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int tid = t.threadIdxY() * t.blockDimX() + t.threadIdxX();
            int threads = t.blockDimX() * t.blockDimY();
            int cta = t.blockIdxY() * t.gridDimX() + t.blockIdxX();
            float s = 0f;
            for (int i = cta * threads + tid; i < n; i += threads * t.gridDimX() * t.gridDimY()) {
                s += in[i];
            }
            out[cta * threads + tid] = s;
        };
    }

    @Test
    void twoDimensionalCtas_matchesReference() {
        int n = 5_003;
        d.check(Dim3.of(2, 3), Dim3.of(16, 4), StrideLoopTest::twoD, Differential.floats(n, 24, -1, 1), new float[384], new int[] {n});
        d.check(Dim3.of(3, 1), Dim3.of(12, 5), StrideLoopTest::twoD, Differential.floats(n, 25, -1, 1), new float[180], new int[] {n});
    }

    /** The histogram's loops: clearing shared bins in a block-stride loop, atomics in a grid-stride loop. */
    static Kernel histogram(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = data.length;
        return t -> {
            int[] local = t.sharedInts(50);
            int tid = t.threadIdxX();
            for (int b = tid; b < 50; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < 50; b += t.blockDimX()) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    @Test
    void histogram_matchesReference() {
        d.check(Dim3.of(5), Dim3.of(32), StrideLoopTest::histogram, Differential.ints(3_001, 26, 0, 50), new int[50]);
        d.check(Dim3.of(3), Dim3.of(128), StrideLoopTest::histogram, Differential.ints(10_007, 27, 0, 50), new int[50]);
    }

    /**
     * A grid-stride loop inside an outer loop, and after an early return that leaves some threads of each group
     * inactive (the fast path needs every thread of the group, so those groups take the masked loop).
     */
    static Kernel nestedAndPartial(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int g = t.globalIdX();
            float s = 0f;
            for (int r = 1; r < 4; r++) {
                for (int i = g; i < n; i += t.blockDimX() * t.gridDimX() * r) {
                    s += in[i] * r;
                }
            }
            out[g] = s;
            if (g % 3 == 0 && t.blockIdxX() == 1) {
                return;
            }
            for (int i = g; i < n; i += t.blockDimX() * t.gridDimX()) {
                s -= in[i];
            }
            out[g] = s;
        };
    }

    @Test
    void nestedAndPartial_matchesReference() {
        int n = 7_777;
        d.check(Dim3.of(3), Dim3.of(64), StrideLoopTest::nestedAndPartial, Differential.floats(n, 31, -1, 1), new float[192],
                new int[] {n});
    }

    /** A break: the loop has more than a header and a body, so it keeps the general path. */
    static Kernel withBreak(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float s = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                if (in[i] > 0.9f) {
                    break;
                }
                s += in[i];
            }
            out[t.globalIdX()] = s;
        };
    }

    @Test
    void withBreak_generalPath_matchesReference() {
        int n = 3_000;
        d.check(Dim3.of(2), Dim3.of(64), StrideLoopTest::withBreak, Differential.floats(n, 28, -1, 1), new float[128], new int[] {n});
        String listing = d.report(StrideLoopTest::withBreak, new float[8], new float[8], new int[] {8}).listing();
        assertFalse(listing.contains("grid-stride fast path"), listing);
    }

    /** A grid-stride loop that reads past the end of its array: the first faulting thread fails the launch. */
    @Test
    void gridStrideSum_readPastTheEnd_failsInTheFirstFaultingThread() {
        // in has 200 elements, the bound is 210: thread 8 reads in[200] in its fourth iteration (one CTA only).
        d.check(Dim3.of(1), Dim3.of(64), StrideLoopTest::gridStrideSum, Differential.floats(200, 29, -1, 1),
                new float[64], new int[] {210});
    }

    /** A fault in a later iteration of an earlier group: the fast path hands over to the masks. */
    @Test
    void gridStrideSum_faultInLaterIteration_failsInTheFirstFaultingThread() {
        d.check(Dim3.of(1), Dim3.of(128), StrideLoopTest::gridStrideSum, Differential.floats(1_000, 30, -1, 1),
                new float[128], new int[] {1_100});
    }
}
