package dev.weft.internal.sfu;

/**
 * One coefficient table of the special function unit: the function it approximates on a reduced argument
 * {@code u} in [0, 1), and the widths of its quadratic interpolator.
 *
 * <p>The reduced argument is a 23-bit fixed-point fraction {@code X} ({@code u = X / 2^23}). Its leading
 * {@link #segmentBits()} bits {@code x_u} select a segment; the remaining bits {@code x_l} feed
 * {@code C0 + C1·x_l + C2·x_l²}. Coefficient widths count fractional bits (the weight of a coefficient's
 * last bit is {@code 2^-bits}); the sum is formed with {@link #sumBits()} fractional bits.
 *
 * <p>Segment counts and coefficient widths are the ones reported for the Tesla-family interpolators
 * (shared/SFU.md); the sum and squarer widths are ours, chosen so that every product of the datapath fits
 * a 32-bit vector lane (see {@link Datapath}).
 */
public enum TableSpec {
    /** {@code 1/(1+u)}: the reciprocal of a significand in [1, 2). */
    RCP(7, 26, 16, 10, 30, 12, -1, true),
    /** {@code 1/sqrt(1+u)}: reciprocal square root for an even exponent, x in [1, 2). */
    RSQRT_EVEN(6, 26, 17, 11, 30, 14, -1, true),
    /** {@code 1/sqrt(2(1+u))}: reciprocal square root for an odd exponent, x in [2, 4). */
    RSQRT_ODD(6, 26, 17, 11, 30, 14, -1, false),
    /** {@code 2^u}: the fraction of the argument of 2^x. */
    EX2(6, 25, 15, 11, 29, 14, +1, true),
    /** {@code log2(1+u)}: the logarithm of a significand in [1, 2). */
    LG2(6, 26, 15, 10, 30, 14, +1, true),
    /** {@code sin(π/2·u)}: one quadrant of sine; cosine and the other quadrants reuse it. */
    SIN(6, 25, 14, 10, 30, 14, 0, true);

    /** Bits of the reduced argument: the fixed-point fraction that range reduction produces. */
    public static final int ARGUMENT_BITS = 23;

    private static final double LN2 = 0.6931471805599453;

    private final int segmentBits;
    private final int c0Bits;
    private final int c1Bits;
    private final int c2Bits;
    private final int sumBits;
    private final int squareShift;
    private final int direction;
    private final boolean pinned;

    TableSpec(int segmentBits, int c0Bits, int c1Bits, int c2Bits, int sumBits, int squareShift, int direction,
              boolean pinned) {
        this.segmentBits = segmentBits;
        this.c0Bits = c0Bits;
        this.c1Bits = c1Bits;
        this.c2Bits = c2Bits;
        this.sumBits = sumBits;
        this.squareShift = squareShift;
        this.direction = direction;
        this.pinned = pinned;
    }

    /**
     * The exact function on the reduced argument, in double. StrictMath, so that the generated tables
     * are the same bits on every JVM and platform.
     */
    public double exact(double u) {
        return switch (this) {
            case RCP -> 1.0 / (1.0 + u);
            case RSQRT_EVEN -> 1.0 / StrictMath.sqrt(1.0 + u);
            case RSQRT_ODD -> 1.0 / StrictMath.sqrt(2.0 + 2.0 * u);
            case EX2 -> StrictMath.pow(2.0, u);
            case LG2 -> StrictMath.log1p(u) / LN2;
            case SIN -> StrictMath.sin(StrictMath.PI / 2 * u);
        };
    }

    /**
     * Half a unit in the last place of the unit's output near {@code value}: the error its final rounding
     * may add. Reciprocal and reciprocal square root round to 24 fractional bits (results in (0.5, 1]),
     * 2^x to 23 (results in [1, 2)); logarithm and sine convert the sum to the nearest float.
     */
    public double outputHalfUlp(double value) {
        return switch (this) {
            case RCP, RSQRT_EVEN, RSQRT_ODD -> 0x1p-25;
            case EX2 -> 0x1p-24;
            case LG2, SIN -> Math.ulp((float) Math.abs(value)) / 2;
        };
    }

    /**
     * The unit's output for a sum of this table, as the caller rounds it: to 24 fractional bits
     * (reciprocal, reciprocal square root), to 23 (2^x), or clamped to [0, 1] and converted to the
     * nearest float (logarithm, sine).
     */
    public double output(int sum) {
        int drop = sumBits - switch (this) {
            case RCP, RSQRT_EVEN, RSQRT_ODD -> 24;
            case EX2 -> 23;
            case LG2, SIN -> sumBits;
        };
        if (drop == 0) {
            return Datapath.unitInterval(sum);
        }
        return Math.scalb((double) ((sum + (1 << (drop - 1))) >> drop), drop - sumBits);
    }

    /** m: the leading bits of the argument that select a segment; the table has {@code 2^m} of them. */
    public int segmentBits() {
        return segmentBits;
    }

    /** Segments in the table. */
    public int segments() {
        return 1 << segmentBits;
    }

    /** Bits of x_l, the part of the argument inside a segment. */
    public int lowBits() {
        return ARGUMENT_BITS - segmentBits;
    }

    /** Fractional bits of C0. */
    public int c0Bits() {
        return c0Bits;
    }

    /**
     * Integer bits of C0: 1 for 2^x (C0 in [1, 2]), 0 for the others (C0 in [0, 1]). The generator keeps
     * C0 in [0, 2^integerBits].
     */
    public int c0IntegerBits() {
        return this == EX2 ? 1 : 0;
    }

    /** Fractional bits of C1. */
    public int c1Bits() {
        return c1Bits;
    }

    /** Fractional bits of C2. */
    public int c2Bits() {
        return c2Bits;
    }

    /** Fractional bits of the sum {@code C0 + C1·x_l + C2·x_l²} before its final rounding. */
    public int sumBits() {
        return sumBits;
    }

    /** Low bits of the exact square x_l² that the squarer drops (its result keeps the rest). */
    public int squareShift() {
        return squareShift;
    }

    /**
     * Whether the table's first input must give the exact output: rcp(1) = 1, rsqrt(1) = 1 (so
     * rsqrt(4^k) = 2^-k and the fast-math sqrt(4) = 2), 2^0 = 1, log2(1) = 0, sin(0) = 0. Not for the
     * odd half of the reciprocal square root, whose first value, 1/sqrt(2), is irrational. Pinning costs
     * accuracy only where the first segment is the function's worst: for 1/sqrt(x), 1.45 ulp becomes
     * 1.56 (the paper: 1.52); the others lose at most 0.03 bits.
     */
    public boolean pinned() {
        return pinned;
    }

    /** +1 if the function increases with u, -1 if it decreases, 0 if the unit need not be monotonic. */
    public int direction() {
        return direction;
    }
}
