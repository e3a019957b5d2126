package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Divergent blocks that only compute into a phi ({@code if (c) v = f(v)}, no load, store or division) run
 * without the empty-mask test: for a warp none of whose threads take them they compute on whatever their
 * inactive lanes hold (overflows, NaN, huge conversions) and must change nothing. Each against the reference.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MaskedArithmeticTest {

    @AutoClose
    static final Differential d = new Differential();
    static final int N = 1000;
    static final Dim3 GRID = Dim3.of((N + 127) / 128);
    static final Dim3 BLOCK = Dim3.of(128);

    private static Object[] data() {
        return new Object[] {Differential.floats(N, 21, -1, 1), new float[N], Differential.ints(N, 22, -50, 50), new int[N],
            Differential.longs(N, 23), new long[N], Differential.doubles(N, 24, -1, 1), new double[N]};
    }

    /** The warp scan of the benchmarks: the add under {@code lane >= d} merges into the shuffle loop's phi. */
    static Kernel warpScan(Object[] a) {
        int[] x = (int[]) a[2];
        int[] y = (int[]) a[3];
        return t -> {
            int i = t.globalIdX();
            int lane = t.laneId();
            int v = i < x.length ? x[i] : 0;
            for (int dist = 1; dist < t.warpSize(); dist <<= 1) {
                int below = t.shflUp(v, dist);
                if (lane >= dist) {
                    v += below;
                }
            }
            if (i < y.length) {
                y[i] = v;
            }
        };
    }

    @Test
    void warpScan_partialLastWarp_matchesReference() {
        d.check(GRID, BLOCK, MaskedArithmeticTest::warpScan, data());
        d.check(Dim3.of(3), Dim3.of(45), MaskedArithmeticTest::warpScan, data());
    }

    /** Whole warps skip the arithmetic (a warp-uniform condition), others take it in some lanes. */
    static Kernel skippedByWarps(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        int[] m = (int[]) a[3];
        long[] l = (long[]) a[4];
        long[] lo = (long[]) a[5];
        double[] z = (double[]) a[6];
        double[] zo = (double[]) a[7];
        return t -> {
            int i = t.globalIdX();
            if (i >= x.length) {
                return;
            }
            float v = x[i];
            int w = k[i];
            long u = l[i];
            double q = z[i];
            boolean take = ((i >> 5) % 3 == 1) && (i & 3) != 0;
            if (take) {
                v = v * 1e30f * 1e30f - v;
                w = (w << 7) * 31 + (int) (v * 1e10f) - (w >>> 3);
                u = u * 0x9E3779B97F4A7C15L + (u >> 17) ^ (long) q;
                q = q * 1e300 * 1e300 + (double) w;
            }
            y[i] = v;
            m[i] = w;
            lo[i] = u;
            zo[i] = q;
        };
    }

    @Test
    void skippedByWarps_overflowAndNaN_matchesReference() {
        d.check(GRID, BLOCK, MaskedArithmeticTest::skippedByWarps, data());
    }

    /** The arithmetic block inside a varying loop, feeding the loop's phi; some warps never take it. */
    static Kernel inVaryingLoop(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        int[] m = (int[]) a[3];
        return t -> {
            int i = t.globalIdX();
            if (i >= x.length) {
                return;
            }
            int trips = (k[i] & 7) + 1;
            int acc = k[i];
            float f = x[i];
            for (int s = 0; s < trips; s++) {
                if ((i >> 5) % 2 == 0 && ((acc ^ s) & 1) == 0) {
                    acc = acc * 3 + s;
                    f = f * 0.5f - (float) acc;
                }
            }
            m[i] = acc;
            y[i] = f;
        };
    }

    @Test
    void inVaryingLoop_matchesReference() {
        d.check(GRID, BLOCK, MaskedArithmeticTest::inVaryingLoop, data());
    }

    /**
     * A ternary with an empty arm ({@code d > 0 ? 1f - c : c}, black-scholes' cumulative normal) whose phi is read
     * after a second such ternary: the empty arm runs without the empty-mask test. Warps whose inputs all have one
     * sign leave one arm empty; the last warp is partial.
     */
    static Kernel emptyArms(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                float d = (i >> 5) % 3 == 0 ? Math.abs(x[i]) : (i >> 5) % 3 == 1 ? -Math.abs(x[i]) : x[i];
                float c = d * d * 0.5f;
                float p = d > 0f ? 1f - c : c;
                float e = d - 0.25f;
                float c2 = e * 0.75f;
                float q = e > 0f ? 1f - c2 : c2;
                y[i] = p * 3f - q;
            }
        };
    }

    @Test
    void emptyArms_warpUniformSigns_matchesReference() {
        d.check(GRID, BLOCK, MaskedArithmeticTest::emptyArms, data());
        d.check(Dim3.of(3), Dim3.of(45), MaskedArithmeticTest::emptyArms, data());
    }

    /** An empty arm inside a varying loop: the phi it feeds is carried to the next iteration. */
    static Kernel emptyArmInLoop(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i >= x.length) {
                return;
            }
            int trips = (k[i] & 7) + 1;
            float f = x[i];
            for (int s = 0; s < trips; s++) {
                f = (i >> 5) % 2 == 0 && f > 0f ? f * -0.5f - 1f : f;
                f = f + 0.125f;
            }
            y[i] = f;
        };
    }

    @Test
    void emptyArmInLoop_matchesReference() {
        d.check(GRID, BLOCK, MaskedArithmeticTest::emptyArmInLoop, data());
    }
}
