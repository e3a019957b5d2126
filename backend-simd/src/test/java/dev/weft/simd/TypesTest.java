package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** int, long, float and double arithmetic, comparisons and conversions, special values included. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TypesTest {

    @AutoClose
    static final Differential d = new Differential();
    static final int N = 600;
    static final Dim3 GRID = Dim3.of((N + 63) / 64);
    static final Dim3 BLOCK = Dim3.of(64);

    /** Ints with the edge cases in front: 0, -1, MIN, MAX, small and large values. */
    static int[] specialInts(long seed) {
        int[] a = Differential.ints(N, seed, -100000, 100000);
        int[] special = {0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE, 7, -7, 31, 32, 33, -32, 65536, -65537, Integer.MIN_VALUE + 1};
        System.arraycopy(special, 0, a, 0, special.length);
        for (int i = special.length; i < N; i += 9) {
            a[i] = (int) (seed * 2654435761L * i);
        }
        return a;
    }

    static float[] specialFloats(long seed) {
        float[] a = Differential.floats(N, seed, -1e6f, 1e6f);
        float[] special = {0f, -0f, 1f, -1f, 0.5f, -0.5f, 1.5f, -2.5f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, 2.1474836E9f, -2.1474836E9f, 3e9f, -3e9f,
            9.2233720E18f, -9.3e18f, 1e20f, 0x1p23f, 0x1p23f + 1, -0x1p23f - 1, 8388607.5f, 0.49999997f, 1e-40f};
        System.arraycopy(special, 0, a, 0, special.length);
        return a;
    }

    static double[] specialDoubles(long seed) {
        double[] a = Differential.doubles(N, seed, -1e12, 1e12);
        double[] special = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 2147483647.5, -2147483648.5, 3e9, 9.3e18, -9.3e18, 1e300,
            0x1p52, 0x1p52 + 1, -0x1p52 - 1, 4503599627370495.5, 0.49999999999999994, 1e-310};
        System.arraycopy(special, 0, a, 0, special.length);
        return a;
    }

    static Kernel intOps(Object[] a) {
        int[] x = (int[]) a[0];
        int[] y = (int[]) a[1];
        int[] out = (int[]) a[2];
        int n = x.length;
        int u = 37;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int p = x[i];
            int q = y[i];
            int r = p + q * 3 - (p ^ q) + (p & 0xFF) - (q | 5) + (p << (q & 7)) + (p >> 3) + (q >>> (p & 31));
            r += p * u - q / u + p % u + (q << p) + (p >>> q) + (-p) + ~q;
            if (q != 0) {
                r += p / q + p % q;
            }
            out[i] = r;
        };
    }

    @Test
    void intArithmeticAndShifts_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::intOps, specialInts(1), specialInts(2), new int[N]);
    }

    static Kernel intDivision(Object[] a) {
        int[] x = (int[]) a[0];
        int[] y = (int[]) a[1];
        int[] out = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && y[i] != 0) {
                out[i] = (x[i] / y[i]) * 7 + x[i] % y[i];
            }
        };
    }

    @Test
    void intDivisionEdgeCases_matchesReference() {
        int[] x = specialInts(3);
        int[] y = specialInts(4);
        y[3] = -1; // MIN_VALUE / -1 wraps
        y[5] = 3;
        y[6] = 1;
        d.check(GRID, BLOCK, TypesTest::intDivision, x, y, new int[N]);
    }

    static Kernel longOps(Object[] a) {
        long[] x = (long[]) a[0];
        long[] y = (long[]) a[1];
        long[] out = (long[]) a[2];
        int[] s = (int[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            long p = x[i];
            long q = y[i];
            long r = p + q * 3 - (p ^ q) + (p & 0xFFFFL) - (q | 5) + (p << s[i]) + (p >> (s[i] + 1)) + (q >>> 7);
            r += (p < q ? 1 : 0) + (p == q ? 100 : 0) + (p >= 0 ? 1000 : -1000);
            long m = p % 1000003L;
            if (m != 0) {
                r += q / m + q % m;
            }
            out[i] = r + i * 1_000_000_007L + (long) s[i];
        };
    }

    @Test
    void longArithmeticShiftsCompares_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::longOps, Differential.longs(N, 5), Differential.longs(N, 6), new long[N],
                Differential.ints(N, 7, -70, 70));
    }

    static Kernel floatOps(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] out = (float[]) a[2];
        int[] flags = (int[]) a[3];
        int n = x.length;
        float u = 1.75f;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float p = x[i];
            float q = y[(i * 7) % n];
            out[i] = p * q + p / q - (p - u) * -q + p % q;
            int f = 0;
            if (p < q) {
                f |= 1;
            }
            if (p <= q) {
                f |= 2;
            }
            if (p > q) {
                f |= 4;
            }
            if (p >= q) {
                f |= 8;
            }
            if (p == q) {
                f |= 16;
            }
            if (p != q) {
                f |= 32;
            }
            if (!(p < q)) {
                f |= 64;
            }
            if (!(p >= u)) {
                f |= 128;
            }
            flags[i] = f;
        };
    }

    @Test
    void floatArithmeticAndNaNComparisons_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::floatOps, specialFloats(8), specialFloats(9), new float[N], new int[N]);
    }

    static Kernel doubleOps(Object[] a) {
        double[] x = (double[]) a[0];
        double[] y = (double[]) a[1];
        double[] out = (double[]) a[2];
        int[] flags = (int[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            double p = x[i];
            double q = y[(i * 5) % n];
            out[i] = p * q + p / q - (p - 0.25) * -q + p % q;
            flags[i] = (p < q ? 1 : 0) | (p <= q ? 2 : 0) | (p > q ? 4 : 0) | (p >= q ? 8 : 0) | (p == q ? 16 : 0) | (p != q ? 32 : 0);
        };
    }

    @Test
    void doubleArithmeticAndNaNComparisons_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::doubleOps, specialDoubles(10), specialDoubles(11), new double[N], new int[N]);
    }

    static Kernel conversions(Object[] a) {
        float[] f = (float[]) a[0];
        double[] dd = (double[]) a[1];
        int[] ii = (int[]) a[2];
        long[] ll = (long[]) a[3];
        int[] oi = (int[]) a[4];
        long[] ol = (long[]) a[5];
        float[] of = (float[]) a[6];
        double[] od = (double[]) a[7];
        int n = f.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float x = f[i];
            double y = dd[i];
            int k = ii[i];
            long l = ll[i];
            oi[4 * i] = (int) x;
            oi[4 * i + 1] = (int) y;
            oi[4 * i + 2] = (int) l;
            oi[4 * i + 3] = (byte) k + (char) k * 3 + (short) k * 7;
            ol[3 * i] = (long) x;
            ol[3 * i + 1] = (long) y;
            ol[3 * i + 2] = k;
            of[3 * i] = k;
            of[3 * i + 1] = l;
            of[3 * i + 2] = (float) y;
            od[3 * i] = k;
            od[3 * i + 1] = l;
            od[3 * i + 2] = x;
        };
    }

    @Test
    void allConversionsIncludingSaturationAndNaN_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::conversions, specialFloats(12), specialDoubles(13), specialInts(14), Differential.longs(N, 15),
                new int[4 * N], new long[3 * N], new float[3 * N], new double[3 * N]);
    }

    static Kernel mixed(Object[] a) {
        float[] x = (float[]) a[0];
        double[] out = (double[]) a[1];
        long[] acc = (long[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            double s = 0;
            long c = 1;
            for (int j = 0; j <= i % 11; j++) {
                s += x[(i + j) % n] * (double) j;
                c = c * 31 + j;
            }
            out[i] = s;
            acc[i] = c;
        };
    }

    @Test
    void mixedWidthsInDivergentLoop_matchesReference() {
        d.check(GRID, BLOCK, TypesTest::mixed, Differential.floats(N, 16, -1, 1), new double[N], new long[N]);
    }
}
