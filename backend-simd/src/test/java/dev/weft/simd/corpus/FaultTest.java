package dev.weft.simd.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.KernelException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults: an active lane that indexes out of bounds (or divides an int by zero) fails the launch with a
 * {@link KernelException} naming the same CTA and thread on both executors; inactive lanes never fault.
 *
 * <p>Each kernel faults in exactly one CTA, so which CTA fails first does not depend on how the SMs
 * interleave. Where several lanes of one warp fault at the same instruction, the reference executor names
 * the lowest linear thread id (it runs the threads of a CTA in that order), and a SIMD backend must name
 * the same lane.
 */
// A separate thread, so a kernel that never ends fails its test instead of hanging the run.
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FaultTest {

    private static Differential devices;

    @BeforeAll
    static void startDevices() {
        devices = new Differential(32);
    }

    @AfterAll
    static void stopDevices() {
        devices.close();
    }

    @Test
    void outOfBounds_oneActiveLaneLoads_bothNameItsCtaAndThread() {
        int n = 200;
        float[] x = new float[n];
        float[] y = new float[256];
        Kernel k = t -> {
            int i = t.globalIdX();
            int at = t.blockIdxX() == 2 && t.threadIdxX() == 37 ? n + 5 : i % n;
            y[i] = x[at] + 1f;
        };
        KernelException e = assertSameFault(Dim3.of(4), Dim3.of(64), k);
        assertEquals(at(2, 0), e.blockIdx());
        assertEquals(Optional.of(at(37, 0)), e.threadIdx());
        assertInstanceOf(ArrayIndexOutOfBoundsException.class, e.getCause());
        assertTrue(e.getMessage().contains("threadIdx=(37, 0, 0)"), e.getMessage());
    }

    @Test
    void outOfBounds_negativeStoreIn2dGrid_bothNameItsCtaAndThread() {
        int w = 40;
        int h = 24;
        long[] out = new long[w * h];
        Kernel k = t -> {
            int x = t.globalIdX();
            int y = t.globalIdY();
            int at = x == 21 && y == 13 ? -1 : y * w + x;
            if (x < w && y < h) {
                out[at] = (long) x * y;
            }
        };
        KernelException e = assertSameFault(Dim3.of(3, 3), Dim3.of(16, 8), k);
        assertEquals(at(1, 1), e.blockIdx());
        assertEquals(Optional.of(at(5, 5)), e.threadIdx());
    }

    @Test
    void outOfBounds_severalLanesOfOneWarp_bothNameTheLowestThread() {
        int[] x = new int[100];
        int[] y = new int[512];
        Kernel k = t -> {
            int i = t.globalIdX();
            // In CTA 1, lanes 9, 10, 20 and 30 of warp 2 read past the end at the same load.
            boolean bad = t.blockIdxX() == 1 && t.warpId() == 2 && (t.laneId() == 9 || t.laneId() == 10 || t.laneId() >= 20 && t.laneId() % 10 == 0);
            y[i] = x[bad ? 100 + t.laneId() : i % 100];
        };
        KernelException e = assertSameFault(Dim3.of(2), Dim3.of(256), k);
        assertEquals(at(1, 0), e.blockIdx());
        assertEquals(Optional.of(at(2 * 32 + 9, 0)), e.threadIdx());
    }

    @Test
    void outOfBounds_inDivergentLoop_faultsAtThatThreadsIteration() {
        int[] trips = new int[96];
        for (int i = 0; i < trips.length; i++) {
            trips[i] = i % 7;
        }
        trips[77] = 40;                       // walks off the end of data
        double[] data = new double[32];
        double[] out = new double[96];
        Kernel k = t -> {
            int i = t.globalIdX();
            double acc = 0;
            for (int j = 0; j < trips[i]; j++) {
                acc += data[j];
            }
            out[i] = acc;
        };
        KernelException e = assertSameFault(Dim3.of(3), Dim3.of(32), k);
        assertEquals(at(2, 0), e.blockIdx());
        assertEquals(Optional.of(at(77 - 64, 0)), e.threadIdx());
    }

    @Test
    void divisionByZero_oneActiveLane_bothNameItsThread() {
        int[] d = new int[64];
        java.util.Arrays.fill(d, 3);
        d[50] = 0;
        int[] out = new int[64];
        Kernel k = t -> {
            int i = t.globalIdX();
            out[i] = 1000 / d[i];
        };
        KernelException e = assertSameFault(Dim3.of(1), Dim3.of(64), k);
        assertEquals(Optional.of(at(50, 0)), e.threadIdx());
        assertInstanceOf(ArithmeticException.class, e.getCause());
    }

    @Test
    void outOfBounds_inStaticHelper_bothNameItsThread() {
        long[] a = new long[10];
        long[] out = new long[40];
        Kernel k = t -> {
            int i = t.globalIdX();
            out[i] = helperLoad(a, i == 33 ? 10 : i % 10);
        };
        KernelException e = assertSameFault(Dim3.of(1), Dim3.of(40), k);
        assertEquals(Optional.of(at(33, 0)), e.threadIdx());
    }

    @Test
    void guardedLanes_pastTheEnd_neverFault() {
        for (int n : new int[] {1, 31, 33, 100, 1000}) {
            float[] x = new float[n];
            float[] y = new float[n];
            Kernel k = t -> {
                int i = t.globalIdX();
                if (i < n) {
                    y[i] = x[i] + 1f;
                }
            };
            Dim3 grid = Dim3.of((n + 127) / 128);
            devices.reference().launch(grid, Dim3.of(128), k);
            devices.auto().launch(grid, Dim3.of(128), k);
            assertEquals(1f, y[n - 1]);
        }
    }

    /** A coordinate (x, y, 0), as blockIdx and threadIdx are reported. */
    private static Dim3 at(int x, int y) {
        return new Dim3(x, y, 0);
    }

    static long helperLoad(long[] a, int i) {
        return a[i] + 1;
    }

    /** Launches {@code k} on both devices; both must fail alike. Returns the reference's exception. */
    private static KernelException assertSameFault(Dim3 grid, Dim3 block, Kernel k) {
        KernelException ref = assertThrows(KernelException.class, () -> devices.reference().launch(grid, block, k));
        KernelException auto = assertThrows(KernelException.class, () -> devices.auto().launch(grid, block, k));
        Optional<String> diff = Differential.compareFailures(ref, auto);
        assertTrue(diff.isEmpty(), () -> diff.get());
        assertTrue(ref.getMessage().contains("blockIdx=" + ref.blockIdx()), ref.getMessage());
        ref.threadIdx().ifPresent(tid -> assertTrue(ref.getMessage().contains("threadIdx=" + tid), ref.getMessage()));
        return ref;
    }
}
