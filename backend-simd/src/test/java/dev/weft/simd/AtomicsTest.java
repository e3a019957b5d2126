package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomics in compiled kernels: every op of {@link Atomics} on int, long, float and double arrays, against the
 * reference executor. Old values returned to threads are compared in single-CTA launches, where both executors
 * apply a thread's first atomic on an array in linear thread order; counts are compared across many CTAs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicsTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel oneBin(Object[] a) {
        int[] bins = (int[]) a[0];
        int n = (Integer) a[1];
        return t -> {
            if (t.globalIdX() < n) {
                Atomics.add(bins, 0, 1);
            }
        };
    }

    @Test
    void histogram_allLanesOneBin_noUpdateLost() {
        for (int n : new int[] {1, 31, 33, 1000, 5000}) {
            Object[] out = d.check(Dim3.of((n + 255) / 256), Dim3.of(256), AtomicsTest::oneBin, new int[1], n);
            assertEquals(n, ((int[]) out[0])[0]);
        }
        Object[] out = d.check(Dim3.of(3), Dim3.of(1024), AtomicsTest::oneBin, new int[1], 3000);
        assertEquals(3000, ((int[]) out[0])[0]);
        out = d.check(Dim3.of(7), Dim3.of(1), AtomicsTest::oneBin, new int[1], 5);
        assertEquals(5, ((int[]) out[0])[0]);
    }

    static Kernel histogram2d(Object[] a) {
        int[] x = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int w = (Integer) a[2];
        int h = (Integer) a[3];
        return t -> {
            int col = t.globalIdX();
            int row = t.globalIdY();
            if (col < w && row < h) {
                int v = x[row * w + col];
                Atomics.add(bins, v & 15, 1);
                Atomics.max(bins, 16 + (v & 3), v);
            }
        };
    }

    @Test
    void histogram_2dGridPartialWarps_matchesReference() {
        int w = 45;
        int h = 37;
        Object[] data = {Differential.ints(w * h, 11, 0, 1000), new int[20], w, h};
        d.check(Dim3.of(4, 3), Dim3.of(13, 5), AtomicsTest::histogram2d, data);
        d.check(Dim3.of(2, 2, 2), Dim3.of(32, 32), AtomicsTest::histogram2d, data);
    }

    static Kernel ticket(Object[] a) {
        int[] counter = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int i = t.threadIdxX() + t.blockDimX() * (t.threadIdxY() + t.blockDimY() * t.threadIdxZ());
            if (i % 3 != 1) {
                out[i] = Atomics.add(counter, 0, 1);
            }
        };
    }

    @Test
    void oldValues_divergentThreadsOneCta_inThreadOrder() {
        d.check(Dim3.of(1), Dim3.of(1024), AtomicsTest::ticket, new int[1], new int[1024]);
        d.check(Dim3.of(1), Dim3.of(5, 7, 3), AtomicsTest::ticket, new int[1], new int[105]);
        d.check(Dim3.of(1), Dim3.of(1), AtomicsTest::ticket, new int[1], new int[1]);
    }

    static Kernel intOps(Object[] a) {
        int[][] s = new int[11][];
        for (int i = 0; i < 11; i++) {
            s[i] = (int[]) a[i];
        }
        int[] a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3], a4 = s[4], a5 = s[5], a6 = s[6], a7 = s[7], a8 = s[8], a9 = s[9];
        int[] out = s[10];
        return t -> {
            int i = t.globalIdX();
            int v = i * 2654435 ^ (i >>> 3);
            int k = i % 5;
            int r = Atomics.add(a0, k, v);
            r = r * 31 + Atomics.exchange(a1, k, v);
            r = r * 31 + Atomics.compareAndSwap(a2, k, i & 7, v & 15);
            r = r * 31 + Atomics.min(a3, k, v);
            r = r * 31 + Atomics.max(a4, k, v);
            r = r * 31 + Atomics.and(a5, k, v | 0x10_0000);
            r = r * 31 + Atomics.or(a6, k, v & 0xF0F0);
            r = r * 31 + Atomics.xor(a7, k, v);
            r = r * 31 + Atomics.inc(a8, k, 37);
            r = r * 31 + Atomics.dec(a9, k, 19);
            out[i] = r;
        };
    }

    static Kernel longOps(Object[] a) {
        long[][] s = new long[11][];
        for (int i = 0; i < 11; i++) {
            s[i] = (long[]) a[i];
        }
        long[] a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3], a4 = s[4], a5 = s[5], a6 = s[6], a7 = s[7], a8 = s[8], a9 = s[9];
        long[] out = s[10];
        return t -> {
            int i = t.globalIdX();
            long v = i * 0x9E3779B97F4A7C15L;
            int k = (i * 7) % 3;
            long r = Atomics.add(a0, k, v);
            r = r * 31 + Atomics.exchange(a1, k, v);
            r = r * 31 + Atomics.compareAndSwap(a2, k, i & 7, v & 15);
            r = r * 31 + Atomics.min(a3, k, v);
            r = r * 31 + Atomics.max(a4, k, v);
            r = r * 31 + Atomics.and(a5, k, ~v);
            r = r * 31 + Atomics.or(a6, k, v >>> 40);
            r = r * 31 + Atomics.xor(a7, k, v);
            r = r * 31 + Atomics.inc(a8, k, 41);
            r = r * 31 + Atomics.dec(a9, k, 23);
            out[i] = r;
        };
    }

    static Kernel floatOps(Object[] a) {
        float[] a0 = (float[]) a[0];
        float[] a1 = (float[]) a[1];
        float[] a2 = (float[]) a[2];
        float[] a3 = (float[]) a[3];
        float[] a4 = (float[]) a[4];
        float[] out = (float[]) a[5];
        return t -> {
            int i = t.globalIdX();
            float v = (i % 13) - 6.5f;
            int k = i & 3;
            float r = Atomics.add(a0, k, v);
            r = r * 3 + Atomics.exchange(a1, k, v);
            r = r * 3 + Atomics.compareAndSwap(a2, k, (float) (i & 1), v);
            r = r * 3 + Atomics.min(a3, k, v);
            r = r * 3 + Atomics.max(a4, k, v);
            out[i] = r;
        };
    }

    static Kernel doubleOps(Object[] a) {
        double[] a0 = (double[]) a[0];
        double[] a1 = (double[]) a[1];
        double[] a2 = (double[]) a[2];
        double[] a3 = (double[]) a[3];
        double[] a4 = (double[]) a[4];
        double[] out = (double[]) a[5];
        return t -> {
            int i = t.globalIdX();
            if (i % 4 == 3) {
                return;
            }
            double v = (i % 11) * 0.25 - 1.0;
            int k = i % 3;
            double r = Atomics.add(a0, k, v);
            r = r * 3 + Atomics.exchange(a1, k, v);
            r = r * 3 + Atomics.compareAndSwap(a2, k, 0.0, v);
            r = r * 3 + Atomics.min(a3, k, v);
            r = r * 3 + Atomics.max(a4, k, v);
            out[i] = r;
        };
    }

    @Test
    void everyOp_allTypes_oneCta_matchesReference() {
        for (int threads : new int[] {1, 45, 256}) {
            Object[] ints = new Object[11];
            Object[] longs = new Object[11];
            for (int i = 0; i < 10; i++) {
                ints[i] = Differential.ints(5, 100 + i, -50, 50);
                longs[i] = Differential.longs(3, 200 + i);
            }
            ints[10] = new int[threads];
            longs[10] = new long[threads];
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::intOps, ints);
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::longOps, longs);
            Object[] floats = new Object[6];
            Object[] doubles = new Object[6];
            for (int i = 0; i < 5; i++) {
                floats[i] = new float[] {0f, 1f, -2f, 3.5f};
                doubles[i] = new double[] {0.0, 1.0, -2.0};
            }
            floats[5] = new float[threads];
            doubles[5] = new double[threads];
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::floatOps, floats);
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::doubleOps, doubles);
        }
    }

    /** The ops of {@link #intOps} on one shared array, ten slices of five, copied in from {@code a[0]} and out to {@code a[1]}. */
    static Kernel sharedIntOps(Object[] a) {
        int[] init = (int[]) a[0];
        int[] fin = (int[]) a[1];
        int[] out = (int[]) a[2];
        return t -> {
            int[] s = t.sharedInts(50);
            int tid = t.threadIdxX();
            for (int j = tid; j < 50; j += t.blockDimX()) {
                s[j] = init[j];
            }
            t.syncThreads();
            int v = tid * 2654435 ^ (tid >>> 3);
            int k = tid % 5;
            int r = Atomics.add(s, k, v);
            r = r * 31 + Atomics.exchange(s, 5 + k, v);
            r = r * 31 + Atomics.compareAndSwap(s, 10 + k, tid & 7, v & 15);
            r = r * 31 + Atomics.min(s, 15 + k, v);
            r = r * 31 + Atomics.max(s, 20 + k, v);
            r = r * 31 + Atomics.and(s, 25 + k, v | 0x10_0000);
            r = r * 31 + Atomics.or(s, 30 + k, v & 0xF0F0);
            r = r * 31 + Atomics.xor(s, 35 + k, v);
            r = r * 31 + Atomics.inc(s, 40 + k, 37);
            r = r * 31 + Atomics.dec(s, 45 + k, 19);
            out[tid] = r;
            t.syncThreads();
            for (int j = tid; j < 50; j += t.blockDimX()) {
                fin[j] = s[j];
            }
        };
    }

    static Kernel sharedLongOps(Object[] a) {
        long[] init = (long[]) a[0];
        long[] fin = (long[]) a[1];
        long[] out = (long[]) a[2];
        return t -> {
            long[] s = t.sharedLongs(30);
            int tid = t.threadIdxX();
            for (int j = tid; j < 30; j += t.blockDimX()) {
                s[j] = init[j];
            }
            t.syncThreads();
            long v = tid * 0x9E3779B97F4A7C15L;
            int k = (tid * 7) % 3;
            long r = Atomics.add(s, k, v);
            r = r * 31 + Atomics.exchange(s, 3 + k, v);
            r = r * 31 + Atomics.compareAndSwap(s, 6 + k, tid & 7, v & 15);
            r = r * 31 + Atomics.min(s, 9 + k, v);
            r = r * 31 + Atomics.max(s, 12 + k, v);
            r = r * 31 + Atomics.and(s, 15 + k, ~v);
            r = r * 31 + Atomics.or(s, 18 + k, v >>> 40);
            r = r * 31 + Atomics.xor(s, 21 + k, v);
            r = r * 31 + Atomics.inc(s, 24 + k, 41);
            r = r * 31 + Atomics.dec(s, 27 + k, 23);
            out[tid] = r;
            t.syncThreads();
            for (int j = tid; j < 30; j += t.blockDimX()) {
                fin[j] = s[j];
            }
        };
    }

    static Kernel sharedFloatOps(Object[] a) {
        float[] init = (float[]) a[0];
        float[] fin = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> {
            float[] s = t.sharedFloats(20);
            int tid = t.threadIdxX();
            for (int j = tid; j < 20; j += t.blockDimX()) {
                s[j] = init[j];
            }
            t.syncThreads();
            float v = (tid % 13) - 6.5f;
            int k = tid & 3;
            float r = Atomics.add(s, k, v);
            r = r * 3 + Atomics.exchange(s, 4 + k, v);
            r = r * 3 + Atomics.compareAndSwap(s, 8 + k, (float) (tid & 1), v);
            r = r * 3 + Atomics.min(s, 12 + k, v);
            r = r * 3 + Atomics.max(s, 16 + k, v);
            out[tid] = r;
            t.syncThreads();
            for (int j = tid; j < 20; j += t.blockDimX()) {
                fin[j] = s[j];
            }
        };
    }

    static Kernel sharedDoubleOps(Object[] a) {
        double[] init = (double[]) a[0];
        double[] fin = (double[]) a[1];
        double[] out = (double[]) a[2];
        return t -> {
            double[] s = t.sharedDoubles(15);
            int tid = t.threadIdxX();
            for (int j = tid; j < 15; j += t.blockDimX()) {
                s[j] = init[j];
            }
            t.syncThreads();
            double v = (tid % 11) * 0.25 - 1.0;
            int k = tid % 3;
            double r = Atomics.add(s, k, v);
            r = r * 3 + Atomics.exchange(s, 3 + k, v);
            r = r * 3 + Atomics.compareAndSwap(s, 6 + k, 0.0, v);
            r = r * 3 + Atomics.min(s, 9 + k, v);
            r = r * 3 + Atomics.max(s, 12 + k, v);
            out[tid] = r;
            t.syncThreads();
            for (int j = tid; j < 15; j += t.blockDimX()) {
                fin[j] = s[j];
            }
        };
    }

    /** Shared-array atomics are compiled as plain read-modify-writes (the CTA's worker owns them): same results. */
    @Test
    void everyOp_allTypes_sharedArrays_matchesReference() {
        for (int threads : new int[] {1, 45, 256}) {
            float[] floats = new float[20];
            double[] doubles = new double[15];
            for (int j = 0; j < 20; j++) {
                floats[j] = new float[] {0f, 1f, -2f, 3.5f, -0f}[j % 5];
            }
            for (int j = 0; j < 15; j++) {
                doubles[j] = new double[] {0.0, 1.0, -2.0, -0.0}[j % 4];
            }
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::sharedIntOps,
                    new Object[] {Differential.ints(50, 300, -50, 50), new int[50], new int[threads]});
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::sharedLongOps,
                    new Object[] {Differential.longs(30, 301), new long[30], new long[threads]});
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::sharedFloatOps, new Object[] {floats, new float[20], new float[threads]});
            d.check(Dim3.of(1), Dim3.of(threads), AtomicsTest::sharedDoubleOps, new Object[] {doubles, new double[15], new double[threads]});
        }
    }

    static Kernel outOfBounds(Object[] a) {
        int[] bins = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int i = t.globalIdX();
            out[i] = Atomics.add(bins, i - 40, 1);
        };
    }

    @Test
    void outOfBoundsIndex_failsSameThread() {
        // Threads 0..39 fail on a negative index: the first one is reported, on both executors.
        d.check(Dim3.of(1), Dim3.of(96), AtomicsTest::outOfBounds, new int[100], new int[96]);
        // Threads 90.. index past the end.
        d.check(Dim3.of(1), Dim3.of(96), AtomicsTest::outOfBounds, new int[50], new int[96]);
    }

    /** The benchmark's kernel: a shared histogram per CTA over a grid-stride loop, then global adds per bin. */
    static Kernel gridStrideHistogram(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            int[] local = t.sharedInts(16);
            int tid = t.threadIdxX();
            for (int b = tid; b < 16; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < 16; b += t.blockDimX()) {
                int count = local[b];
                if (count != 0) {
                    Atomics.add(bins, b, count);
                }
            }
        };
    }

    /**
     * Grid-stride loops run whole iterations with every lane active and their atomics unmasked: counts over many
     * CTAs and partial last iterations, all lanes on one bin included.
     */
    @Test
    void gridStrideHistogram_unusedResults_countsMatchReference() {
        assertTrue(d.report(AtomicsTest::gridStrideHistogram, new int[1], new int[16], 1).listing().contains("grid-stride fast path"));
        for (int n : new int[] {1, 100, 4096, 10_007}) {
            int[] data = Differential.ints(n, 17, 0, 16);
            Object[] out = d.check(Dim3.of(3), Dim3.of(64), AtomicsTest::gridStrideHistogram, data, new int[16], n);
            assertEquals(n, java.util.Arrays.stream((int[]) out[1]).sum());
            d.check(Dim3.of(2), Dim3.of(96), AtomicsTest::gridStrideHistogram, new int[n], new int[16], n);
        }
    }

    /**
     * An index out of bounds in the middle of a warp inside a grid-stride fast path: the unmasked path's vector
     * test sends the group to the masked one, which reports that thread, as the reference does.
     */
    @Test
    void gridStrideHistogram_outOfBoundsMidWarp_failsSameThread() {
        for (int bad : new int[] {0, 5, 7, 8, 13, 15, 1000 + 9, 4095}) {
            for (int value : new int[] {16, -1, Integer.MIN_VALUE}) {
                int[] data = Differential.ints(4096, 19, 0, 16);
                data[bad] = value;
                d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::gridStrideHistogram, data, new int[16], 4096);
            }
        }
    }

    /**
     * A grid-stride histogram with its own step and bound, with and without a barrier (shared or global bins): the
     * fast path must read nothing past the bound (elements there are out of range for the bins), and a step that
     * overflows {@code i} must fault the thread the reference faults.
     */
    static Kernel steppedHistogram(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = (Integer) a[2];
        int step = (Integer) a[3];
        boolean shared = (Boolean) a[4];
        if (!shared) {
            return t -> {
                for (int i = t.globalIdX(); i < n; i += step) {
                    Atomics.add(bins, data[i], 1);
                }
            };
        }
        return t -> {
            int[] local = t.sharedInts(16);
            int tid = t.threadIdxX();
            for (int b = tid; b < 16; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += step) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < 16; b += t.blockDimX()) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    @Test
    void steppedHistogram_pastBoundOrOverflowingStep_matchesReference() {
        for (boolean shared : new boolean[] {false, true}) {
            for (int[] nStep : new int[][] {{3000, 128}, {4096, 64}, {2999, 200}, {4000, 1 << 30}, {4000, Integer.MAX_VALUE}}) {
                int n = nStep[0];
                int[] data = Differential.ints(4096, 29, 0, 16);
                for (int i = n; i < data.length; i++) {
                    data[i] = -1; // never read by a thread: the loop stops at n
                }
                // step MAX_VALUE wraps i negative: threads fault, so one CTA (which of two faulting CTAs a launch
                // reports is not fixed)
                int ctas = nStep[1] == Integer.MAX_VALUE ? 1 : 2;
                d.check(Dim3.of(ctas), Dim3.of(64), AtomicsTest::steppedHistogram, data, new int[16], n, nStep[1], shared);
            }
            // a fault in the middle of the loop: the same thread fails as on the reference
            int[] data = Differential.ints(4096, 31, 0, 16);
            data[2000 + 7] = 99;
            d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::steppedHistogram, data, new int[16], 4096, 128, shared);
        }
    }

    static Kernel gridStrideUniformOperands(Object[] a) {
        int[] data = (int[]) a[0];
        int[] ints = (int[]) a[1];
        long[] longs = (long[]) a[2];
        int n = (Integer) a[3];
        return t -> {
            int[] wraps = t.sharedInts(16);
            int[] flags = t.sharedInts(16);
            long[] sums = t.sharedLongs(16);
            int tid = t.threadIdxX();
            if (tid < 16) {
                wraps[tid] = 0;
                flags[tid] = 0;
                sums[tid] = 0L;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                int v = data[i];
                Atomics.inc(wraps, v, 6);
                Atomics.or(flags, v, 1 << (v & 7));
                Atomics.add(sums, v, 3L);
            }
            t.syncThreads();
            if (tid < 16) {
                Atomics.add(ints, tid, wraps[tid]);
                Atomics.add(ints, 16 + tid, flags[tid]);
                Atomics.add(longs, tid, sums[tid]);
            }
        };
    }

    /**
     * Shared atomics with uniform operands and unread results in a grid-stride fast path (with 256-bit vectors the
     * updates are unrolled, each lane's index read from its register; with 512-bit ones a loop reads them from
     * scratch: the AVX2 test run covers the first): other operations than add and a long array, partial last iterations,
     * and an index out of bounds mid-warp failing the same thread as on the reference.
     */
    @Test
    void gridStride_uniformOperandsUnreadResults_matchReference() {
        assertTrue(d.report(AtomicsTest::gridStrideUniformOperands, new int[1], new int[32], new long[16], 1).listing()
                .contains("grid-stride fast path"));
        for (int n : new int[] {5, 700, 4099}) {
            d.check(Dim3.of(3), Dim3.of(64), AtomicsTest::gridStrideUniformOperands, Differential.ints(n, 41, 0, 16),
                    new int[32], new long[16], n);
        }
        for (int bad : new int[] {3, 8, 31, 2050}) {
            int[] data = Differential.ints(4096, 43, 0, 16);
            data[bad] = bad % 2 == 0 ? 16 : -3;
            d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::gridStrideUniformOperands, data, new int[32], new long[16], 4096);
        }
    }

    static Kernel gridStrideOldValues(Object[] a) {
        int[] cells = (int[]) a[0];
        int[] old = (int[]) a[1];
        long[] longCells = (long[]) a[2];
        long[] longOld = (long[]) a[3];
        int[] delta = (int[]) a[4];
        int n = (Integer) a[5];
        long[] totals = (long[]) a[6];
        return t -> {
            long[] local = t.sharedLongs(8);
            int tid = t.threadIdxX();
            if (tid < 8) {
                local[tid] = 0L;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                // one cell per thread and iteration: the old values do not depend on the order of updates
                old[i] = Atomics.add(cells, i, delta[i]);
                longOld[i] = Atomics.exchange(longCells, i, (long) delta[i] << 33);
                Atomics.add(local, i & 7, delta[i]);
            }
            t.syncThreads();
            if (tid < 8) {
                // not into longCells: another CTA's exchange there would read this add or not, by timing
                Atomics.add(totals, tid, local[tid]);
            }
        };
    }

    static Kernel gridStrideFloats(Object[] a) {
        float[] floatCells = (float[]) a[0];
        double[] doubleCells = (double[]) a[1];
        int[] delta = (int[]) a[2];
        int n = (Integer) a[3];
        return t -> {
            float[] local = t.sharedFloats(8);
            double[] localD = t.sharedDoubles(8);
            int tid = t.threadIdxX();
            if (tid < 8) {
                local[tid] = 0f;
                localD[tid] = 0.0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                // integral values: the sums are exact in any order
                Atomics.add(floatCells, i, delta[i]);
                Atomics.add(local, i & 7, 1f);
                Atomics.add(localD, i & 7, delta[i] * 2.0);
            }
            t.syncThreads();
            if (tid < 8) {
                Atomics.add(floatCells, tid, local[tid]);
                Atomics.add(doubleCells, tid, localD[tid]);
            }
        };
    }

    /** Used and unused old values of every type in grid-stride fast paths, with varying and uniform operands. */
    @Test
    void gridStride_usedAndUnusedResults_allTypes_matchReference() {
        for (int n : new int[] {37, 512, 2000}) {
            var report = d.report(AtomicsTest::gridStrideOldValues, new int[n], new int[n], new long[n], new long[n], new int[n], n, new long[8]);
            assertTrue(report.listing().contains("grid-stride fast path"), report.summary());
            d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::gridStrideOldValues, Differential.ints(n, 23, -99, 99), new int[n],
                    Differential.longs(n, 29), new long[n], Differential.ints(n, 31, -5, 5), n, new long[8]);
            d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::gridStrideFloats, new float[n], new double[n],
                    Differential.ints(n, 37, -5, 5), n);
        }
    }

    /** The histogram benchmark's kernel: per-CTA shared bins, shared atomics in a grid-stride loop, a merge with global atomics. */
    static Kernel sharedBinsHistogram(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = (Integer) a[2];
        int count = bins.length;
        return t -> {
            int[] local = t.sharedInts(count);
            int tid = t.threadIdxX();
            for (int b = tid; b < count; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < count; b += t.blockDimX()) {
                int c = local[b];
                if (c != 0) {
                    Atomics.add(bins, b, c);
                }
            }
        };
    }

    /**
     * The shared-bins histogram (its unmasked atomics test a group's indices with one compare of their unsigned
     * maximum): 1-thread, partial-warp and 1024-thread CTAs, every value on one bin, and an index out of bounds in
     * a group's second register only, or negative, failing the same thread as on the reference.
     */
    @Test
    void sharedBinsHistogram_ctaShapesOneBinAndBadIndices_matchReference() {
        for (int threads : new int[] {1, 13, 64, 200, 1024}) {
            for (int n : new int[] {1, 777, 5000}) {
                d.check(Dim3.of(3), Dim3.of(threads), AtomicsTest::sharedBinsHistogram, Differential.ints(n, 47, 0, 256), new int[256], n);
                Object[] out = d.check(Dim3.of(2), Dim3.of(threads), AtomicsTest::sharedBinsHistogram, new int[n], new int[8], n);
                assertEquals(n, ((int[]) out[1])[0]);
            }
        }
        for (int bad : new int[] {8, 15, 16 + 9, 2048 + 31}) {
            for (int value : new int[] {256, -1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                int[] data = Differential.ints(4096, 53, 0, 256);
                data[bad] = value;
                d.check(Dim3.of(2), Dim3.of(64), AtomicsTest::sharedBinsHistogram, data, new int[256], 4096);
            }
        }
    }

    @Test
    void atomic_compileReport_saysSerialised() {
        var r = d.report(AtomicsTest::oneBin, new int[1], 10);
        assertTrue(r.compiled(), r.summary());
        assertTrue(r.listing().contains("Atomics.add"), r.listing());
        assertTrue(r.listing().contains("serialised"), r.listing());
    }
}
