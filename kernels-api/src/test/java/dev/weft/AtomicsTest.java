package dev.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each atomic operation against its definition (CUDA's {@code atomicXxx}, written out independently here),
 * called directly on plain arrays, over edge values and random ones; and a few under real contention.
 */
class AtomicsTest {

    // ---- definitions ---------------------------------------------------------------------------

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

    /** CUDA atomicInc: {@code ((old >= val) ? 0 : (old + 1))} on unsigned words. */
    static int incDef(int old, int limit) {
        return Integer.toUnsignedLong(old) >= Integer.toUnsignedLong(limit) ? 0 : old + 1;
    }

    /** CUDA atomicDec: {@code (((old == 0) || (old > val)) ? val : (old - 1))} on unsigned words. */
    static int decDef(int old, int limit) {
        return old == 0 || Integer.toUnsignedLong(old) > Integer.toUnsignedLong(limit) ? limit : old - 1;
    }

    static long incDef(long old, long limit) {
        return unsignedBig(old).compareTo(unsignedBig(limit)) >= 0 ? 0 : old + 1;
    }

    static long decDef(long old, long limit) {
        return old == 0 || unsignedBig(old).compareTo(unsignedBig(limit)) > 0 ? limit : old - 1;
    }

    private static java.math.BigInteger unsignedBig(long v) {
        java.math.BigInteger b = java.math.BigInteger.valueOf(v);
        return v >= 0 ? b : b.add(java.math.BigInteger.ONE.shiftLeft(64));
    }

    /** min with NaN winning and -0.0 below +0.0, written without Math.min. */
    static float minDef(float a, float b) {
        if (a != a || b != b) {
            return Float.NaN;
        }
        if (a == 0f && b == 0f) {
            return (Float.floatToRawIntBits(a) | Float.floatToRawIntBits(b)) != 0 ? -0f : 0f;
        }
        return a < b ? a : b;
    }

    static float maxDef(float a, float b) {
        if (a != a || b != b) {
            return Float.NaN;
        }
        if (a == 0f && b == 0f) {
            return (Float.floatToRawIntBits(a) & Float.floatToRawIntBits(b)) != 0 ? -0f : 0f;
        }
        return a > b ? a : b;
    }

    static double minDef(double a, double b) {
        if (a != a || b != b) {
            return Double.NaN;
        }
        if (a == 0d && b == 0d) {
            return (Double.doubleToRawLongBits(a) | Double.doubleToRawLongBits(b)) != 0 ? -0d : 0d;
        }
        return a < b ? a : b;
    }

    static double maxDef(double a, double b) {
        if (a != a || b != b) {
            return Double.NaN;
        }
        if (a == 0d && b == 0d) {
            return (Double.doubleToRawLongBits(a) & Double.doubleToRawLongBits(b)) != 0 ? -0d : 0d;
        }
        return a > b ? a : b;
    }

    // ---- inputs --------------------------------------------------------------------------------

    static final float NAN_PAYLOAD = Float.intBitsToFloat(0x7fc00123);
    static final double NAN_PAYLOAD_D = Double.longBitsToDouble(0x7ff8000000000123L);

    static int[] intValues() {
        int[] edge = {0, 1, 2, 3, 5, 6, 31, 32, 100, -1, -2, -3, Integer.MIN_VALUE, Integer.MIN_VALUE + 1,
            Integer.MAX_VALUE, Integer.MAX_VALUE - 1};
        SplittableRandom r = new SplittableRandom(1);
        int[] v = new int[edge.length + 40];
        System.arraycopy(edge, 0, v, 0, edge.length);
        for (int i = edge.length; i < v.length; i++) {
            v[i] = i % 2 == 0 ? r.nextInt() : r.nextInt(-50, 50);
        }
        return v;
    }

    static long[] longValues() {
        long[] edge = {0, 1, 2, 3, 5, 6, 100, -1, -2, -3, Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE,
            Long.MAX_VALUE - 1, 0xFFFF_FFFFL, 0x1_0000_0000L, Integer.MIN_VALUE};
        SplittableRandom r = new SplittableRandom(2);
        long[] v = new long[edge.length + 40];
        System.arraycopy(edge, 0, v, 0, edge.length);
        for (int i = edge.length; i < v.length; i++) {
            v[i] = i % 2 == 0 ? r.nextLong() : r.nextLong(-50, 50);
        }
        return v;
    }

    static float[] floatValues() {
        float[] edge = {0f, -0f, 1f, -1f, 1.5f, -2.25f, Float.NaN, NAN_PAYLOAD, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE,
            Float.MIN_NORMAL, 1e-40f, 16777216f};
        SplittableRandom r = new SplittableRandom(3);
        float[] v = new float[edge.length + 30];
        System.arraycopy(edge, 0, v, 0, edge.length);
        for (int i = edge.length; i < v.length; i++) {
            v[i] = (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-5, 6)));
        }
        return v;
    }

    static double[] doubleValues() {
        double[] edge = {0d, -0d, 1d, -1d, 1.5d, -2.25d, Double.NaN, NAN_PAYLOAD_D, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE,
            Double.MIN_NORMAL, 1e-310, 9007199254740992d};
        SplittableRandom r = new SplittableRandom(4);
        double[] v = new double[edge.length + 30];
        System.arraycopy(edge, 0, v, 0, edge.length);
        for (int i = edge.length; i < v.length; i++) {
            v[i] = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-5, 6));
        }
        return v;
    }

    // ---- checks --------------------------------------------------------------------------------

    static void checkInt(String name, IntOp op, IntDef def) {
        int[] values = intValues();
        for (int old : values) {
            for (int v : values) {
                int[] a = {7, old, 9};
                int ret = op.apply(a, 1, v);
                String at = name + "(old=" + old + ", v=" + v + ")";
                assertEquals(old, ret, at + " returns the old value");
                assertEquals(def.next(old, v), a[1], at + " stores");
                assertEquals(7, a[0], at + " leaves neighbours");
                assertEquals(9, a[2], at + " leaves neighbours");
            }
        }
    }

    static void checkLong(String name, LongOp op, LongDef def) {
        long[] values = longValues();
        for (long old : values) {
            for (long v : values) {
                long[] a = {7, old, 9};
                long ret = op.apply(a, 1, v);
                String at = name + "(old=" + old + ", v=" + v + ")";
                assertEquals(old, ret, at + " returns the old value");
                assertEquals(def.next(old, v), a[1], at + " stores");
                assertEquals(7, a[0], at);
                assertEquals(9, a[2], at);
            }
        }
    }

    /** Compares bit patterns; {@code raw} also distinguishes NaN payloads. */
    static void checkFloat(String name, FloatOp op, FloatDef def, boolean raw) {
        float[] values = floatValues();
        for (float old : values) {
            for (float v : values) {
                float[] a = {7, old, 9};
                float ret = op.apply(a, 1, v);
                String at = name + "(old=" + old + ", v=" + v + ")";
                assertEquals(Float.floatToRawIntBits(old), Float.floatToRawIntBits(ret), at + " returns the old value");
                float want = def.next(old, v);
                if (raw) {
                    assertEquals(Float.floatToRawIntBits(want), Float.floatToRawIntBits(a[1]), at + " stores");
                } else {
                    assertEquals(Float.floatToIntBits(want), Float.floatToIntBits(a[1]), at + " stores");
                }
                assertEquals(7f, a[0], at);
                assertEquals(9f, a[2], at);
            }
        }
    }

    static void checkDouble(String name, DoubleOp op, DoubleDef def, boolean raw) {
        double[] values = doubleValues();
        for (double old : values) {
            for (double v : values) {
                double[] a = {7, old, 9};
                double ret = op.apply(a, 1, v);
                String at = name + "(old=" + old + ", v=" + v + ")";
                assertEquals(Double.doubleToRawLongBits(old), Double.doubleToRawLongBits(ret), at + " returns the old value");
                double want = def.next(old, v);
                if (raw) {
                    assertEquals(Double.doubleToRawLongBits(want), Double.doubleToRawLongBits(a[1]), at + " stores");
                } else {
                    assertEquals(Double.doubleToLongBits(want), Double.doubleToLongBits(a[1]), at + " stores");
                }
                assertEquals(7d, a[0], at);
                assertEquals(9d, a[2], at);
            }
        }
    }

    // ---- int -----------------------------------------------------------------------------------

    @Test
    void intOps_matchDefinitions() {
        checkInt("add", Atomics::add, (o, v) -> (int) ((long) o + v));
        checkInt("exchange", Atomics::exchange, (o, v) -> v);
        checkInt("min", Atomics::min, (o, v) -> o < v ? o : v);
        checkInt("max", Atomics::max, (o, v) -> o > v ? o : v);
        checkInt("and", Atomics::and, (o, v) -> o & v);
        checkInt("or", Atomics::or, (o, v) -> o | v);
        checkInt("xor", Atomics::xor, (o, v) -> o ^ v);
        checkInt("inc", Atomics::inc, AtomicsTest::incDef);
        checkInt("dec", Atomics::dec, AtomicsTest::decDef);
        // compareAndSwap: v is the expected value, the new value is fixed
        checkInt("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 424242), (o, v) -> o == v ? 424242 : o);
    }

    @Test
    void intInc_wrapsAfterLimit_unsigned() {
        int[] a = {0};
        List<Integer> seen = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            seen.add(Atomics.inc(a, 0, 2));
        }
        assertEquals(List.of(0, 1, 2, 0, 1, 2, 0, 1), seen);
        // -1 is 0xFFFFFFFF, at or past any limit: wraps to 0
        a[0] = -1;
        assertEquals(-1, Atomics.inc(a, 0, 5));
        assertEquals(0, a[0]);
        // a limit of 0xFFFFFFFF counts through the whole unsigned range
        a[0] = -2;
        Atomics.inc(a, 0, -1);
        assertEquals(-1, a[0]);
        Atomics.inc(a, 0, -1);
        assertEquals(0, a[0]);
    }

    @Test
    void intDec_wrapsToLimitBelowZero_unsigned() {
        int[] a = {1};
        List<Integer> seen = new ArrayList<>();
        for (int k = 0; k < 7; k++) {
            seen.add(Atomics.dec(a, 0, 2));
        }
        assertEquals(List.of(1, 0, 2, 1, 0, 2, 1), seen);
        // an old value above the limit (unsigned) resets to the limit
        a[0] = -5;
        assertEquals(-5, Atomics.dec(a, 0, 10));
        assertEquals(10, a[0]);
        a[0] = 0;
        Atomics.dec(a, 0, -1);
        assertEquals(-1, a[0]);
    }

    // ---- long ----------------------------------------------------------------------------------

    @Test
    void longOps_matchDefinitions() {
        checkLong("add", Atomics::add, (o, v) -> o + v);
        checkLong("exchange", Atomics::exchange, (o, v) -> v);
        checkLong("min", Atomics::min, (o, v) -> o < v ? o : v);
        checkLong("max", Atomics::max, (o, v) -> o > v ? o : v);
        checkLong("and", Atomics::and, (o, v) -> o & v);
        checkLong("or", Atomics::or, (o, v) -> o | v);
        checkLong("xor", Atomics::xor, (o, v) -> o ^ v);
        checkLong("inc", Atomics::inc, AtomicsTest::incDef);
        checkLong("dec", Atomics::dec, AtomicsTest::decDef);
        checkLong("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 424242L), (o, v) -> o == v ? 424242L : o);
    }

    @Test
    void longIncDec_wrap_unsigned64() {
        long[] a = {0xFFFF_FFFFL};
        // past the 32-bit range the counter still counts: no 32-bit truncation
        Atomics.inc(a, 0, 0x1_0000_0000L);
        assertEquals(0x1_0000_0000L, a[0]);
        Atomics.inc(a, 0, 0x1_0000_0000L);
        assertEquals(0, a[0]);
        Atomics.dec(a, 0, Long.MIN_VALUE); // 0 -> limit
        assertEquals(Long.MIN_VALUE, a[0]);
        Atomics.dec(a, 0, Long.MIN_VALUE);
        assertEquals(Long.MAX_VALUE, a[0]);
        a[0] = -1;
        Atomics.dec(a, 0, 3); // 0xFFFF...F > 3 unsigned
        assertEquals(3, a[0]);
    }

    // ---- float ---------------------------------------------------------------------------------

    @Test
    void floatOps_matchDefinitions() {
        checkFloat("add", Atomics::add, (o, v) -> o + v, false);
        checkFloat("exchange", Atomics::exchange, (o, v) -> v, true);
        checkFloat("min", Atomics::min, AtomicsTest::minDef, false);
        checkFloat("max", Atomics::max, AtomicsTest::maxDef, false);
        // compareAndSwap compares bit patterns: NaN matches the same NaN, -0.0 does not match +0.0
        checkFloat("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 4.25f),
                (o, v) -> Float.floatToRawIntBits(o) == Float.floatToRawIntBits(v) ? 4.25f : o, true);
    }

    @Test
    void floatCompareAndSwap_bitwise_nanAndSignedZero() {
        float[] a = {Float.NaN};
        assertEquals(Float.NaN, Atomics.compareAndSwap(a, 0, Float.NaN, 1f));
        assertEquals(1f, a[0], "NaN expected matches a stored NaN with the same bits");
        a[0] = NAN_PAYLOAD;
        Atomics.compareAndSwap(a, 0, Float.NaN, 2f);
        assertEquals(0x7fc00123, Float.floatToRawIntBits(a[0]), "a NaN with other bits does not match");
        a[0] = 0f;
        assertEquals(0f, Atomics.compareAndSwap(a, 0, -0f, 3f));
        assertEquals(0f, a[0], "-0.0 does not match +0.0, though -0.0 == +0.0");
        a[0] = -0f;
        Atomics.compareAndSwap(a, 0, -0f, 3f);
        assertEquals(3f, a[0]);
    }

    @Test
    void floatMinMax_nanWins_negativeZeroBelowPositive() {
        float[] a = {1f};
        Atomics.min(a, 0, Float.NaN);
        assertEquals(Float.NaN, a[0]);
        Atomics.max(a, 0, 5f);
        assertEquals(Float.NaN, a[0], "a stored NaN stays");
        a[0] = 0f;
        Atomics.min(a, 0, -0f);
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(a[0]));
        Atomics.max(a, 0, 0f);
        assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(a[0]));
    }

    // ---- double --------------------------------------------------------------------------------

    @Test
    void doubleOps_matchDefinitions() {
        checkDouble("add", Atomics::add, (o, v) -> o + v, false);
        checkDouble("exchange", Atomics::exchange, (o, v) -> v, true);
        checkDouble("min", Atomics::min, AtomicsTest::minDef, false);
        checkDouble("max", Atomics::max, AtomicsTest::maxDef, false);
        checkDouble("compareAndSwap", (a, i, v) -> Atomics.compareAndSwap(a, i, v, 4.25d),
                (o, v) -> Double.doubleToRawLongBits(o) == Double.doubleToRawLongBits(v) ? 4.25d : o, true);
    }

    @Test
    void doubleCompareAndSwap_bitwise_nanAndSignedZero() {
        double[] a = {Double.NaN};
        Atomics.compareAndSwap(a, 0, Double.NaN, 1d);
        assertEquals(1d, a[0]);
        a[0] = NAN_PAYLOAD_D;
        Atomics.compareAndSwap(a, 0, Double.NaN, 2d);
        assertEquals(0x7ff8000000000123L, Double.doubleToRawLongBits(a[0]));
        a[0] = 0d;
        Atomics.compareAndSwap(a, 0, -0d, 3d);
        assertEquals(0d, a[0]);
        a[0] = -0d;
        Atomics.compareAndSwap(a, 0, -0d, 3d);
        assertEquals(3d, a[0]);
    }

    // ---- errors and contention -----------------------------------------------------------------

    @Test
    void indexOutOfBounds_throws() {
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Atomics.add(new int[2], 2, 1));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Atomics.inc(new long[2], -1, 1));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Atomics.min(new float[0], 0, 1f));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Atomics.max(new double[1], 1, 1d));
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void contention_platformThreads_loseNoUpdate() throws InterruptedException {
        int threads = 4;
        int perThread = 50_000;
        int[] ints = new int[4];
        long[] longs = new long[2];
        float[] floats = new float[1];
        double[] doubles = new double[1];
        List<Thread> ts = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
            int id = k;
            ts.add(Thread.ofPlatform().start(() -> {
                for (int j = 0; j < perThread; j++) {
                    Atomics.add(ints, 0, 1);
                    Atomics.inc(ints, 1, 6);
                    Atomics.max(ints, 2, id * perThread + j);
                    Atomics.min(ints, 3, -(id * perThread + j));
                    Atomics.add(longs, 0, 3L);
                    Atomics.dec(longs, 1, 9L);
                    Atomics.add(floats, 0, 1f);
                    Atomics.add(doubles, 0, 0.5);
                }
            }));
        }
        for (Thread t : ts) {
            t.join();
        }
        int n = threads * perThread;
        assertEquals(n, ints[0]);
        assertEquals(n % 7, ints[1]);
        assertEquals(n - 1, ints[2]);
        assertEquals(-(n - 1), ints[3]);
        assertEquals(3L * n, longs[0]);
        assertEquals((10 - n % 10) % 10, longs[1]);
        assertEquals(n, floats[0]);
        assertEquals(n / 2.0, doubles[0]);
    }
}
