package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Thread coordinates and indexing across grid and CTA shapes: partial warps, 1 and 1024 threads, 2D, 3D. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IndexingTest {

    @AutoClose
    static final Differential d = new Differential();

    /** Every coordinate a thread can read, written to its own slot. */
    static Kernel coordinates(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int g = cta * threads + t.linearThreadIdx();
            int base = 12 * g;
            out[base] = t.threadIdxX();
            out[base + 1] = t.threadIdxY();
            out[base + 2] = t.threadIdxZ();
            out[base + 3] = t.blockIdxX() + 10 * t.blockIdxY() + 100 * t.blockIdxZ();
            out[base + 4] = t.blockDimX() + 10 * t.blockDimY() + 100 * t.blockDimZ();
            out[base + 5] = t.gridDimX() + 10 * t.gridDimY() + 100 * t.gridDimZ();
            out[base + 6] = t.globalIdX();
            out[base + 7] = t.globalIdY();
            out[base + 8] = t.globalIdZ();
            out[base + 9] = t.laneId();
            out[base + 10] = t.warpId();
            out[base + 11] = t.warpSize();
        };
    }

    static void coordinates(Differential diff, Dim3 grid, Dim3 block) {
        int threads = (int) (grid.volume() * block.volume());
        diff.check(grid, block, IndexingTest::coordinates, new int[12 * threads]);
    }

    @Test
    void coordinates_1dShapesWithPartialWarps() {
        coordinates(d, Dim3.of(3), Dim3.of(100));
        coordinates(d, Dim3.of(5), Dim3.of(1));
        coordinates(d, Dim3.of(2), Dim3.of(1024));
        coordinates(d, Dim3.of(7), Dim3.of(33));
    }

    @Test
    void coordinates_2dAnd3dShapes() {
        coordinates(d, Dim3.of(2, 3), Dim3.of(32, 4));
        coordinates(d, Dim3.of(2, 2), Dim3.of(16, 16));
        coordinates(d, Dim3.of(3, 2, 2), Dim3.of(8, 4, 4));
        coordinates(d, Dim3.of(1, 1, 3), Dim3.of(5, 3, 7));
        coordinates(d, Dim3.of(2, 1, 1), Dim3.of(64, 2, 8));
        coordinates(d, Dim3.of(1, 2, 1), Dim3.of(1, 1, 64));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 8, 16})
    void coordinates_smallerWarpSizes(int warpSize) {
        try (Differential small = new Differential(warpSize)) {
            coordinates(small, Dim3.of(2), Dim3.of(100));
            coordinates(small, Dim3.of(2, 2), Dim3.of(16, 6));
        }
    }

    static Kernel matmul(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] z = (float[]) a[2];
        int n = 40;
        return t -> {
            int col = t.globalIdX();
            int row = t.globalIdY();
            if (row < n && col < n) {
                float s = 0;
                for (int k = 0; k < n; k++) {
                    s += x[row * n + k] * y[k * n + col];
                }
                z[row * n + col] = s;
            }
        };
    }

    @Test
    void matmul2d_rowAlignedAndGeneralShapes() {
        Object[] data = {Differential.floats(1600, 31, -1, 1), Differential.floats(1600, 32, -1, 1), new float[1600]};
        d.check(Dim3.of(2, 5), Dim3.of(32, 8), IndexingTest::matmul, data);
        d.check(Dim3.of(3, 3), Dim3.of(16, 16), IndexingTest::matmul, data);
        d.check(Dim3.of(14, 14), Dim3.of(3, 3), IndexingTest::matmul, data);
    }

    static Kernel volume(Object[] a) {
        double[] v = (double[]) a[0];
        double[] out = (double[]) a[1];
        int nx = 12;
        int ny = 10;
        int nz = 9;
        return t -> {
            int x = t.globalIdX();
            int y = t.globalIdY();
            int z = t.globalIdZ();
            if (x >= nx || y >= ny || z >= nz) {
                return;
            }
            int i = (z * ny + y) * nx + x;
            double s = v[i];
            if (x > 0) {
                s += v[i - 1];
            }
            if (x < nx - 1) {
                s += v[i + 1];
            }
            if (y > 0) {
                s += v[i - nx];
            }
            if (z < nz - 1) {
                s += v[i + nx * ny];
            }
            out[i] = s * 0.2;
        };
    }

    @Test
    void stencil3d_matchesReference() {
        Object[] data = {Differential.doubles(1080, 33, 0, 1), new double[1080]};
        d.check(Dim3.of(2, 3, 3), Dim3.of(8, 4, 4), IndexingTest::volume, data);
        d.check(Dim3.of(1, 1, 9), Dim3.of(32, 16, 1), IndexingTest::volume, data);
    }

    static Kernel gridStride(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int n = x.length;
        return t -> {
            int stride = t.gridDimX() * t.blockDimX();
            for (int i = t.globalIdX(); i < n; i += stride) {
                y[i] = x[i] * 3f + y[i];
            }
        };
    }

    @Test
    void gridStrideLoop_affineInductionVariable() {
        d.check(Dim3.of(3), Dim3.of(64), IndexingTest::gridStride, Differential.floats(1000, 34, -1, 1), Differential.floats(1000, 35, -1, 1));
        String listing = d.report(IndexingTest::gridStride, new float[8], new float[8]).listing();
        org.junit.jupiter.api.Assertions.assertTrue(listing.contains("contiguous"), listing);
    }

    static Kernel gatherScatter(Object[] a) {
        int[] perm = (int[]) a[0];
        float[] x = (float[]) a[1];
        float[] y = (float[]) a[2];
        long[] hist = (long[]) a[3];
        int n = perm.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[perm[i]] = x[n - 1 - i] + x[(i * 2) % n];
                hist[perm[i] % 7] = i;
            }
        };
    }

    @Test
    void gatherScatterAndColliding_lastThreadWins() {
        int n = 256;
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) {
            perm[i] = (i * 37 + 11) % n;
        }
        // One CTA: colliding writes to hist are ordered by thread id in both executors.
        d.check(Dim3.of(1), Dim3.of(n), IndexingTest::gatherScatter, perm, Differential.floats(n, 36, -1, 1), new float[n], new long[7]);
    }

    static Kernel uniformStore(Object[] a) {
        int[] out = (int[]) a[0];
        float[] f = (float[]) a[1];
        return t -> {
            if (t.threadIdxX() % 3 != 1) {
                out[t.blockIdxX()] = t.threadIdxX() * 10 + t.laneId();
                f[t.blockIdxX()] = t.globalIdX() * 0.5f;
            }
        };
    }

    @Test
    void storeToUniformIndex_lastActiveThreadWins() {
        d.check(Dim3.of(4), Dim3.of(90), IndexingTest::uniformStore, new int[4], new float[4]);
    }

    static Kernel linearIdOnly(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> out[t.linearThreadIdx() + t.blockIdxX() * t.blockDimX() * t.blockDimY() * t.blockDimZ()] = 7 + t.laneId();
    }

    @Test
    void linearThreadIdxOnly_rowsNotMultipleOfGroup_runs() {
        // No threadIdx read: the one variant must serve every CTA shape, not only row-aligned ones.
        d.check(Dim3.of(2), Dim3.of(7, 9), IndexingTest::linearIdOnly, new int[126]);
        d.check(Dim3.of(3), Dim3.of(3, 5, 7), IndexingTest::linearIdOnly, new int[315]);
    }
}
