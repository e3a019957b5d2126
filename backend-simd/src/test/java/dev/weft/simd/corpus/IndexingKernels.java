package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Thread coordinates and the shapes of grids and CTAs: every id a kernel can read, in 1D, 2D and 3D, in
 * 1-thread CTAs (one active lane per warp), 1024-thread CTAs, and CTAs whose last warp is partial.
 */
final class IndexingKernels {

    private static final String GROUP = "indexing";

    private IndexingKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("allIds1d", GROUP, Shapes.LINE, (in, s) -> idsInstance(s)),
                CorpusCase.of("allIds2d", GROUP, Shapes.PLANE, (in, s) -> idsInstance(s)),
                CorpusCase.of("allIds3d", GROUP, Shapes.VOLUME, (in, s) -> idsInstance(s)),
                CorpusCase.of("oneThreadCtas", GROUP, Shapes.ONE_THREAD_CTAS, (in, s) -> idsInstance(s)),
                CorpusCase.of("fullCtas", GROUP, Shapes.FULL_CTAS, (in, s) -> idsInstance(s)),

                CorpusCase.of("partialWarpUnguarded", GROUP, Shapes.LINE, (in, s) -> {
                    // No guard: the arrays are exactly as long as the grid, so a lane past the end of a
                    // partial warp that ran anyway would fault.
                    int threads = s.threads();
                    float[] x = in.floats(threads, -1f, 1f);
                    float[] y = new float[threads];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        y[i] = x[i] * x[i] - 1f;
                    };
                    return Instance.of(k).check("y", y);
                }),

                CorpusCase.of("volumeStencil3d", GROUP, Shapes.VOLUME, (in, s) -> {
                    // 7-point stencil over a 3D volume in a flat array, periodic boundaries.
                    int nx = s.extentX();
                    int ny = s.extentY();
                    int nz = s.extentZ();
                    double[] src = in.doubles(nx * ny * nz, -1, 1);
                    double[] dst = new double[nx * ny * nz];
                    Kernel k = t -> {
                        int x = t.globalIdX();
                        int y = t.globalIdY();
                        int z = t.globalIdZ();
                        int xm = (x + nx - 1) % nx;
                        int xp = (x + 1) % nx;
                        int ym = (y + ny - 1) % ny;
                        int yp = (y + 1) % ny;
                        int zm = (z + nz - 1) % nz;
                        int zp = (z + 1) % nz;
                        int c = (z * ny + y) * nx + x;
                        dst[c] = -6 * src[c]
                                + src[(z * ny + y) * nx + xm] + src[(z * ny + y) * nx + xp]
                                + src[(z * ny + ym) * nx + x] + src[(z * ny + yp) * nx + x]
                                + src[(zm * ny + y) * nx + x] + src[(zp * ny + y) * nx + x];
                    };
                    return Instance.of(k).check("dst", dst);
                }),

                CorpusCase.of("idsInsideLoopsAndConditions", GROUP, Shapes.LINE, (in, s) -> {
                    // Thread ids read in loop headers, conditions, ternaries and helper arguments, not only
                    // at the top of the kernel.
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, 0, 6);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int acc = 0;
                            int c = 0;
                            while (c < x[i] && (t.threadIdxX() + c) % 7 != 3) {
                                c++;
                                acc += t.laneId() > 15 ? t.warpId() : c;
                            }
                            for (int j = t.threadIdxX() & 3; j < 4; j++) {
                                acc = acc * 3 + MathKernels.clampInt(t.blockIdxX() + j, 0, 2);
                            }
                            out[i] = acc;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("rowMajor2dGuarded", GROUP, Shapes.PLANE, (in, s) -> {
                    // A 2D problem smaller than the grid in both directions: guards on x and y.
                    int w = Math.max(1, s.extentX() - in.nextInt(0, 5));
                    int h = Math.max(1, s.extentY() - in.nextInt(0, 3));
                    long[] src = in.longsSpecial(w * h);
                    long[] dst = new long[w * h];
                    Kernel k = t -> {
                        int x = t.blockIdxX() * t.blockDimX() + t.threadIdxX();
                        int y = t.blockIdxY() * t.blockDimY() + t.threadIdxY();
                        if (x >= w || y >= h) {
                            return;
                        }
                        dst[y * w + x] = src[y * w + (w - 1 - x)] * 3 + y;
                    };
                    return Instance.of(k).check("dst", dst);
                }));
    }

    /**
     * Each thread writes every coordinate it can see to its own slots, indexed by its global linear id:
     * a wrong id in any lane shows up as a wrong value, a duplicated id as a missing one.
     */
    private static Instance idsInstance(Shape s) {
        int threads = s.threads();
        int fields = 16;
        int[] out = new int[threads * fields];
        Kernel k = t -> {
            int gx = t.globalIdX();
            int gy = t.globalIdY();
            int gz = t.globalIdZ();
            int linear = (gz * (t.gridDimY() * t.blockDimY()) + gy) * (t.gridDimX() * t.blockDimX()) + gx;
            int o = linear * 16;
            out[o] = t.threadIdxX();
            out[o + 1] = t.threadIdxY();
            out[o + 2] = t.threadIdxZ();
            out[o + 3] = t.blockIdxX();
            out[o + 4] = t.blockIdxY();
            out[o + 5] = t.blockIdxZ();
            out[o + 6] = t.blockDimX() * 1_000_000 + t.blockDimY() * 1000 + t.blockDimZ();
            out[o + 7] = t.gridDimX() * 1_000_000 + t.gridDimY() * 1000 + t.gridDimZ();
            out[o + 8] = gx;
            out[o + 9] = gy;
            out[o + 10] = gz;
            out[o + 11] = t.linearThreadIdx();
            out[o + 12] = t.laneId();
            out[o + 13] = t.warpId();
            out[o + 14] = t.warpSize();
            out[o + 15] = out[o + 15] + 1;      // exactly one thread per slot: 1 after the launch
        };
        return Instance.of(k).check("ids", out);
    }
}
