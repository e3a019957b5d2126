package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.KernelException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tree reductions over shared memory, whose resume-point methods pass over the groups that sit a phase out (every
 * thread on the idle side of a test like {@code tid < stride}, then at a barrier again or returned;
 * {@code CodeGen.SKIP_IDLE_GROUPS}), against the reference executor: CTAs of 1, 33, 64, 100, 256 and 1024 threads,
 * grids whose last CTAs get less (or nothing) of the input, strides that are not powers of two, trees that reduce
 * towards the last thread over two barriers per level, uniform values of every kind written on the idle way and
 * used by the working threads, a per-thread value kept across all the levels, CTAs of rows (x affine, y uniform),
 * (in)equality tests, and a barrier that not every thread reaches, still the reference's error. Inputs are
 * fractions, so that any change in the order of the additions shows in the bits.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdleGroupSkipTest {

    @AutoClose
    static final Differential d = new Differential();


    /** a: {float[] in, float[] out, int n}: the reduction benchmark's kernel, a CTA's sum in out[blockIdx.x]. */
    static Kernel tree(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            s[tid] = sum;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
    }

    /**
     * Any CTA size: each level folds the upper part of {@code width} onto the lower, {@code stride = ceil(width / 2)}
     * (widths 100, 50, 25, 13, 7, 4, 2, 1), so the working threads are not a power of two.
     */
    static Kernel oddWidths(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            s[tid] = sum;
            t.syncThreads();
            for (int width = t.blockDimX(); width > 1; width = (width + 1) / 2) {
                int stride = (width + 1) / 2;
                if (tid < width - stride) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
    }

    /** Towards the last thread: the working threads are the upper ones, {@code tid >= blockDim - stride}. */
    static Kernel towardsLast(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            int last = t.blockDimX() - 1;
            s[tid] = t.globalIdX() < n ? in[t.globalIdX()] : 0f;
            t.syncThreads();
            for (int stride = 1; stride < t.blockDimX(); stride <<= 1) {
                if (tid >= t.blockDimX() - stride && tid - stride >= 0) {
                    s[tid] += s[tid - stride] * 0.5f;
                }
                t.syncThreads();
                if (last - stride < tid) {
                    s[tid] = s[tid] * 1.25f;
                }
                t.syncThreads();
            }
            if (tid == last) {
                out[t.blockIdxX()] = s[last];
            }
        };
    }

    /**
     * Uniform values of each kind written on every level (so on the idle way too) and read by the working threads
     * and after the tree; a per-thread value ({@code mine}) kept across all levels.
     */
    static Kernel keptScalars(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            float mine = t.globalIdX() < n ? in[t.globalIdX()] : -1f;
            s[tid] = mine;
            t.syncThreads();
            int level = 0;
            long mix = 7;
            float scale = 1f;
            double acc = 0.25;
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                level++;
                mix = mix * 31 + stride;
                scale *= 0.75f;
                acc = acc * 1.5 + level;
                if (tid < stride) {
                    s[tid] = s[tid] * scale + s[tid + stride] + (float) (mix & 15) + (float) acc;
                }
                t.syncThreads();
            }
            out[t.globalIdX()] = s[0] + mine + level + scale + (float) acc + (mix & 1023);
        };
    }

    /** Rows of a 2D CTA reduced each on their own: threadIdx.x affine, threadIdx.y uniform in a group. */
    static Kernel rows(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            int w = t.blockDimX();
            float[] s = t.sharedFloats(w * t.blockDimY());
            int tx = t.threadIdxX();
            int row = t.threadIdxY() * w;
            int g = (t.blockIdxX() * t.blockDimY() + t.threadIdxY()) * w + tx;
            s[row + tx] = in[g];
            t.syncThreads();
            for (int stride = w / 2; stride > 0; stride >>= 1) {
                if (tx < stride) {
                    s[row + tx] += s[row + tx + stride];
                }
                t.syncThreads();
            }
            out[g] = s[row];
        };
    }

    /**
     * (In)equality tests: one thread works per level ({@code tid == stride + 3}: the groups whose lanes' range misses
     * it sit out), all but one work ({@code tid != stride}: no group can sit out), and the last thread, not the
     * first, writes the result (the other groups return).
     */
    static Kernel equalities(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            int last = t.blockDimX() - 1;
            s[tid] = in[t.globalIdX()];
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid == stride + 3) {
                    s[tid] += s[tid - 3] * 0.5f;
                }
                t.syncThreads();
                if (tid != stride) {
                    s[tid] = s[tid] * 0.75f + stride;
                }
                t.syncThreads();
            }
            if (tid == last) {
                out[t.blockIdxX()] = s[last] + s[0];
            }
        };
    }

    @Test
    void tree_ctaSizes_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 64, 100, 256, 1024}) {
            for (int grid : new int[] {1, 3}) {
                int n = block * grid * 5 + 7; // every thread several elements, the first 7 one more
                d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(block), IdleGroupSkipTest::tree,
                        Differential.floats(n, block, -1, 1), new float[grid], n);
            }
        }
    }

    @Test
    void tree_partialGrid_lastCtasGetLessOrNothing() throws InterruptedException {
        // 4 CTAs of 64 over 150 elements: CTA 2 partly, CTA 3 not at all (a tree of zeros)
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(64), IdleGroupSkipTest::tree,
                Differential.floats(150, 11, -1, 1), new float[4], 150);
        d.checkOnResumeMethods(Dim3.of(5), Dim3.of(33), IdleGroupSkipTest::tree,
                Differential.floats(40, 12, -1, 1), new float[5], 40);
    }

    @Test
    void oddWidths_strideNotPowerOfTwo_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 64, 100, 1000}) {
            int n = block * 3 + 5;
            d.checkOnResumeMethods(Dim3.of(2), Dim3.of(block), IdleGroupSkipTest::oddWidths,
                    Differential.floats(n, 20 + block, -1, 1), new float[2], n);
        }
    }

    @Test
    void towardsLast_upperThreadsWork_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 64, 256}) {
            int n = block * 2 - 3;
            d.checkOnResumeMethods(Dim3.of(2), Dim3.of(block), IdleGroupSkipTest::towardsLast,
                    Differential.floats(Math.max(n, 1), 30 + block, -1, 1), new float[2], n);
        }
    }

    @Test
    void keptScalars_writtenOnIdleWay_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 64, 1024}) {
            int grid = 2;
            int n = block * grid - 5;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(block), IdleGroupSkipTest::keptScalars,
                    Differential.floats(Math.max(n, 1), 40 + block, -1, 1), new float[block * grid], n);
        }
    }

    @Test
    void equalities_oneOrAllButOneThreadWorks_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 64, 256}) {
            int grid = 3;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(block), IdleGroupSkipTest::equalities,
                    Differential.floats(block * grid, 60 + block, -1, 1), new float[grid]);
        }
    }

    @Test
    void rows_twoDimensionalCtas_matchReference() throws InterruptedException {
        // 32 x 4: rows of two groups (row-aligned); 24 x 3: groups of 8; 5 x 3: the general variant
        for (int[] shape : new int[][] {{32, 4}, {64, 2}, {24, 3}, {5, 3}}) {
            int grid = 3;
            int len = shape[0] * shape[1] * grid;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(shape[0], shape[1]), IdleGroupSkipTest::rows,
                    Differential.floats(len, 50 + shape[0], -1, 1), new float[len]);
        }
    }

    /**
     * The tree, where thread 40 of CTA 1 returns at the level of stride 8 instead of waiting: the barrier is not
     * reached by all threads. Its group sits that level out (40 >= 8): the pass-over must not hide the return.
     */
    static Kernel treeWithReturn(Object[] a) {
        float[] out = (float[]) a[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            s[tid] = tid * 0.5f;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (stride == 8 && t.blockIdxX() == 1 && tid == 40) {
                    return;
                }
                if (tid < stride) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
    }

    @Test
    void barrierNotReachedByAllThreads_stillFails() throws InterruptedException {
        Object[] data = {new float[3]};
        d.report(Dim3.of(64), IdleGroupSkipTest::treeWithReturn, data);
        Differential.awaitResumeMethods();
        Dim3 grid = Dim3.of(3);
        Dim3 block = Dim3.of(64);
        KernelException re = assertThrows(KernelException.class,
                () -> d.reference.launch(grid, block, treeWithReturn(Differential.copy(data))));
        KernelException ve = assertThrows(KernelException.class,
                () -> d.simd.launch(grid, block, treeWithReturn(Differential.copy(data))));
        assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
        assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"), ve.getMessage());
        // CTA 0 alone (no return there) still sums as the reference does
        d.check(Dim3.of(1), block, IdleGroupSkipTest::treeWithReturn, new float[3]);
    }
}
