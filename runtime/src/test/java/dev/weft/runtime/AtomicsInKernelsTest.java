package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Atomics from kernels: every SM worker hammering the same words loses no update, and every operation
 * matches its CUDA definition on global arrays and on shared arrays, for each element type.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AtomicsInKernelsTest {

    private static final int BLOCK = 128;
    private static Device device;

    @BeforeAll
    static void createDevice() {
        device = TestDevices.reference(4);
    }

    @AfterAll
    static void closeDevice() {
        device.close();
    }

    // ---- contention ----------------------------------------------------------------------------

    @Test
    void histogram_allSmsHammeringSameBins_sumsExactly() {
        int n = 512 * BLOCK;
        int bins = 16;
        int[] data = new SplittableRandom(7).ints(n, 0, bins).toArray();
        int[] count = new int[bins];
        long[] weight = new long[bins];
        float[] countF = new float[bins];
        double[] weightD = new double[bins];
        device.launch(Dim3.of(n / BLOCK), Dim3.of(BLOCK), t -> {
            int i = t.globalIdX();
            int b = data[i];
            Atomics.add(count, b, 1);
            Atomics.add(weight, b, (long) i << 20);
            Atomics.add(countF, b, 1f);
            Atomics.add(weightD, b, i);
        });
        int[] wantCount = new int[bins];
        long[] wantWeight = new long[bins];
        double[] wantWeightD = new double[bins];
        for (int i = 0; i < n; i++) {
            wantCount[data[i]]++;
            wantWeight[data[i]] += (long) i << 20;
            wantWeightD[data[i]] += i;
        }
        assertEquals(n, Arrays.stream(count).sum());
        assertTrue(Arrays.stream(wantCount).allMatch(c -> c > 1000), "the bins are hot");
        for (int b = 0; b < bins; b++) {
            assertEquals(wantCount[b], count[b], "bin " + b);
            assertEquals(wantWeight[b], weight[b], "bin " + b);
            assertEquals(wantCount[b], countF[b], "bin " + b); // exact: integers below 2^24
            assertEquals(wantWeightD[b], weightD[b], "bin " + b); // exact: integers below 2^53
        }
    }

    @Test
    void intOps_underContention_loseNoUpdate() {
        int n = 256 * BLOCK;
        int limit = 9;
        int[] c = {0, Integer.MAX_VALUE, Integer.MIN_VALUE, 0, 0, -1, 0, 0, 0, -7};
        int[] exchanged = new int[n];
        device.launch(Dim3.of(n / BLOCK), Dim3.of(BLOCK), t -> {
            int g = t.globalIdX();
            Atomics.add(c, 0, 1);
            Atomics.min(c, 1, g * 31 % n - n / 2);
            Atomics.max(c, 2, g * 31 % n - n / 2);
            Atomics.or(c, 3, 1 << (g & 31));
            Atomics.xor(c, 4, g);
            Atomics.and(c, 5, ~(1 << (g & 31)));
            Atomics.inc(c, 6, limit);
            Atomics.dec(c, 7, limit);
            int old = c[8];
            while (true) {
                int witness = Atomics.compareAndSwap(c, 8, old, old + 1);
                if (witness == old) {
                    break;
                }
                old = witness;
            }
            exchanged[g] = Atomics.exchange(c, 9, g);
        });
        int xor = 0;
        for (int g = 0; g < n; g++) {
            xor ^= g;
        }
        assertEquals(n, c[0], "add");
        assertEquals(-n / 2, c[1], "min");
        assertEquals(n / 2 - 1, c[2], "max");
        assertEquals(-1, c[3], "or");
        assertEquals(xor, c[4], "xor");
        assertEquals(0, c[5], "and");
        assertEquals(n % (limit + 1), c[6], "inc wraps after limit");
        assertEquals((limit + 1 - n % (limit + 1)) % (limit + 1), c[7], "dec wraps to limit below 0");
        assertEquals(n, c[8], "compareAndSwap loop");
        assertExchangeChain(exchanged, c[9], -7);
    }

    /** Every value was exchanged in exactly once and out exactly once: the olds plus the final value are the initial value plus all ids. */
    private static void assertExchangeChain(int[] olds, int last, int initial) {
        int n = olds.length;
        int[] seen = new int[n];
        int initialSeen = 0;
        for (int v : olds) {
            if (v == initial) {
                initialSeen++;
            } else {
                seen[v]++;
            }
        }
        seen[last]++;
        assertEquals(1, initialSeen, "the initial value came out once");
        for (int g = 0; g < n; g++) {
            assertEquals(1, seen[g], "value " + g + " came out once");
        }
    }

    @Test
    void longOps_underContention_loseNoUpdate() {
        int n = 256 * BLOCK;
        long limit = 0x1_0000_0006L;
        long[] c = {0, Long.MAX_VALUE, Long.MIN_VALUE, 0, 0, -1, 0x1_0000_0004L, 3, 0};
        device.launch(Dim3.of(n / BLOCK), Dim3.of(BLOCK), t -> {
            int g = t.globalIdX();
            long v = ((long) g << 32) | g;
            Atomics.add(c, 0, v);
            Atomics.min(c, 1, -v);
            Atomics.max(c, 2, v);
            Atomics.or(c, 3, 1L << (g & 63));
            Atomics.xor(c, 4, v);
            Atomics.and(c, 5, ~(1L << (g & 63)));
            Atomics.inc(c, 6, limit);
            Atomics.dec(c, 7, 4);
            long old = c[8];
            while (true) {
                long witness = Atomics.compareAndSwap(c, 8, old, old + 2);
                if (witness == old) {
                    break;
                }
                old = witness;
            }
        });
        long sum = 0;
        long xor = 0;
        for (int g = 0; g < n; g++) {
            long v = ((long) g << 32) | g;
            sum += v;
            xor ^= v;
        }
        long maxV = ((long) (n - 1) << 32) | (n - 1);
        assertEquals(sum, c[0], "add");
        assertEquals(-maxV, c[1], "min");
        assertEquals(maxV, c[2], "max");
        assertEquals(-1L, c[3], "or");
        assertEquals(xor, c[4], "xor");
        assertEquals(0L, c[5], "and");
        // from 2^32 + 4 with limit 2^32 + 6: the third increment wraps to 0, the rest count up from there
        assertEquals(n - 3, c[6], "inc wraps after a 64-bit limit");
        assertEquals(((3 - n) % 5 + 5) % 5, c[7], "dec wraps to limit below 0");
        assertEquals(2L * n, c[8], "compareAndSwap loop");
    }

    @Test
    void floatAndDoubleOps_underContention_loseNoUpdate() {
        int n = 256 * BLOCK;
        float[] f = {0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f};
        double[] d = {0d, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0d};
        device.launch(Dim3.of(n / BLOCK), Dim3.of(BLOCK), t -> {
            int g = t.globalIdX();
            float v = (g * 37 % n) - n / 2;
            Atomics.add(f, 0, 0.5f);
            Atomics.min(f, 1, v);
            Atomics.max(f, 2, v);
            float old = f[3];
            while (true) {
                float witness = Atomics.compareAndSwap(f, 3, old, old + 1f);
                if (Float.floatToRawIntBits(witness) == Float.floatToRawIntBits(old)) {
                    break;
                }
                old = witness;
            }
            Atomics.add(d, 0, 0.25);
            Atomics.min(d, 1, v);
            Atomics.max(d, 2, v);
            double oldD = d[3];
            while (true) {
                double witness = Atomics.compareAndSwap(d, 3, oldD, oldD + 2);
                if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(oldD)) {
                    break;
                }
                oldD = witness;
            }
        });
        assertEquals(n * 0.5f, f[0]);
        assertEquals(-n / 2f, f[1]);
        assertEquals(n / 2f - 1, f[2]);
        assertEquals(n, f[3]);
        assertEquals(n * 0.25, d[0]);
        assertEquals(-n / 2d, d[1]);
        assertEquals(n / 2d - 1, d[2]);
        assertEquals(2d * n, d[3]);
    }

    @Test
    void sharedCounters_everyThreadOfCta_countedOnce_thenPublished() {
        int ctas = 40;
        int[] perCta = new int[ctas];
        long[] perCtaLong = new long[ctas];
        float[] perCtaFloat = new float[ctas];
        double[] perCtaDouble = new double[ctas];
        device.launch(Dim3.of(ctas), Dim3.of(256), t -> {
            int[] si = t.sharedInts(2);
            long[] sl = t.sharedLongs(1);
            float[] sf = t.sharedFloats(1);
            double[] sd = t.sharedDoubles(1);
            Atomics.add(si, 0, 1);
            Atomics.inc(si, 1, 99);
            Atomics.add(sl, 0, 1L << 40);
            Atomics.add(sf, 0, 2f);
            Atomics.add(sd, 0, 0.5);
            t.syncThreads();
            if (t.threadIdxX() == 0) {
                perCta[t.blockIdxX()] = si[0] * 1000 + si[1];
                perCtaLong[t.blockIdxX()] = sl[0];
                perCtaFloat[t.blockIdxX()] = sf[0];
                perCtaDouble[t.blockIdxX()] = sd[0];
            }
        });
        for (int b = 0; b < ctas; b++) {
            assertEquals(256 * 1000 + 256 % 100, perCta[b]);
            assertEquals(256L << 40, perCtaLong[b]);
            assertEquals(512f, perCtaFloat[b]);
            assertEquals(128d, perCtaDouble[b]);
        }
    }

    // ---- each operation against its definition, on global and on shared arrays ------------------

    interface IntOp {
        int apply(int[] a, int i, int v);
    }

    interface IntDef {
        int next(int old, int v);
    }

    interface LongOp {
        long apply(long[] a, int i, long v);
    }

    interface LongDef {
        long next(long old, long v);
    }

    interface FloatOp {
        float apply(float[] a, int i, float v);
    }

    interface FloatDef {
        float next(float old, float v);
    }

    interface DoubleOp {
        double apply(double[] a, int i, double v);
    }

    interface DoubleDef {
        double next(double old, double v);
    }

    /** Inputs: all pairs of a value list (so old == v occurs), padded to whole CTAs. */
    private record Pairs(int n, int[] left, int[] right) {
        static Pairs of(int count) {
            int n = (count * count + BLOCK - 1) / BLOCK * BLOCK;
            int[] l = new int[n];
            int[] r = new int[n];
            for (int k = 0; k < n; k++) {
                l[k] = k / count % count;
                r[k] = k % count;
            }
            return new Pairs(n, l, r);
        }
    }

    /**
     * Runs {@code op} once per element: on the global array itself, or on a shared copy where each thread
     * updates the element its right-hand neighbour loaded (crossing threads through the barrier).
     */
    private static void runOnce(boolean shared, int n, Kernel globalKernel, Kernel sharedKernel) {
        device.launch(Dim3.of(n / BLOCK), Dim3.of(BLOCK), shared ? sharedKernel : globalKernel);
    }

    private static void checkInt(String name, IntOp op, IntDef def) {
        int[] values = {0, 1, 2, 3, 5, 9, 10, 31, -1, -2, -10, Integer.MIN_VALUE, Integer.MIN_VALUE + 1,
            Integer.MAX_VALUE, Integer.MAX_VALUE - 1, 0x5555_5555, 123456789, -987654321};
        Pairs p = Pairs.of(values.length);
        for (boolean shared : new boolean[] {false, true}) {
            int[] target = new int[p.n()];
            int[] v = new int[p.n()];
            int[] ret = new int[p.n()];
            for (int k = 0; k < p.n(); k++) {
                target[k] = values[p.left()[k]];
                v[k] = values[p.right()[k]];
            }
            int[] old = target.clone();
            runOnce(shared, p.n(), t -> {
                int i = t.globalIdX();
                ret[i] = op.apply(target, i, v[i]);
            }, t -> {
                int tid = t.threadIdxX();
                int base = t.blockIdxX() * BLOCK;
                int j = (tid + 1) % BLOCK;
                int[] s = t.sharedInts(BLOCK);
                s[tid] = target[base + tid];
                t.syncThreads();
                ret[base + j] = op.apply(s, j, v[base + j]);
                t.syncThreads();
                target[base + tid] = s[tid];
            });
            for (int k = 0; k < p.n(); k++) {
                String at = name + (shared ? " on shared" : " on global") + "(old=" + old[k] + ", v=" + v[k] + ")";
                assertEquals(old[k], ret[k], at + " returns the old value");
                assertEquals(def.next(old[k], v[k]), target[k], at + " stores");
            }
        }
    }

    private static void checkLong(String name, LongOp op, LongDef def) {
        long[] values = {0, 1, 2, 3, 9, 10, -1, -2, -10, Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE,
            Long.MAX_VALUE - 1, 0xFFFF_FFFFL, 0x1_0000_0000L, 0x5555_5555_5555_5555L, -0x1234_5678_9abcL};
        Pairs p = Pairs.of(values.length);
        for (boolean shared : new boolean[] {false, true}) {
            long[] target = new long[p.n()];
            long[] v = new long[p.n()];
            long[] ret = new long[p.n()];
            for (int k = 0; k < p.n(); k++) {
                target[k] = values[p.left()[k]];
                v[k] = values[p.right()[k]];
            }
            long[] old = target.clone();
            runOnce(shared, p.n(), t -> {
                int i = t.globalIdX();
                ret[i] = op.apply(target, i, v[i]);
            }, t -> {
                int tid = t.threadIdxX();
                int base = t.blockIdxX() * BLOCK;
                int j = (tid + 1) % BLOCK;
                long[] s = t.sharedLongs(BLOCK);
                s[tid] = target[base + tid];
                t.syncThreads();
                ret[base + j] = op.apply(s, j, v[base + j]);
                t.syncThreads();
                target[base + tid] = s[tid];
            });
            for (int k = 0; k < p.n(); k++) {
                String at = name + (shared ? " on shared" : " on global") + "(old=" + old[k] + ", v=" + v[k] + ")";
                assertEquals(old[k], ret[k], at + " returns the old value");
                assertEquals(def.next(old[k], v[k]), target[k], at + " stores");
            }
        }
    }

    private static final float[] FLOATS = {0f, -0f, 1f, -1f, 2.5f, -3.75f, Float.NaN, Float.intBitsToFloat(0x7fc00123),
        Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, 1e-40f, 0.1f};

    private static void checkFloat(String name, FloatOp op, FloatDef def) {
        Pairs p = Pairs.of(FLOATS.length);
        for (boolean shared : new boolean[] {false, true}) {
            float[] target = new float[p.n()];
            float[] v = new float[p.n()];
            float[] ret = new float[p.n()];
            for (int k = 0; k < p.n(); k++) {
                target[k] = FLOATS[p.left()[k]];
                v[k] = FLOATS[p.right()[k]];
            }
            float[] old = target.clone();
            runOnce(shared, p.n(), t -> {
                int i = t.globalIdX();
                ret[i] = op.apply(target, i, v[i]);
            }, t -> {
                int tid = t.threadIdxX();
                int base = t.blockIdxX() * BLOCK;
                int j = (tid + 1) % BLOCK;
                float[] s = t.sharedFloats(BLOCK);
                s[tid] = target[base + tid];
                t.syncThreads();
                ret[base + j] = op.apply(s, j, v[base + j]);
                t.syncThreads();
                target[base + tid] = s[tid];
            });
            for (int k = 0; k < p.n(); k++) {
                String at = name + (shared ? " on shared" : " on global") + "(old=" + old[k] + ", v=" + v[k] + ")";
                assertEquals(Float.floatToRawIntBits(old[k]), Float.floatToRawIntBits(ret[k]), at + " returns the old value");
                assertEquals(Float.floatToIntBits(def.next(old[k], v[k])), Float.floatToIntBits(target[k]), at + " stores");
            }
        }
    }

    private static final double[] DOUBLES = {0d, -0d, 1d, -1d, 2.5d, -3.75d, Double.NaN,
        Double.longBitsToDouble(0x7ff8000000000123L), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE, Double.MAX_VALUE, 1e-310, 0.1};

    private static void checkDouble(String name, DoubleOp op, DoubleDef def) {
        Pairs p = Pairs.of(DOUBLES.length);
        for (boolean shared : new boolean[] {false, true}) {
            double[] target = new double[p.n()];
            double[] v = new double[p.n()];
            double[] ret = new double[p.n()];
            for (int k = 0; k < p.n(); k++) {
                target[k] = DOUBLES[p.left()[k]];
                v[k] = DOUBLES[p.right()[k]];
            }
            double[] old = target.clone();
            runOnce(shared, p.n(), t -> {
                int i = t.globalIdX();
                ret[i] = op.apply(target, i, v[i]);
            }, t -> {
                int tid = t.threadIdxX();
                int base = t.blockIdxX() * BLOCK;
                int j = (tid + 1) % BLOCK;
                double[] s = t.sharedDoubles(BLOCK);
                s[tid] = target[base + tid];
                t.syncThreads();
                ret[base + j] = op.apply(s, j, v[base + j]);
                t.syncThreads();
                target[base + tid] = s[tid];
            });
            for (int k = 0; k < p.n(); k++) {
                String at = name + (shared ? " on shared" : " on global") + "(old=" + old[k] + ", v=" + v[k] + ")";
                assertEquals(Double.doubleToRawLongBits(old[k]), Double.doubleToRawLongBits(ret[k]), at + " returns the old value");
                assertEquals(Double.doubleToLongBits(def.next(old[k], v[k])), Double.doubleToLongBits(target[k]), at + " stores");
            }
        }
    }

    private static boolean unsignedGreaterOrEqual(int a, int b) {
        return (a & 0xFFFF_FFFFL) >= (b & 0xFFFF_FFFFL);
    }

    private static boolean unsignedGreaterOrEqual(long a, long b) {
        return a + Long.MIN_VALUE >= b + Long.MIN_VALUE;
    }

    @Test
    void intOps_globalAndShared_matchCudaDefinitions() {
        checkInt("add", Atomics::add, (o, v) -> o + v);
        checkInt("exchange", Atomics::exchange, (o, v) -> v);
        checkInt("min", Atomics::min, (o, v) -> o <= v ? o : v);
        checkInt("max", Atomics::max, (o, v) -> o >= v ? o : v);
        checkInt("and", Atomics::and, (o, v) -> o & v);
        checkInt("or", Atomics::or, (o, v) -> o | v);
        checkInt("xor", Atomics::xor, (o, v) -> o ^ v);
        checkInt("inc", Atomics::inc, (o, v) -> unsignedGreaterOrEqual(o, v) ? 0 : o + 1);
        checkInt("dec", Atomics::dec, (o, v) -> o == 0 || !unsignedGreaterOrEqual(v, o) ? v : o - 1);
        checkInt("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 77), (o, v) -> o == v ? 77 : o);
    }

    @Test
    void longOps_globalAndShared_matchCudaDefinitions() {
        checkLong("add", Atomics::add, (o, v) -> o + v);
        checkLong("exchange", Atomics::exchange, (o, v) -> v);
        checkLong("min", Atomics::min, (o, v) -> o <= v ? o : v);
        checkLong("max", Atomics::max, (o, v) -> o >= v ? o : v);
        checkLong("and", Atomics::and, (o, v) -> o & v);
        checkLong("or", Atomics::or, (o, v) -> o | v);
        checkLong("xor", Atomics::xor, (o, v) -> o ^ v);
        checkLong("inc", Atomics::inc, (o, v) -> unsignedGreaterOrEqual(o, v) ? 0 : o + 1);
        checkLong("dec", Atomics::dec, (o, v) -> o == 0 || !unsignedGreaterOrEqual(v, o) ? v : o - 1);
        checkLong("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 77L), (o, v) -> o == v ? 77L : o);
    }

    @Test
    void floatOps_globalAndShared_matchDefinitions_includingNanAndSignedZero() {
        checkFloat("add", Atomics::add, (o, v) -> o + v);
        checkFloat("exchange", Atomics::exchange, (o, v) -> v);
        checkFloat("min", Atomics::min, (o, v) -> o != o || v != v ? Float.NaN
                : o == 0f && v == 0f ? Float.intBitsToFloat(Float.floatToRawIntBits(o) | Float.floatToRawIntBits(v))
                : o < v ? o : v);
        checkFloat("max", Atomics::max, (o, v) -> o != o || v != v ? Float.NaN
                : o == 0f && v == 0f ? Float.intBitsToFloat(Float.floatToRawIntBits(o) & Float.floatToRawIntBits(v))
                : o > v ? o : v);
        // bitwise: a NaN matches the same NaN, -0.0 does not match +0.0
        checkFloat("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 7.5f),
                (o, v) -> Float.floatToRawIntBits(o) == Float.floatToRawIntBits(v) ? 7.5f : o);
    }

    @Test
    void doubleOps_globalAndShared_matchDefinitions_includingNanAndSignedZero() {
        checkDouble("add", Atomics::add, (o, v) -> o + v);
        checkDouble("exchange", Atomics::exchange, (o, v) -> v);
        checkDouble("min", Atomics::min, (o, v) -> o != o || v != v ? Double.NaN
                : o == 0d && v == 0d ? Double.longBitsToDouble(Double.doubleToRawLongBits(o) | Double.doubleToRawLongBits(v))
                : o < v ? o : v);
        checkDouble("max", Atomics::max, (o, v) -> o != o || v != v ? Double.NaN
                : o == 0d && v == 0d ? Double.longBitsToDouble(Double.doubleToRawLongBits(o) & Double.doubleToRawLongBits(v))
                : o > v ? o : v);
        checkDouble("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 7.5d),
                (o, v) -> Double.doubleToRawLongBits(o) == Double.doubleToRawLongBits(v) ? 7.5d : o);
    }

    @Test
    void sharedFloatCompareAndSwap_startsFromPositiveZero_notNegativeZero() {
        float[] out = new float[4];
        device.launch(Dim3.of(1), Dim3.of(1), t -> {
            float[] s = t.sharedFloats(1); // zeroed: +0.0
            out[0] = Atomics.compareAndSwap(s, 0, -0f, 1f);
            out[1] = s[0];
            out[2] = Atomics.compareAndSwap(s, 0, 0f, 2f);
            out[3] = s[0];
        });
        assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(out[0]));
        assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(out[1]), "-0.0 did not match");
        assertEquals(0f, out[2]);
        assertEquals(2f, out[3], "+0.0 matched");
    }
}
