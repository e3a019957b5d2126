package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.simd.internal.gen.Lanes;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Groups that span CTA rows whose length is a multiple of a register ({@code CodeGen.Layout.REGISTER_ROWS}: 16 x 16
 * tiles in groups of 32 threads on 16-lane registers; on 8-lane ones with {@code -Dweft.simd.registerRows=true}, rows of
 * 8, 16 or 24), on the methods per resume point against the reference executor (which, where the variant is off,
 * checks the narrow and general variants on the same shapes): values uniform in each register (threadIdx.y and what
 * is computed from it) kept as a scalar per register, loads per register at such an index, contiguous loads and
 * stores per register, compares per register; partial groups (a register with no thread), rows not a multiple of the
 * group, 3D CTAs, faults in one register's threads only, values kept across barriers and used after divergent loops,
 * and atomics whose index a load just read (re-read from its source element only where the load's index is the
 * group's base + lane, see {@code AtomicOps#contiguousSource}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RegisterRowsTest {

    @AutoClose
    static final Differential d = new Differential();

    /** Lanes of a register: CTA rows of this many threads (or a multiple) give each register a row of its own. */
    static final int L = Lanes.L32;

    @Test
    void tiledMatmul_listingKeepsThreadIdxYPerRegister() {
        // by default where a tile row of 16 is one register (the narrow variant's group); with 8-lane registers that
        // variant serves 16 x 16 tiles in groups of 16, two registers (-Dweft.simd.registerRows=true to list it there)
        assumeTrue(L == 16 || Boolean.getBoolean("weft.simd.registerRows"), "16-lane registers");
        String listing = d.report(BarrierTest::tiledMatmul, new float[256], new float[256], new float[256], 16).listing();
        assertTrue(listing.contains("when each register lies within one row of the CTA"), listing);
        assertTrue(listing.contains("uniform in each register: one scalar load per register"), listing);
        assertTrue(listing.contains("contiguous in each register: a vector load per register"), listing);
    }

    @Test
    void tiledMatmul_partialTiles_partialGroups_3dCtas() throws InterruptedException {
        for (int n : new int[] {37, 9}) {
            int tiles = (n + 15) / 16;
            d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(16, 16), BarrierTest::tiledMatmul,
                    Differential.floats(n * n, 41, -1, 1), Differential.floats(n * n, 42, -1, 1), new float[n * n], n);
        }
        int n = 23;
        // 16 x 3 CTAs: 48 threads, the last group half empty; 16 x 2 x 3: the rows run on into z
        d.checkOnResumeMethods(Dim3.of(2, 8), Dim3.of(16, 3), TileLoadPhaseTest::scaledMatmul,
                Differential.floats(n * n, 43, -1, 1), Differential.floats(n * n, 44, -1, 1), new float[n * n], n);
        d.checkOnResumeMethods(Dim3.of(2, 8), Dim3.of(16, 2, 3), TileLoadPhaseTest::scaledMatmul,
                Differential.floats(n * n, 45, -1, 1), Differential.floats(n * n, 46, -1, 1), new float[n * n], n);
    }

    /**
     * Per-register arithmetic of every kind the per-register code takes (shifts, masks, or, xor, negation, int to
     * float and back, an int array read at an index uniform in the register), a loop whose trip count is uniform
     * in each register but not the group (threadIdx.y), a value made in a loop threads leave at different
     * iterations and used after it, and values kept across two barriers.
     */
    static Kernel rowValues(Object[] a) {
        int[] table = (int[]) a[0];
        float[] in = (float[]) a[1];
        float[] out = (float[]) a[2];
        int w = (Integer) a[3];
        return t -> {
            float[] tile = t.sharedFloats(1024);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY() + t.threadIdxZ() * t.blockDimY();
            int row = t.blockIdxX() * 64 + ty;
            int key = ((ty << 2) | 1) ^ (ty >> 1);
            int look = table[(key & 63) + (-ty & 3)];
            float scale = (float) (look - ty) * 0.5f;
            int back = (int) (scale * 3f);
            tile[ty * w + tx] = in[row * w + tx] * scale + back;
            t.syncThreads();
            float acc = 0f;
            for (int i = 0; i < ty % 5; i++) {
                acc += tile[ty * w + (tx + i) % w];
            }
            int q = 0;
            for (int i = 0; i < tx % 3; i++) {
                q = ty * 7 + look + 1;
            }
            t.syncThreads();
            out[row * w + tx] = acc + q + look + key;
        };
    }

    @Test
    void perRegisterArithmetic_loops_keptAcrossBarriers() throws InterruptedException {
        for (Dim3 block : new Dim3[] {Dim3.of(L, 5), Dim3.of(3 * L, 3), Dim3.of(L, 2, 3), Dim3.of(16, 4)}) {
            int w = block.x();
            int rows = block.y() * block.z();
            int ctas = 3;
            int len = (2 * 64 + rows) * w;
            d.checkOnResumeMethods(Dim3.of(ctas), block, RegisterRowsTest::rowValues,
                    Differential.ints(80, 47, -20, 20), Differential.floats(len, 48, -2, 2), new float[len], w);
        }
    }

    /**
     * In CTA 1, reads past an array's end from one thread row on: at a per-register index {@code s[ty * m + 3]}
     * (shared, 256 floats) or at a row {@code in[(base + ty * m) * w + tx]} contiguous in each register; {@code m}
     * places the first row out of bounds. That row's register's first active thread faults, as the reference's
     * first thread in linear order does; the registers before it complete.
     */
    static Kernel rowFaults(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int w = (Integer) a[2];
        int m = (Integer) a[3];
        int perRegister = (Integer) a[4];
        return t -> {
            float[] s = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int base = t.blockIdxX() * t.blockDimY();
            int row = (base + ty) * w;
            s[ty * 16 + tx] = tx;
            t.syncThreads();
            int mul = t.blockIdxX() == 1 ? m : perRegister != 0 ? 16 : 1;
            float v = perRegister != 0 ? s[ty * mul + 3] : in[(base + ty * mul) * w + tx];
            t.syncThreads();
            out[row + tx] = v + in[row + tx];
        };
    }

    @Test
    void faultInOneRegister_reportsItsFirstThread() throws InterruptedException {
        int len = 3 * 4 * L;
        // per-register index: row 1 (m = 254: 257 is past 256) or row 2 (m = 127); contiguous rows: base 4, row 1
        // at 1004 rows, or row 2 at 4 + 2 * 5 = 14 of 12
        int[][] cases = {{254, 1}, {127, 1}, {1000, 0}, {5, 0}};
        for (int[] c : cases) {
            d.checkOnResumeMethods(Dim3.of(3), Dim3.of(L, 4), RegisterRowsTest::rowFaults,
                    Differential.floats(len, 49, -2, 2), new float[len], L, c[0], c[1]);
        }
    }

    /**
     * A histogram of a w x h image of keys in [0, 64), one thread per pixel: each thread reads its key at
     * {@code row * w + col} (contiguous in each register, its row from threadIdx.y and blockIdx.y) and counts it in a
     * global histogram at {@code b & 63}, in a global one of long sums at the loaded key itself, and in the CTA's
     * shared histogram, flushed with atomics after a barrier. Pixels past the image's edge (partial last CTAs) do
     * nothing. No grid-stride loop: the atomics take the indices out of their registers, under the mask.
     */
    static Kernel imageHistogram(Object[] a) {
        int[] keys = (int[]) a[0];
        int[] counts = (int[]) a[1];
        long[] rowSums = (long[]) a[2];
        int[] flushed = (int[]) a[3];
        int w = (Integer) a[4];
        int h = (Integer) a[5];
        return t -> {
            int[] bins = t.sharedInts(64);
            int lin = t.linearThreadIdx();
            int threads = t.blockDimX() * t.blockDimY();
            for (int k = lin; k < 64; k += threads) {
                bins[k] = 0;
            }
            t.syncThreads();
            int col = t.blockIdxX() * t.blockDimX() + t.threadIdxX();
            int row = t.blockIdxY() * t.blockDimY() + t.threadIdxY();
            if (row < h && col < w) {
                int b = keys[row * w + col];
                Atomics.add(counts, b & 63, 1);
                Atomics.add(rowSums, b, (long) row);
                Atomics.add(bins, b, 1);
            }
            t.syncThreads();
            for (int k = lin; k < 64; k += threads) {
                Atomics.add(flushed, k, bins[k]);
            }
        };
    }

    @Test
    void imageHistogram_2dCtas_partialLastCtas_matchReference() throws InterruptedException {
        int w = 37;
        int h = 29;
        for (Dim3 block : new Dim3[] {Dim3.of(16, 16), Dim3.of(32, 8), Dim3.of(16, 4), Dim3.of(L, 3)}) {
            Dim3 grid = Dim3.of((w + block.x() - 1) / block.x(), (h + block.y() - 1) / block.y());
            d.checkOnResumeMethods(grid, block, RegisterRowsTest::imageHistogram, Differential.ints(w * h, 56, 0, 64),
                    new int[64], new long[64], new int[64], w, h);
        }
    }

    /**
     * A grid-stride loop over {@code keys} in 2D CTAs, its index from the linear thread id: the group's base + lane,
     * also in groups that span rows. Three atomics on loaded keys: {@code keys[i]} into a shared histogram and into
     * a global one of long sums (indices the fast path reads again from {@code keys[i]}), and {@code keys[i + ty *
     * pad]} into a second shared histogram: in groups within a row read again too, in groups spanning rows
     * contiguous only within each register (a base per register, from threadIdx.y), so taken from the registers.
     * The shared ones are flushed with atomics after a barrier.
     */
    static Kernel strideHistogram(Object[] a) {
        int[] keys = (int[]) a[0];
        long[] sums = (long[]) a[1];
        int[] flushed = (int[]) a[2];
        int n = (Integer) a[3];
        int pad = (Integer) a[4];
        return t -> {
            int[] bins = t.sharedInts(64);
            int[] rowBins = t.sharedInts(64);
            int lin = t.linearThreadIdx();
            int threads = t.blockDimX() * t.blockDimY();
            for (int k = lin; k < 64; k += threads) {
                bins[k] = 0;
                rowBins[k] = 0;
            }
            t.syncThreads();
            int ty = t.threadIdxY();
            int cta = t.blockIdxY() * t.gridDimX() + t.blockIdxX();
            for (int i = cta * threads + lin; i < n; i += threads * t.gridDimX() * t.gridDimY()) {
                Atomics.add(bins, keys[i], 1);
                Atomics.add(sums, keys[i], (long) i);
                Atomics.add(rowBins, keys[i + ty * pad], 1);
            }
            t.syncThreads();
            for (int k = lin; k < 64; k += threads) {
                Atomics.add(flushed, k, bins[k]);
                Atomics.add(flushed, 64 + k, rowBins[k]);
            }
        };
    }

    @Test
    void strideHistogram_2dCtas_matchReference() throws InterruptedException {
        int pad = 5;
        for (Dim3 block : new Dim3[] {Dim3.of(16, 16), Dim3.of(32, 8), Dim3.of(16, 4), Dim3.of(L, 3)}) {
            for (int n : new int[] {40, 777, 5000}) {
                int[] keys = Differential.ints(n + pad * block.y(), 57, 0, 64);
                d.checkOnResumeMethods(Dim3.of(3, 2), block, RegisterRowsTest::strideHistogram, keys, new long[64],
                        new int[128], n, pad);
            }
        }
    }

    @Test
    void histograms_listTheRegisterRowsVariant() {
        assumeTrue(L == 16 || Boolean.getBoolean("weft.simd.registerRows"), "16-lane registers");
        String image = d.report(RegisterRowsTest::imageHistogram, new int[256], new int[64], new long[64], new int[64], 16,
                16).listing();
        assertTrue(image.contains("when each register lies within one row of the CTA"), image);
        assertTrue(image.contains("contiguous in each register: a vector load per register"), image);
        String stride = d.report(RegisterRowsTest::strideHistogram, new int[256], new long[64], new int[128], 200, 1)
                .listing();
        assertTrue(stride.contains("when each register lies within one row of the CTA"), stride);
        assertTrue(stride.contains("contiguous in each register: a vector load per register"), stride);
    }
}
