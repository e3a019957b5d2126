package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomics whose indices a contiguous load just read: in a grid-stride fast path each thread's index is read again
 * from the source element instead of taken out of the vector (see {@code AtomicOps#contiguousSource}). Against the
 * reference executor: varying operands, old values, several atomics on one loaded index, a write to the source
 * between the load and the atomic, where reading again would see the new value and must not happen, and a load's
 * index computed in the loop, which the re-read still needs after the load.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AtomicIndexRereadTest {

    @AutoClose
    static final Differential d = new Differential();

    /** A weighted histogram in shared memory, long bins: the operand varies, the index comes from {@code data}. */
    static Kernel weighted(Object[] a) {
        int[] data = (int[]) a[0];
        long[] weights = (long[]) a[1];
        long[] out = (long[]) a[2];
        int n = data.length;
        return t -> {
            long[] sums = t.sharedLongs(32);
            long[] maxima = t.sharedLongs(32);
            int tid = t.threadIdxX();
            if (tid < 32) {
                sums[tid] = 0L;
                maxima[tid] = 0L;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(sums, data[i], weights[i]);
                Atomics.max(maxima, data[i], weights[i] & 1023);
            }
            t.syncThreads();
            if (tid < 32) {
                Atomics.add(out, tid, sums[tid]);
                Atomics.max(out, 32 + tid, maxima[tid]);
            }
        };
    }

    @Test
    void weightedBins_matchReference() {
        for (int n : new int[] {1, 33, 1000, 4099}) {
            d.check(Dim3.of(3), Dim3.of(64), AtomicIndexRereadTest::weighted, Differential.ints(n, 51, 0, 32),
                    Differential.longs(n, 52), new long[64]);
        }
    }

    /** The index is loaded, the source element overwritten, then the atomic: it must count the loaded value. */
    static Kernel overwrittenSource(Object[] a) {
        int[] data = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = data.length;
        return t -> {
            int[] bins = t.sharedInts(16);
            int tid = t.threadIdxX();
            if (tid < 16) {
                bins[tid] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                int v = data[i];
                data[i] = 15 - v;
                Atomics.add(bins, v, 1);
            }
            t.syncThreads();
            if (tid < 16) {
                Atomics.add(out, tid, bins[tid]);
            }
        };
    }

    @Test
    void sourceOverwrittenBeforeTheAtomic_countsTheLoadedValues() {
        int n = 3000;
        int[] data = Differential.ints(n, 53, 0, 16);
        int[] expected = new int[16];
        for (int v : data) {
            expected[v]++;
        }
        Object[] out = d.check(Dim3.of(2), Dim3.of(128), AtomicIndexRereadTest::overwrittenSource, data, new int[16]);
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString((int[]) out[1]));
    }

    /**
     * Old values returned to the threads. Compared where both executors apply the updates in thread order: one
     * CTA, each thread one iteration of the grid-stride loop (the reference runs a thread on through all its
     * iterations, the compiled code iteration by iteration).
     */
    static Kernel oldValues(Object[] a) {
        int[] data = (int[]) a[0];
        int[] old = (int[]) a[1];
        int n = data.length;
        return t -> {
            int[] bins = t.sharedInts(8);
            int tid = t.threadIdxX();
            if (tid < 8) {
                bins[tid] = 100 * tid;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                old[i] = Atomics.add(bins, data[i], 1);
            }
        };
    }

    @Test
    void oldValues_oneCta_matchReference() {
        for (int block : new int[] {32, 96, 256, 1024}) {
            d.check(Dim3.of(1), Dim3.of(block), AtomicIndexRereadTest::oldValues, Differential.ints(block, 54, 0, 8),
                    new int[block]);
        }
    }

    /** An index outside the shared array mid-warp fails the same thread as on the reference. */
    @Test
    void indexOutOfBounds_failsTheReferencesThread() {
        for (int bad : new int[] {0, 17, 31, 40, 999}) {
            int[] data = Differential.ints(1000, 55, 0, 8);
            data[bad] = bad % 2 == 0 ? 8 : -1;
            d.check(Dim3.of(1), Dim3.of(64), AtomicIndexRereadTest::oldValues, data, new int[1000]);
        }
    }

    /**
     * The index loaded at {@code i + off}, a value of the loop's body whose last use in the IR is that load: the
     * atomics read it again after that, so its local must not have gone to another value by then (the atomic's loop
     * over the lanes took it: each thread counted another element). Into shared int and global long bins.
     */
    static Kernel offsetIndex(Object[] a) {
        int[] data = (int[]) a[0];
        long[] out = (long[]) a[1];
        int n = (Integer) a[2];
        int off = (Integer) a[3];
        return t -> {
            int[] bins = t.sharedInts(32);
            int tid = t.threadIdxX();
            if (tid < 32) {
                bins[tid] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(bins, data[i + off], 1);
                Atomics.add(out, data[i + off], (long) i);
            }
            t.syncThreads();
            if (tid < 32) {
                Atomics.add(out, 32 + tid, (long) bins[tid]);
            }
        };
    }

    @Test
    void indexComputedInTheLoop_readAgainAtTheLoadsElement() {
        for (int n : new int[] {100, 2000}) {
            d.check(Dim3.of(3), Dim3.of(64), AtomicIndexRereadTest::offsetIndex, Differential.ints(n + 3, 58, 0, 32),
                    new long[64], n, 3);
        }
    }
}
