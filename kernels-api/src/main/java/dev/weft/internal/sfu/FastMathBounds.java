package dev.weft.internal.sfu;

import dev.weft.FastMath;
import java.util.SplittableRandom;

/**
 * CUDA's documented accuracy for its fast-math intrinsics (CUDA C++ Programming Guide, "Intrinsic
 * Functions"; shared/SFU.md) and sweeps that measure {@link FastMath} against them.
 *
 * <p>Errors in ulps are CUDA's: the number of floats between the result and the exact value rounded to
 * the nearest float. Absolute errors are against the exact value (in double).
 */
public enum FastMathBounds {
    /** {@code __fdividef}: 2 ulp, y every float in [1, 2) (rcp repeats per binade), x pseudo-random. */
    FDIVIDEF("__fdividef(x, y)", "2 ulp", "y: every float in [1, 2); x: random in ±[2^-20, 2^21)"),
    /** {@code __expf}: 2 + floor(|1.173·x|) ulp; every 1021st float of [-87, 88]. */
    EXPF("__expf(x)", "2 + floor(|1.173·x|) ulp", "every 1021st float in [-87, 88]"),
    /** {@code __logf}: 2^-21.41 absolute on [0.5, 2]; every float. */
    LOGF("__logf(x)", "2^-21.41 abs", "every float in [0.5, 2]"),
    /** {@code __log2f}: 2^-22 absolute on [0.5, 2]; every float. */
    LOG2F("__log2f(x)", "2^-22 abs", "every float in [0.5, 2]"),
    /** {@code __sinf}: 2^-21.41 absolute on [-π, π]; every 61st float of [0, π] (sine is odd, bit for bit). */
    SINF("__sinf(x)", "2^-21.41 abs", "every 61st float in [0, π] (odd: sin(-x) = -sin(x) exactly)"),
    /** {@code __cosf}: 2^-21.19 absolute on [-π, π]; every 61st float of [0, π] (cosine is even, bit for bit). */
    COSF("__cosf(x)", "2^-21.19 abs", "every 61st float in [0, π] (even: cos(-x) = cos(x) exactly)"),
    /** sqrt as rcp(rsqrt(x)): no documented bound; every float of [1, 4). */
    SQRTF("sqrtf(x), -use_fast_math", "none documented", "every float in [1, 4)");

    /**
     * A measurement.
     *
     * @param maxError the largest error: ulps, or absolute
     * @param worstInput the argument of the largest error (for __expf: of the largest error/bound)
     * @param boundRatio the largest error divided by CUDA's bound at that input (NaN: no bound)
     */
    public record Result(double maxError, double worstInput, double boundRatio) {
        /** Whether every error was within CUDA's documented bound. */
        public boolean withinBound() {
            return !(boundRatio > 1);
        }
    }

    private final String intrinsic;
    private final String cudaBound;
    private final String inputs;

    FastMathBounds(String intrinsic, String cudaBound, String inputs) {
        this.intrinsic = intrinsic;
        this.cudaBound = cudaBound;
        this.inputs = inputs;
    }

    /** The CUDA intrinsic. */
    public String intrinsic() {
        return intrinsic;
    }

    /** CUDA's documented bound, as the guide states it. */
    public String cudaBound() {
        return cudaBound;
    }

    /** The inputs the sweep covers. */
    public String inputs() {
        return inputs;
    }

    /** Whether {@link Result#maxError} counts ulps (otherwise it is an absolute error). */
    public boolean inUlps() {
        return this == FDIVIDEF || this == EXPF || this == SQRTF;
    }

    /** Runs the sweep. */
    public Result measure() {
        return switch (this) {
            case FDIVIDEF -> fdividef();
            case EXPF -> expf();
            case LOGF -> absolute(0.5f, 2f, 1, FastMath::logf, Math::log, Math.scalb(1.0, -21) / Math.pow(2, 0.41));
            case LOG2F -> absolute(0.5f, 2f, 1, FastMath::log2f, x -> Math.log(x) / Math.log(2), 0x1p-22);
            case SINF -> absolute(0f, (float) Math.PI, 61, FastMath::sinf, Math::sin,
                    Math.scalb(1.0, -21) / Math.pow(2, 0.41));
            case COSF -> absolute(0f, (float) Math.PI, 61, FastMath::cosf, Math::cos,
                    Math.scalb(1.0, -21) / Math.pow(2, 0.19));
            case SQRTF -> sqrtf();
        };
    }

    /** Floats between {@code y} and the nearest float to {@code exact}. */
    static long ulpDistance(float y, double exact) {
        return Math.abs(ordered(y) - ordered((float) exact));
    }

    /** A float's bits as an integer that orders like the float (negative floats below positive). */
    private static long ordered(float f) {
        int bits = Float.floatToRawIntBits(f);
        return bits < 0 ? -(long) (bits & 0x7FFF_FFFF) : bits;
    }

    private static Result fdividef() {
        SplittableRandom random = new SplittableRandom(1);
        long worst = -1;
        float worstY = 0;
        for (int bits = Float.floatToRawIntBits(1f); bits < Float.floatToRawIntBits(2f); bits++) {
            float y = Float.intBitsToFloat(bits);
            float x = (float) Math.scalb(1 + random.nextDouble(), random.nextInt(-20, 21));
            if (random.nextBoolean()) {
                x = -x;
            }
            long d = ulpDistance(FastMath.fdividef(x, y), (double) x / y);
            if (d > worst) {
                worst = d;
                worstY = y;
            }
        }
        return new Result(worst, worstY, worst / 2.0);
    }

    private static Result expf() {
        double worst = 0;
        double worstRatio = -1;
        float worstX = 0;
        for (float x = -87f; x <= 88f; x = nextBy(x, 1021)) {
            long d = ulpDistance(FastMath.expf(x), Math.exp(x));
            double ratio = d / (2 + Math.floor(Math.abs(1.173 * x)));
            worst = Math.max(worst, d);
            if (ratio > worstRatio) {
                worstRatio = ratio;
                worstX = x;
            }
        }
        return new Result(worst, worstX, worstRatio);
    }

    private static Result sqrtf() {
        long worst = -1;
        float worstX = 0;
        for (int bits = Float.floatToRawIntBits(1f); bits < Float.floatToRawIntBits(4f); bits++) {
            float x = Float.intBitsToFloat(bits);
            long d = ulpDistance(FastMath.sqrtf(x), Math.sqrt(x));
            if (d > worst) {
                worst = d;
                worstX = x;
            }
        }
        return new Result(worst, worstX, Double.NaN);
    }

    private static Result absolute(float lo, float hi, int stride, Accuracy.FloatFunction f,
                                   java.util.function.DoubleUnaryOperator exact, double bound) {
        double worst = -1;
        float worstX = 0;
        for (float x = lo; x <= hi; x = nextBy(x, stride)) {
            double e = Math.abs(f.apply(x) - exact.applyAsDouble(x));
            if (e > worst) {
                worst = e;
                worstX = x;
            }
        }
        return new Result(worst, worstX, worst / bound);
    }

    /** The float {@code steps} floats above x (towards +∞; x finite). */
    private static float nextBy(float x, int steps) {
        int bits = Float.floatToRawIntBits(x);
        if (x >= 0) {
            return Float.intBitsToFloat(bits + steps);
        }
        int magnitude = (bits & 0x7FFF_FFFF) - steps;
        return magnitude >= 0 ? Float.intBitsToFloat(magnitude | 0x8000_0000) : Float.intBitsToFloat(-magnitude);
    }
}
