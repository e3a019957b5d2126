package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tile-loading phase's trims, on the methods per resume point against the reference executor: each barrier keeps
 * only what is live across it where the rest are phi-linked vectors ({@code -Dweft.simd.phaseKeptSets}: the k-tile
 * loop's accumulator and the k-loop's share one spill column), and contiguous float loads and stores make their
 * float-lane masks on their masked paths only ({@code -Dweft.simd.lazyLaneMasks}). Here: values live across one
 * barrier and not the other, an accumulator also written in the load phase, partial tiles at the matrix's edges,
 * active lanes that read or write past an array's end (the reference's thread faults) and inactive lanes whose
 * indices lie past it (no fault).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TileLoadPhaseTest {

    @AutoClose
    static final Differential d = new Differential();

    /**
     * A tiled matmul whose accumulator the load phase also changes on some steps (scaled when the k-tile is odd, in
     * CTAs with an odd blockIdx.y), with a float {@code pre} read before the first barrier and used after it (live
     * across that barrier only), and a float {@code post} made after the k-loop and used after the second barrier's
     * phase starts (live across the second only).
     */
    static Kernel scaledMatmul(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] out = (float[]) a[2];
        int n = (Integer) a[3];
        return t -> {
            float[] as = t.sharedFloats(256);
            float[] bs = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * 16 + ty;
            int col = t.blockIdxX() * 16 + tx;
            float acc = 0f;
            float post = 1f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                if (((k0 >> 4) & 1) == 1 && (t.blockIdxY() & 1) == 1) {
                    acc = acc * 0.5f + post;
                }
                as[ty * 16 + tx] = row < n && k0 + tx < n ? x[row * n + k0 + tx] : 0f;
                bs[ty * 16 + tx] = col < n && k0 + ty < n ? y[(k0 + ty) * n + col] : 0f;
                float pre = row < n && k0 + tx < n ? x[row * n + k0 + tx] * 0.25f : 2f;
                t.syncThreads();
                for (int k = 0; k < 16; k++) {
                    acc += as[ty * 16 + k] * bs[k * 16 + tx];
                }
                acc += pre;
                post = acc * 0.125f;
                t.syncThreads();
            }
            if (row < n && col < n) {
                out[row * n + col] = acc + post;
            }
        };
    }

    @Test
    void tiledMatmul_valuesLiveAcrossOneBarrier_partialEdgeTiles() throws InterruptedException {
        for (int n : new int[] {48, 37, 9}) {
            int tiles = (n + 15) / 16;
            d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(16, 16), BarrierTest::tiledMatmul,
                    Differential.floats(n * n, 21, -1, 1), Differential.floats(n * n, 22, -1, 1), new float[n * n], n);
            d.checkOnResumeMethods(Dim3.of(tiles, tiles + 1), Dim3.of(16, 16), TileLoadPhaseTest::scaledMatmul,
                    Differential.floats(n * n, 23, -1, 1), Differential.floats(n * n, 24, -1, 1), new float[n * n], n);
        }
    }

    @Test
    void tiledMatmul_halfTileCtas_rowsAndRowSpanningGroups() throws InterruptedException {
        // 16 x 8 CTAs fill half of each tile (groups within a row); 8 x 16 CTAs: groups span rows (the general layout)
        int n = 29;
        d.checkOnResumeMethods(Dim3.of(2, 4), Dim3.of(16, 8), TileLoadPhaseTest::scaledMatmul,
                Differential.floats(n * n, 25, -1, 1), Differential.floats(n * n, 26, -1, 1), new float[n * n], n);
        d.checkOnResumeMethods(Dim3.of(4, 2), Dim3.of(8, 16), TileLoadPhaseTest::scaledMatmul,
                Differential.floats(n * n, 27, -1, 1), Differential.floats(n * n, 28, -1, 1), new float[n * n], n);
    }

    /**
     * Contiguous float loads and stores under partial masks: a tile row of {@code w} floats per thread row, read with
     * {@code tx < w} from {@code in} at {@code base + tx}, and written back to {@code out} under {@code tx < w}; the
     * caller sizes the arrays so that the lanes past {@code w} (inactive) index past the end, or, with {@code over},
     * so that an active lane of one CTA does.
     */
    static Kernel partialRows(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = (Integer) a[2];
        int over = (Integer) a[3];
        return t -> {
            float[] tile = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int rowBase = (t.blockIdxX() * 16 + ty) * w;
            int extra = t.blockIdxX() == 2 && ty == 5 ? over : 0;
            float acc = 0f;
            for (int s = 0; s < 3; s++) {
                tile[ty * 16 + tx] = tx < w ? in[rowBase + tx + extra] + s : -1f;
                t.syncThreads();
                acc += tile[ty * 16 + (tx + s) % 16];
                t.syncThreads();
            }
            if (tx < w) {
                out[rowBase + tx + extra] = acc;
            }
        };
    }

    @Test
    void contiguousMaskedLoadsAndStores_inactiveLanesPastTheEnd_noFault() throws InterruptedException {
        for (int w : new int[] {16, 11, 3}) {
            int ctas = 3;
            // exactly the rows' elements: the last row's lanes past w index past both arrays' ends
            int len = ctas * 16 * w;
            Object[] got = d.checkOnResumeMethods(Dim3.of(ctas), Dim3.of(16, 16), TileLoadPhaseTest::partialRows,
                    Differential.floats(len, 31, -4, 4), new float[len], w, 0);
            assertTrue(((float[]) got[1])[len - 1] != 0f, "the last element was written");
        }
    }

    @Test
    void contiguousMaskedLoad_activeLanePastTheEnd_faultsInReferencesThread() throws InterruptedException {
        for (int w : new int[] {16, 11}) {
            int ctas = 3;
            int len = ctas * 16 * w;
            // CTA 2, thread row 5 reads from 10 rows further on: past the end from some lane on
            d.checkOnResumeMethods(Dim3.of(ctas), Dim3.of(16, 16), TileLoadPhaseTest::partialRows,
                    Differential.floats(len, 32, -4, 4), new float[len], w, 10 * w + 3);
        }
    }
}
