package dev.weft.simd;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An atomic whose operand is a value defined in a divergent loop and read after it: a counter is uniform inside the
 * loop (every active lane holds the same value), but lanes leave at different iterations, so after the loop each
 * lane's value is its own (the loop's shadow). The atomic took such an operand as a scalar, every lane adding the
 * last iteration's value (found by FuzzTest, seeds 0x13000139, 0x14000021 and 0x140000f6 of the small-kernel run).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicAfterDivergentLoopTest {

    @AutoClose
    static final Differential d = new Differential();

    /** A global add at each thread's own element: the masked path. */
    static Kernel globalAdd(Object[] a) {
        int[] trips = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = trips.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int c = 0;
            while (c < (trips[i] & 7)) {
                c++;
            }
            Atomics.add(out, i, c);
        };
    }

    @Test
    void globalAdd_loopCounterOperand_eachLaneAddsItsOwnCount() {
        for (int n : new int[] {1, 32, 100}) {
            d.check(Dim3.of(2), Dim3.of(64), AtomicAfterDivergentLoopTest::globalAdd, Differential.ints(n, 61, 0, 1000), new int[n]);
        }
    }

    /** The fuzzer's shape: a shared add at an index from data, a barrier, each thread reading its own slot. */
    static Kernel sharedAdd(Object[] a) {
        int[] trips = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int nt = t.blockDimX();
            int[] counts = t.sharedInts(nt);
            int i = t.globalIdX();
            int c = 0;
            while (c < (trips[i] & 7)) {
                c++;
            }
            Atomics.add(counts, (trips[i] ^ c) % nt, c);
            t.syncThreads();
            out[i] = counts[t.threadIdxX()];
        };
    }

    @Test
    void sharedAdd_loopCounterOperand_matchesReference() {
        // 66 threads: a partial third warp
        d.check(Dim3.of(3), Dim3.of(66), AtomicAfterDivergentLoopTest::sharedAdd, Differential.ints(198, 62, 0, 1000), new int[198]);
    }

    /** A float running value, uniform inside the loop, as a max's operand; and a long one for the min. */
    static Kernel floatMaxLongMin(Object[] a) {
        int[] trips = (int[]) a[0];
        float[] maxima = (float[]) a[1];
        long[] minima = (long[]) a[2];
        int n = trips.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float f = 0.5f;
            long l = 1000L;
            int c = 0;
            while (c < (trips[i] & 15)) {
                f *= 1.5f;
                l -= 7L;
                c++;
            }
            Atomics.max(maxima, i % 8, f);
            Atomics.min(minima, i % 8, l);
        };
    }

    @Test
    void floatMaxAndLongMin_loopCarriedOperands_matchReference() {
        d.check(Dim3.of(2), Dim3.of(96), AtomicAfterDivergentLoopTest::floatMaxLongMin, Differential.ints(150, 63, 0, 1000),
                new float[8], new long[] {2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000});
    }

    /** Inside a grid-stride loop, where the atomic has a path with every lane active (and an unrolled one). */
    static Kernel gridStride(Object[] a) {
        int[] trips = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = trips.length;
        return t -> {
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                int c = 0;
                while (c < (trips[i] & 7)) {
                    c++;
                }
                Atomics.add(bins, trips[i] & 15, c);
            }
        };
    }

    @Test
    void gridStride_loopCounterOperand_matchesReference() {
        d.check(Dim3.of(2), Dim3.of(64), AtomicAfterDivergentLoopTest::gridStride, Differential.ints(1000, 64, 0, 1000), new int[16]);
    }
}
