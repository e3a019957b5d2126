package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * Grid-stride loops of kernels with barriers run interleaved across the groups of a CTA (each group pauses every
 * few iterations so that the next runs its own): against the reference at the edges (empty loops, bounds smaller
 * than a CTA or not a multiple of it, CTAs of one thread and of 1024), with shared and global atomics, with
 * faults in the middle of the loop (the same failing thread as the reference, also when a later group faults
 * first in time), and the loops that must keep the order of the groups.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class InterleavedStrideLoopTest {

    @AutoClose
    static final Differential d = new Differential();

    /** a: {float[] in, float[] out, int[] {n}}: the reduction benchmark's kernel, a CTA's sum in out[blockIdx.x]. */
    static Kernel reduction(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            s[tid] = sum;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride && tid + stride < t.blockDimX()) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
    }

    /** Each thread's own sum, kept: any change in a thread's order of additions shows in its bits. */
    static Kernel perThreadSums(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            float sum = 0.1f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum = sum * 0.999f + in[i];
            }
            s[t.threadIdxX()] = sum;
            t.syncThreads();
            out[t.globalIdX()] = s[t.blockDimX() - 1 - t.threadIdxX()];
        };
    }

    /** a: {int[] data, int[] bins, int[] {n}}: the histogram benchmark's kernel, 64 bins. */
    static Kernel histogram(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int[] local = t.sharedInts(64);
            int tid = t.threadIdxX();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                int count = local[b];
                if (count != 0) {
                    Atomics.add(bins, b, count);
                }
            }
        };
    }

    private static void sums(int n, int ctas, int block) {
        float[] in = Differential.floats(Math.max(n, 1), 31, -1, 1);
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::reduction, in, new float[ctas], new int[] {n});
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::perThreadSums, in, new float[ctas * block], new int[] {n});
    }

    private static void histogram(int n, int ctas, int block) {
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::histogram, Differential.ints(Math.max(n, 1), 32, 0, 64),
                new int[64], new int[] {n});
    }

    @Test
    void listing_saysTheLoopIsInterleaved() {
        String listing = d.report(InterleavedStrideLoopTest::reduction, new float[8], new float[8], new int[] {8}).listing();
        assertTrue(listing.contains("interleaved: a group pauses every"), listing);
        listing = d.report(InterleavedStrideLoopTest::histogram, new int[8], new int[64], new int[] {8}).listing();
        assertTrue(listing.contains("interleaved: a group pauses every"), listing);
    }

    /** The reduction's loop in a kernel that also reads threadIdx.y (its CTAs may be two-dimensional). */
    static Kernel reduction2d(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX() * t.blockDimY());
            int tid = t.threadIdxY() * t.blockDimX() + t.threadIdxX();
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            s[tid] = sum;
            t.syncThreads();
            out[t.blockIdxX()] = s[0];
        };
    }

    /**
     * With 16-lane registers a 1D kernel whose interleaved loop carries a vector (the reduction) runs in groups of two
     * warps, pausing every 32 iterations; one whose loop carries only scalars (the histogram, run round-robin) and one
     * reading threadIdx.y keep groups of a warp or less. With 8-lane registers no group is two warps.
     */
    @Test
    void vectorCarryingLoops_takeGroupsOfTwoWarpsWith16Lanes() {
        boolean wide = dev.weft.simd.internal.gen.Lanes.L32 == 16;
        String listing = d.report(InterleavedStrideLoopTest::reduction, new float[8], new float[8], new int[] {8}).listing();
        assertEquals(wide, listing.contains("a group of 64 threads"), listing);
        assertTrue(listing.contains("interleaved: a group pauses every " + (wide ? 32 : 16) + " iterations"), listing);
        listing = d.report(InterleavedStrideLoopTest::histogram, new int[8], new int[64], new int[] {8}).listing();
        assertFalse(listing.contains("a group of 64 threads"), listing);
        assertTrue(listing.contains("interleaved: a group pauses every 16 iterations"), listing);
        listing = d.report(InterleavedStrideLoopTest::reduction2d, new float[8], new float[8], new int[] {8}).listing();
        assertFalse(listing.contains("a group of 64 threads"), listing);
        float[] in = Differential.floats(30_011, 36, -1, 1);
        d.check(Dim3.of(3), Dim3.of(32, 4), InterleavedStrideLoopTest::reduction2d, in, new float[3], new int[] {30_011});
        d.check(Dim3.of(3), Dim3.of(64, 2), InterleavedStrideLoopTest::reduction2d, in, new float[3], new int[] {30_011});
    }

    @Test
    void emptyLoop_matchesReference() {
        sums(0, 3, 256);
        histogram(0, 3, 256);
    }

    @Test
    void boundSmallerThanACta_matchesReference() {
        sums(100, 2, 256);
        histogram(100, 2, 256);
    }

    @Test
    void boundNotAMultipleOfTheCta_matchesReference() {
        sums(100_003, 7, 256);
        histogram(100_003, 7, 256);
        sums(50_001, 5, 96);
        histogram(50_001, 5, 96);
    }

    @Test
    void ctaNotAMultipleOfTheGroup_matchesReference() {
        sums(30_011, 3, 200);
        histogram(30_011, 3, 200);
        // half a group of two warps
        sums(20_011, 5, 32);
    }

    @Test
    void oneThreadCtas_matchReference() {
        sums(5_003, 9, 1);
        histogram(5_003, 9, 1);
    }

    @Test
    void ctasOf1024Threads_matchReference() {
        sums(300_007, 4, 1024);
        histogram(300_007, 4, 1024);
    }

    /** In CTA 0 only: bin 64 (outside the shared histogram) for a thread of group {@code late} at iteration 40. */
    private static int[] badBins(int n, int block, int ctas, int[] threadAndIteration) {
        int[] data = Differential.ints(n, 33, 0, 64);
        for (int k = 0; k < threadAndIteration.length; k += 2) {
            data[threadAndIteration[k] + threadAndIteration[k + 1] * block * ctas] = 64;
        }
        return data;
    }

    @Test
    void faultInTheMiddleOfTheLoop_failsInTheReferencesThread() {
        int block = 256;
        int ctas = 2;
        int n = 100 * block * ctas;
        // One thread, in the middle of the CTA, late in its loop (after several pauses).
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::histogram, badBins(n, block, ctas, new int[] {100, 40}),
                new int[64], new int[] {n});
        // A later group faults first in time (iteration 1); the reference runs thread 3 to its end first, which faults
        // at iteration 70: thread 3 is the one reported.
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::histogram, badBins(n, block, ctas, new int[] {200, 1, 3, 70}),
                new int[64], new int[] {n});
        // Two later groups fault, the later one first in time.
        d.check(Dim3.of(ctas), Dim3.of(block), InterleavedStrideLoopTest::histogram, badBins(n, block, ctas, new int[] {250, 0, 130, 50}),
                new int[64], new int[] {n});
    }

    @Test
    void readPastTheEnd_failsInTheReferencesThread() {
        // n past the array's end: the threads that reach it fault in their last iterations.
        int block = 256;
        float[] in = Differential.floats(40_000, 34, -1, 1);
        d.check(Dim3.of(1), Dim3.of(block), InterleavedStrideLoopTest::reduction, in, new float[1], new int[] {40_100});
    }

    /** The loop stores to global memory: each group must run its whole loop in turn. */
    static Kernel storesInLoop(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                out[i] = in[i] * 2f;
            }
            s[t.threadIdxX()] = 1f;
            t.syncThreads();
            out[t.globalIdX()] += s[0];
        };
    }

    /** The phase writes what the loop reads (global): not interleaved. */
    static Kernel readsWhatThePhaseWrites(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            in[t.globalIdX()] = sum;
            s[t.threadIdxX()] = sum;
            t.syncThreads();
            out[t.globalIdX()] = s[0];
        };
    }

    @Test
    void loopsWhoseOrderIsVisible_areNotInterleaved() {
        int n = 20_000;
        for (var k : java.util.List.<java.util.function.Function<Object[], Kernel>>of(InterleavedStrideLoopTest::storesInLoop,
                InterleavedStrideLoopTest::readsWhatThePhaseWrites)) {
            String listing = d.report(k, new float[8], new float[8], new int[] {8}).listing();
            assertTrue(listing.contains("grid-stride fast path"), listing);
            assertFalse(listing.contains("interleaved: a group pauses"), listing);
            d.check(Dim3.of(3), Dim3.of(256), k, Differential.floats(n, 35, -1, 1), new float[n], new int[] {n});
        }
    }
}
