package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stores at {@code base + stride * lane} (a transposed shared tile, every third element of an array): one scalar
 * store per lane when every lane of the group is active and inside the array, the general scatter otherwise;
 * both against the reference executor, with ints, longs, floats and doubles, negative strides, partial groups,
 * guards that leave lanes inactive, threads that fault, and CTAs of 1 and 1024 threads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StridedStoreTest {

    @AutoClose
    static final Differential d = new Differential();

    /** Every thread writes {@code out[3 * i + 1]} of each type, and {@code outF[last - 5 * i]}, where they exist. */
    static Kernel strided(Object[] a) {
        int[] outI = (int[]) a[0];
        long[] outL = (long[]) a[1];
        double[] outD = (double[]) a[2];
        float[] outF = (float[]) a[3];
        int n = ((int[]) a[4])[0];
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                int up = 3 * i + 1;
                int down = outF.length - 1 - 5 * i;
                if (up < outI.length) {
                    outI[up] = i * 7 - 3;
                }
                if (up < outL.length) {
                    outL[up] = (long) i << 33 | i;
                }
                if (up < outD.length) {
                    outD[up] = i * 0.25 - 9;
                }
                if (down >= 0) {
                    outF[down] = i * 1.5f;
                }
            }
        };
    }

    @Test
    void strideThreeAndMinusFive_wholeAndPartialGroups() {
        int n = 200;
        d.check(Dim3.of(4), Dim3.of(64), StridedStoreTest::strided,
                new int[3 * n - 40], new long[3 * n + 2], new double[3 * n - 7], new float[5 * n - 333], new int[] {n});
        d.check(Dim3.of(7), Dim3.of(30), StridedStoreTest::strided,
                new int[3 * n - 40], new long[3 * n + 2], new double[3 * n - 7], new float[5 * n - 333], new int[] {n});
    }

    /** Odd threads only: half the lanes of every group inactive, so every group takes the general scatter. */
    static Kernel oddThreads(Object[] a) {
        float[] out = (float[]) a[0];
        return t -> {
            int i = t.globalIdX();
            if ((i & 1) == 1) {
                out[4 * i] = i;
            }
        };
    }

    @Test
    void someLanesInactive_onlyActiveLanesStore() {
        d.check(Dim3.of(3), Dim3.of(64), StridedStoreTest::oddThreads, Differential.floats(4 * 192, 3, -1, 1));
    }

    /** Unguarded: the threads whose index {@code 4 * i + 2} is past the end fault; those before them store. */
    static Kernel stridedPastEnd(Object[] a) {
        float[] out = (float[]) a[0];
        return t -> {
            int i = t.globalIdX();
            out[4 * i + 2] = i * 2f;
        };
    }

    /** Unguarded, downwards: the threads whose index {@code base - 2 * i} is negative fault. */
    static Kernel stridedBeforeStart(Object[] a) {
        int[] out = (int[]) a[0];
        int base = out.length - 1;
        return t -> {
            int i = t.globalIdX();
            out[base - 2 * i] = i + 1;
        };
    }

    @Test
    void stridedWriteOutOfBounds_failsInTheFirstFaultingThread() {
        // Faulting threads in one CTA only: which of several faulting CTAs a launch reports is not fixed.
        d.check(Dim3.of(3), Dim3.of(64), StridedStoreTest::stridedPastEnd, new float[4 * 170]);
        d.check(Dim3.of(3), Dim3.of(64), StridedStoreTest::stridedPastEnd, new float[4 * 192]);
        d.check(Dim3.of(3), Dim3.of(64), StridedStoreTest::stridedBeforeStart, new int[2 * 150]);
    }

    /**
     * The register-blocked sgemm's tile load: each thread copies elements of an {@code rows x 16} slice of A into a
     * shared tile stored transposed ({@code tile[k * rows + m]}, stride {@code rows} across consecutive threads),
     * then, after the barrier, writes the tile back in order. Any CTA size: the loop covers the slice.
     */
    static Kernel transposedTile(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int rows = ((int[]) a[2])[0];
        return t -> {
            float[] tile = t.sharedFloats(16 * rows);
            int threads = t.blockDimX() * t.blockDimY();
            int tid = t.threadIdxY() * t.blockDimX() + t.threadIdxX();
            int base = t.blockIdxX() * 16 * rows;
            for (int e = tid; e < 16 * rows; e += threads) {
                tile[(e & 15) * rows + (e >> 4)] = in[base + e];
            }
            t.syncThreads();
            for (int e = tid; e < 16 * rows; e += threads) {
                out[base + e] = tile[e];
            }
        };
    }

    @Test
    void transposedSharedTile_oneThreadTo1024ThreadCtas() {
        int rows = 64;
        int ctas = 3;
        for (Dim3 block : new Dim3[] {Dim3.of(16, 16), Dim3.of(1), Dim3.of(32, 32), Dim3.of(24, 5), Dim3.of(1024)}) {
            d.check(Dim3.of(ctas), block, StridedStoreTest::transposedTile,
                    Differential.floats(ctas * 16 * rows, 17, -1, 1), new float[ctas * 16 * rows], new int[] {rows});
        }
    }

    /**
     * As the register-blocked sgemm loads its A slice, stored transposed in shared memory: here a 32 x 32 slice,
     * four elements per thread of a 256-thread CTA, {@code tile[(e % 32) * 32 + e / 32]}: consecutive threads write
     * 32 apart. The tile goes back out in order after the barrier. CTAs of other sizes leave parts of the tile
     * unwritten (zero) or fault.
     */
    static Kernel transposedSlice(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            float[] tile = t.sharedFloats(32 * 32);
            int tid = t.threadIdxY() * 32 + t.threadIdxX();
            int base = t.blockIdxX() * 32 * 32;
            for (int r = 0; r < 4; r++) {
                int e = r * 256 + tid;
                tile[(e & 31) * 32 + (e >> 5)] = in[base + e];
            }
            t.syncThreads();
            for (int r = 0; r < 4; r++) {
                int e = r * 256 + tid;
                out[base + e] = tile[e];
            }
        };
    }

    @Test
    void transposedSlice_storedLaneByLane() {
        int ctas = 3;
        Object[] data = {Differential.floats(ctas * 1024, 5, -1, 1), new float[ctas * 1024]};
        String listing = d.report(StridedStoreTest::transposedSlice, data).listing();
        assertTrue(listing.contains("strided (32 apart): one store per lane"), listing);
        for (Dim3 block : new Dim3[] {Dim3.of(32, 8), Dim3.of(16, 16), Dim3.of(8, 32), Dim3.of(32, 3), Dim3.of(1),
                Dim3.of(32, 32), Dim3.of(1024), Dim3.of(24, 5)}) {
            // Rows other than 32 wide, or over 8 of them, index past the tile and the input (every CTA faults):
            // then one CTA, as which of several faulting CTAs a launch reports is not fixed.
            boolean inBounds = block.x() <= 32 && block.y() <= 8 && block.z() == 1;
            d.check(Dim3.of(inBounds ? ctas : 1), block, StridedStoreTest::transposedSlice, data);
        }
    }

    /**
     * Shared int, long and double tiles written 3 apart upwards and downwards by up to 64 threads (CTAs of 64, 40 and
     * 1 thread: whole and partial groups), then copied out after the barrier.
     */
    static Kernel sharedTypes(Object[] a) {
        int[] outI = (int[]) a[0];
        long[] outL = (long[]) a[1];
        double[] outD = (double[]) a[2];
        int len = 3 * 64 + 1;
        return t -> {
            int[] ti = t.sharedInts(len);
            long[] tl = t.sharedLongs(len);
            double[] td = t.sharedDoubles(len);
            int i = t.threadIdxX();
            ti[3 * i] = i * 7 - 3;
            tl[3 * 64 - 3 * i] = (long) i << 33 | i;
            td[3 * i + 1] = i * 0.25 - 9;
            t.syncThreads();
            int base = t.blockIdxX() * len;
            for (int j = i; j < len; j += t.blockDimX()) {
                outI[base + j] = ti[j];
                outL[base + j] = tl[j];
                outD[base + j] = td[j];
            }
        };
    }

    @Test
    void sharedIntLongDoubleTiles_upAndDown() {
        int len = 3 * 64 + 1;
        for (int threads : new int[] {64, 40, 1}) {
            d.check(Dim3.of(2), Dim3.of(threads), StridedStoreTest::sharedTypes, new int[2 * len], new long[2 * len], new double[2 * len]);
        }
    }
}
