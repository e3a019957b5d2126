package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomics in compiled kernels: every op of {@link Atomics} on int, long, float and double arrays, against the
 * reference executor. Old values returned to threads are compared in single-CTA launches, where both executors
 * apply a thread's first atomic on an array in linear thread order; counts are compared across many CTAs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicsTest {

    static Differential d;

    @BeforeAll
    static void start() {
        d = new Differential();
    }

    @AfterAll
    static void stop() {
        d.close();
    }

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

    @Test
    void atomic_compileReport_saysSerialised() {
        var r = d.report(AtomicsTest::oneBin, new int[1], 10);
        assertTrue(r.compiled(), r.summary());
        assertTrue(r.listing().contains("Atomics.add"), r.listing());
        assertTrue(r.listing().contains("serialised"), r.listing());
    }
}
