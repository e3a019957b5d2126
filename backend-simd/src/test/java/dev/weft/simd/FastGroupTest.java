package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Loop-free kernels whose groups are mostly whole and whose guards are affine bounds (the stencil's
 * {@code x > 0 && x < w - 1}), against the reference: grid edges, partial warps, CTA shapes of every layout,
 * conditions decided for the whole group or mixed, and faults inside whole groups (one faulting CTA, so that the
 * failing thread does not depend on which SM reports first). Written for a whole-group fast path (branch
 * perf-stencil, commit e9278d4, reverted: not faster) and kept as the differential test of any such path.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FastGroupTest {

    @AutoClose
    static final Differential d = new Differential();

    /** a: {float[] in, float[] out, int[] {w, h}}: the benchmarks' 5-point stencil. */
    static Kernel stencil(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = ((int[]) a[2])[0];
        int h = ((int[]) a[2])[1];
        return t -> {
            int x = t.globalIdX();
            int y = t.globalIdY();
            if (x > 0 && y > 0 && x < w - 1 && y < h - 1) {
                int i = y * w + x;
                out[i] = 0.5f * in[i] + 0.125f * (in[i - w] + in[i + w] + in[i - 1] + in[i + 1]);
            }
        };
    }

    private static void stencil(int w, int h, int bx, int by, int inLength) {
        d.check(Dim3.of((w + bx - 1) / bx, (h + by - 1) / by), Dim3.of(bx, by), FastGroupTest::stencil,
                Differential.floats(inLength, 5, -1, 1), new float[w * h], new int[] {w, h});
    }

    @Test
    void stencil_gridShapesAndEdges_matchesReference() {
        int[][] shapes = {{64, 16}, {70, 13}, {33, 9}, {3, 3}, {1, 1}, {100, 37}, {257, 5}};
        int[][] blocks = {{32, 8}, {16, 4}, {8, 8}, {48, 3}, {32, 1}, {128, 2}, {5, 7}};
        for (int[] s : shapes) {
            for (int[] b : blocks) {
                stencil(s[0], s[1], b[0], b[1], s[0] * s[1]);
            }
        }
    }

    @Test
    void stencil_inputShorterThanTheGrid_faultsInTheReferencesThread() {
        // Row 8, the last interior one, reads in[i + w] past the end from x = 40 (in the whole, interior group of
        // x 32..63: a fault inside the fast path) or from x = 10 (in the first group, already mixed). One CTA faults,
        // so the failing thread does not depend on which SM reports first.
        stencil(96, 10, 96, 2, 9 * 96 + 40);
        stencil(96, 10, 96, 1, 9 * 96 + 40);
        stencil(96, 10, 96, 2, 9 * 96 + 10);
        stencil(96, 10, 96, 2, 9 * 96 + 64);
    }

    /** a: {int[] in, int[] out, int[] {lo, hi, n}}: a diamond on two affine bounds, a phi at the join. */
    static Kernel diamond(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int lo = ((int[]) a[2])[0];
        int hi = ((int[]) a[2])[1];
        int n = ((int[]) a[2])[2];
        return t -> {
            int i = t.globalIdX();
            int v;
            if (i >= lo && i < hi) {
                v = in[i] * 3;
            } else {
                v = -i;
            }
            if (i < n) {
                out[i] = v + 1;
            }
        };
    }

    @Test
    void diamond_boundsInsideAndAtGroupEnds_matchesReference() {
        int[][] bounds = {{0, 1000}, {5, 1000}, {32, 64}, {31, 65}, {-10, 3}, {200, 100}, {64, 64},
                {Integer.MIN_VALUE, Integer.MAX_VALUE}, {100, 300}};
        for (int[] b : bounds) {
            for (int block : new int[] {32, 64, 96, 40, 7}) {
                int n = 300;
                d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), FastGroupTest::diamond,
                        Differential.ints(n, 9, -100, 100), new int[n], new int[] {b[0], b[1], n});
            }
        }
    }

    /** a: {int[] in, int[] div, int[] out}: a data-dependent branch (mask tests) and a division that may fault. */
    static Kernel divide(Object[] a) {
        int[] in = (int[]) a[0];
        int[] div = (int[]) a[1];
        int[] out = (int[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i < out.length) {
                int v = in[i];
                if (v > 0) {
                    out[i] = 1000 / div[i];
                } else {
                    out[i] = v;
                }
            }
        };
    }

    @Test
    void divide_dataDependentBranchesAndZeroDivisors_matchesReference() {
        int n = 256;
        int[] positive = new int[n];
        java.util.Arrays.fill(positive, 7);
        int[] negative = new int[n];
        java.util.Arrays.fill(negative, -7);
        int[] divisors = Differential.ints(n, 3, 1, 50);
        d.check(Dim3.of(4), Dim3.of(64), FastGroupTest::divide, positive, divisors, new int[n]);
        d.check(Dim3.of(4), Dim3.of(64), FastGroupTest::divide, negative, divisors, new int[n]);
        d.check(Dim3.of(4), Dim3.of(64), FastGroupTest::divide, Differential.ints(n, 4, -5, 5), divisors, new int[n]);
        int[] zeroAt = divisors.clone();
        zeroAt[77] = 0;
        d.check(Dim3.of(4), Dim3.of(64), FastGroupTest::divide, positive, zeroAt, new int[n]);
        d.check(Dim3.of(4), Dim3.of(64), FastGroupTest::divide, Differential.ints(n, 4, -5, 5), zeroAt, new int[n]);
        d.check(Dim3.of(5), Dim3.of(60), FastGroupTest::divide, positive, divisors, new int[n - 10]);
    }

    @Test
    void stencil_compiles() {
        assertEquals(true, d.report(FastGroupTest::stencil, new float[64], new float[64], new int[] {8, 8}).compiled());
    }
}
