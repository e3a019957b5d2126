package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A store of a varying value to one element (a uniform index), which the last active thread wins: the compiled code
 * takes that thread's lane from its register ({@code MemoryOps.lastActiveLane}; {@code -Dweft.simd.laneInRegister=false}
 * stores the group to scratch and reads it back). The active threads are chosen per thread from the input, so the
 * last one falls in every register of a group (2 per warp with 16 lanes, 4 with 8, 8 for longs with 4), on either
 * side of a register's edge, in partial groups, and in no thread at all; values of every kind, each thread's own.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LastThreadStoreTest {

    @AutoClose
    static final Differential d = new Differential();

    /** a: {int[] sel, int[] ints, long[] longs, float[] floats, double[] doubles}; each CTA's element blockIdx.x. */
    static Kernel selectedStores(Object[] a) {
        int[] sel = (int[]) a[0];
        int[] ints = (int[]) a[1];
        long[] longs = (long[]) a[2];
        float[] floats = (float[]) a[3];
        double[] doubles = (double[]) a[4];
        return t -> {
            int g = t.globalIdX();
            if (sel[g] != 0) {
                int b = t.blockIdxX();
                ints[b] = g * 7 + sel[g];
                longs[b] = ((long) g << 33) + sel[g];
                floats[b] = g * 0.5f + sel[g];
                doubles[b] = g * 0.25 - sel[g];
            }
        };
    }

    /** As {@link #selectedStores}, into element 1 of each array, by the threads of CTA 2 only (CTAs run concurrently). */
    static Kernel oneElement(Object[] a) {
        int[] sel = (int[]) a[0];
        int[] ints = (int[]) a[1];
        long[] longs = (long[]) a[2];
        float[] floats = (float[]) a[3];
        double[] doubles = (double[]) a[4];
        return t -> {
            int g = t.globalIdX();
            if (sel[g] != 0 && t.blockIdxX() == 2) {
                ints[1] = g * 3 - sel[g];
                longs[1] = (long) g * -5_000_000_011L;
                floats[1] = g * 1.5f;
                doubles[1] = g * 0.125;
            }
        };
    }

    /**
     * Per CTA a pattern of active threads: a single thread at each lane of the first warp, then at lanes of later
     * warps, then random sets (sparse and dense), then none.
     */
    private static int[] selection(int ctas, int threads, long seed) {
        int[] sel = new int[ctas * threads];
        SplittableRandom r = new SplittableRandom(seed);
        for (int c = 0; c < ctas; c++) {
            int base = c * threads;
            if (c < threads) {
                sel[base + c] = 1 + c;
                if (c % 3 == 0 && c > 0) {
                    sel[base] = 1000 + c;
                }
            } else if (c < ctas - 1) {
                double density = c % 2 == 0 ? 0.05 : 0.6;
                for (int i = 0; i < threads; i++) {
                    if (r.nextDouble() < density) {
                        sel[base + i] = 1 + r.nextInt(1 << 20);
                    }
                }
            }
        }
        return sel;
    }

    private static Object[] data(int ctas, int threads, long seed) {
        return new Object[] {selection(ctas, threads, seed), new int[ctas], new long[ctas], new float[ctas], new double[ctas]};
    }

    @Test
    void selectedStores_lastActiveThreadWins_oneWarp() {
        d.check(Dim3.of(48), Dim3.of(32), LastThreadStoreTest::selectedStores, data(48, 32, 1));
    }

    @Test
    void selectedStores_lastActiveThreadWins_partialGroups() {
        d.check(Dim3.of(110), Dim3.of(100), LastThreadStoreTest::selectedStores, data(110, 100, 2));
    }

    @Test
    void selectedStores_lastActiveThreadWins_2dBlock() {
        // 2D CTAs: the general variant's groups, threadIdx varying
        d.check(Dim3.of(70), Dim3.of(8, 8), LastThreadStoreTest::selectedStores, data(70, 64, 3));
    }

    @Test
    void oneElement_lastActiveThreadWins() {
        SplittableRandom r = new SplittableRandom(4);
        for (int round = 0; round < 12; round++) {
            Object[] data = data(3, 256, round);
            int[] sel = (int[]) data[0];
            double density = new double[] {0.01, 0.1, 0.5, 0.95}[round % 4];
            for (int i = 512; i < 768; i++) {
                sel[i] = r.nextDouble() < density ? 1 + r.nextInt(1 << 20) : 0;
            }
            d.check(Dim3.of(3), Dim3.of(256), LastThreadStoreTest::oneElement, data);
        }
    }
}
