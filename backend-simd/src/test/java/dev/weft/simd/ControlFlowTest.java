package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Divergent and uniform control flow: branches, loops, early returns, inlined calls; each against the reference. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControlFlowTest {

    @AutoClose
    static final Differential d = new Differential();
    static final int N = 1000;
    static final Dim3 GRID = Dim3.of((N + 127) / 128);
    static final Dim3 BLOCK = Dim3.of(128);

    private static Object[] data() {
        return new Object[] {Differential.floats(N, 11, -1, 1), new float[N], Differential.ints(N, 12, -50, 50), new int[N]};
    }

    static Kernel ifElse(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                if (x[i] > 0) {
                    y[i] = x[i] * 2;
                } else {
                    y[i] = -x[i];
                }
            }
        };
    }

    @Test
    void ifElse_divergent_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::ifElse, data());
    }

    static Kernel chains(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i >= x.length) {
                return;
            }
            float v = x[i];
            int c = k[i];
            float r;
            if (c > 20) {
                if (v > 0.5f) {
                    r = 1;
                } else if (v > 0) {
                    r = 2;
                } else {
                    r = 3;
                }
            } else if (c < -20) {
                r = v > 0 ? 4 : 5;
            } else if (c == 0) {
                r = 6;
            } else {
                r = v * c;
            }
            y[i] = r;
        };
    }

    @Test
    void nestedChains_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::chains, data());
    }

    static Kernel shortCircuit(Object[] a) {
        float[] x = (float[]) a[0];
        int[] out = (int[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            boolean inside = i < n && x[i] > 0 && x[i] < 0.5f;
            boolean either = i < n && (x[i] < -0.9f || i % 3 == 0);
            if (inside || either) {
                out[i] = inside ? 1 : 2;
            } else if (i < n) {
                out[i] = -1;
            }
        };
    }

    @Test
    void shortCircuitAndBooleans_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::shortCircuit, data());
    }

    static Kernel uniformLoop(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int n = x.length;
        int m = 9;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float acc = 0;
                for (int j = 0; j < m; j++) {
                    acc += x[(i + j) % n] * j;
                }
                y[i] = acc;
            }
        };
    }

    @Test
    void uniformLoop_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::uniformLoop, data());
    }

    static Kernel varyingTrips(Object[] a) {
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        int n = y.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                int c = Math.abs(k[i]) % 17;
                float acc = 0;
                int j;
                for (j = 0; j < c; j++) {
                    acc += j * 0.5f;
                }
                y[i] = acc;
                out[i] = j * 3;
            }
        };
    }

    @Test
    void loopWithPerThreadTripCount_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::varyingTrips, data());
    }

    static Kernel breakContinue(Object[] a) {
        float[] x = (float[]) a[0];
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int found = -1;
            int sum = 0;
            for (int j = 0; j < 40; j++) {
                if ((j + i) % 3 == 0) {
                    continue;
                }
                sum += j;
                if (x[(i + j) % n] > 0.8f) {
                    found = j;
                    break;
                }
            }
            int w = 0;
            while (true) {
                w++;
                if (w > Math.abs(k[i]) || w > 30) {
                    break;
                }
            }
            out[i] = found * 1000 + sum + w * 100000;
        };
    }

    @Test
    void breakAndContinue_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::breakContinue, data());
    }

    static Kernel earlyReturn(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] out = (int[]) a[3];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            if (x[i] < -0.5f) {
                return;
            }
            y[i] = x[i];
            for (int j = 0; j < 25; j++) {
                if (x[(i * 7 + j) % n] > 0.9f) {
                    out[i] = j;
                    return;
                }
            }
            out[i] = -7;
        };
    }

    @Test
    void earlyReturnsIncludingFromLoops_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::earlyReturn, data());
    }

    static Kernel nestedLoops(Object[] a) {
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        float[] y = (float[]) a[1];
        int n = k.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int outer = Math.abs(k[i]) % 7;
            int total = 0;
            float f = 0;
            for (int p = 0; p < outer; p++) {
                int inner = (p + i) % 5;
                for (int q = 0; q <= inner; q++) {
                    total += p * q + 1;
                    if (total > 60) {
                        break;
                    }
                }
                f += total * 0.25f;
            }
            out[i] = total;
            y[i] = f;
        };
    }

    @Test
    void nestedDivergentLoops_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::nestedLoops, data());
    }

    static Kernel switches(Object[] a) {
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        int n = k.length;
        int mode = 3;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int r;
            switch (Math.abs(k[i]) % 6) {
                case 0 -> r = 10;
                case 1, 4 -> r = 20 + i;
                case 3 -> r = -k[i];
                default -> r = 7;
            }
            switch (mode) {
                case 1:
                    r += 1;
                    break;
                case 3:
                    r += 3;
                    break;
                default:
                    r += 100;
            }
            int sparse = switch (k[i]) {
                case -40 -> 1;
                case 0 -> 2;
                case 17 -> 3;
                case 1000 -> 4;
                default -> 0;
            };
            out[i] = r * 10 + sparse;
        };
    }

    @Test
    void switchesDivergentAndUniform_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::switches, data());
    }

    static Kernel mandelbrot(Object[] a) {
        int[] out = (int[]) a[3];
        int w = 40;
        int h = 25;
        int maxIter = 200;
        return t -> {
            int px = t.globalIdX();
            int py = t.globalIdY();
            if (px >= w || py >= h) {
                return;
            }
            float cx = -2.0f + px * (3.0f / w);
            float cy = -1.25f + py * (2.5f / h);
            float x = 0;
            float y = 0;
            int it = 0;
            while (x * x + y * y <= 4f && it < maxIter) {
                float xt = x * x - y * y + cx;
                y = 2 * x * y + cy;
                x = xt;
                it++;
            }
            out[py * w + px] = it;
        };
    }

    @Test
    void mandelbrot_divergentLoop_matchesReference() {
        Object[] data = data();
        d.check(Dim3.of(2, 4), Dim3.of(32, 8), ControlFlowTest::mandelbrot, data);
        d.check(Dim3.of(3, 2), Dim3.of(16, 16), ControlFlowTest::mandelbrot, data);
    }

    static Kernel swap(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float p = x[i];
            float q = i;
            int steps = Math.abs(k[i]) % 9;
            for (int s = 0; s < steps; s++) {
                float tmp = p;
                p = q;
                q = tmp + p;
            }
            y[i] = p - q;
        };
    }

    @Test
    void loopCarriedSwap_parallelCopies_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::swap, data());
    }

    static int clampIndex(int i, int n) {
        if (i < 0) {
            return 0;
        }
        return i >= n ? n - 1 : i;
    }

    static float smooth(float[] x, int i) {
        int n = x.length;
        float s = 0;
        for (int d = -2; d <= 2; d++) {
            s += x[clampIndex(i + d, n)] * weight(d);
        }
        return s;
    }

    static float weight(int d) {
        return switch (Math.abs(d)) {
            case 0 -> 0.4f;
            case 1 -> 0.2f;
            default -> 0.1f;
        };
    }

    static boolean isOdd(int v) {
        return (v & 1) != 0;
    }

    static Kernel calls(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        int[] k = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = isOdd(k[i]) ? smooth(x, i) : -smooth(x, n - 1 - i);
            }
        };
    }

    @Test
    void staticCallsAreInlined_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::calls, data());
    }

    static Kernel labeled(Object[] a) {
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        int n = k.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int acc = 0;
            outer:
            for (int p = 0; p < 12; p++) {
                for (int q = 0; q < 12; q++) {
                    if ((p * q + i) % 7 == 0) {
                        continue outer;
                    }
                    if (q > Math.abs(k[i]) % 9) {
                        break;
                    }
                    if (acc > 40 + i % 13) {
                        break outer;
                    }
                    acc += q;
                }
                acc += 100;
            }
            out[i] = acc;
        };
    }

    @Test
    void labeledBreakAndContinue_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::labeled, data());
    }

    static Kernel doWhile(Object[] a) {
        int[] k = (int[]) a[2];
        int[] out = (int[]) a[3];
        int n = k.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int v = Math.abs(k[i]) + 1;
            int steps = 0;
            do {
                v = (v % 2 == 0) ? v / 2 : 3 * v + 1;
                steps++;
            } while (v != 1 && steps < 500);
            out[i] = steps;
        };
    }

    @Test
    void doWhileCollatz_matchesReference() {
        d.check(GRID, BLOCK, ControlFlowTest::doWhile, data());
    }
}
