package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Kernels the SIMD backend does not compile run on the reference executor, with a reason naming construct and line. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeclineTest {

    static Device device;
    static int field = 3;
    private float instanceScale = 2f;

    @BeforeAll
    static void start() {
        device = Device.create();
    }

    @AfterAll
    static void stop() {
        device.close();
    }

    private static CompileReport declined(Kernel k, String... fragments) {
        CompileReport r = device.compileReport(k);
        assertFalse(r.compiled(), () -> "compiled: " + r.listing());
        assertEquals("reference", r.executor());
        String all = String.join("\n", r.reasons());
        for (String f : fragments) {
            assertTrue(all.contains(f), () -> "reasons lack '" + f + "': " + all);
        }
        assertTrue(all.contains("DeclineTest.java:"), all);
        return r;
    }

    @Test
    void sharedAllocationOnOnePath_declinedNamingIt() {
        int[] out = new int[64];
        declined(t -> {
            int extra = 0;
            if (t.threadIdxX() < 16) {
                extra = t.sharedInts(8).length;
            }
            float[] s = t.sharedFloats(64);
            s[t.threadIdxX()] = 1;
            out[t.threadIdxX()] = (int) s[0] + extra;
        }, "shared allocation (sharedFloats) at DeclineTest.java:", "depends on the path");
    }

    @Test
    void sharedAllocationInLoop_declinedNamingIt() {
        int[] out = new int[64];
        declined(t -> {
            int sum = 0;
            for (int j = 0; j < 2; j++) {
                sum += t.sharedLongs(4 + j).length;
            }
            out[t.threadIdxX()] = sum;
        }, "shared allocation (sharedLongs) at DeclineTest.java:", "inside a loop");
    }

    @Test
    void sharedLengthPerThread_declinedNamingIt() {
        int[] out = new int[64];
        declined(t -> out[t.threadIdxX()] = t.sharedDoubles(t.threadIdxX()).length,
                "shared allocation (sharedDoubles) at DeclineTest.java:", "length that differs between threads");
    }

    @Test
    void allocationStringsAndUnknownCalls_declined() {
        int[] out = new int[64];
        declined(t -> out[t.threadIdxX()] = new int[3].length, "array allocation");
        declined(t -> out[t.threadIdxX()] = ("x" + t.threadIdxX()).length(), "invokedynamic");
        declined(t -> out[t.threadIdxX()] = (int) System.nanoTime(), "call to java.lang.System.nanoTime");
        declined(t -> out[t.threadIdxX()] = Integer.valueOf(t.laneId()).hashCode(), "Integer.valueOf");
    }

    @Test
    void exceptionsAndSynchronization_declined() {
        int[] out = new int[64];
        declined(t -> {
            try {
                out[t.threadIdxX()] = 10 / t.threadIdxX();
            } catch (ArithmeticException e) {
                out[t.threadIdxX()] = -1;
            }
        }, "try/catch");
        declined(t -> {
            if (t.threadIdxX() > 100) {
                throw new IllegalStateException("no");
            }
        }, "throw statement");
        Object lock = new Object();
        declined(t -> {
            synchronized (lock) {
                out[0]++;
            }
        }, "captured value");
    }

    @Test
    void instanceFieldsAndStaticWrites_declined() {
        float[] out = new float[64];
        declined(t -> out[t.threadIdxX()] = instanceScale, "enclosing instance ('this')");
        declined(t -> field = t.threadIdxX(), "write to field dev.weft.simd.DeclineTest.field");
    }

    static int recurse(int n) {
        return n <= 0 ? 0 : 1 + recurse(n - 1);
    }

    @Test
    void recursion_declined() {
        int[] out = new int[64];
        declined(t -> out[t.threadIdxX()] = recurse(t.threadIdxX()), "recursive call");
    }

    @Test
    void arrayChosenPerThread_declined() {
        float[] a = new float[64];
        float[] b = new float[64];
        declined(t -> {
            float[] which = t.threadIdxX() < 16 ? a : b;
            which[t.threadIdxX()] = 1;
        }, "array reference chosen per thread");
    }

    @Test
    void declinedKernel_stillRunsCorrectlyOnTheReference() {
        int[] out = new int[64];
        Kernel k = t -> {
            int sum = 0;
            for (int j = 0; j < 2; j++) {
                // The j-th allocation of each thread: which shared array it is depends on the iteration.
                int[] s = t.sharedInts(64);
                s[t.threadIdxX()] = t.threadIdxX() + j;
                t.syncThreads();
                sum += s[63 - t.threadIdxX()];
                t.syncThreads();
            }
            out[t.threadIdxX()] = sum;
        };
        device.launch(Dim3.of(1), Dim3.of(64), k);
        for (int i = 0; i < 64; i++) {
            assertEquals(127 - 2 * i, out[i]);
        }
        assertFalse(device.compileReport(k).compiled());
    }

    @Test
    void staticFieldsRead_areParameters() {
        int[] out = new int[64];
        Kernel k = t -> out[t.threadIdxX()] = field * t.threadIdxX();
        CompileReport r = device.compileReport(k);
        assertTrue(r.compiled(), r::summary);
        field = 5;
        device.launch(Dim3.of(1), Dim3.of(64), k);
        assertEquals(5 * 7, out[7]);
        field = 3;
    }
}
