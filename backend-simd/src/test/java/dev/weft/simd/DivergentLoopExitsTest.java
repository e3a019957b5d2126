package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A divergent loop with several exits, and a value each exit sets to a different uniform value (constants): the
 * phi where the exits meet has uniform operands, but each thread takes the one of the exit it left by. Uniformity
 * took it as uniform, since its labels stop at the loop's back edge and the exits never met as two paths of one
 * branch; every thread got one exit's value (found by FuzzTest, seed 0x5600005a of a 16-thread-warp run: a helper
 * returning one constant from inside its loop and another after it). Likewise a phi operand carried out of a
 * divergent loop by its exit edge, and a switch on a counter of a divergent loop after the loop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DivergentLoopExitsTest {

    @AutoClose
    static final Differential d = new Differential();

    /** Inlined: an early return from inside the loop, another value after it. */
    static int firstBelow(long p) {
        for (int k = 0; k < 5; k++) {
            if (k < p) {
                return 1;
            }
            p = -503L * p;
        }
        return 2;
    }

    static Kernel helperReturns(Object[] a) {
        long[] in = (long[]) a[0];
        int[] out = (int[]) a[1];
        int n = in.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                out[i] = firstBelow(in[i]);
            }
        };
    }

    @Test
    void helperReturningConstantsFromLoopAndAfter_eachThreadItsExit() {
        long[] in = Differential.longs(100, 71);
        for (int i = 0; i < in.length; i += 3) {
            in[i] = -(in[i] % 1000);
        }
        d.check(Dim3.of(2), Dim3.of(64), DivergentLoopExitsTest::helperReturns, in, new int[100]);
    }

    /**
     * A divergent loop inside a uniform branch: its exit edge goes straight to the phi where the branch joins, with
     * a value uniform inside the loop. That phi operand is used outside the loop, so each thread's value of the
     * iteration it left at (FuzzTest seed 0x72000229 with AVX2: threads that never entered got the last thread's).
     */
    static Kernel loopInUniformBranch(Object[] a) {
        long[] out = (long[]) a[0];
        int[] flag = (int[]) a[1];
        return t -> {
            int i = t.globalIdX();
            long v = 795L << 32;
            if (flag[0] > 0) {
                for (int k = i % 6; k > 0; k--) {
                    v -= v;
                }
            }
            out[i] = v;
        };
    }

    @Test
    void loopExitIntoUniformBranchJoin_eachThreadItsValue() {
        d.check(Dim3.of(2), Dim3.of(64), DivergentLoopExitsTest::loopInUniformBranch, new long[128], new int[] {1});
    }

    /** A break that sets a flag, and a uniform value of the captured parameter on the counted exit. */
    static Kernel breakFlag(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int u = ((int[]) a[2])[0];
        int n = in.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int r = u;
            for (int k = 0; k < 8; k++) {
                if (((in[i] >> k) & 1) == 1) {
                    r = 7;
                    break;
                }
            }
            out[i] = r;
        };
    }

    @Test
    void breakSettingAConstant_eachThreadItsExit() {
        d.check(Dim3.of(3), Dim3.of(33), DivergentLoopExitsTest::breakFlag, Differential.ints(99, 72, 0, 300), new int[99],
                new int[] {-5});
    }

    /** Two breaks with different constants and the loop's own exit; a while loop whose condition diverges too. */
    static Kernel threeExits(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = in.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int r = 0;
            int k = 0;
            while (k < (in[i] & 15)) {
                if (k * k > in[i]) {
                    r = 100;
                    break;
                }
                if (k == (in[i] >> 4 & 7)) {
                    r = 200;
                    break;
                }
                k++;
            }
            out[i] = r + k;
        };
    }

    @Test
    void threeExitsWithConstants_eachThreadItsExit() {
        d.check(Dim3.of(2), Dim3.of(100), DivergentLoopExitsTest::threeExits, Differential.ints(200, 73, 0, 256), new int[200]);
    }

    /**
     * A switch after a divergent loop on the loop's counter (uniform inside the loop, each thread's exit value after
     * it). Uniformity judged the switch by the counter's shape inside the loop, so the switch was not a divergent
     * branch while the code generator, which asks for the shape at the branch, split the threads by their values:
     * the arms' values met at a phi taken as uniform, and every thread got the last arm's (fuzz extras, seed
     * 0x143005ec: 7 for every thread where each thread's counter, 1 or 5, selects the default, 11).
     */
    static Kernel switchOnExitCounter(Object[] a) {
        long[] in = (long[]) a[0];
        long[] out = (long[]) a[1];
        int n = in.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int c = 0;
            do {
                c++;
            } while (c < 5 && -39L > in[i]);
            out[i] = switch (c) {
                case 2 -> 7L;
                case 4, 11 -> 9L;
                default -> 11L;
            };
        };
    }

    @Test
    void switchOnDivergentLoopCounter_eachThreadItsCase() {
        long[] in = Differential.longs(100, 73);
        d.check(Dim3.of(2), Dim3.of(64), DivergentLoopExitsTest::switchOnExitCounter, in, new long[100]);
    }

    /** The same with the counter's exit values reaching cases of their own, and an if on a flag set in the loop. */
    static Kernel switchAndFlagAfterLoop(Object[] a) {
        int[] in = (int[]) a[0];
        int[] out = (int[]) a[1];
        int n = in.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int c = 0;
            boolean odd = false;
            while (c < (in[i] & 7)) {
                c++;
                odd = !odd;
            }
            int r;
            switch (c) {
                case 0 -> r = 100;
                case 1, 2 -> r = 200 + c;
                case 6 -> r = 300;
                default -> r = -c;
            }
            if (odd) {
                r ^= 0x4000;
            }
            out[i] = r;
        };
    }

    @Test
    void switchAndFlagOnDivergentLoopValues_eachThreadItsOwn() {
        d.check(Dim3.of(2), Dim3.of(64), DivergentLoopExitsTest::switchAndFlagAfterLoop, Differential.ints(100, 74, 0, 1000), new int[100]);
    }
}
