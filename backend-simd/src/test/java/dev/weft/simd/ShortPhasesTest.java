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
 * Kernels of many short phases, against the reference executor, for what makes each phase cheaper: shared arrays
 * whose length is the same for the whole CTA but not a constant (restored per group: fetching them once per phase
 * was tried and removed); groups that sit a phase out passed over in a loop of their own ({@code -Dweft.simd.idleRuns}), also where a uniform
 * branch takes the whole group to the next barrier ({@code -Dweft.simd.uniformIdleWays}); the one pass over the
 * groups' stops after a phase ({@code -Dweft.simd.onePassNext}). CTAs of 1, 33, 100, 256 and 1024 threads, 2D and
 * 3D CTAs (row-aligned groups, groups of 8, the general variant), partial groups, and the faults and the barrier
 * error the reference reports. Inputs are fractions, so that any change in the order of the additions shows in the
 * bits.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ShortPhasesTest {

    @AutoClose
    static final Differential d = new Differential();

    /**
     * A tree over the CTA's linear thread index in arrays of CTA-uniform lengths: {@code blockDim.x * blockDim.y *
     * blockDim.z} floats, {@code pad + threads / 2} ints (a parameter and a constant divisor), {@code gridDim.x * 4 +
     * blockIdx.x % 3} doubles (a different length per CTA); every level writes and reads all three.
     * a: {float[] in, float[] out, int n, int pad}.
     */
    static Kernel linearTree(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int n = (Integer) a[2];
        int pad = (Integer) a[3];
        return t -> {
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            float[] s = t.sharedFloats(t.blockDimX() * t.blockDimY() * t.blockDimZ());
            int[] counts = t.sharedInts(pad + t.blockDimX() * t.blockDimY() * t.blockDimZ() / 2);
            double[] perCta = t.sharedDoubles(t.gridDimX() * 4 + t.blockIdxX() % 3);
            int tid = t.linearThreadIdx();
            int g = t.blockIdxX() * threads + tid;
            s[tid] = g < n ? in[g] : 0.125f;
            if (tid < counts.length) {
                counts[tid] = tid;
            }
            if (tid < perCta.length) {
                perCta[tid] = tid * 0.5;
            }
            t.syncThreads();
            int level = 0;
            for (int stride = (threads + 1) / 2; stride > 0; stride = stride == 1 ? 0 : (stride + 1) / 2) {
                level++;
                if (tid < stride && tid + stride < threads) {
                    s[tid] += s[tid + stride] * 0.5f + counts[tid % counts.length] * 0.25f
                            + (float) perCta[(tid + level) % perCta.length];
                    counts[tid % counts.length] += level;
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0] + counts[counts.length - 1] + (float) perCta[perCta.length - 1] + level;
            }
        };
    }

    /**
     * Rows of a 3D CTA reduced each on their own, {@code threadIdx.x < stride}: within a row x is affine, y and z
     * uniform, so that the groups passed over step through rows and planes. a: {float[] in, float[] out}.
     */
    static Kernel rows3d(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            int w = t.blockDimX();
            float[] s = t.sharedFloats(w * t.blockDimY() * t.blockDimZ());
            int tx = t.threadIdxX();
            int row = (t.threadIdxZ() * t.blockDimY() + t.threadIdxY()) * w;
            int g = t.blockIdxX() * w * t.blockDimY() * t.blockDimZ() + row + tx;
            s[row + tx] = in[g];
            t.syncThreads();
            for (int stride = w / 2; stride > 0; stride >>= 1) {
                if (tx < stride) {
                    s[row + tx] += s[row + tx + stride] * 0.75f;
                }
                t.syncThreads();
            }
            out[g] = s[row] + tx;
        };
    }

    @Test
    void linearTree_1dCtas_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 33, 100, 256, 1024}) {
            int grid = 3;
            int n = block * grid - 7;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(block), ShortPhasesTest::linearTree,
                    Differential.floats(Math.max(n, 1), block, -1, 1), new float[grid], n, 5);
        }
    }

    @Test
    void linearTree_2dAnd3dCtas_matchReference() throws InterruptedException {
        // 16 x 4: row-aligned groups of 16; 8 x 3 x 2: groups of 8; 5 x 3 x 2 and 3 x 3 x 3: the general variant;
        // 32 x 4 x 8: 1024 threads
        int[][] shapes = {{16, 4, 1}, {8, 3, 2}, {5, 3, 2}, {3, 3, 3}, {32, 4, 8}};
        for (int[] sh : shapes) {
            int grid = 4;
            int threads = sh[0] * sh[1] * sh[2];
            int n = threads * grid - 11;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(sh[0], sh[1], sh[2]), ShortPhasesTest::linearTree,
                    Differential.floats(n, threads, -1, 1), new float[grid], n, 3);
        }
    }

    @Test
    void rows3d_groupsPassedOverStepThroughRows_matchReference() throws InterruptedException {
        // 32 x 2 x 3: two groups per row; 16 x 3 x 2: one; 64 x 2 x 2; 24 x 2 x 2: groups of 8; 6 x 2 x 2: general
        int[][] shapes = {{32, 2, 3}, {16, 3, 2}, {64, 2, 2}, {24, 2, 2}, {6, 2, 2}};
        for (int[] sh : shapes) {
            int grid = 3;
            int len = sh[0] * sh[1] * sh[2] * grid;
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(sh[0], sh[1], sh[2]), ShortPhasesTest::rows3d,
                    Differential.floats(len, 70 + sh[0], -1, 1), new float[len]);
        }
    }

    @Test
    void benchmarkTree_manyCtasPerSm_matchReference() throws InterruptedException {
        // The reduction benchmark's kernel over 64 CTAs of 256 and 9 of 100: each SM runs many CTAs in a row.
        d.checkOnResumeMethods(Dim3.of(64), Dim3.of(256), IdleGroupSkipTest::tree,
                Differential.floats(64 * 256 * 3 + 5, 81, -1, 1), new float[64], 64 * 256 * 3 + 5);
        d.checkOnResumeMethods(Dim3.of(9), Dim3.of(100), IdleGroupSkipTest::tree,
                Differential.floats(2000, 82, -1, 1), new float[9], 2000);
    }

    /**
     * The tree, where thread {@code bad} of CTA 2 reads one past the end of its blockDim-long array at the level of
     * stride 4 (a group passed over before and after it at that level): the fault's CTA, thread and message are the
     * reference's. a: {float[] out, int bad}.
     */
    static Kernel treeFault(Object[] a) {
        float[] out = (float[]) a[0];
        int bad = (Integer) a[1];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            s[tid] = tid * 0.25f;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    int j = stride == 4 && t.blockIdxX() == 2 && tid == bad ? t.blockDimX() : tid + stride;
                    s[tid] += s[j];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
    }

    @Test
    void faultInLateShortPhase_sameCtaThreadAndMessage() throws InterruptedException {
        for (int block : new int[] {64, 100}) {
            d.checkOnResumeMethods(Dim3.of(4), Dim3.of(block), ShortPhasesTest::treeFault, new float[4], 3);
        }
    }

    /** The tree where, in CTA 1, thread {@code quit} returns at the level of stride 16 instead of waiting. */
    static Kernel treeQuit(Object[] a) {
        float[] out = (float[]) a[0];
        int quit = (Integer) a[1];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            s[tid] = tid * 0.5f;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (stride == 16 && t.blockIdxX() == 1 && tid == quit) {
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
    void barrierNotReachedByAllThreads_inPassedOverGroup_stillFails() throws InterruptedException {
        // Thread 200 (a group passed over at that level, between others passed over) and thread 1000.
        for (int[] c : new int[][] {{256, 200}, {1024, 1000}, {256, 5}}) {
            Object[] data = {new float[3], c[1]};
            d.report(Dim3.of(c[0]), ShortPhasesTest::treeQuit, data);
            Differential.awaitResumeMethods();
            Dim3 grid = Dim3.of(3);
            Dim3 block = Dim3.of(c[0]);
            KernelException re = assertThrows(KernelException.class,
                    () -> d.reference.launch(grid, block, treeQuit(Differential.copy(data))));
            KernelException ve = assertThrows(KernelException.class,
                    () -> d.simd.launch(grid, block, treeQuit(Differential.copy(data))));
            assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
            assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"),
                    ve.getMessage());
        }
    }

    /**
     * The scan benchmark's kernel ({@link WarpScanTest#ctaScan}): after the first barrier only warp 0 works, the
     * other warps go straight to the second (a uniform branch: passed over with no lane test).
     */
    @Test
    void warpScan_otherWarpsPassedOver_matchReference() throws InterruptedException {
        for (int block : new int[] {1, 32, 100, 256, 1024}) {
            int grid = 5;
            int n = Math.max(block * grid - 9, 1);
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(block), WarpScanTest::ctaScan,
                    Differential.ints(n, block, -1000, 1000), new int[n], new int[grid]);
        }
    }

    /**
     * Per level, only warp {@code busy} (a different one each level, 2, 3, 0, 1, ...) works; the others go straight to
     * the barrier, the groups after it too: a pass over them must test each group's own warp. Then warps past the
     * second return by a uniform branch, the rest write. a: {float[] in, float[] out, int levels}.
     */
    static Kernel oneWarpPerLevel(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        int levels = (Integer) a[2];
        return t -> {
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            float[] s = t.sharedFloats(threads);
            int tid = t.linearThreadIdx();
            int g = t.blockIdxX() * threads + tid;
            s[tid] = in[g];
            t.syncThreads();
            for (int level = 0; level < levels; level++) {
                int busy = (level * 5 + 2) & 3; // (no division by a variable: the pass-over computes it)
                if (t.warpId() == busy) {
                    s[tid] = s[tid] * 0.5f + s[(tid + 1) % threads] + level;
                }
                t.syncThreads();
            }
            if (t.warpId() > 1) {
                return;
            }
            out[g] = s[tid] + s[threads - 1 - tid];
        };
    }

    @Test
    void oneWarpPerLevel_1d2d3dCtas_matchReference() throws InterruptedException {
        int[][] shapes = {{256, 1, 1}, {100, 1, 1}, {1024, 1, 1}, {32, 4, 2}, {16, 4, 4}, {5, 7, 3}, {1, 1, 1}};
        for (int[] sh : shapes) {
            int grid = 3;
            int threads = sh[0] * sh[1] * sh[2];
            d.checkOnResumeMethods(Dim3.of(grid), Dim3.of(sh[0], sh[1], sh[2]), ShortPhasesTest::oneWarpPerLevel,
                    Differential.floats(threads * grid, 90 + threads, -1, 1), new float[threads * grid], 7);
        }
    }

    /** Warp 1 of CTA 1 returns (a uniform branch) while the others wait at the second barrier. */
    static Kernel warpQuits(Object[] a) {
        float[] out = (float[]) a[0];
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            s[tid] = tid;
            t.syncThreads();
            if (t.warpId() == 1 && t.blockIdxX() == 1) {
                return;
            }
            if (t.warpId() == 0) {
                s[tid] += s[t.blockDimX() - 1 - tid];
            }
            t.syncThreads();
            out[t.globalIdX()] = s[tid];
        };
    }

    @Test
    void warpReturnsByUniformBranch_barrierNotReached_stillFails() throws InterruptedException {
        Object[] data = {new float[3 * 128]};
        d.report(Dim3.of(128), ShortPhasesTest::warpQuits, data);
        Differential.awaitResumeMethods();
        Dim3 grid = Dim3.of(3);
        Dim3 block = Dim3.of(128);
        KernelException re = assertThrows(KernelException.class,
                () -> d.reference.launch(grid, block, warpQuits(Differential.copy(data))));
        KernelException ve = assertThrows(KernelException.class,
                () -> d.simd.launch(grid, block, warpQuits(Differential.copy(data))));
        assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
        assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"), ve.getMessage());
    }
}
