package dev.weft;

import dev.weft.internal.sfu.Datapath;
import dev.weft.internal.sfu.QuarterTurns;
import dev.weft.internal.sfu.SfuTables;

/**
 * The special function unit: reciprocal, reciprocal square root, base-2 exponential and logarithm, sine
 * and cosine, computed as the Tesla SM's SFU computes them, by quadratic interpolation from coefficient
 * tables, with its accuracy (Table 1 of Lindholm et al., IEEE Micro 2008) rather than a correctly
 * rounded result.
 *
 * <p>Each function reduces its argument to a 23-bit fixed-point fraction in a table interval, picks a
 * segment by the fraction's leading bits and sums {@code C0 + C1·x_l + C2·x_l²} in integer arithmetic;
 * the coefficients come from an enhanced-minimax generator at class initialisation. Accuracy, measured
 * over every input of each Table 1 interval (good bits = −log2 of the largest absolute error):
 * <table>
 *   <caption>Accuracy on the Table 1 intervals</caption>
 *   <tr><th>function</th><th>interval</th><th>good bits</th><th>max error</th></tr>
 *   <tr><td>{@link #rcp}</td><td>[1, 2)</td><td>24.1</td><td>0.93 ulp</td></tr>
 *   <tr><td>{@link #rsqrt}</td><td>[1, 4)</td><td>23.4</td><td>1.56 ulp</td></tr>
 *   <tr><td>{@link #ex2}</td><td>[0, 1)</td><td>23.1</td><td>0.96 ulp</td></tr>
 *   <tr><td>{@link #lg2}</td><td>[1, 2)</td><td>23.3</td><td>absolute</td></tr>
 *   <tr><td>{@link #sin}, {@link #cos}</td><td>[0, π/2)</td><td>22.7</td><td>absolute</td></tr>
 * </table>
 * The report command of the SIMD backend ({@code SfuReport}) prints the full table beside the paper's.
 *
 * <p>Special values are those of PTX's {@code .approx.ftz} instructions: subnormal arguments and results
 * are flushed to zero of the same sign; a NaN argument gives NaN. Results are deterministic: the same
 * bits on every platform, and the same bits as the vector unit of the SIMD backend.
 *
 * <p>For CUDA's fast-math functions built on these ({@code __expf}, {@code __logf}, {@code __fdividef},
 * ...), see {@link FastMath}.
 */
public final class Sfu {

    private static final Datapath RCP = SfuTables.RCP;
    private static final Datapath RSQRT = SfuTables.RSQRT;
    private static final Datapath EX2 = SfuTables.EX2;
    private static final Datapath LG2 = SfuTables.LG2;

    private static final int SIGN = 0x8000_0000;
    private static final int FRACTION = 0x007F_FFFF;
    private static final int INFINITY = 0x7F80_0000;
    private static final int MIN_NORMAL = 0x0080_0000;

    private Sfu() {
    }

    /**
     * Approximates {@code 1/x}: in [1, 2) at most 0.93 ulp from the exact value, and exact at powers of
     * 2. {@code ±0} gives
     * {@code ±∞}, {@code ±∞} gives {@code ±0}, and results below the normal range (|x| ≥ 2^126) flush
     * to {@code ±0}. PTX: {@code rcp.approx.ftz.f32}.
     */
    public static float rcp(float x) {
        int bits = Float.floatToRawIntBits(x);
        int sign = bits & SIGN;
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent == 0) {
            return Float.intBitsToFloat(sign | INFINITY);
        }
        if (exponent == 0xFF) {
            return (bits & FRACTION) != 0 ? Float.NaN : Float.intBitsToFloat(sign);
        }
        // The rounded sum is the significand of a result in (0.5, 1] with 24 fractional bits, so it
        // carries the implicit bit (2^23) into the exponent field: adding it to the field works for
        // 1.0 (2^24) too.
        int result = ((252 - exponent) << 23) + roundTo(RCP.sum(bits & FRACTION), 6);
        return Float.intBitsToFloat(sign | flushSubnormal(result));
    }

    /**
     * Approximates {@code 1/sqrt(x)}: in [1, 4) at most 1.56 ulp from the exact value, and exact at
     * powers of 4. {@code +0}
     * gives {@code +∞}, {@code -0} gives {@code -∞}, a negative argument gives NaN, {@code +∞} gives
     * {@code +0}. PTX: {@code rsqrt.approx.ftz.f32}.
     */
    public static float rsqrt(float x) {
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent == 0) {
            return Float.intBitsToFloat((bits & SIGN) | INFINITY);
        }
        if (bits < 0 || exponent == 0xFF) {
            return bits < 0 || (bits & FRACTION) != 0 ? Float.NaN : 0f;
        }
        // An even unbiased exponent (odd biased) uses the [1, 2) half of the table, an odd one the
        // [2, 4) half; the result is 2^-floor(e/2) times a significand in (0.5, 1].
        int half = ~exponent & 1;
        int scale = (exponent - 127) >> 1;
        int significand = roundTo(RSQRT.sum(half << 23 | bits & FRACTION), 6);
        return Float.intBitsToFloat(((125 - scale) << 23) + significand);
    }

    /**
     * Approximates {@code 2^x}: for x on the 23-bit grid of [0, 1) at most 0.96 ulp from the exact
     * value, and exact at integers. The argument is rounded to 23 fractional bits (the hardware's fixed-point format), its
     * integer part becomes the exponent; results overflow to {@code +∞} (x ≥ 128) and flush to
     * {@code +0} below 2^-126; {@code -∞} gives {@code +0}. PTX: {@code ex2.approx.ftz.f32}.
     */
    public static float ex2(float x) {
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent >= 127 + 8) {
            if (exponent == 0xFF && (bits & FRACTION) != 0) {
                return Float.NaN;
            }
            return bits < 0 ? 0f : Float.POSITIVE_INFINITY;
        }
        // The 8.23 fixed-point format of the hardware's range reduction: |x|·2^23 rounded half away
        // from zero, with x's sign. Exact in float: x·2^23 is an integer when |x| >= 1, and below 1 has
        // at most 24 significant bits and magnitude under 2^23, so x·2^23 ± 1/2 is exact and truncating
        // it rounds (zeros and subnormals give 0).
        int fixed = (int) (x * 0x1p23f + (exponent >= 127 ? 0f : Math.copySign(0.5f, x)));
        int whole = fixed >> 23;
        if (whole >= 128) {
            return Float.POSITIVE_INFINITY;
        }
        int result = ((whole + 126) << 23) + roundTo(EX2.sum(fixed & FRACTION), 6);
        return Float.intBitsToFloat(flushSubnormal(result));
    }

    /**
     * Approximates {@code log2(x)}: in [1, 2) within 2^-23.2 of the exact value (an absolute bound, as
     * for the hardware), and exact at powers of 2. {@code ±0} gives {@code -∞}, a negative argument NaN, {@code +∞} gives
     * {@code +∞}. PTX: {@code lg2.approx.ftz.f32}.
     */
    public static float lg2(float x) {
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent == 0) {
            return Float.NEGATIVE_INFINITY;
        }
        if (bits < 0 || exponent == 0xFF) {
            return bits < 0 || (bits & FRACTION) != 0 ? Float.NaN : Float.POSITIVE_INFINITY;
        }
        return (float) (exponent - 127) + Datapath.unitInterval(LG2.sum(bits & FRACTION));
    }

    /**
     * Approximates {@code sin(x)}: within 2^-22.6 of the exact value for x on the fixed-point grid of
     * [0, π/2), within 2^-21.9 for any float x in [-100π, 100π] (absolute bounds). The argument is reduced to
     * quarter turns in 23-bit fixed point; absolute accuracy holds while |x| &lt; 4·10^7. {@code ±0}
     * gives {@code ±0}, {@code ±∞} NaN. PTX: {@code sin.approx.ftz.f32}.
     */
    public static float sin(float x) {
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent == 0) {
            return Float.intBitsToFloat(bits & SIGN);
        }
        if (exponent == 0xFF) {
            return Float.NaN;
        }
        return QuarterTurns.sin(QuarterTurns.of(x));
    }

    /**
     * Approximates {@code cos(x)}: as {@link #sin}, a quarter turn on. {@code ±0} gives 1, {@code ±∞}
     * NaN. PTX: {@code cos.approx.ftz.f32}.
     */
    public static float cos(float x) {
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) & 0xFF;
        if (exponent == 0) {
            return 1f;
        }
        if (exponent == 0xFF) {
            return Float.NaN;
        }
        return QuarterTurns.sin(QuarterTurns.of(x) + QuarterTurns.QUARTER);
    }

    /** Rounds a fixed-point sum to nearest by dropping {@code bits} bits after adding half of them. */
    private static int roundTo(int sum, int bits) {
        return (sum + (1 << (bits - 1))) >> bits;
    }

    /** A float's bits with those of a subnormal (or a wrapped-negative exponent) replaced by +0. */
    private static int flushSubnormal(int bits) {
        return bits < MIN_NORMAL ? 0 : bits;
    }
}
