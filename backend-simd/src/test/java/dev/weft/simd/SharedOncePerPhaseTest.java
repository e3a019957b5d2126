package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The methods per resume point fetch the shared arrays of the kernel's entry with constant lengths once per phase
 * instead of restoring them per group ({@code -Dweft.simd.sharedOncePerPhase}): here next to shared arrays they still
 * restore (a length from blockDim), over many CTAs on the same SMs (the arrays reused and zeroed from CTA to CTA),
 * edge CTAs and partial groups, against the reference executor.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SharedOncePerPhaseTest {

    @AutoClose
    static final Differential d = new Differential();


    /**
     * Three entry allocations (float and int of constant lengths: fetched once per phase; doubles of blockDim.x:
     * restored per group), each written and read across barriers in a loop whose trip count differs per CTA; CTAs
     * with an odd blockIdx.x read one more tile element on odd steps.
     */
    static Kernel threeTiles(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            float[] fs = t.sharedFloats(256);
            int[] is = t.sharedInts(64);
            double[] ds = t.sharedDoubles(t.blockDimX());
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int lin = ty * t.blockDimX() + tx;
            int g = (t.blockIdxY() * t.gridDimX() + t.blockIdxX()) * t.blockDimX() * t.blockDimY() + lin;
            float acc = 0f;
            int steps = 2 + (t.blockIdxX() + t.blockIdxY()) % 3;
            for (int s = 0; s < steps; s++) {
                if (lin < 256) {
                    fs[lin] = g < n ? in[(g + s) % n] : -1f;
                }
                if (lin < 64) {
                    is[lin] = lin * 3 + s;
                }
                if (ty == 0) {
                    ds[tx] = tx + 0.5 * s;
                }
                t.syncThreads();
                if ((s & 1) == 1 && (t.blockIdxX() & 1) == 1) {
                    // Some CTAs, some steps: a phase whose groups do more than the others'.
                    acc -= is[(lin + 3) % 64];
                }
                int j = (lin + 7) % 256 % (t.blockDimX() * t.blockDimY());
                acc += fs[j] * is[lin % 64] + (float) ds[(tx + 1) % t.blockDimX()];
                t.syncThreads();
            }
            if (g < n) {
                out[g] = acc + fs[lin % 256];
            }
        };
    }

    @Test
    void entryTiles_2dAnd1dCtas_edgeAndPartialGroups() throws InterruptedException {
        // 16 x 16 CTAs over 3 x 2 (edge threads past n); 1D CTAs of 40 threads (partial groups); one of 256.
        Object[][] shapes = {{Dim3.of(3, 2), Dim3.of(16, 16)}, {Dim3.of(7), Dim3.of(40)}, {Dim3.of(5), Dim3.of(256)}};
        for (Object[] sh : shapes) {
            Dim3 grid = (Dim3) sh[0];
            Dim3 block = (Dim3) sh[1];
            int threads = grid.x() * grid.y() * block.x() * block.y();
            int n = threads - 37;
            d.checkOnResumeMethods(grid, block, SharedOncePerPhaseTest::threeTiles,
                    Differential.floats(n, 11, -2, 2), new float[threads], n);
        }
    }

    @Test
    void tiledMatmul_manyCtasPerSm() throws InterruptedException {
        // 6 x 6 CTAs: each SM runs many, its two tiles reused (zeroed) from one CTA to the next.
        int n = 90;
        int tiles = (n + 15) / 16;
        d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(16, 16), BarrierTest::tiledMatmul,
                Differential.floats(n * n, 5, -1, 1), Differential.floats(n * n, 6, -1, 1), new float[n * n], n);
    }
}
