package dev.weft.simd.corpus;

/**
 * How closely an executor's output must match the reference executor's.
 *
 * <p>{@link #EXACT} is bit for bit: ints and longs equal, floats and doubles with equal bits, -0.0 and
 * +0.0 told apart. The one allowance is the NaN payload: every NaN matches every NaN, because Java itself
 * leaves payloads unspecified ({@link Float#intBitsToFloat}, JLS 4.2.3) and the scalar and vector
 * instructions of one CPU may produce different ones.
 *
 * <p>{@link #ulps} bounds the distance in units in the last place, counted over the ordered bit patterns
 * (so the largest finite value and infinity are 1 ulp apart, and -0.0 and +0.0 are 0 apart). It is for
 * outputs that are the direct result of a {@link Math} function the Vector API computes with its own
 * implementation: the package documentation of {@code jdk.incubator.vector.VectorOperators} ("Operations
 * on floating point vectors") says lane-wise operations "follow the accuracy and monotonicity
 * specifications of the equivalent Java operation or method mentioned in its documentation", and for
 * float lanes the scalar operation is "adapted to cast operands and the result, specifically widening
 * float operands to double operands and narrowing the double result to a float". {@link Math#sin},
 * {@code cos}, {@code tan}, {@code exp}, {@code log} and {@code pow} are each specified "within 1 ulp of the
 * exact result". Two results each within 1 ulp of the exact value are within 2 ulps of each other: hence
 * 2 ulps for double. For float both sides narrow a double within 1 double-ulp of the exact value, so both
 * floats lie within half a float-ulp (plus a negligible 2^-29) of it: they are equal or adjacent, 1 ulp.
 *
 * <p>{@link #absolute} is for kernels that feed such results through further arithmetic (Black-Scholes);
 * each use states the error analysis behind its bound.
 *
 * <p>Ints and longs are always compared exactly.
 */
public final class Tolerance {

    /** Bit for bit, NaN payloads aside. */
    public static final Tolerance EXACT = new Tolerance(0, 0, 0, "exact");

    /**
     * For outputs that are a float or double {@link Math} transcendental (sin, cos, tan, exp, log, pow) of
     * exactly computed arguments: 1 ulp for float, 2 ulps for double (see the class comment).
     */
    public static final Tolerance MATH_1ULP = ulps(1, 2,
            "Math.sin/cos/tan/exp/log/pow: each side within 1 ulp of exact (VectorOperators, Math javadoc)");

    private final int floatUlps;
    private final long doubleUlps;
    private final double absolute;
    private final String why;

    private Tolerance(int floatUlps, long doubleUlps, double absolute, String why) {
        this.floatUlps = floatUlps;
        this.doubleUlps = doubleUlps;
        this.absolute = absolute;
        this.why = why;
    }

    /** At most {@code floatUlps} apart for float elements and {@code doubleUlps} for double ones. */
    public static Tolerance ulps(int floatUlps, long doubleUlps, String why) {
        return new Tolerance(floatUlps, doubleUlps, 0, why);
    }

    /** At most {@code bound} apart in absolute value (both NaN, or equal infinities, also match). */
    public static Tolerance absolute(double bound, String why) {
        return new Tolerance(0, 0, bound, why);
    }

    /** Whether this is {@link #EXACT}. */
    public boolean exact() {
        return floatUlps == 0 && doubleUlps == 0 && absolute == 0;
    }

    /** Whether two floats match under this tolerance. */
    public boolean matches(float expected, float actual) {
        if (Float.floatToIntBits(expected) == Float.floatToIntBits(actual)) {
            return true;
        }
        if (Float.isNaN(expected) || Float.isNaN(actual) || exact()) {
            return false;
        }
        if (absolute > 0) {
            return Math.abs((double) expected - actual) <= absolute;
        }
        return ulpDistance(expected, actual) <= floatUlps;
    }

    /** Whether two doubles match under this tolerance. */
    public boolean matches(double expected, double actual) {
        if (Double.doubleToLongBits(expected) == Double.doubleToLongBits(actual)) {
            return true;
        }
        if (Double.isNaN(expected) || Double.isNaN(actual) || exact()) {
            return false;
        }
        if (absolute > 0) {
            return Math.abs(expected - actual) <= absolute;
        }
        return ulpDistance(expected, actual) <= doubleUlps;
    }

    /** Units in the last place between two non-NaN floats, over their ordered bit patterns. */
    public static long ulpDistance(float a, float b) {
        return Math.abs((long) ordered(Float.floatToRawIntBits(a)) - ordered(Float.floatToRawIntBits(b)));
    }

    /**
     * Units in the last place between two non-NaN doubles, saturating at {@link Long#MAX_VALUE} (the
     * ordered patterns of values of opposite signs can be further apart than a long can count).
     */
    public static long ulpDistance(double a, double b) {
        long x = ordered(Double.doubleToRawLongBits(a));
        long y = ordered(Double.doubleToRawLongBits(b));
        long d = x - y;
        if (((x ^ y) & (x ^ d)) < 0) {
            return Long.MAX_VALUE;
        }
        return d == Long.MIN_VALUE ? Long.MAX_VALUE : Math.abs(d);
    }

    /** Maps sign-magnitude bits to a two's complement order: -0.0 and +0.0 both to 0. */
    private static int ordered(int bits) {
        return bits < 0 ? Integer.MIN_VALUE - bits : bits;
    }

    private static long ordered(long bits) {
        return bits < 0 ? Long.MIN_VALUE - bits : bits;
    }

    @Override
    public String toString() {
        if (exact()) {
            return why;
        }
        if (absolute > 0) {
            return "within " + absolute + " (" + why + ")";
        }
        return "within " + floatUlps + " ulp (float) / " + doubleUlps + " ulp (double) (" + why + ")";
    }
}
