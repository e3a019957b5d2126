package dev.weft.internal.sfu;

/**
 * Range reduction for sine and cosine, and the quadrant logic around the one-quadrant table.
 *
 * <p>An argument x becomes a count of quarter turns, {@code x·2/π}, in 32-bit fixed point with
 * {@link TableSpec#ARGUMENT_BITS} fractional bits: bits 23-24 are the quadrant, the low 23 bits the
 * fraction that the SIN table interpolates. The integer part wraps modulo 2^9, which keeps the quadrant
 * right, because only it matters.
 *
 * <p>The reduction (Cody and Waite, in float with fused multiply-adds):
 * <pre>
 *   k = rint(x·2/π)                  the nearest quarter-turn count, as a float
 *   r = x − k·P1 − k·P2              P1 + P2 = π/2 to 48 bits; the first step is exact, the second
 *                                    rounds once
 *   T = rint(r·2^23·2/π)             the fraction on the 23-bit grid: the rounding error of the float
 *                                    product is recovered by an FMA, so T is r's nearest grid point
 *   turns = k·2^23 + T
 * </pre>
 * The grid itself costs up to half a step (2^-24 of a quarter turn, 9.4e-8 in x); r's one rounding adds
 * at most 2^-25 (0.16 of a step) for |x| up to about 4·10^7, beyond which x's own spacing exceeds a
 * quadrant. The hardware's range reduction instruction also yields a fixed-point quarter-turn count;
 * as there, large arguments keep their absolute accuracy only while the reduction is exact.
 *
 * <p>Every step is a float operation with one IEEE rounding, or an exact conversion or integer
 * operation, so the vector unit repeats it lane by lane and gets the same bits. Each rint is a
 * truncation ({@code (float) (int) v}, exact) followed by rounding the small remainder with the
 * {@code (v + 1.5·2^23) − 1.5·2^23} idiom: the idiom alone is exact only for |v| &lt;= 2^22, and r·2^23·2/π
 * exceeds that whenever x·2/π rounded to a tie and k is the farther integer; then it rounded
 * differently for x and −x. Both steps are odd functions, so sin(−x) = −sin(x) and cos(−x) = cos(x)
 * bit for bit (for |x·2/π| &lt; 2^31).
 */
public final class QuarterTurns {

    /** 2/π, nearest float. */
    public static final float TWO_OVER_PI = (float) (2 / Math.PI);
    /** π/2, nearest float: k·P1 is exact in an FMA and x − k·P1 is exact for |x| &lt; 4·10^7. */
    public static final float PIO2_HI = (float) (Math.PI / 2);
    /** π/2 − P1, nearest float. */
    public static final float PIO2_LO = (float) (Math.PI / 2 - PIO2_HI);
    /** 2^23·2/π, nearest float. */
    public static final float GRID_SCALE_HI = (float) (0x1p23 * 2 / Math.PI);
    /** 2^23·2/π − its nearest float, nearest float. */
    public static final float GRID_SCALE_LO = (float) (0x1p23 * 2 / Math.PI - GRID_SCALE_HI);
    /** 1.5·2^23: adding and subtracting it rounds a float of magnitude at most 2^22 to an integer. */
    public static final float RINT_MAGIC = 0x1.8p23f;
    /** One quarter turn in the fixed-point format. */
    public static final int QUARTER = 1 << TableSpec.ARGUMENT_BITS;

    private static final Datapath SIN = SfuTables.SIN;

    private QuarterTurns() {
    }

    /** x·2/π in fixed point with 23 fractional bits, modulo 2^9 quarter turns; x finite. */
    public static int of(float x) {
        float y = x * TWO_OVER_PI;
        float whole = (float) (int) y;
        float k = whole + rint(y - whole);
        float r = Math.fma(-k, PIO2_LO, Math.fma(-k, PIO2_HI, x));
        float t = (float) (int) (r * GRID_SCALE_HI);
        float correction = rint(Math.fma(r, GRID_SCALE_HI, -t) + r * GRID_SCALE_LO);
        return ((int) k << TableSpec.ARGUMENT_BITS) + (int) t + (int) correction;
    }

    /** Rounds to the nearest integer, ties to even; exact for |v| &lt;= 2^22. */
    private static float rint(float v) {
        return (v + RINT_MAGIC) - RINT_MAGIC;
    }

    /**
     * sin(π/2 · turns / 2^23): the SIN table for the fraction, mirrored in odd quadrants
     * (sin(π/2·(1 − f))) and negated in the lower half turn.
     */
    public static float sin(int turns) {
        int quadrant = (turns >>> TableSpec.ARGUMENT_BITS) & 3;
        int fraction = turns & (QUARTER - 1);
        int u = (quadrant & 1) == 0 ? fraction : QUARTER - fraction;
        float v = u == QUARTER ? 1f : Datapath.unitInterval(SIN.sum(u));
        return quadrant >= 2 ? -v : v;
    }

}
