package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.simd.internal.gen.Phases;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Interleaved stride loops whose carried values are scalars run round-robin across a CTA's groups in their pause's
 * method (CodeGen's roundRobinLoop): against the reference, on the methods per resume point, at the edges (a partial
 * last iteration, bounds smaller than a CTA, CTAs of one thread and of 1024, CTAs not a multiple of the group), with
 * a uniform counter carried besides the index, with global atomics, with faults in the middle of the loop (the same
 * failing thread as the reference), and loops that must not take the path: per-thread float, int and long sums
 * carried (vectors: they pause without the round-robin), a value that differs between groups read inside the loop.
 * Each test also checks whether the path ran ({@link Phases#roundRobinRuns}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RoundRobinStrideLoopTest {

    @AutoClose
    static final Differential d = new Differential();

    /** A uniform iteration counter carried besides the index: bin (data[i] + k) mod 64, and k per thread after. */
    static Kernel counted(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = ((int[]) a[2])[0];
        int[] iterations = (int[]) a[3];
        return t -> {
            int[] local = t.sharedInts(64);
            int tid = t.threadIdxX();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            int k = 0;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, (data[i] + k) & 63, 1);
                k++;
            }
            t.syncThreads();
            iterations[t.globalIdX()] = k;
            for (int b = tid; b < 64; b += t.blockDimX()) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    /** Long atomics on a shared histogram, the index going down from n - 1 (a GE test, a negative stride). */
    static Kernel longsDownwards(Object[] a) {
        int[] data = (int[]) a[0];
        long[] bins = (long[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            long[] local = t.sharedLongs(64);
            int tid = t.threadIdxX();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = n - 1 - t.globalIdX(); i >= 0; i -= t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], (long) i);
            }
            t.syncThreads();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    /** A per-thread int count and a per-thread long sum carried besides the index. */
    static Kernel intAndLongSums(Object[] a) {
        int[] data = (int[]) a[0];
        long[] out = (long[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            long[] s = t.sharedLongs(t.blockDimX());
            int odd = 0;
            long sum = 7;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                odd += data[i] & 1;
                sum = sum * 3 + data[i];
            }
            s[t.threadIdxX()] = sum + odd;
            t.syncThreads();
            out[t.globalIdX()] = s[t.blockDimX() - 1 - t.threadIdxX()] * 31 + odd;
        };
    }

    /** The loop reads threadIdx.x / 16, the same in a 16-thread group but not across groups: no round-robin. */
    static Kernel perGroupValue(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int[] local = t.sharedInts(64);
            int tid = t.threadIdxX();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                local[b] = 0;
            }
            int shift = tid >> 4;
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, (data[i] + shift) & 63, 1);
            }
            t.syncThreads();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    /** The histogram over 2D CTAs: a linear thread index from threadIdx.x and .y (the row-aligned variants). */
    static Kernel histogram2d(Object[] a) {
        int[] data = (int[]) a[0];
        int[] bins = (int[]) a[1];
        int n = ((int[]) a[2])[0];
        return t -> {
            int[] local = t.sharedInts(64);
            int tid = t.threadIdxY() * t.blockDimX() + t.threadIdxX();
            int threads = t.blockDimX() * t.blockDimY();
            for (int b = tid; b < 64; b += threads) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.blockIdxX() * threads + tid; i < n; i += threads * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < 64; b += threads) {
                Atomics.add(bins, b, local[b]);
            }
        };
    }

    /** Checks on the methods per resume point; returns how many CTA phases ran a loop round-robin meanwhile. */
    private static long check(int ctas, int block, Function<Object[], Kernel> k, Object... data) throws InterruptedException {
        d.report(Dim3.of(block), k, data);
        Differential.awaitResumeMethods();
        long before = Phases.roundRobinRuns();
        d.check(Dim3.of(ctas), Dim3.of(block), k, data);
        return Phases.roundRobinRuns() - before;
    }

    private static long histogram(int n, int ctas, int block) throws InterruptedException {
        return check(ctas, block, InterleavedStrideLoopTest::histogram, Differential.ints(Math.max(n, 1), 41, 0, 64),
                new int[64], new int[] {n});
    }

    @Test
    void histogram_partialLastIteration_runsRoundRobinAndMatchesReference() throws InterruptedException {
        assertTrue(histogram(100_003, 7, 256) > 0, "the loop ran round-robin");
        assertTrue(histogram(50_001, 5, 96) > 0, "the loop ran round-robin");
        assertTrue(histogram(1 << 18, 4, 256) > 0, "the loop ran round-robin");
    }

    @Test
    void histogram_boundSmallerThanACta_matchesReference() throws InterruptedException {
        histogram(100, 2, 256);
        histogram(0, 3, 256);
        histogram(300, 1, 256);
    }

    @Test
    void histogram2dCtas_matchReference() throws InterruptedException {
        for (int[] shape : new int[][] {{32, 8}, {16, 4}, {24, 5}}) {
            int n = 100_003;
            d.report(Dim3.of(shape[0], shape[1]), RoundRobinStrideLoopTest::histogram2d, new int[1], new int[64], new int[] {1});
            Differential.awaitResumeMethods();
            d.check(Dim3.of(3), Dim3.of(shape[0], shape[1]), RoundRobinStrideLoopTest::histogram2d, Differential.ints(n, 50, 0, 64),
                    new int[64], new int[] {n});
        }
    }

    @Test
    void histogram_oneThreadCtas_matchReference() throws InterruptedException {
        histogram(5_003, 9, 1);
    }

    @Test
    void histogram_ctasOf1024Threads_runRoundRobinAndMatchReference() throws InterruptedException {
        assertTrue(histogram(300_007, 4, 1024) > 0, "the loop ran round-robin");
    }

    @Test
    void histogram_ctaNotAMultipleOfTheGroup_matchesReference() throws InterruptedException {
        histogram(30_011, 3, 200);
        histogram(30_011, 3, 1000);
    }

    @Test
    void uniformCounterCarried_runsRoundRobinAndMatchesReference() throws InterruptedException {
        for (int[] shape : new int[][] {{100_003, 3, 256}, {7_001, 2, 1024}, {999, 5, 64}}) {
            int n = shape[0];
            int threads = shape[1] * shape[2];
            long runs = check(shape[1], shape[2], RoundRobinStrideLoopTest::counted, Differential.ints(n, 42, 0, 64), new int[64],
                    new int[] {n}, new int[threads]);
            if (n / threads > 40) {
                assertTrue(runs > 0, "the loop ran round-robin");
            }
        }
    }

    @Test
    void longAtomicsDownwards_runRoundRobinAndMatchReference() throws InterruptedException {
        int n = 200_001;
        assertTrue(check(3, 256, RoundRobinStrideLoopTest::longsDownwards, Differential.ints(n, 43, 0, 64), new long[64],
                new int[] {n}) > 0, "the loop ran round-robin");
    }

    @Test
    void carriedFloatSums_pauseWithoutRoundRobinAndMatchReference() throws InterruptedException {
        for (int[] shape : new int[][] {{100_003, 3, 256}, {300_007, 2, 1024}, {999, 5, 64}, {5_003, 9, 1}, {30_011, 3, 200}}) {
            int n = shape[0];
            int threads = shape[1] * shape[2];
            float[] in = Differential.floats(n, 44, -1, 1);
            long runs = check(shape[1], shape[2], InterleavedStrideLoopTest::perThreadSums, in, new float[threads], new int[] {n});
            runs += check(shape[1], shape[2], InterleavedStrideLoopTest::reduction, in, new float[shape[1]], new int[] {n});
            if (n / threads > 40 && shape[2] % 16 == 0) {
                // A loop that carries a vector (the per-thread sum) pauses, but does not run round-robin.
                assertEquals(0, runs, "round-robin runs of a loop that carries a vector");
            }
        }
    }

    @Test
    void carriedIntAndLongSums_matchReference() throws InterruptedException {
        int n = 100_003;
        check(3, 256, RoundRobinStrideLoopTest::intAndLongSums, Differential.ints(n, 48, 0, 1000), new long[3 * 256], new int[] {n});
        check(2, 1024, RoundRobinStrideLoopTest::intAndLongSums, Differential.ints(n, 49, 0, 1000), new long[2 * 1024], new int[] {n});
    }

    @Test
    void readPastTheEnd_failsInTheReferencesThread() throws InterruptedException {
        check(1, 256, InterleavedStrideLoopTest::reduction, Differential.floats(40_000, 34, -1, 1), new float[1], new int[] {40_100});
        check(1, 256, InterleavedStrideLoopTest::perThreadSums, Differential.floats(40_000, 34, -1, 1), new float[256], new int[] {40_100});
    }

    @Test
    void valueDifferingBetweenGroups_keepsItsPausesAndMatchesReference() throws InterruptedException {
        int n = 100_003;
        assertEquals(0, check(3, 256, RoundRobinStrideLoopTest::perGroupValue, Differential.ints(n, 45, 0, 64), new int[64],
                new int[] {n}), "a loop reading a per-group value must not run round-robin");
    }

    /** In CTA 0 only: bin 64 (outside the shared histogram) for the given threads at the given iterations. */
    private static int[] badBins(int n, int block, int ctas, int[] threadAndIteration) {
        int[] data = Differential.ints(n, 46, 0, 64);
        for (int k = 0; k < threadAndIteration.length; k += 2) {
            data[threadAndIteration[k] + threadAndIteration[k + 1] * block * ctas] = 64;
        }
        return data;
    }

    @Test
    void faultsInTheMiddleOfTheLoop_failInTheReferencesThread() throws InterruptedException {
        int block = 256;
        int ctas = 2;
        int n = 100 * block * ctas;
        int[][] cases = {
            {100, 40},
            // A later group faults first in time; the reference runs thread 3 to its end first (iteration 70).
            {200, 1, 3, 70},
            // Two later groups fault, the later one first in time.
            {250, 0, 130, 50},
            // Two lanes of one group, the lower one later.
            {37, 60, 33, 20},
            // In the last full iteration, and in the partial one after it.
            {17, 99},
        };
        for (int[] c : cases) {
            check(ctas, block, InterleavedStrideLoopTest::histogram, badBins(n, block, ctas, c), new int[64], new int[] {n});
        }
        // n past the data's end: threads fault in their last iterations (one CTA: with two, both fault, and which
        // fails the launch depends on the SMs' timing).
        check(1, block, InterleavedStrideLoopTest::histogram, Differential.ints(n - 300, 47, 0, 64), new int[64], new int[] {n});
    }
}
