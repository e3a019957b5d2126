package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The touch pass ({@code Touches}, {@code -Dweft.simd.touchPass}): a method per resume point first reads one element
 * per cache line of what its phase's counted loops will load from global arrays, for every group. The touches must
 * never fault nor change a result, so each kernel here runs on the methods per resume point against the reference
 * executor: edge CTAs whose rows lie past the matrix (touches past the array's end), rows before its start (negative
 * indices), a thread that faults inside a touched loop (the fault the reference reports, not one of the touch's), a
 * null array the kernel never reads, every element type, 1D, 2D and 3D CTAs, counters that start per group and count
 * down. Kernels whose loops do not fit the pattern compile as before; the listing says which loops get a touch pass.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TouchPassTest {

    @AutoClose
    static final Differential d = new Differential();

    private static final String TOUCH = "touch pass:";

    private static String listing(Function<Object[], Kernel> make, Object... data) {
        CompileReport r = d.report(make, data);
        assertTrue(r.compiled(), r::summary);
        return r.listing();
    }

    /** The benchmark's transpose: 32 x 32 tiles through a shared tile of 33 floats a row, CTAs of 32 x 8 threads. */
    static Kernel transpose(Object[] a) {
        int n = (Integer) a[0];
        float[] in = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> {
            float[] tile = t.sharedFloats(32 * 33);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int x = t.blockIdxX() * 32 + tx;
            int y = t.blockIdxY() * 32 + ty;
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    tile[(ty + j) * 33 + tx] = in[(y + j) * n + x];
                }
            }
            t.syncThreads();
            x = t.blockIdxY() * 32 + tx;
            y = t.blockIdxX() * 32 + ty;
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    out[(y + j) * n + x] = tile[tx * 33 + ty + j];
                }
            }
        };
    }

    @Test
    void transpose_listingSaysTouchPass_onlyForTheTileLoadLoop() {
        String l = listing(TouchPassTest::transpose, 64, new float[64 * 64], new float[64 * 64]);
        assertTrue(l.contains(TOUCH), l);
        // the load loop's input (u1, the parameter `in`); the store loop reads only the shared tile
        int first = l.indexOf(TOUCH);
        assertTrue(l.substring(first, l.indexOf('\n', first)).contains("u1["), l);
        String rows = l.substring(0, l.indexOf("any other CTA shape"));
        int loops = rows.split(TOUCH, -1).length - 1;
        // the write loop's stores to `out` are not touched: only loads are
        assertEquals(1, loops, "loops of the row-aligned variant: " + l);
        assertFalse(l.substring(l.indexOf("any other CTA shape")).contains(TOUCH), "the general variant gathers: " + l);
    }

    @Test
    void transpose_wholeAndEdgeTiles_touchesPastTheEndSkipped() throws InterruptedException {
        // 45 and 33: edge CTAs whose rows and columns lie past n (their touches past the array's end are skipped)
        for (int n : new int[] {64, 45, 33}) {
            int tiles = (n + 31) / 32;
            d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(32, 8), TouchPassTest::transpose,
                    n, Differential.floats(n * n, 41 + n, -1, 1), new float[n * n]);
        }
    }

    /**
     * A 1D window: each CTA of {@code blockDim.x} threads sums {@code 2 * h + 1} rows of {@code in} around its row,
     * {@code in[(row + j) * w + tid]} for j from -h to h (a counter starting below 0), under a guard that keeps the
     * rows in range: the first and last CTAs' touches reach negative indices and past the end.
     */
    static Kernel window(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = (Integer) a[2];
        int rows = (Integer) a[3];
        int h = (Integer) a[4];
        return t -> {
            float[] sums = t.sharedFloats(256);
            int tid = t.threadIdxX();
            int row = t.blockIdxX();
            float s = 0f;
            for (int j = -h; j <= h; j++) {
                if (row + j >= 0 && row + j < rows && tid < w) {
                    s += in[(row + j) * w + tid];
                }
            }
            sums[tid] = s;
            t.syncThreads();
            if (tid < w) {
                out[row * w + tid] = sums[tid] + 0.5f * sums[(tid + 1) % t.blockDimX()];
            }
        };
    }

    @Test
    void window1d_rowsBeforeTheStartAndPastTheEnd_partialGroups() throws InterruptedException {
        assertTrue(listing(TouchPassTest::window, new float[64], new float[64], 16, 4, 2).contains(TOUCH));
        for (int[] c : new int[][] {{64, 9, 3, 64}, {50, 7, 2, 64}, {40, 5, 4, 40}, {200, 3, 1, 256}}) {
            int w = c[0];
            int rows = c[1];
            d.checkOnResumeMethods(Dim3.of(rows), Dim3.of(c[3]), TouchPassTest::window,
                    Differential.floats(w * rows, 51 + w, -2, 2), new float[w * rows], w, rows, c[2]);
        }
    }

    /** As {@link #window} without its guard on rows: CTA {@code bad}'s threads read a row past the end and fault. */
    static Kernel unguardedWindow(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = (Integer) a[2];
        int bad = (Integer) a[3];
        return t -> {
            float[] sums = t.sharedFloats(64);
            int tid = t.threadIdxX();
            int row = t.blockIdxX();
            float s = 0f;
            for (int j = 0; j < 3; j++) {
                int r = row == bad ? row + 2 * j : Math.min(row + j, 3);
                if (tid < w) {
                    s += in[r * w + tid];
                }
            }
            sums[tid] = s;
            t.syncThreads();
            out[row * 64 + tid] = sums[63 - tid];
        };
    }

    @Test
    void faultInATouchedLoop_reportedAsTheReferenceReportsIt() throws InterruptedException {
        // the loads' index (a phi of the two rows) is not evaluable: no touch pass; CTA `bad` reads a row past the end
        assertFalse(listing(TouchPassTest::unguardedWindow, new float[160], new float[256], 40, 3).contains(TOUCH));
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(64), TouchPassTest::unguardedWindow,
                Differential.floats(4 * 40, 61, -1, 1), new float[4 * 64], 40, 3);
        // touched: only the last CTA's last row reaches past the end (230 floats), from its thread 30 on
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(64), TouchPassTest::faultingRows,
                Differential.floats(230, 62, -1, 1), new float[4 * 64], 40);
    }

    /** Rows of 64 floats at {@code (row + j) * w}: the last CTA's last row reaches past the array's end and faults. */
    static Kernel faultingRows(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = (Integer) a[2];
        return t -> {
            float[] sums = t.sharedFloats(64);
            int tid = t.threadIdxX();
            int row = t.blockIdxX();
            float s = 0f;
            for (int j = 0; j < 3; j++) {
                s += in[(row + j) * w + tid];
            }
            sums[tid] = s;
            t.syncThreads();
            out[row * 64 + tid] = sums[63 - tid];
        };
    }

    @Test
    void faultingRows_isTouched() {
        assertTrue(listing(TouchPassTest::faultingRows, new float[300], new float[256], 40).contains(TOUCH));
    }

    /**
     * Every element type, in 3D CTAs of (32, 2, 3) threads (groups step through y and z): per thread, four rows of
     * ints, longs, floats and doubles at a stride of {@code w}, from a counter that starts at the thread's y and counts
     * down; {@code never}, null, is read only where {@code flag} (0 here) is set.
     */
    static Kernel allKinds(Object[] a) {
        int[] is = (int[]) a[0];
        long[] ls = (long[]) a[1];
        float[] fs = (float[]) a[2];
        double[] ds = (double[]) a[3];
        float[] never = (float[]) a[4];
        double[] out = (double[]) a[5];
        int w = (Integer) a[6];
        int flag = (Integer) a[7];
        return t -> {
            double[] tile = t.sharedDoubles(192);
            int tx = t.threadIdxX();
            int lin = (t.threadIdxZ() * 2 + t.threadIdxY()) * 32 + tx;
            int base = t.blockIdxX() * 6 + t.threadIdxZ() * 2 + t.threadIdxY();
            double s = 0;
            for (int j = t.threadIdxY() + 3; j >= 0; j--) {
                int at = (base + j) * w + tx;
                if (tx < w && at < is.length) {
                    s += is[at] + (ls[at] >> 40) + fs[at] + ds[at];
                    if (flag != 0) {
                        s += never[at];
                    }
                }
            }
            tile[lin] = s;
            t.syncThreads();
            out[t.blockIdxX() * 192 + lin] = tile[191 - lin] - s;
        };
    }

    @Test
    void allKinds_3dCtas_countdownFromThreadY_nullArrayNeverRead() throws InterruptedException {
        int w = 30;
        int ctas = 3;
        int len = (ctas * 6 + 4) * w - 11;
        Object[] data = {Differential.ints(len, 71, -1000, 1000), Differential.longs(len, 72), Differential.floats(len, 73, -1, 1),
            Differential.doubles(len, 74, -1, 1), null, new double[ctas * 192], w, 0};
        String l = listing(TouchPassTest::allKinds, data);
        assertTrue(l.contains(TOUCH), l);
        d.checkOnResumeMethods(Dim3.of(ctas), Dim3.of(32, 2, 3), TouchPassTest::allKinds, data);
    }

    /** A loop whose counter comes from memory and a loop holding a barrier: neither gets a touch pass. */
    static Kernel untouched(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int[] steps = (int[]) a[2];
        return t -> {
            float[] tile = t.sharedFloats(128);
            int tid = t.threadIdxX();
            float s = 0f;
            for (int j = 0; j < steps[0]; j = j + steps[1]) {
                s += in[j * 128 + tid];
            }
            for (int k = 0; k < 3; k++) {
                tile[tid] = in[(t.blockIdxX() + k) * 128 + tid];
                t.syncThreads();
                s += tile[127 - tid];
                t.syncThreads();
            }
            out[t.blockIdxX() * 128 + tid] = s;
        };
    }

    @Test
    void untouchedLoops_noTouchPass_sameResults() throws InterruptedException {
        Object[] data = {Differential.floats(8 * 128, 81, -1, 1), new float[4 * 128], new int[] {5, 1}};
        assertFalse(listing(TouchPassTest::untouched, data).contains(TOUCH));
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(128), TouchPassTest::untouched, data);
    }
}
