package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.simd.internal.gen.Lanes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Warp votes and shuffles in compiled kernels against the reference executor, over partial warps, 1-thread
 * CTAs, 1024-thread CTAs and 2D/3D shapes; and the kernels whose warp operations the compiler must decline.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WarpOpsTest {

    @AutoClose
    static final Differential d = new Differential();

    /**
     * A warp narrower than 32 that warp operations compile for here: they need whole vector registers, so 8
     * threads with AVX2's 8-lane registers, 16 with AVX-512's (see {@link #warpOps_warpNarrowerThanARegister_declinedWithTheReason}).
     */
    static final int SMALL_WARP = Math.max(8, Lanes.L32);

    private static final Dim3[][] SHAPES = {
        {Dim3.of(3), Dim3.of(100)},
        {Dim3.of(2), Dim3.of(1024)},
        {Dim3.of(5), Dim3.of(1)},
        {Dim3.of(2, 3), Dim3.of(7, 9)},
        {Dim3.of(2, 1, 2), Dim3.of(32, 2, 3)},
        {Dim3.of(1, 2), Dim3.of(64, 4)},
    };

    private static int n(Dim3 grid, Dim3 block) {
        return grid.x() * grid.y() * grid.z() * block.x() * block.y() * block.z();
    }

    static Kernel votes(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int i = cta * threads + t.linearThreadIdx();
            int v = x[i];
            int b = t.ballot(v > 0);
            boolean any = t.any(v > 40);
            boolean all = t.all(v > -45);
            out[4 * i] = b;
            out[4 * i + 1] = any ? 1 : 0;
            out[4 * i + 2] = all ? 1 : 0;
            out[4 * i + 3] = Integer.bitCount(t.ballot((v & 1) == 0)) + t.laneId();
        };
    }

    @Test
    void ballotAnyAll_everyShape_matchesReference() {
        for (Dim3[] s : SHAPES) {
            int n = n(s[0], s[1]);
            d.check(s[0], s[1], WarpOpsTest::votes, Differential.ints(n, 5, -50, 50), new int[4 * n]);
        }
    }

    static Kernel guardedVotes(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            if (x[i] % 3 == 0) {
                // Threads that take this side return; the vote below sees the others only, on both executors.
                out[i] = -1;
                return;
            }
            out[i] = t.ballot(x[i] > 0) ^ (t.all(x[i] != 0) ? 0x4000_0000 : 0);
        };
    }

    @Test
    void votes_afterReturnsAndGuards_countOnlyLiveLanes() {
        int n = 1000;
        d.check(Dim3.of(4), Dim3.of(256), WarpOpsTest::guardedVotes, Differential.ints(n, 6, -9, 9), new int[n]);
        d.check(Dim3.of(20), Dim3.of(50), WarpOpsTest::guardedVotes, Differential.ints(n, 7, -9, 9), new int[n]);
    }

    static Kernel shuffles(Object[] a) {
        int[] x = (int[]) a[0];
        int[] iout = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                int v = x[i];
                int lane = t.laneId();
                iout[8 * i] = t.shfl(v, v);                    // any source lane, reduced mod width
                iout[8 * i + 1] = t.shflUp(v, 3);
                iout[8 * i + 2] = t.shflDown(v, 5, 16);
                iout[8 * i + 3] = t.shflXor(v, lane & 7, 8);
                iout[8 * i + 4] = t.shfl(v, 1, 4);
                iout[8 * i + 5] = t.shflUp(v, 33);             // delta counted mod warpSize
                iout[8 * i + 6] = t.shflDown(v, 1, 1);
                iout[8 * i + 7] = t.shflXor(v, 31);
            }
        };
    }

    static Kernel floatShuffles(Object[] a) {
        float[] f = (float[]) a[1];
        float[] fout = (float[]) a[3];
        int n = f.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float g = f[i];
                int lane = t.laneId();
                fout[4 * i] = t.shfl(g, 31 - lane);
                fout[4 * i + 1] = t.shflUp(g, 1, 8);
                fout[4 * i + 2] = t.shflDown(g, 2);
                fout[4 * i + 3] = t.shflXor(g, 16, 32);
            }
        };
    }

    @Test
    void shuffles_allModesAndWidths_matchReference() {
        for (int n : new int[] {1, 31, 45, 1000}) {
            float[] f = Differential.floats(n, 9, -5, 5);
            if (n > 3) {
                f[3] = Float.intBitsToFloat(0x7fc0_1234); // a NaN payload is moved unchanged
            }
            d.check(Dim3.of((n + 127) / 128), Dim3.of(128), WarpOpsTest::shuffles,
                    Differential.ints(n, 8, -100, 100), f, new int[8 * n], new float[4 * n]);
            d.check(Dim3.of((n + 39) / 40), Dim3.of(40), WarpOpsTest::shuffles,
                    Differential.ints(n, 8, -100, 100), f, new int[8 * n], new float[4 * n]);
            d.check(Dim3.of((n + 127) / 128), Dim3.of(128), WarpOpsTest::floatShuffles,
                    null, f, null, new float[4 * n]);
            d.check(Dim3.of((n + 39) / 40), Dim3.of(40), WarpOpsTest::floatShuffles,
                    null, f, null, new float[4 * n]);
        }
    }

    // Shuffles whose lane argument is the same in every lane (captured: uniform, not a constant), each mode and
    // width, ints and floats (one kernel each: every kernel stays under the JIT's size limit).

    static Kernel uniformShflInts(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shfl(x[i], arg, 1);
                out[1 * n + i] = t.shfl(x[i], arg, 2);
                out[2 * n + i] = t.shfl(x[i], arg, 4);
                out[3 * n + i] = t.shfl(x[i], arg, 8);
                out[4 * n + i] = t.shfl(x[i], arg, 16);
                out[5 * n + i] = t.shfl(x[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflFloats(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                fout[0 * n + i] = t.shfl(f[i], arg, 1);
                fout[1 * n + i] = t.shfl(f[i], arg, 2);
                fout[2 * n + i] = t.shfl(f[i], arg, 4);
                fout[3 * n + i] = t.shfl(f[i], arg, 8);
                fout[4 * n + i] = t.shfl(f[i], arg, 16);
                fout[5 * n + i] = t.shfl(f[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflUpInts(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shflUp(x[i], arg, 1);
                out[1 * n + i] = t.shflUp(x[i], arg, 2);
                out[2 * n + i] = t.shflUp(x[i], arg, 4);
                out[3 * n + i] = t.shflUp(x[i], arg, 8);
                out[4 * n + i] = t.shflUp(x[i], arg, 16);
                out[5 * n + i] = t.shflUp(x[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflUpFloats(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                fout[0 * n + i] = t.shflUp(f[i], arg, 1);
                fout[1 * n + i] = t.shflUp(f[i], arg, 2);
                fout[2 * n + i] = t.shflUp(f[i], arg, 4);
                fout[3 * n + i] = t.shflUp(f[i], arg, 8);
                fout[4 * n + i] = t.shflUp(f[i], arg, 16);
                fout[5 * n + i] = t.shflUp(f[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflDownInts(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shflDown(x[i], arg, 1);
                out[1 * n + i] = t.shflDown(x[i], arg, 2);
                out[2 * n + i] = t.shflDown(x[i], arg, 4);
                out[3 * n + i] = t.shflDown(x[i], arg, 8);
                out[4 * n + i] = t.shflDown(x[i], arg, 16);
                out[5 * n + i] = t.shflDown(x[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflDownFloats(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                fout[0 * n + i] = t.shflDown(f[i], arg, 1);
                fout[1 * n + i] = t.shflDown(f[i], arg, 2);
                fout[2 * n + i] = t.shflDown(f[i], arg, 4);
                fout[3 * n + i] = t.shflDown(f[i], arg, 8);
                fout[4 * n + i] = t.shflDown(f[i], arg, 16);
                fout[5 * n + i] = t.shflDown(f[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflXorInts(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shflXor(x[i], arg, 1);
                out[1 * n + i] = t.shflXor(x[i], arg, 2);
                out[2 * n + i] = t.shflXor(x[i], arg, 4);
                out[3 * n + i] = t.shflXor(x[i], arg, 8);
                out[4 * n + i] = t.shflXor(x[i], arg, 16);
                out[5 * n + i] = t.shflXor(x[i], arg, 32);
            }
        };
    }

    static Kernel uniformShflXorFloats(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            // threads past the end and every fifth one leave: partial warps and inactive lanes inside warps
            if (i < n && x[i] % 5 != 0) {
                fout[0 * n + i] = t.shflXor(f[i], arg, 1);
                fout[1 * n + i] = t.shflXor(f[i], arg, 2);
                fout[2 * n + i] = t.shflXor(f[i], arg, 4);
                fout[3 * n + i] = t.shflXor(f[i], arg, 8);
                fout[4 * n + i] = t.shflXor(f[i], arg, 16);
                fout[5 * n + i] = t.shflXor(f[i], arg, 32);
            }
        };
    }

    /** As the uniform kernels above, with the widths a warp of 8 threads allows (and so {@link #SMALL_WARP}). */
    static Kernel uniformSmallWarp(Object[] a, int arg) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shfl(x[i], arg, 1);
                out[1 * n + i] = t.shfl(x[i], arg, 2);
                out[2 * n + i] = t.shfl(x[i], arg, 4);
                out[3 * n + i] = t.shfl(x[i], arg, 8);
                out[4 * n + i] = t.shflUp(x[i], arg, 1);
                out[5 * n + i] = t.shflUp(x[i], arg, 2);
                out[6 * n + i] = t.shflUp(x[i], arg, 4);
                out[7 * n + i] = t.shflUp(x[i], arg, 8);
                out[8 * n + i] = t.shflDown(x[i], arg, 1);
                out[9 * n + i] = t.shflDown(x[i], arg, 2);
                out[10 * n + i] = t.shflDown(x[i], arg, 4);
                out[11 * n + i] = t.shflDown(x[i], arg, 8);
                out[12 * n + i] = t.shflXor(x[i], arg, 1);
                out[13 * n + i] = t.shflXor(x[i], arg, 2);
                out[14 * n + i] = t.shflXor(x[i], arg, 4);
                out[15 * n + i] = t.shflXor(x[i], arg, 8);
                fout[0 * n + i] = t.shfl(f[i], arg, 8);
                fout[1 * n + i] = t.shflUp(f[i], arg, 4);
                fout[2 * n + i] = t.shflDown(f[i], arg, 2);
                fout[3 * n + i] = t.shflXor(f[i], arg, 8);
            }
        };
    }

    /** Shuffles by constant lane arguments (the compiler picks the registers at compile time). */
    static Kernel constantShufflesA(Object[] a) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                out[0 * n + i] = t.shfl(x[i], 0, 32);
                out[1 * n + i] = t.shfl(x[i], 13, 16);
                out[2 * n + i] = t.shfl(x[i], 40, 32);
                out[3 * n + i] = t.shfl(x[i], 5, 4);
                out[4 * n + i] = t.shflUp(x[i], 0, 32);
                out[5 * n + i] = t.shflUp(x[i], 7, 32);
            }
        };
    }

    static Kernel constantShufflesC(Object[] a) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                out[6 * n + i] = t.shflUp(x[i], 9, 16);
                out[7 * n + i] = t.shflUp(x[i], 8, 32);
                out[8 * n + i] = t.shflUp(x[i], 31, 32);
                out[9 * n + i] = t.shflDown(x[i], 31, 32);
                out[10 * n + i] = t.shflDown(x[i], 8, 8);
            }
        };
    }

    static Kernel constantShufflesB(Object[] a) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                out[11 * n + i] = t.shflDown(x[i], 16, 32);
                out[12 * n + i] = t.shflDown(x[i], 3, 4);
                out[13 * n + i] = t.shflXor(x[i], 12, 32);
                out[14 * n + i] = t.shflXor(x[i], 20, 8);
                out[15 * n + i] = t.shflXor(x[i], 8, 16);
                out[16 * n + i] = t.shflXor(x[i], 1, 2);
            }
        };
    }

    static Kernel constantShufflesD(Object[] a) {
        int[] x = (int[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        float[] fout = (float[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n && x[i] % 5 != 0) {
                fout[17 * n + i] = t.shflUp(f[i], 17, 32);
                fout[18 * n + i] = t.shflDown(f[i], 9, 16);
                fout[19 * n + i] = t.shflXor(f[i], 24, 32);
                fout[20 * n + i] = t.shfl(f[i], 31, 32);
                fout[21 * n + i] = t.shfl(f[i], 6, 8);
            }
        };
    }

    private static final List<BiFunction<Object[], Integer, Kernel>> UNIFORM = List.of(
            WarpOpsTest::uniformShflInts, WarpOpsTest::uniformShflFloats, WarpOpsTest::uniformShflUpInts,
            WarpOpsTest::uniformShflUpFloats, WarpOpsTest::uniformShflDownInts, WarpOpsTest::uniformShflDownFloats,
            WarpOpsTest::uniformShflXorInts, WarpOpsTest::uniformShflXorFloats);

    @Test
    void shuffles_uniformArgument_everyModeWidthAndDelta_matchReference() {
        int n = 150;
        int[] x = Differential.ints(n, 21, -1000, 1000);
        float[] f = Differential.floats(n, 22, -5, 5);
        f[7] = Float.intBitsToFloat(0x7fc0_1234); // a NaN payload is moved unchanged
        int[] args = new int[36];
        for (int k = 0; k < 34; k++) {
            args[k] = k;
        }
        args[34] = -1;
        args[35] = 63;
        for (BiFunction<Object[], Integer, Kernel> kernel : UNIFORM) {
            for (int block : new int[] {96, 40}) {
                for (int arg : args) {
                    d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), a -> kernel.apply(a, arg),
                            x, f, new int[6 * n], new float[6 * n]);
                }
            }
        }
    }

    @Test
    void shuffles_uniformArgument_smallWarps_matchReference() {
        int n = 60;
        try (Differential d8 = new Differential(SMALL_WARP)) {
            for (int arg = -1; arg < 18; arg++) {
                int aa = arg;
                d8.check(Dim3.of(3), Dim3.of(21), a -> uniformSmallWarp(a, aa), Differential.ints(n, 23, -99, 99),
                        Differential.floats(n, 24, -5, 5), new int[16 * n], new float[4 * n]);
            }
        }
    }

    @Test
    void shuffles_constantArgument_matchReference() {
        int n = 150;
        for (int block : new int[] {96, 40, 32, 7}) {
            for (Function<Object[], Kernel> kernel : List.<Function<Object[], Kernel>>of(WarpOpsTest::constantShufflesA,
                    WarpOpsTest::constantShufflesB, WarpOpsTest::constantShufflesC,
                    WarpOpsTest::constantShufflesD)) {
                d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), kernel, Differential.ints(n, 25, -1000, 1000),
                        Differential.floats(n, 26, -5, 5), new int[22 * n], new float[22 * n]);
            }
        }
    }

    static Kernel scan(Object[] a) {
        float[] x = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                // Inclusive scan of a warp with shflUp, Hillis-Steele.
                float v = x[i];
                int lane = t.laneId();
                for (int dd = 1; dd < t.warpSize(); dd *= 2) {
                    float up = t.shflUp(v, dd);
                    if (lane >= dd) {
                        v += up;
                    }
                }
                out[i] = v;
            }
        };
    }

    @Test
    void warpInclusiveScan_shflUp_matchesReference() {
        for (int n : new int[] {1, 32, 77, 4096}) {
            d.check(Dim3.of((n + 255) / 256), Dim3.of(256), WarpOpsTest::scan, Differential.floats(n, 10, 0, 1), new float[n]);
        }
        d.check(Dim3.of(1), Dim3.of(1024), WarpOpsTest::scan, Differential.floats(1024, 11, -1, 1), new float[1024]);
    }

    static Kernel reduceInLoop(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            int v = i < n ? x[i] : 0;
            // A divergent loop whose threads leave early and then return: the shuffle sees the others.
            int rounds = i < n ? x[i] & 3 : 0;
            for (int r = 0; r < rounds; r++) {
                v += t.shflXor(v, 1 << r);
            }
            if (i < n) {
                out[i] = v;
            }
        };
    }

    @Test
    void shuffle_inDivergentLoopThenReturn_matchesReference() {
        int n = 500;
        d.check(Dim3.of(4), Dim3.of(128), WarpOpsTest::reduceInLoop, Differential.ints(n, 12, 0, 100), new int[n]);
    }

    static Kernel returnsUnderConditions(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int v = x[i];
            if (v > 3 && (i & 2) == 0) {
                return;
            }
            if (v < -5) {
                if ((i & 4) != 0) {
                    out[i] = -1;
                    return;
                }
                v *= 2;
            }
            int s = v + t.shflXor(v, 1) + t.shflDown(v, 3);
            out[i] = s ^ t.ballot(s > 0);
        };
    }

    static Kernel returnThenShuffleLoop(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            if ((x[i] > 4 && (i & 1) == 0) || (x[i] < -6 && (i & 2) != 0)) {
                return;
            }
            int v = x[i];
            // A scan near-miss (shflDown): stays a loop, whose exit leads to no warp operation.
            for (int dd = 1; dd < t.warpSize(); dd <<= 1) {
                int b = t.shflDown(v, dd);
                if (t.laneId() >= dd) {
                    v += b;
                }
            }
            out[i] = v;
        };
    }

    /**
     * Returns under an {@code &&} condition or nested in a divergent branch, before warp operations: the lanes left
     * meet the operations together, as in the reference (they were declined, "threads of a warp could wait at
     * different warp operations", as the sides of the branch meet only once the returning paths are set aside; found by
     * the fuzzer's session-15 constructs).
     */
    @Test
    void warpOps_afterReturnsUnderAndOrNestedInBranches_compileAndMatch() {
        int n = 700;
        d.check(Dim3.of(3), Dim3.of(256), WarpOpsTest::returnsUnderConditions, Differential.ints(n, 13, -9, 9), new int[n]);
        d.check(Dim3.of(9), Dim3.of(96), WarpOpsTest::returnsUnderConditions, Differential.ints(n, 14, -9, 9), new int[n]);
        // Before a loop of warp operations whose exit leads to none (found as fuzz seed 0x15ff00a9 of mode mt).
        d.check(Dim3.of(3), Dim3.of(256), WarpOpsTest::returnThenShuffleLoop, Differential.ints(n, 15, -9, 9), new int[n]);
    }

    @Test
    void warpOpOnOneSideOfBranchWithNestedReturn_thenAnother_declined() {
        int[] out = new int[64];
        var r = d.simd.compileReport((Kernel) t -> {
            int v = t.laneId();
            if (v < 9) {
                if (v == 3) {
                    return;
                }
                v = t.ballot(v > 4);
            }
            out[t.threadIdxX()] = v + t.shfl(v, 0);
        });
        assertFalse(r.compiled(), r.summary());
        assertTrue(r.summary().contains("divergent branch"), r.summary());
    }

    @Test
    void votesAndShuffles_compileReportSaysSo() {
        var r = d.report(WarpOpsTest::scan, new float[10], new float[10]);
        assertTrue(r.compiled(), r.summary());
        assertTrue(r.listing().contains("warp shuffle"), r.listing());
        assertTrue(r.listing().contains("one warp"), r.listing());
    }

    // ---- declined: the reference executor decides -----------------------------------------------

    @Test
    void warpOpOnBothSidesOfDivergentBranch_declined() {
        int[] out = new int[64];
        var r = d.simd.compileReport((Kernel) t -> {
            int v;
            if (t.laneId() < 5) {
                v = t.ballot(true);
            } else {
                v = t.shfl(t.laneId(), 0);
            }
            out[t.threadIdxX()] = v;
        });
        assertFalse(r.compiled(), r.summary());
        assertTrue(r.summary().contains("divergent branch"), r.summary());
    }

    @Test
    void warpOpAfterJoinOfDivergentWarpOp_declined() {
        int[] out = new int[64];
        var r = d.simd.compileReport((Kernel) t -> {
            int v = 0;
            if (t.laneId() < 5) {
                v = t.ballot(true);
            }
            out[t.threadIdxX()] = v + t.ballot(false);
        });
        assertFalse(r.compiled(), r.summary());
    }

    @Test
    void divergedWarpOps_stillFailOnTheAutoDevice() {
        // Declined, so the AUTO device runs the reference executor, which reports the divergence.
        int[] out = new int[64];
        Kernel k = t -> {
            int v = 0;
            if (t.laneId() < 5) {
                v = t.ballot(true);
            }
            out[t.threadIdxX()] = v + t.ballot(false);
        };
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> d.simd.launch(Dim3.of(1), Dim3.of(32), k));
        assertTrue(String.valueOf(e.getMessage()).contains("warp"), String.valueOf(e.getMessage()));
    }

    @Test
    void invalidOrVaryingShuffleWidth_declined() {
        int[] out = new int[64];
        var bad = d.simd.compileReport((Kernel) t -> out[t.threadIdxX()] = t.shfl(1, 0, 3));
        assertFalse(bad.compiled(), bad.summary());
        assertTrue(bad.summary().contains("width"), bad.summary());
        var varying = d.simd.compileReport((Kernel) t -> out[t.threadIdxX()] = t.shfl(1, 0, 1 << (t.laneId() & 3)));
        assertFalse(varying.compiled(), varying.summary());
        assertTrue(varying.summary().contains("width"), varying.summary());
    }

    @Test
    void smallWarps_matchReference() {
        try (Differential d8 = new Differential(SMALL_WARP)) {
            int n = 100;
            d8.check(Dim3.of(2), Dim3.of(50), WarpOpsTest::scan, Differential.floats(n, 13, 0, 1), new float[n]);
            d8.check(Dim3.of(2), Dim3.of(50), WarpOpsTest::votes, Differential.ints(n, 14, -50, 50), new int[4 * n]);
        }
    }

    /** A warp narrower than a vector register: warp operations run on the reference executor, which says why. */
    @Test
    void warpOps_warpNarrowerThanARegister_declinedWithTheReason() {
        int warp = Lanes.L32 / 2;
        try (Differential narrow = new Differential(warp)) {
            CompileReport report = narrow.report(WarpOpsTest::scan, Differential.floats(100, 13, 0, 1), new float[100]);
            assertFalse(report.compiled(), report.summary());
            assertTrue(report.summary().contains("compiled only for warps of a multiple of " + Lanes.L32 + " threads")
                    && report.summary().contains("this device's warps have " + warp), report.summary());
        }
    }
}
