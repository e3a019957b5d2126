package dev.weft;

/**
 * CUDA's fast-math intrinsics, built on the special function unit as {@code nvcc} builds them: one SFU
 * operation and at most one multiply each. Fast and approximate; for the errors, measured over the
 * ranges CUDA documents bounds for, see the report of the SIMD backend ({@code SfuReport}).
 *
 * <p>As on the GPU with {@code -use_fast_math}, subnormal arguments and results flush to zero of the
 * same sign. Every method is deterministic and has a lane-for-lane twin in the SIMD backend's vector
 * unit that returns the same bits.
 */
public final class FastMath {

    /** log2(e), nearest float: the factor {@code __expf} applies before {@code ex2}. */
    private static final float LOG2_E = (float) (1 / Math.log(2));
    /** ln(2), nearest float: the factor {@code __logf} applies after {@code lg2}. */
    private static final float LN_2 = (float) Math.log(2);
    private static final int MIN_NORMAL = 0x0080_0000;

    private FastMath() {
    }

    /**
     * e^x as {@code ex2(x·log2 e)}: the rounding of the product grows the error with |x|, as CUDA
     * documents (2 + floor(|1.173·x|) ulp). CUDA: {@code __expf(x)}.
     */
    public static float expf(float x) {
        return Sfu.ex2(x * LOG2_E);
    }

    /** ln(x) as {@code lg2(x)·ln 2}. CUDA: {@code __logf(x)}. */
    public static float logf(float x) {
        return Sfu.lg2(x) * LN_2;
    }

    /** log2(x): the SFU's {@code lg2}. CUDA: {@code __log2f(x)}. */
    public static float log2f(float x) {
        return Sfu.lg2(x);
    }

    /** sin(x): the SFU's {@code sin}. CUDA: {@code __sinf(x)}. */
    public static float sinf(float x) {
        return Sfu.sin(x);
    }

    /** cos(x): the SFU's {@code cos}. CUDA: {@code __cosf(x)}. */
    public static float cosf(float x) {
        return Sfu.cos(x);
    }

    /**
     * x/y as {@code x·rcp(y)}, flushing a subnormal operand or product to zero; any NaN result is the
     * canonical NaN. For 2^126 &lt; |y| &lt;
     * 2^128 the reciprocal flushes to zero, so the quotient is 0 (NaN for an infinite x), as CUDA
     * documents. CUDA: {@code __fdividef(x, y)}.
     */
    public static float fdividef(float x, float y) {
        float q = flush(x) * Sfu.rcp(y);
        // A NaN operand's payload would pass through the multiply in whichever operand order the JIT
        // picks; the one NaN PTX returns keeps the result the same bits everywhere.
        return q != q ? Float.NaN : flush(q);
    }

    /**
     * sqrt(x) as {@code rcp(rsqrt(x))}: {@code sqrt(±0) = ±0}, {@code sqrt(+∞) = +∞}, negative
     * arguments NaN. CUDA: {@code sqrtf(x)} under {@code -use_fast_math} (PTX {@code sqrt.approx.ftz.f32}).
     */
    public static float sqrtf(float x) {
        return Sfu.rcp(Sfu.rsqrt(x));
    }

    /** x, or zero of x's sign if x is subnormal. */
    private static float flush(float x) {
        int bits = Float.floatToRawIntBits(x);
        return (bits & 0x7FFF_FFFF) < MIN_NORMAL ? Float.intBitsToFloat(bits & 0x8000_0000) : x;
    }
}
