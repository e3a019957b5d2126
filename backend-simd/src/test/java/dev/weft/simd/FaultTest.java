package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
 * Faults: an active thread out of bounds, dividing by zero or through a null array fails the launch in the same
 * thread as in the reference executor; an inactive lane never faults.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FaultTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel readPastEnd(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        return t -> {
            int i = t.globalIdX();
            y[i] = x[i] * 2;
        };
    }

    @Test
    void contiguousReadPastTheEnd_failsInTheFirstFaultingThread() {
        // x has 70 elements: thread 70 of CTA 1 (threadIdx 6) is the first to fault. (Only one CTA faults: when
        // several do, which one fails the launch depends on SM timing, in both executors.)
        d.check(Dim3.of(2), Dim3.of(64), FaultTest::readPastEnd, new float[70], new float[200]);
        // ... and the threads before it completed, as in the reference.
        Object[] out = d.check(Dim3.of(2), Dim3.of(64), FaultTest::readPastEnd, Differential.floats(70, 1, 0, 1), new float[200]);
        float[] y = (float[]) out[1];
        for (int i = 0; i < 70; i++) {
            assertTrue(y[i] != 0 || ((float[]) out[0])[i] == 0);
        }
    }

    static Kernel guarded(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float[] z = (float[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = x[i] + 1;
            }
            if (i * 3 < n) {
                z[i * 3] = x[i * 3] - 1;
            }
        };
    }

    @Test
    void inactiveLanesOutOfBounds_neverFault() {
        d.check(Dim3.of(4), Dim3.of(50), FaultTest::guarded, Differential.floats(150, 2, 0, 1), new float[150], new float[150]);
    }

    static Kernel twoArrays(Object[] a) {
        int[] p = (int[]) a[0];
        int[] q = (int[]) a[1];
        return t -> {
            int i = t.threadIdxX();
            p[i] = i;
            q[i] = -i;
        };
    }

    @Test
    void laterThreadFaultsFirstInCode_earlierThreadFaultingLaterIsReported() {
        // p has 20 elements, q 9: the reference runs thread 9 to q[9] (fault) before thread 20 reaches p[20].
        d.check(Dim3.of(1), Dim3.of(32), FaultTest::twoArrays, new int[20], new int[9]);
    }

    static Kernel gathered(Object[] a) {
        int[] idx = (int[]) a[0];
        double[] x = (double[]) a[1];
        double[] y = (double[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i < idx.length) {
                y[i] = x[idx[i]];
            }
        };
    }

    @Test
    void gatherOutOfBoundsInOneLane_faultsThatThread() {
        int[] idx = Differential.ints(300, 3, 0, 100);
        idx[150] = 100;
        idx[155] = -1;
        d.check(Dim3.of(3), Dim3.of(128), FaultTest::gathered, idx, new double[100], new double[300]);
        int[] idx2 = Differential.ints(300, 3, 0, 100);
        idx2[61] = -5;
        d.check(Dim3.of(3), Dim3.of(128), FaultTest::gathered, idx2, new double[100], new double[300]);
    }

    static Kernel scattered(Object[] a) {
        int[] idx = (int[]) a[0];
        long[] y = (long[]) a[1];
        return t -> {
            int i = t.globalIdX();
            if (i < idx.length) {
                y[idx[i]] = i;
            }
        };
    }

    @Test
    void scatterOutOfBounds_faultsThatThread() {
        int[] idx = Differential.ints(256, 4, 0, 64);
        idx[200] = 64;
        d.check(Dim3.of(2), Dim3.of(128), FaultTest::scattered, idx, new long[64]);
    }

    static Kernel divide(Object[] a) {
        int[] x = (int[]) a[0];
        int[] y = (int[]) a[1];
        long[] z = (long[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                x[i] = 1000 / y[i];
                z[i] = 10L % (long) y[(i + 3) % y.length];
            }
        };
    }

    @Test
    void integerDivisionByZero_faultsThatThread() {
        int[] y = Differential.ints(100, 5, 1, 9);
        y[45] = 0;
        d.check(Dim3.of(2), Dim3.of(64), FaultTest::divide, new int[100], y, new long[100]);
        int[] y2 = Differential.ints(100, 5, 1, 9);
        y2[13] = 0; // the long remainder of thread 10 reads y2[13]
        d.check(Dim3.of(2), Dim3.of(64), FaultTest::divide, new int[100], y2, new long[100]);
    }

    static Kernel uniformIndex(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int k = 12;
        return t -> {
            if (t.threadIdxX() >= 5) {
                y[t.globalIdX()] = x[k];
            }
        };
    }

    @Test
    void uniformIndexOutOfBounds_faultsFirstActiveThread() {
        d.check(Dim3.of(1), Dim3.of(40), FaultTest::uniformIndex, new float[10], new float[40]);
    }

    static Kernel nullArray(Object[] a) {
        float[] y = (float[]) a[1];
        float[] nothing = (float[]) a[0];
        return t -> {
            int i = t.globalIdX();
            if (i > 40) {
                y[i] = nothing[i];
            }
        };
    }

    @Test
    void nullArray_failsFirstThreadReachingIt() {
        d.check(Dim3.of(2), Dim3.of(32), FaultTest::nullArray, null, new float[64]);
    }

    @Test
    void fault_reportsCtaThreadAndJavaMessage() {
        KernelException e = assertThrows(KernelException.class,
                () -> d.simd.launch(Dim3.of(2), Dim3.of(64), readPastEnd(new Object[] {new float[70], new float[200]})));
        assertEquals(new Dim3(1, 0, 0), e.blockIdx());
        assertEquals(new Dim3(6, 0, 0), e.threadIdx().orElseThrow());
        assertTrue(e.getCause() instanceof ArrayIndexOutOfBoundsException);
        assertEquals("Index 70 out of bounds for length 70", e.getCause().getMessage());
    }

    static Kernel loopFault(Object[] a) {
        int[] x = (int[]) a[0];
        int[] out = (int[]) a[1];
        return t -> {
            int i = t.threadIdxX();
            int s = 0;
            for (int j = 0; j < 10; j++) {
                s += x[i + j * 4];
            }
            out[i] = s;
        };
    }

    @Test
    void faultInsideUniformLoop_stopsTheLoopAndReportsFirstThread() {
        d.check(Dim3.of(1), Dim3.of(32), FaultTest::loopFault, new int[60], new int[32]);
        int[] x = new int[40];
        Object[] out = d.check(Dim3.of(1), Dim3.of(32), FaultTest::loopFault, x, new int[32]);
        assertArrayEquals(new int[32], (int[]) out[1]);
    }

    static Kernel refusedShared(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] lengths = (int[]) a[2];
        int first = lengths[0];
        int second = lengths[1];
        return t -> {
            int i = t.threadIdxX();
            if (i >= 5) {
                y[i] = x[i];
            }
            float[] s0 = t.sharedFloats(first);
            int[] s1 = t.sharedInts(second);
            s0[i] = i;
            t.syncThreads();
            y[i] += s0[63 - i] + s1.length;
        };
    }

    @Test
    void refusedSharedAllocation_faultsFirstActiveThread() {
        // Either of two allocations in one block refused (a negative length, more than the CTA may have): the
        // block's one handler faults its first active thread, with the runtime's exception as the cause.
        for (int[] lengths : new int[][] {{64, -1}, {-1, 4}, {64, 1 << 24}}) {
            d.check(Dim3.of(1), Dim3.of(64), FaultTest::refusedShared, new float[64], new float[64], lengths);
        }
        // Thread 9 faults first in code order (x has 9 elements); thread 0 then faults at the allocation, and it
        // is the first in linear order, as in the reference executor.
        d.check(Dim3.of(1), Dim3.of(64), FaultTest::refusedShared, new float[9], new float[64], new int[] {64, -1});
        // Both allocations granted: no fault, the same sums.
        d.check(Dim3.of(1), Dim3.of(64), FaultTest::refusedShared, Differential.floats(64, 7, 0, 1), new float[64],
                new int[] {64, 4});
        KernelException e = assertThrows(KernelException.class, () -> d.simd.launch(Dim3.of(1), Dim3.of(64),
                refusedShared(new Object[] {new float[64], new float[64], new int[] {64, -1}})));
        assertEquals(new Dim3(0, 0, 0), e.threadIdx().orElseThrow());
        assertTrue(e.getCause() instanceof IllegalArgumentException, () -> String.valueOf(e.getCause()));
        assertEquals("shared array length must be >= 0: -1", e.getCause().getMessage());
    }
}
