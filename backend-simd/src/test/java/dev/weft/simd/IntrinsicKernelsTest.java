package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.FastMath;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Library functions the compiler lowers without inlining, on varying arguments with their edge values, found wrong by
 * the fuzzer's extra constructs (KernelGenerator.Options#extras).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IntrinsicKernelsTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel isNaN(Object[] a) {
        double[] x = (double[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            out[2 * i] = Double.isNaN(x[i]) ? 1 : 0;
            out[2 * i + 1] = Float.isNaN(f[i]) ? 3 : 2;
        };
    }

    static Kernel fastMath(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] out = (float[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float p = x[i];
            float q = y[i];
            out[8 * i] = FastMath.expf(p);
            out[8 * i + 1] = FastMath.logf(Math.abs(p));
            out[8 * i + 2] = FastMath.log2f(q);
            out[8 * i + 3] = FastMath.sinf(p);
            out[8 * i + 4] = FastMath.cosf(p) + FastMath.sinf(0.5f);
            out[8 * i + 5] = FastMath.sqrtf(q);
            out[8 * i + 6] = FastMath.fdividef(p, q);
            out[8 * i + 7] = p > 0 ? FastMath.fdividef(q, p) : FastMath.expf(q);
        };
    }

    static Kernel floorDivMod(Object[] a) {
        int[] x = (int[]) a[0];
        int[] y = (int[]) a[1];
        long[] lx = (long[]) a[2];
        long[] out = (long[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int p = x[i];
            int q = y[i];
            long lp = lx[i];
            out[8 * i] = Math.floorDiv(p, q);
            out[8 * i + 1] = Math.floorMod(p, q);
            out[8 * i + 2] = Math.floorDiv(lp, (long) q);
            out[8 * i + 3] = Math.floorMod(lp, (long) q);
            out[8 * i + 4] = Math.floorDiv(lp, q);
            out[8 * i + 5] = Math.floorMod(lp, q);
            out[8 * i + 6] = StrictMath.floorMod(p, 7) + Math.floorDiv(p, -3);
            out[8 * i + 7] = p < 0 ? Math.floorMod(lp, -1L) : Math.floorDiv(p, 1 + (q & 3));
        };
    }

    /**
     * Math.floorDiv and floorMod compile (inlined from FloorOps; they had run the kernel on the reference executor,
     * "not a function the SIMD backend knows", found by the fuzzer's session-15 constructs), equal to the JDK's at
     * MIN_VALUE / -1 and with every sign; a zero divisor fails the launch at the same thread with the same exception.
     */
    @Test
    void floorDivMod_varyingOperands_compileAndMatch() {
        int n = 200;
        int[] x = Differential.ints(n, 75, -50, 50);
        int[] y = Differential.ints(n, 76, -9, 10);
        long[] lx = Differential.longs(n, 77);
        int[] edges = {Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 1, 0, -7, 7};
        for (int i = 0; i < n; i++) {
            y[i] = y[i] == 0 ? (i % 2 == 0 ? -1 : 3) : y[i];
            if (i % 5 == 0) {
                x[i] = edges[(i / 5) % edges.length];
                lx[i] = i % 2 == 0 ? Long.MIN_VALUE : x[i];
            }
        }
        d.check(Dim3.of(4), Dim3.of(64), IntrinsicKernelsTest::floorDivMod, x, y, lx, new long[8 * n]);
        y[137] = 0;
        d.check(Dim3.of(4), Dim3.of(64), IntrinsicKernelsTest::floorDivMod, x, y, lx, new long[8 * n]);
    }

    /**
     * CUDA's fast-math intrinsics compile (they had run the kernel on the reference executor, "not a function the SIMD
     * backend knows"), bit for bit, edge values included: zeros, subnormals (flushed), infinities, NaN, negatives.
     */
    @Test
    void fastMath_varyingArguments_compileBitForBit() {
        int n = 200;
        float[] x = Differential.floats(n, 73, -20, 20);
        float[] y = Differential.floats(n, 74, -3, 3);
        float[] edges = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1e-40f, -1e-40f, 0x1p127f, 0x1.8p127f, 1f};
        for (int i = 0; i < edges.length; i++) {
            x[7 * i] = edges[i];
            y[7 * i + 3] = edges[edges.length - 1 - i];
            y[7 * i + 5] = edges[i];
        }
        d.check(Dim3.of(4), Dim3.of(64), IntrinsicKernelsTest::fastMath, x, y, new float[8 * n]);
    }

    /** Double.isNaN had a vector helper that did not exist (NoSuchMethodError at run time; FuzzTest seed 0x14100052). */
    @Test
    void isNaN_varyingDoubleAndFloat_matchesReference() {
        int n = 100;
        double[] x = Differential.doubles(n, 71, -4, 4);
        float[] f = Differential.floats(n, 72, -4, 4);
        for (int i = 0; i + 1 < n; i += 3) {
            x[i] = i % 2 == 0 ? Double.NaN : Double.POSITIVE_INFINITY;
            f[i + 1] = Float.NaN;
        }
        d.check(Dim3.of(2), Dim3.of(64), IntrinsicKernelsTest::isNaN, x, f, new int[2 * n]);
    }
}
