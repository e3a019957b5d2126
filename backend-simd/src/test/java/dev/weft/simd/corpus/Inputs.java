package dev.weft.simd.corpus;

import java.util.SplittableRandom;

/**
 * Seeded random inputs for corpus kernels. A case's setup is run twice with generators of the same seed,
 * once per executor, so both get equal inputs in arrays of their own.
 *
 * <p>The "special" generators mix ordinary values with the ones that break naive lowerings: NaN, the
 * infinities, both zeros, subnormals, the extremes of each type, -1, and values next to the int and long
 * limits, so conversions, comparisons and overflow meet their edge cases.
 */
public final class Inputs {

    private static final float[] SPECIAL_FLOATS = {
        Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE,
        Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 1f, -1f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f,
        2.1474836E9f, -2.1474836E9f, 2.1474839E9f, 9.223372E18f, -9.223373E18f, 1e10f, -1e10f, 16777217f, 3e-39f,
        Float.intBitsToFloat(0x7fc00001), Float.intBitsToFloat(0xffc00000)
    };

    private static final double[] SPECIAL_DOUBLES = {
        Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0d, -0d, Double.MIN_VALUE, -Double.MIN_VALUE,
        Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE, 1d, -1d, 0.5d, -0.5d, 1.5d, -1.5d, 2.5d, -2.5d,
        2147483647.0, 2147483647.5, -2147483648.0, -2147483648.9, 2147483648.0, 9.223372036854775807E18,
        -9.223372036854775808E18, 1e300, -1e300, 9007199254740993.0, 1e-310, Float.MAX_VALUE * 2.0,
        Double.longBitsToDouble(0x7ff8000000000001L)
    };

    private static final int[] SPECIAL_INTS = {
        0, 1, -1, 2, -2, 31, 32, 33, 63, 64, -31, -32, 7, -7, Integer.MAX_VALUE, Integer.MIN_VALUE,
        Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1, 0x55555555, 0xaaaaaaaa, 65536, -65536, 46341
    };

    private static final long[] SPECIAL_LONGS = {
        0L, 1L, -1L, 2L, -2L, 31L, 32L, 63L, 64L, 65L, -63L, -64L, Long.MAX_VALUE, Long.MIN_VALUE,
        Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 32, -(1L << 32),
        0x5555555555555555L, 0xaaaaaaaaaaaaaaaaL, 3037000500L
    };

    private final SplittableRandom random;

    /** A generator for {@code seed}. */
    public Inputs(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /**
     * A problem size for a launch of {@code threads} threads: at least three quarters of them and at most
     * all, so some launches have idle threads past the end (guards taken) and some have none.
     */
    public int sizeFor(int threads) {
        int low = Math.max(1, threads - threads / 4);
        return random.nextInt(low, threads + 1);
    }

    /** An int in {@code [lo, hi)}. */
    public int nextInt(int lo, int hi) {
        return random.nextInt(lo, hi);
    }

    /** Any int. */
    public int nextInt() {
        return random.nextInt();
    }

    /** Any long. */
    public long nextLong() {
        return random.nextLong();
    }

    /** A float in {@code [lo, hi)}. */
    public float nextFloat(float lo, float hi) {
        return lo + (hi - lo) * (float) random.nextDouble();
    }

    /** A double in {@code [lo, hi)}. */
    public double nextDouble(double lo, double hi) {
        return random.nextDouble(lo, hi);
    }

    /** Whether a coin with probability {@code p} comes up. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** {@code n} ints in {@code [lo, hi)}. */
    public int[] ints(int n, int lo, int hi) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = random.nextInt(lo, hi);
        }
        return a;
    }

    /** {@code n} ints over the whole range, one in four a special value. */
    public int[] intsSpecial(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = chance(0.25) ? SPECIAL_INTS[random.nextInt(SPECIAL_INTS.length)] : random.nextInt();
        }
        return a;
    }

    /**
     * {@code n} ints for generated kernels: a third small ({@code [-8, 8]}, so comparisons often meet equal
     * values and shifts and trip counts stay short), a third special, a third over the whole range.
     */
    public int[] intsMixed(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(3);
            a[i] = kind == 0 ? random.nextInt(-8, 9) : kind == 1 ? SPECIAL_INTS[random.nextInt(SPECIAL_INTS.length)] : random.nextInt();
        }
        return a;
    }

    /** As {@link #intsMixed}, for longs. */
    public long[] longsMixed(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(3);
            a[i] = kind == 0 ? random.nextInt(-8, 9) : kind == 1 ? SPECIAL_LONGS[random.nextInt(SPECIAL_LONGS.length)] : random.nextLong();
        }
        return a;
    }

    /**
     * {@code n} floats for generated kernels: 40% small integers in {@code [-8, 8]}, 35% in
     * {@code [-100, 100)}, 15% of random magnitude and 10% special (NaN, infinities, zeros, extremes), so
     * that NaN does not swallow most results.
     */
    public float[] floatsMixed(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            int roll = random.nextInt(100);
            a[i] = roll < 40 ? random.nextInt(-8, 9) : roll < 75 ? nextFloat(-100f, 100f)
                    : roll < 90 ? (float) ((random.nextBoolean() ? 1 : -1) * Math.scalb(1 + random.nextDouble(), random.nextInt(-30, 40)))
                    : SPECIAL_FLOATS[random.nextInt(SPECIAL_FLOATS.length)];
        }
        return a;
    }

    /** As {@link #floatsMixed}, for doubles. */
    public double[] doublesMixed(int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            int roll = random.nextInt(100);
            a[i] = roll < 40 ? random.nextInt(-8, 9) : roll < 75 ? random.nextDouble(-100, 100)
                    : roll < 90 ? (random.nextBoolean() ? 1 : -1) * Math.scalb(1 + random.nextDouble(), random.nextInt(-60, 70))
                    : SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)];
        }
        return a;
    }

    /** {@code n} longs in {@code [lo, hi)}. */
    public long[] longs(int n, long lo, long hi) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = random.nextLong(lo, hi);
        }
        return a;
    }

    /** {@code n} longs over the whole range, one in four a special value. */
    public long[] longsSpecial(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = chance(0.25) ? SPECIAL_LONGS[random.nextInt(SPECIAL_LONGS.length)] : random.nextLong();
        }
        return a;
    }

    /** {@code n} floats in {@code [lo, hi)}. */
    public float[] floats(int n, float lo, float hi) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = nextFloat(lo, hi);
        }
        return a;
    }

    /**
     * {@code n} floats: one in three a special value, the others of random sign and magnitude spread
     * over {@code 2^-30 .. 2^40}.
     */
    public float[] floatsSpecial(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = chance(1 / 3.0) ? SPECIAL_FLOATS[random.nextInt(SPECIAL_FLOATS.length)]
                    : (float) ((random.nextBoolean() ? 1 : -1) * Math.scalb(1 + random.nextDouble(), random.nextInt(-30, 40)));
        }
        return a;
    }

    /** {@code n} doubles in {@code [lo, hi)}. */
    public double[] doubles(int n, double lo, double hi) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = random.nextDouble(lo, hi);
        }
        return a;
    }

    /** {@code n} doubles: one in three a special value, the others spread over {@code 2^-60 .. 2^70}. */
    public double[] doublesSpecial(int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = chance(1 / 3.0) ? SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)]
                    : (random.nextBoolean() ? 1 : -1) * Math.scalb(1 + random.nextDouble(), random.nextInt(-60, 70));
        }
        return a;
    }
}
