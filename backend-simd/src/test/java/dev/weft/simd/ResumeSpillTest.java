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
 * Kernels with barriers run on their methods per resume point (launched once the background compile put them in
 * place), against the reference executor. Those methods leave out of their spills the kept values their phase
 * never writes (loop invariants, an accumulator in the phase that only loads tiles): here such values next to
 * values written on some paths of a phase only, in interior and edge CTAs, partial groups, CTAs of 1 and 1024
 * threads, with faults in a later phase and a barrier not reached by every thread.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ResumeSpillTest {

    @AutoClose
    static final Differential d = new Differential();


    @Test
    void tiledMatmul_interiorAndEdgeCtas() throws InterruptedException {
        for (int n : new int[] {64, 45}) {
            int tiles = (n + 15) / 16;
            // the textbook kernel (guarded loads and store): 45 is not a multiple of 16, so there are edge CTAs
            d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(16, 16), BarrierTest::tiledMatmul,
                    Differential.floats(n * n, 3, -1, 1), Differential.floats(n * n, 4, -1, 1), new float[n * n], n);
        }
    }

    /**
     * Values kept across both barriers: {@code inv} never written after the loop starts, {@code acc} written in the
     * first phase of each step only, {@code odd} written in the second phase on some steps and by some threads only,
     * {@code twice} written in both; the loop bound differs per CTA.
     */
    static Kernel mixed(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int[] tile = t.sharedInts(t.blockDimX());
            int i = t.threadIdxX();
            int g = t.blockIdxX() * t.blockDimX() + i;
            int inv = in[g % in.length] * 3 + 1;
            int acc = 0;
            int odd = 7;
            long twice = 5L;
            int steps = 3 + t.blockIdxX() % 4;
            for (int s = 0; s < steps; s++) {
                tile[i] = inv + s;
                acc += s;
                twice = twice * 3 + s;
                t.syncThreads();
                int j = (i + 1) % t.blockDimX();
                if ((s & 1) == 1 && (i % 3) != 0) {
                    odd += tile[j];
                }
                twice ^= tile[j];
                t.syncThreads();
            }
            out[4 * g] = inv;
            out[4 * g + 1] = acc;
            out[4 * g + 2] = odd;
            out[4 * g + 3] = (int) (twice ^ (twice >>> 32));
        };
    }

    @Test
    void keptValues_writtenInSomePhasesOrPathsOnly_oneTo1024ThreadCtas() throws InterruptedException {
        for (int threads : new int[] {64, 40, 1, 1024}) {
            int ctas = 5;
            d.checkOnResumeMethods(Dim3.of(ctas), Dim3.of(threads), ResumeSpillTest::mixed,
                    Differential.ints(97, 9, -50, 50), new int[4 * ctas * threads]);
        }
    }

    /** As {@link #mixed}, but thread 37 of CTA 2 reads past the end in the third step's second phase. */
    static Kernel faultLate(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int[] tile = t.sharedInts(t.blockDimX());
            int i = t.threadIdxX();
            int inv = in[i % in.length] + 1;
            int acc = 0;
            for (int s = 0; s < 4; s++) {
                tile[i] = inv + s;
                t.syncThreads();
                int j = s == 2 && i == 37 && t.blockIdxX() == 2 ? in.length : i % in.length;
                acc += in[j] + tile[(i + 1) % t.blockDimX()];
                t.syncThreads();
            }
            out[t.blockIdxX() * t.blockDimX() + i] = acc + inv;
        };
    }

    @Test
    void faultInALaterPhase_reportedInTheReferencesThread() throws InterruptedException {
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(64), ResumeSpillTest::faultLate, Differential.ints(50, 2, -9, 9), new int[4 * 64]);
    }

    /** Threads of CTA 1 with an odd index leave the loop after its first step: its barrier is not reached by all. */
    static Kernel barrierNotReached(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int[] tile = t.sharedInts(t.blockDimX());
            int i = t.threadIdxX();
            int inv = i * 5;
            for (int s = 0; s < 3; s++) {
                tile[i] = inv + s;
                t.syncThreads();
                if (s == 1 && t.blockIdxX() == 1 && (i & 1) == 1) {
                    return;
                }
                inv += tile[(i + 1) % t.blockDimX()];
                t.syncThreads();
            }
            out[t.blockIdxX() * t.blockDimX() + i] = inv;
        };
    }

    @Test
    void barrierNotReachedByAllThreads_stillFails() throws InterruptedException {
        Object[] data = {new int[3 * 64]};
        d.report(Dim3.of(64), ResumeSpillTest::barrierNotReached, data);
        Differential.awaitResumeMethods();
        Dim3 grid = Dim3.of(3);
        Dim3 block = Dim3.of(64);
        KernelException re = assertThrows(KernelException.class,
                () -> d.reference.launch(grid, block, barrierNotReached(Differential.copy(data))));
        KernelException ve = assertThrows(KernelException.class,
                () -> d.simd.launch(grid, block, barrierNotReached(Differential.copy(data))));
        assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
        assertTrue(ve.threadIdx().isEmpty(), ve.getMessage());
        assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"), ve.getMessage());
    }

    /** Lesson 10's mistake: a barrier only the even threads reach. */
    static Kernel evenThreadsBarrier(Object[] a) {
        return t -> {
            if (t.threadIdxX() % 2 == 0) {
                t.syncThreads();
            }
        };
    }

    @Test
    void barrierOnEvenThreadsOnly_methodsPerResumePointLoad_andTheLaunchFailsAsOnTheReference() throws InterruptedException {
        // Its methods per resume point carry the entry's code unreached, whose locals alone went past the max_locals
        // the ClassFile API counts without stack maps: HotSpot's verifier refused the class (the general methods ran on).
        d.report(Dim3.of(64), ResumeSpillTest::evenThreadsBarrier);
        Differential.awaitResumeMethods();
        // One CTA: every CTA of this kernel fails, and which of several fails first is a race between the SMs.
        KernelException re = assertThrows(KernelException.class,
                () -> d.reference.launch(Dim3.of(1), Dim3.of(64), evenThreadsBarrier(new Object[0])));
        KernelException ve = assertThrows(KernelException.class,
                () -> d.simd.launch(Dim3.of(1), Dim3.of(64), evenThreadsBarrier(new Object[0])));
        assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
        assertTrue(ve.getMessage().contains("syncThreads() not reached by all threads of the CTA"), ve.getMessage());
    }
}
