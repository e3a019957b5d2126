package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Loads at {@code base + stride * lane} (a column of a shared tile, every third element of an array): the gather
 * from a constant map when every lane's index is in range, the general gather otherwise; both against the
 * reference executor, with partial groups, negative strides, guards that leave lanes out of range inactive, and
 * threads that fault.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StridedGatherTest {

    @AutoClose
    static final Differential d = new Differential();

    /** The CUDA tiled transpose (32 x 32 tiles, 33 floats a row in shared memory) of an n x n matrix. */
    static Kernel transpose(Object[] a) {
        int n = ((int[]) a[0])[0];
        float[] in = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> {
            float[] tile = t.sharedFloats(32 * 33);
            int x = t.blockIdxX() * 32 + t.threadIdxX();
            int y = t.blockIdxY() * 32 + t.threadIdxY();
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    tile[(t.threadIdxY() + j) * 33 + t.threadIdxX()] = in[(y + j) * n + x];
                }
            }
            t.syncThreads();
            x = t.blockIdxY() * 32 + t.threadIdxX();
            y = t.blockIdxX() * 32 + t.threadIdxY();
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    out[(y + j) * n + x] = tile[t.threadIdxX() * 33 + t.threadIdxY() + j];
                }
            }
        };
    }

    @Test
    void transposeThroughSharedTile_wholeAndPartialTiles() {
        for (int n : new int[] {64, 70, 33}) {
            int tiles = (n + 31) / 32;
            Object[] out = d.check(Dim3.of(tiles, tiles), Dim3.of(32, 8), StridedGatherTest::transpose,
                    new int[] {n}, Differential.floats(n * n, n, -1, 1), new float[n * n]);
            float[] in = Differential.floats(n * n, n, -1, 1);
            float[] t = (float[]) out[2];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    assertTrue(t[j * n + i] == in[i * n + j], "element " + i + ", " + j);
                }
            }
        }
    }

    /** Every lane reads {@code in[3 * i + 1]} (ints, longs, doubles) and {@code in[last - 5 * i]} where it exists. */
    static Kernel strided(Object[] a) {
        int[] ints = (int[]) a[0];
        long[] longs = (long[]) a[1];
        double[] doubles = (double[]) a[2];
        float[] floats = (float[]) a[3];
        int[] outI = (int[]) a[4];
        long[] outL = (long[]) a[5];
        double[] outD = (double[]) a[6];
        float[] outF = (float[]) a[7];
        int n = outI.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                int up = 3 * i + 1;
                int down = floats.length - 1 - 5 * i;
                outI[i] = up < ints.length ? ints[up] : -1;
                outL[i] = up < longs.length ? longs[up] : -1L;
                outD[i] = up < doubles.length ? doubles[up] : -1.0;
                outF[i] = down >= 0 ? floats[down] : -1f;
            }
        };
    }

    @Test
    void strideThreeAndMinusFive_lanesPastTheEndInactive() {
        int n = 200;
        int[] ints = new int[3 * n - 40];
        long[] longs = new long[3 * n + 2];
        double[] doubles = new double[3 * n - 7];
        for (int i = 0; i < ints.length; i++) {
            ints[i] = i * 7 - 3;
        }
        for (int i = 0; i < longs.length; i++) {
            longs[i] = (long) i << 33 | i;
        }
        for (int i = 0; i < doubles.length; i++) {
            doubles[i] = i * 0.25 - 9;
        }
        float[] floats = Differential.floats(5 * n - 333, 5, -1, 1);
        d.check(Dim3.of(4), Dim3.of(64), StridedGatherTest::strided, ints, longs, doubles, floats,
                new int[n], new long[n], new double[n], new float[n]);
        d.check(Dim3.of(7), Dim3.of(30), StridedGatherTest::strided, ints, longs, doubles, floats,
                new int[n], new long[n], new double[n], new float[n]);
    }

    /** Unguarded: the threads whose index {@code 4 * i + 2} is past the end fault. */
    static Kernel stridedPastEnd(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            int i = t.globalIdX();
            out[i] = in[4 * i + 2] * 2f;
        };
    }

    /** Unguarded, downwards: the threads whose index {@code base - 2 * i} is negative fault. */
    static Kernel stridedBeforeStart(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int base = in.length - 1;
        return t -> {
            int i = t.globalIdX();
            out[i] = in[base - 2 * i] + 1;
        };
    }

    @Test
    void stridedReadOutOfBounds_failsInTheFirstFaultingThread() {
        // Faulting threads in one CTA only: which of several faulting CTAs a launch reports is not fixed.
        d.check(Dim3.of(3), Dim3.of(64), StridedGatherTest::stridedPastEnd, Differential.floats(4 * 170, 8, -1, 1), new float[192]);
        d.check(Dim3.of(3), Dim3.of(64), StridedGatherTest::stridedPastEnd, Differential.floats(4 * 192, 8, -1, 1), new float[192]);
        int[] in = new int[2 * 150];
        for (int i = 0; i < in.length; i++) {
            in[i] = i * 3;
        }
        d.check(Dim3.of(3), Dim3.of(64), StridedGatherTest::stridedBeforeStart, in, new int[192]);
        d.check(Dim3.of(2), Dim3.of(64), StridedGatherTest::stridedBeforeStart, in, new int[128]);
    }
}
