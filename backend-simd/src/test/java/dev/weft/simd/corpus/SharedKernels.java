package dev.weft.simd.corpus;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Issue 5's kernels: shared memory, {@code syncThreads()} and shared atomics, written as a CUDA programmer
 * writes them (the textbook forms): loads guarded by bounds checks, barriers reached by every thread of the
 * CTA (never after an early return), loop bounds that are the same for the whole CTA. Each is in scope, so
 * the corpus asserts that the SIMD backend compiles it; each also states, in plain Java, what a correct run
 * on 32-thread warps leaves in its outputs ({@link Instance#expect}), so the reference executor is checked
 * too. Every summation runs in an order the kernel fixes (the same per-thread program on both executors),
 * so float results are compared bit for bit.
 */
final class SharedKernels {

    private static final String GROUP = "shared";

    private SharedKernels() {
    }

    /** 1D CTAs of power-of-two sizes, for kernels that halve the CTA: 1, 8, 32, 64, 256 and 1024 threads. */
    static final List<Shape> POW2_LINE = List.of(
            Shape.of(1, 1),
            Shape.of(6, 8),       // warps of 8 threads: less than a vector register
            Shape.of(3, 32),
            Shape.of(5, 64),
            Shape.of(2, 256),
            Shape.of(1, 1024));

    /** Power-of-two CTAs in 1D, 2D and 3D (kernels use the linear thread id). */
    static final List<Shape> POW2_ANY = List.of(
            Shape.of(1, 1),
            Shape.of(3, 32),
            Shape.of(2, 256),
            Shape.of(1, 1024),
            Shape.of(Dim3.of(2), Dim3.of(16, 16)),
            Shape.of(Dim3.of(1, 2), Dim3.of(4, 4, 4)));

    /** Square CTAs for the tiled matmul, tile side = blockDim.x: 16 × 16 (the classic), 32 × 32, 5 × 5, 1 × 1. */
    static final List<Shape> SQUARE_TILES = List.of(
            Shape.of(Dim3.of(1, 1), Dim3.of(16, 16)),
            Shape.of(Dim3.of(2, 3), Dim3.of(16, 16)),
            Shape.of(Dim3.of(1, 1), Dim3.of(32, 32)),     // 1024 threads
            Shape.of(Dim3.of(3, 2), Dim3.of(5, 5)),       // 25 threads: one partial warp
            Shape.of(Dim3.of(4, 3), Dim3.of(1, 1)));      // 1-thread CTAs

    /** CTAs for the transpose: tile side = blockDim.x, rows loaded blockDim.y at a time (blockDim.y divides blockDim.x). */
    static final List<Shape> TRANSPOSE_TILES = List.of(
            Shape.of(Dim3.of(1, 1), Dim3.of(32, 8)),      // the classic 32 × 8 CTA
            Shape.of(Dim3.of(3, 2), Dim3.of(32, 8)),
            Shape.of(Dim3.of(1, 1), Dim3.of(32, 32)),     // 1024 threads
            Shape.of(Dim3.of(2, 3), Dim3.of(6, 3)),       // 18 threads: a partial warp, rows straddling nothing
            Shape.of(Dim3.of(3, 2), Dim3.of(1, 1)));

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("sharedReductionSequential", GROUP, POW2_LINE, SharedKernels::reductionSequential),
                CorpusCase.of("sharedReductionInterleaved", GROUP,
                        concat(Shapes.LINE, Shapes.VOLUME, Shapes.ONE_THREAD_CTAS, Shapes.FULL_CTAS), SharedKernels::reductionInterleaved),
                CorpusCase.of("sharedTiledMatmul", GROUP, SQUARE_TILES, SharedKernels::tiledMatmul),
                CorpusCase.of("sharedHistogram", GROUP, concat(Shapes.LINE, Shapes.ONE_THREAD_CTAS, Shapes.FULL_CTAS),
                        (in, s) -> histogram(in, s, false)),
                CorpusCase.of("sharedHistogramAllLanesOneBin", GROUP, concat(Shapes.LINE, Shapes.VOLUME),
                        (in, s) -> histogram(in, s, true)),
                CorpusCase.of("sharedAtomicsMixed", GROUP, concat(Shapes.LINE, Shapes.PLANE), SharedKernels::sharedAtomicsMixed),
                CorpusCase.of("sharedBlockScanShuffle", GROUP, Shapes.LINE, SharedKernels::blockScan),
                CorpusCase.of("sharedTransposePadded", GROUP, TRANSPOSE_TILES, SharedKernels::transpose),
                CorpusCase.of("sharedBitonicSort", GROUP, POW2_ANY, SharedKernels::bitonicSort),
                CorpusCase.of("sharedStencil1D", GROUP, concat(Shapes.LINE, List.of(Shape.of(37, 1))), SharedKernels::stencil1D),
                CorpusCase.of("sharedStencil2D", GROUP, Shapes.PLANE, SharedKernels::stencil2D),
                CorpusCase.of("barrierInUniformBranch", GROUP, concat(Shapes.LINE, Shapes.VOLUME), SharedKernels::barrierInUniformBranch),
                CorpusCase.of("barrierSpillsAllTypes", GROUP, concat(Shapes.LINE, Shapes.VOLUME), SharedKernels::barrierSpillsAllTypes),
                CorpusCase.of("sharedMemoryNoBarrier", GROUP, Shapes.LINE, SharedKernels::sharedMemoryNoBarrier),
                CorpusCase.of("barrierReverse", GROUP, Shapes.LINE, SharedKernels::barrierReverse));
    }

    // ---- the two cases that were out of scope before issue 5 ------------------------------------

    /** Each thread uses only its own slot of the shared array, so no barrier is needed. */
    private static Instance sharedMemoryNoBarrier(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        int[] x = in.intsSpecial(n);
        int[] out = new int[n];
        Kernel k = t -> {
            int[] scratch = t.sharedInts(t.blockDimX());
            int i = t.globalIdX();
            if (i < n) {
                scratch[t.threadIdxX()] = x[i] * 3;
                out[i] = scratch[t.threadIdxX()] + 1;
            }
        };
        int[] expected = new int[n];
        for (int i = 0; i < n; i++) {
            expected[i] = x[i] * 3 + 1;
        }
        return Instance.of(k).check("out", out).expect("out", out, expected);
    }

    /** Each CTA reverses its slice through shared memory: one barrier between the write and the read. */
    private static Instance barrierReverse(Inputs in, Shape s) {
        int threads = s.threads();
        float[] x = in.floats(threads, -1f, 1f);
        float[] out = new float[threads];
        Kernel k = t -> {
            float[] tile = t.sharedFloats(t.blockDimX());
            int i = t.globalIdX();
            tile[t.threadIdxX()] = x[i];
            t.syncThreads();
            out[i] = tile[t.blockDimX() - 1 - t.threadIdxX()];
        };
        int nt = s.blockThreads();
        float[] expected = new float[threads];
        for (int i = 0; i < threads; i++) {
            expected[i] = x[i - i % nt + nt - 1 - i % nt];
        }
        return Instance.of(k).check("out", out).expect("out", out, expected);
    }

    @SafeVarargs
    private static List<Shape> concat(List<Shape>... lists) {
        List<Shape> all = new ArrayList<>();
        for (List<Shape> l : lists) {
            all.addAll(l);
        }
        return all;
    }

    // ---- reductions ------------------------------------------------------------------------------

    /** Reduction #3 of Harris's "Optimizing parallel reduction in CUDA": sequential addressing, a float partial sum per CTA. */
    private static Instance reductionSequential(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        float[] x = in.floats(n, -1f, 1f);
        int ctas = s.grid().x();
        float[] partial = new float[ctas];
        Kernel k = t -> {
            float[] sdata = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            int i = t.blockIdxX() * t.blockDimX() + tid;
            sdata[tid] = i < n ? x[i] : 0f;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    sdata[tid] += sdata[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                partial[t.blockIdxX()] = sdata[0];
            }
        };
        int nt = s.blockThreads();
        float[] expected = new float[ctas];
        for (int c = 0; c < ctas; c++) {
            float[] seg = new float[nt];
            for (int j = 0; j < nt; j++) {
                seg[j] = c * nt + j < n ? x[c * nt + j] : 0f;
            }
            for (int stride = nt / 2; stride > 0; stride >>= 1) {
                for (int j = 0; j < stride; j++) {
                    seg[j] += seg[j + stride];
                }
            }
            expected[c] = seg[0];
        }
        return Instance.of(k).check("partial", partial).expect("partial", partial, expected);
    }

    /** Reduction #1 of Harris: interleaved addressing with a modulo test, any CTA size and shape, int sums. */
    private static Instance reductionInterleaved(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        int[] x = in.ints(n, Integer.MIN_VALUE, Integer.MAX_VALUE);
        int ctas = Math.toIntExact(s.grid().volume());
        int[] partial = new int[ctas];
        Kernel k = t -> {
            int nt = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int[] sdata = t.sharedInts(nt);
            int tid = t.linearThreadIdx();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * nt + tid;
            sdata[tid] = i < n ? x[i] : 0;
            t.syncThreads();
            for (int stride = 1; stride < nt; stride *= 2) {
                if (tid % (2 * stride) == 0 && tid + stride < nt) {
                    sdata[tid] += sdata[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                partial[cta] = sdata[0];
            }
        };
        int nt = s.blockThreads();
        int[] expected = new int[ctas];
        for (int i = 0; i < n; i++) {
            expected[i / nt] += x[i];
        }
        return Instance.of(k).check("partial", partial).expect("partial", partial, expected);
    }

    // ---- matmul ----------------------------------------------------------------------------------

    /**
     * The tiled matmul of the CUDA programming guide: C (m × p) = A (m × q) · B (q × p), tiles of
     * blockDim.x squared in two shared arrays, a k-tile loop with a barrier after loading and after using
     * each pair of tiles; sizes are not multiples of the tile.
     */
    private static Instance tiledMatmul(Inputs in, Shape s) {
        int tile = s.block().x();
        int m = Math.max(1, s.grid().y() * tile - in.nextInt(0, tile));
        int p = Math.max(1, s.grid().x() * tile - in.nextInt(0, tile));
        int q = in.nextInt(1, 3 * tile + 4);
        float[] a = in.floats(m * q, -1f, 1f);
        float[] b = in.floats(q * p, -1f, 1f);
        float[] c = new float[m * p];
        Kernel k = t -> {
            int ts = t.blockDimX();
            float[] as = t.sharedFloats(ts * ts);
            float[] bs = t.sharedFloats(ts * ts);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * ts + ty;
            int col = t.blockIdxX() * ts + tx;
            float sum = 0f;
            for (int k0 = 0; k0 < q; k0 += ts) {
                as[ty * ts + tx] = row < m && k0 + tx < q ? a[row * q + k0 + tx] : 0f;
                bs[ty * ts + tx] = k0 + ty < q && col < p ? b[(k0 + ty) * p + col] : 0f;
                t.syncThreads();
                for (int kk = 0; kk < ts; kk++) {
                    sum += as[ty * ts + kk] * bs[kk * ts + tx];
                }
                t.syncThreads();
            }
            if (row < m && col < p) {
                c[row * p + col] = sum;
            }
        };
        float[] expected = new float[m * p];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < p; j++) {
                float sum = 0f;
                for (int kk = 0; kk < q; kk++) {
                    sum += a[i * q + kk] * b[kk * p + j];
                }
                expected[i * p + j] = sum;
            }
        }
        // The padding adds 0·0 = +0 to the sums, which changes no bits: the expectation is exact.
        return Instance.of(k).check("c", c).expect("c", c, expected);
    }

    // ---- atomics in shared memory ----------------------------------------------------------------

    private static final int BINS = 64;

    /**
     * The CUDA histogram: each CTA zeroes {@value #BINS} shared bins, counts a grid-stride slice of the input
     * with shared atomics, and after a barrier adds its non-zero bins to the global histogram with global
     * atomics. With {@code oneBin}, every value falls into one bin: all lanes of every warp on one shared
     * address, then all CTAs on one global address.
     */
    private static Instance histogram(Inputs in, Shape s, boolean oneBin) {
        int n = in.nextInt(1, 3 * s.threads() + 2);
        int bin = in.nextInt(0, BINS);
        int[] x = oneBin ? in.ints(n, bin, bin + 1) : in.ints(n, 0, BINS);
        int[] bins = new int[BINS];
        int[] total = new int[1];
        Kernel k = t -> {
            int[] local = t.sharedInts(BINS);
            int nt = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int tid = t.linearThreadIdx();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int ctas = t.gridDimX() * t.gridDimY() * t.gridDimZ();
            for (int b = tid; b < BINS; b += nt) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = cta * nt + tid; i < n; i += nt * ctas) {
                Atomics.add(local, x[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < BINS; b += nt) {
                int count = local[b];
                if (count != 0) {
                    Atomics.add(bins, b, count);
                    Atomics.add(total, 0, count);
                }
            }
        };
        int[] expected = new int[BINS];
        for (int v : x) {
            expected[v]++;
        }
        return Instance.of(k).check("bins", bins).check("total", total)
                .expect("bins", bins, expected).expect("total", total, new int[] {n});
    }

    /**
     * Shared atomics of every kind whose result does not depend on the order of the threads: add, min, max,
     * and, or, xor on shared ints and longs, each CTA's results copied out by thread 0 after a barrier.
     */
    private static Instance sharedAtomicsMixed(Inputs in, Shape s) {
        int threads = s.threads();
        int[] x = in.ints(threads, Integer.MIN_VALUE, Integer.MAX_VALUE);
        long[] y = in.longs(threads, Long.MIN_VALUE, Long.MAX_VALUE);
        int ctas = Math.toIntExact(s.grid().volume());
        int[] outI = new int[ctas * 6];
        long[] outL = new long[ctas * 4];
        Kernel k = t -> {
            int[] si = t.sharedInts(6);
            long[] sl = t.sharedLongs(4);
            int tid = t.linearThreadIdx();
            int nt = t.blockDimX() * t.blockDimY();
            int cta = t.blockIdxX() + t.gridDimX() * t.blockIdxY();
            if (tid == 0) {
                si[1] = Integer.MAX_VALUE;
                si[2] = Integer.MIN_VALUE;
                si[3] = -1;
                sl[1] = Long.MAX_VALUE;
                sl[2] = Long.MIN_VALUE;
            }
            t.syncThreads();
            int v = x[cta * nt + tid];
            long w = y[cta * nt + tid];
            Atomics.add(si, 0, v);
            Atomics.min(si, 1, v);
            Atomics.max(si, 2, v);
            Atomics.and(si, 3, v | (1 << (tid & 31)));
            Atomics.or(si, 4, v & 0x0F0F0F0F);
            Atomics.xor(si, 5, v);
            Atomics.add(sl, 0, w);
            Atomics.min(sl, 1, w);
            Atomics.max(sl, 2, w);
            Atomics.xor(sl, 3, w);
            t.syncThreads();
            if (tid < 6) {
                outI[cta * 6 + tid] = si[tid];
            }
            if (tid < 4) {
                outL[cta * 4 + tid] = sl[tid];
            }
        };
        int nt = s.blockThreads();
        int[] expI = new int[ctas * 6];
        long[] expL = new long[ctas * 4];
        for (int c = 0; c < ctas; c++) {
            int add = 0;
            int min = Integer.MAX_VALUE;
            int max = Integer.MIN_VALUE;
            int and = -1;
            int or = 0;
            int xor = 0;
            long addL = 0;
            long minL = Long.MAX_VALUE;
            long maxL = Long.MIN_VALUE;
            long xorL = 0;
            for (int tid = 0; tid < nt; tid++) {
                int v = x[c * nt + tid];
                long w = y[c * nt + tid];
                add += v;
                min = Math.min(min, v);
                max = Math.max(max, v);
                and &= v | (1 << (tid & 31));
                or |= v & 0x0F0F0F0F;
                xor ^= v;
                addL += w;
                minL = Math.min(minL, w);
                maxL = Math.max(maxL, w);
                xorL ^= w;
            }
            int[] ci = {add, min, max, and, or, xor};
            long[] cl = {addL, minL, maxL, xorL};
            // Threads past the 6th (4th) slot write nothing: a CTA of fewer threads copies fewer slots out.
            for (int j = 0; j < Math.min(6, nt); j++) {
                expI[c * 6 + j] = ci[j];
            }
            for (int j = 0; j < Math.min(4, nt); j++) {
                expL[c * 4 + j] = cl[j];
            }
        }
        return Instance.of(k).check("ints", outI).check("longs", outL).expect("ints", outI, expI).expect("longs", outL, expL);
    }

    // ---- scan ------------------------------------------------------------------------------------

    /**
     * An inclusive scan of each CTA's slice as CUDA samples write it: each warp scans its values with
     * {@code shflUp}; the last lane of each warp (or the CTA's last thread, in a partial warp) puts the warp's
     * total in a shared array; after a barrier warp 0 scans those totals with shuffles; after another barrier
     * each thread adds the totals of the warps before its own. On 32-thread warps a CTA of up to 1024 threads
     * has at most 32 warp totals, one per lane of warp 0: the expectation holds there. On 8-thread warps
     * (the corpus's other device) warp 0 scans only the first 8 totals, so the result is not a scan, but it is
     * still one defined per-thread program that both executors must agree on.
     */
    private static Instance blockScan(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        int[] x = in.ints(n, -1000, 1000);
        int[] out = new int[n];
        int ctas = s.grid().x();
        int[] ctaTotals = new int[ctas];
        Kernel k = t -> {
            int nt = t.blockDimX();
            int ws = t.warpSize();
            int warps = (nt + ws - 1) / ws;
            int[] warpTotals = t.sharedInts(warps);
            int tid = t.threadIdxX();
            int lane = t.laneId();
            int warp = t.warpId();
            int i = t.blockIdxX() * nt + tid;
            int v = i < n ? x[i] : 0;
            for (int d = 1; d < ws; d *= 2) {
                int up = t.shflUp(v, d);
                if (lane >= d) {
                    v += up;
                }
            }
            if (lane == ws - 1 || tid == nt - 1) {
                warpTotals[warp] = v;
            }
            t.syncThreads();
            if (warp == 0) {
                int w = lane < warps ? warpTotals[lane] : 0;
                for (int d = 1; d < ws; d *= 2) {
                    int up = t.shflUp(w, d);
                    if (lane >= d) {
                        w += up;
                    }
                }
                if (lane < warps) {
                    warpTotals[lane] = w;
                }
            }
            t.syncThreads();
            if (warp > 0) {
                v += warpTotals[warp - 1];
            }
            if (i < n) {
                out[i] = v;
            }
            if (tid == nt - 1) {
                ctaTotals[t.blockIdxX()] = v;
            }
        };
        int nt = s.blockThreads();
        int[] expected = new int[n];
        int[] expectedTotals = new int[ctas];
        for (int c = 0; c < ctas; c++) {
            int sum = 0;
            for (int j = 0; j < nt; j++) {
                int i = c * nt + j;
                sum += i < n ? x[i] : 0;
                if (i < n) {
                    expected[i] = sum;
                }
            }
            expectedTotals[c] = sum;
        }
        return Instance.of(k).check("out", out).check("ctaTotals", ctaTotals)
                .expect("out", out, expected).expect("ctaTotals", ctaTotals, expectedTotals);
    }

    // ---- transpose -------------------------------------------------------------------------------

    /**
     * The transpose of NVIDIA's "An efficient matrix transpose in CUDA C/C++": a tile of blockDim.x squared
     * (one column of padding against bank conflicts) read in rows, blockDim.y rows per step, a barrier,
     * written out in columns. The matrix (w × h, row-major) is not a multiple of the tile.
     */
    private static Instance transpose(Inputs in, Shape s) {
        int tileDim = s.block().x();
        int w = Math.max(1, s.grid().x() * tileDim - in.nextInt(0, tileDim));
        int h = Math.max(1, s.grid().y() * tileDim - in.nextInt(0, tileDim));
        float[] src = in.floats(w * h, -100f, 100f);
        float[] dst = new float[w * h];
        Kernel k = t -> {
            int td = t.blockDimX();
            int rows = t.blockDimY();
            float[] tile = t.sharedFloats(td * (td + 1));
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int x = t.blockIdxX() * td + tx;
            int y = t.blockIdxY() * td + ty;
            for (int j = 0; j < td; j += rows) {
                if (x < w && y + j < h) {
                    tile[(ty + j) * (td + 1) + tx] = src[(y + j) * w + x];
                }
            }
            t.syncThreads();
            x = t.blockIdxY() * td + tx;
            y = t.blockIdxX() * td + ty;
            for (int j = 0; j < td; j += rows) {
                if (x < h && y + j < w) {
                    dst[(y + j) * h + x] = tile[tx * (td + 1) + ty + j];
                }
            }
        };
        float[] expected = new float[w * h];
        for (int r = 0; r < h; r++) {
            for (int c = 0; c < w; c++) {
                expected[c * h + r] = src[r * w + c];
            }
        }
        return Instance.of(k).check("dst", dst).expect("dst", dst, expected);
    }

    // ---- sort ------------------------------------------------------------------------------------

    /**
     * Bitonic sort of each CTA's slice in shared memory (power-of-two CTAs, any dimensionality): padded with
     * {@code Integer.MAX_VALUE} past the end, compare-exchange with partner {@code tid ^ j}, a barrier after
     * each of the log²(CTA) steps.
     */
    private static Instance bitonicSort(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        int[] x = in.chance(0.5) ? in.ints(n, -50, 50) : in.ints(n, Integer.MIN_VALUE, Integer.MAX_VALUE);
        int[] out = new int[n];
        Kernel k = t -> {
            int nt = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int[] keys = t.sharedInts(nt);
            int tid = t.linearThreadIdx();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * nt + tid;
            keys[tid] = i < n ? x[i] : Integer.MAX_VALUE;
            t.syncThreads();
            for (int size = 2; size <= nt; size <<= 1) {
                for (int j = size >> 1; j > 0; j >>= 1) {
                    int partner = tid ^ j;
                    if (partner > tid) {
                        int a = keys[tid];
                        int b = keys[partner];
                        boolean ascending = (tid & size) == 0;
                        if (ascending ? a > b : a < b) {
                            keys[tid] = b;
                            keys[partner] = a;
                        }
                    }
                    t.syncThreads();
                }
            }
            if (i < n) {
                out[i] = keys[tid];
            }
        };
        int nt = s.blockThreads();
        int[] expected = x.clone();
        for (int from = 0; from < n; from += nt) {
            Arrays.sort(expected, from, Math.min(n, from + nt));
        }
        return Instance.of(k).check("out", out).expect("out", out, expected);
    }

    // ---- stencils --------------------------------------------------------------------------------

    private static final int RADIUS = 3;

    /**
     * A 7-point 1D stencil: each CTA loads its slice and a halo of {@value #RADIUS} elements each side into
     * shared memory (threads stride over the blockDim + 2·radius elements, so a CTA smaller than the halo
     * still loads all of it; zero outside the array), a barrier, then a weighted sum from shared memory.
     */
    private static Instance stencil1D(Inputs in, Shape s) {
        int n = in.sizeFor(s.threads());
        float[] x = in.floats(n, -10f, 10f);
        float[] weights = in.floats(2 * RADIUS + 1, -1f, 1f);
        float[] y = new float[n];
        Kernel k = t -> {
            int nt = t.blockDimX();
            float[] sx = t.sharedFloats(nt + 2 * RADIUS);
            int tid = t.threadIdxX();
            int origin = t.blockIdxX() * nt - RADIUS;
            for (int j = tid; j < nt + 2 * RADIUS; j += nt) {
                int g = origin + j;
                sx[j] = g >= 0 && g < n ? x[g] : 0f;
            }
            t.syncThreads();
            int i = t.blockIdxX() * nt + tid;
            if (i < n) {
                float acc = 0f;
                for (int d = -RADIUS; d <= RADIUS; d++) {
                    acc += weights[d + RADIUS] * sx[tid + RADIUS + d];
                }
                y[i] = acc;
            }
        };
        float[] expected = new float[n];
        for (int i = 0; i < n; i++) {
            float acc = 0f;
            for (int d = -RADIUS; d <= RADIUS; d++) {
                int g = i + d;
                acc += weights[d + RADIUS] * (g >= 0 && g < n ? x[g] : 0f);
            }
            expected[i] = acc;
        }
        return Instance.of(k).check("y", y).expect("y", y, expected);
    }

    /**
     * A 5-point 2D stencil (a Jacobi step) over a w × h grid: each CTA loads its (blockDim.x + 2) × (blockDim.y + 2)
     * tile, halo included, cooperatively (threads stride over the tile's elements; zero outside the grid), a
     * barrier, then each thread combines its point and four neighbours from shared memory.
     */
    private static Instance stencil2D(Inputs in, Shape s) {
        int w = Math.max(1, s.extentX() - in.nextInt(0, s.block().x()));
        int h = Math.max(1, s.extentY() - in.nextInt(0, s.block().y()));
        float[] u = in.floats(w * h, -10f, 10f);
        float[] v = new float[w * h];
        float centre = in.nextFloat(-1f, 1f);
        float side = in.nextFloat(-1f, 1f);
        Kernel k = t -> {
            int tw = t.blockDimX() + 2;
            int th = t.blockDimY() + 2;
            float[] tile = t.sharedFloats(tw * th);
            int nt = t.blockDimX() * t.blockDimY();
            int tid = t.linearThreadIdx();
            int ox = t.blockIdxX() * t.blockDimX() - 1;
            int oy = t.blockIdxY() * t.blockDimY() - 1;
            for (int j = tid; j < tw * th; j += nt) {
                int gx = ox + j % tw;
                int gy = oy + j / tw;
                tile[j] = gx >= 0 && gx < w && gy >= 0 && gy < h ? u[gy * w + gx] : 0f;
            }
            t.syncThreads();
            int x = t.globalIdX();
            int y = t.globalIdY();
            if (x < w && y < h) {
                int c = (t.threadIdxY() + 1) * tw + t.threadIdxX() + 1;
                v[y * w + x] = centre * tile[c] + side * (tile[c - 1] + tile[c + 1] + tile[c - tw] + tile[c + tw]);
            }
        };
        float[] expected = new float[w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float l = x > 0 ? u[y * w + x - 1] : 0f;
                float r = x < w - 1 ? u[y * w + x + 1] : 0f;
                float up = y > 0 ? u[(y - 1) * w + x] : 0f;
                float down = y < h - 1 ? u[(y + 1) * w + x] : 0f;
                expected[y * w + x] = centre * u[y * w + x] + side * (l + r + up + down);
            }
        }
        return Instance.of(k).check("v", v).expect("v", v, expected);
    }

    // ---- barriers in uniform control flow ---------------------------------------------------------

    /**
     * Barriers inside branches whose condition is the same for the whole CTA (a captured scalar, the CTA's
     * index) and inside a loop whose bound is captured: each thread writes its value to shared memory, and
     * after the barrier reads another thread's, so a barrier that does not hold every warp back shows.
     */
    private static Instance barrierInUniformBranch(Inputs in, Shape s) {
        int threads = s.threads();
        int[] x = in.ints(threads, -1000, 1000);
        int mode = in.nextInt(0, 2);
        int rounds = in.nextInt(0, 4);
        int[] out = new int[threads];
        Kernel k = t -> {
            int nt = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int[] sv = t.sharedInts(nt);
            int tid = t.linearThreadIdx();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * nt + tid;
            sv[tid] = x[i];
            t.syncThreads();
            int v;
            if (mode == 0) {
                v = sv[(tid + 1) % nt];
                t.syncThreads();
                sv[tid] = v * 2 + tid;
                t.syncThreads();
                v = sv[nt - 1 - tid];
            } else if ((cta & 1) == 0) {
                v = sv[nt - 1 - tid];
                t.syncThreads();
                sv[tid] = v + tid;
                t.syncThreads();
                v += sv[(tid + 3) % nt];
            } else {
                v = sv[(tid + nt - 1) % nt] - 7;
            }
            for (int r = 0; r < rounds; r++) {
                t.syncThreads();
                sv[tid] = v;
                t.syncThreads();
                v = v * 3 + sv[(tid + r + 1) % nt];
            }
            out[i] = v;
        };
        int nt = s.blockThreads();
        int[] expected = new int[threads];
        for (int c = 0; c < threads / nt; c++) {
            int[] sv = Arrays.copyOfRange(x, c * nt, (c + 1) * nt);
            int[] v = new int[nt];
            for (int tid = 0; tid < nt; tid++) {
                v[tid] = mode == 0 ? sv[(tid + 1) % nt] : (c & 1) == 0 ? sv[nt - 1 - tid] : sv[(tid + nt - 1) % nt] - 7;
            }
            if (mode == 0 || (c & 1) == 0) {
                for (int tid = 0; tid < nt; tid++) {
                    sv[tid] = mode == 0 ? v[tid] * 2 + tid : v[tid] + tid;
                }
                for (int tid = 0; tid < nt; tid++) {
                    v[tid] = mode == 0 ? sv[nt - 1 - tid] : v[tid] + sv[(tid + 3) % nt];
                }
            }
            for (int r = 0; r < rounds; r++) {
                System.arraycopy(v, 0, sv, 0, nt);
                for (int tid = 0; tid < nt; tid++) {
                    v[tid] = v[tid] * 3 + sv[(tid + r + 1) % nt];
                }
            }
            System.arraycopy(v, 0, expected, c * nt, nt);
        }
        return Instance.of(k).check("out", out).expect("out", out, expected);
    }

    /**
     * Values of all four types (and a boolean, and a loop counter) that live across barriers, inside and
     * outside a uniform loop: what a compiler that splits the kernel at barriers must spill and restore.
     * Each round also passes the values through shared arrays of their own type, read at a neighbour.
     */
    private static Instance barrierSpillsAllTypes(Inputs in, Shape s) {
        int threads = s.threads();
        int[] xi = in.ints(threads, Integer.MIN_VALUE, Integer.MAX_VALUE);
        long[] xl = in.longs(threads, Long.MIN_VALUE, Long.MAX_VALUE);
        float[] xf = in.floats(threads, -100f, 100f);
        double[] xd = in.doubles(threads, -100, 100);
        int rounds = in.nextInt(1, 4);
        int[] oi = new int[threads * 2];
        long[] ol = new long[threads];
        float[] of = new float[threads];
        double[] od = new double[threads];
        Kernel k = t -> {
            int nt = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int[] si = t.sharedInts(nt);
            long[] sl = t.sharedLongs(nt);
            float[] sf = t.sharedFloats(nt);
            double[] sd = t.sharedDoubles(nt);
            int tid = t.linearThreadIdx();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * nt + tid;
            int iv = xi[i] * 31 + tid;
            long lv = xl[i] ^ ((long) tid << 33);
            float fv = xf[i] * 0.5f + tid;
            double dv = xd[i] - tid * 0.25;
            boolean odd = (xi[i] & 1) != 0;
            int keep = xi[i] ^ 0x5A5A5A5A;
            si[tid] = iv;
            sl[tid] = lv;
            sf[tid] = fv;
            sd[tid] = dv;
            t.syncThreads();
            int j = (tid + 1) % nt;
            iv += si[j];
            lv ^= sl[j];
            fv = fv * 0.75f + sf[j];
            dv = dv * 1.5 - sd[j];
            int r = 0;
            for (; r < rounds; r++) {
                t.syncThreads();
                si[tid] = iv;
                sl[tid] = lv;
                sf[tid] = fv;
                sd[tid] = dv;
                t.syncThreads();
                int m = (tid + r + 2) % nt;
                iv = iv * 3 + si[m];
                lv = lv * 5 - sl[m];
                fv = odd ? fv - sf[m] : fv + sf[m] * 0.5f;
                dv = odd ? dv * 0.5 + sd[m] : dv - sd[m];
            }
            oi[2 * i] = iv;
            oi[2 * i + 1] = keep + r;
            ol[i] = lv;
            of[i] = fv;
            od[i] = dv;
        };
        return Instance.of(k).check("ints", oi).check("longs", ol).check("floats", of).check("doubles", od);
    }
}
