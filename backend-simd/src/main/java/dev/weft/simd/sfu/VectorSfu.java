package dev.weft.simd.sfu;

import dev.weft.Sfu;
import dev.weft.internal.sfu.QuarterTurns;
import dev.weft.internal.sfu.SfuTables;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The special function unit on vector lanes: {@link Sfu}'s six functions for every lane of a
 * {@link FloatVector} of the {@linkplain #SPECIES preferred species}, returning in each lane exactly the
 * bits the scalar {@code Sfu} returns for that lane's value, special values included.
 *
 * {@snippet :
 * for (int i = 0; i < n; i += VectorSfu.SPECIES.length()) {
 *     FloatVector x = FloatVector.fromArray(VectorSfu.SPECIES, in, i);  // n a multiple of the length
 *     VectorSfu.sin(x).intoArray(out, i);
 * }
 * }
 *
 * <p>Lanes are independent and no lane can fault, so a masked caller (a warp with inactive threads)
 * computes all lanes and keeps the active ones; there are no masked forms.
 *
 * <h2>Performance notes</h2>
 * Each function is a straight line of integer and float lane operations: range reduction, a table
 * lookup by lane permutes or by gathers ({@link VectorDatapath}), the fixed-point interpolation, and the
 * result's exponent. Special values (zeros, subnormals, infinities, NaN, out-of-range arguments) are
 * tested with one mask per call and handled on a separate path only when some lane has one. Nothing
 * allocates once C2 has inlined a call, and the species and tables are {@code static final}; rcp and
 * rsqrt fetch a per-thread scratch array for their gathers' indexes (a {@code ThreadLocal} read per
 * call).
 *
 * <p>Inlining is what makes it fast, so the code is shaped for C2's heuristics: every method is under
 * 325 bytecodes (FreqInlineSize) and calls at most the datapath (and sine its range reduction) of its
 * own. When a function is hot on its own before its caller is, C2 compiles it alone first and inlines
 * it into the caller later only if that code is under 2,500 bytes (InlineSmallCode): measured here
 * 1.3 to 2.5 KB, lg2 the largest. A call that is not inlined boxes its argument and result. A compiler
 * that emits these calls can remove the doubt with
 * {@code -XX:CompileCommand=inline,dev.weft.simd.sfu.*::*}.
 *
 * <p>Measured on an AVX2 machine (Zen 3, 8 lanes, about 2.6 GHz), 13 to 29 ns per 8-lane vector: faster
 * than a scalar {@code Math} loop for 2^x, log2, sin and cos (2.5 to 5.6 times), slower than the Vector
 * API's own operators: 2 to 3.4 times for EXP, LOG, SIN and COS, which call SVML's polynomials, and 14
 * times for division and 6 for square root with division, single instructions (3 and 7 cycles per
 * vector against the unit's 38 and 41). The coefficient lookup alone, about 8 ns (22 cycles) per
 * vector for a 64-segment table however it is done on AVX2 (16 permutes or two gathers), costs more
 * than SVML's whole exp (13 cycles) or log (17). See the SFU benchmark in the benchmarks module.
 */
public final class VectorSfu {

    /** The species of every argument and result: {@link FloatVector#SPECIES_PREFERRED}. */
    public static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

    private static final VectorDatapath RCP = VectorDatapath.of(SfuTables.RCP);
    private static final VectorDatapath RSQRT = VectorDatapath.of(SfuTables.RSQRT);
    private static final VectorDatapath EX2 = VectorDatapath.of(SfuTables.EX2);
    private static final VectorDatapath LG2 = VectorDatapath.of(SfuTables.LG2);
    private static final VectorDatapath SIN = VectorDatapath.of(SfuTables.SIN);

    private static final int SIGN = 0x8000_0000;
    private static final int FRACTION = 0x007F_FFFF;
    private static final int INFINITY = 0x7F80_0000;
    private static final int MIN_NORMAL = 0x0080_0000;
    private static final int NAN = Float.floatToRawIntBits(Float.NaN);
    private static final int ONE = Float.floatToRawIntBits(1f);
    private static final int HALF_BITS = Float.floatToRawIntBits(0.5f);
    private static final int QUARTER = QuarterTurns.QUARTER;
    /** Half of the last bit dropped when a sum loses 6 bits: rounds to nearest. */
    private static final int HALF_OF_6 = 1 << 5;
    /**
     * Exponent bits 24-30: after adding 1 to the exponent field, they are all clear exactly for the
     * fields 0 (zeros, subnormals) and 255 (infinities, NaN).
     */
    private static final int EXPONENT_ABOVE_LOW_BIT = 0x7F00_0000;

    static {
        if (SPECIES.length() != VectorDatapath.INT.length()) {
            throw new IllegalStateException("internal: preferred float and int species differ in lanes");
        }
    }

    private VectorSfu() {
    }

    /*
     * Each function calls its table's VectorDatapath.sum, and nothing else of its own on the fast path
     * but sine's range reduction, before the datapath; everything else is Vector API calls, which are
     * annotated for forced inlining. C2 stops inlining plain methods into a compilation that has grown
     * past its node budget (NodeCountInliningCutoff), and Vector API code grows it fast: helpers called
     * after the datapath (for rounding or flushing) were refused, and every vector crossing such a call
     * is boxed. Each method stays under C2's 325-byte inlining limit. The special-value paths are
     * separate methods, called only when a lane needs them.
     */

    /** {@link Sfu#rcp} in every lane. PTX: {@code rcp.approx.ftz.f32}. */
    public static FloatVector rcp(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector sum = RCP.sumGathered(bits.and(FRACTION));
        IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).and(0xFF);
        IntVector result = exponent.neg().add(252).lanewise(VectorOperators.LSHL, 23)
                .add(sum.add(HALF_OF_6).lanewise(VectorOperators.ASHR, 6));
        result = result.blend(0, result.compare(VectorOperators.LT, MIN_NORMAL))
                .or(bits.and(SIGN));
        if (bits.add(MIN_NORMAL).and(EXPONENT_ABOVE_LOW_BIT)
                .compare(VectorOperators.EQ, 0).anyTrue()) {
            result = rcpSpecial(result, bits);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector rcpSpecial(IntVector result, IntVector bits) {
        IntVector sign = bits.and(SIGN);
        IntVector exponent = exponent(bits);
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        return result.blend(sign.or(INFINITY), exponent.compare(VectorOperators.EQ, 0))
                .blend(sign, nonFinite)
                .blend(NAN, nonFinite.and(fractionNonZero(bits)));
    }

    /** {@link Sfu#rsqrt} in every lane. PTX: {@code rsqrt.approx.ftz.f32}. */
    public static FloatVector rsqrt(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).and(0xFF);
        // An even unbiased exponent (odd biased) reads the [1, 2) half of the table, an odd one the
        // [2, 4) half, selected by bit 23 of the argument.
        IntVector sum = RSQRT.sumGathered(exponent.not().and(1)
                .lanewise(VectorOperators.LSHL, 23).or(bits.and(FRACTION)));
        IntVector result = exponent.sub(127).lanewise(VectorOperators.ASHR, 1).neg().add(125)
                .lanewise(VectorOperators.LSHL, 23).add(sum.add(HALF_OF_6).lanewise(VectorOperators.ASHR, 6));
        if (bits.add(MIN_NORMAL).and(EXPONENT_ABOVE_LOW_BIT)
                .compare(VectorOperators.EQ, 0).or(bits.compare(VectorOperators.LT, 0)).anyTrue()) {
            result = rsqrtSpecial(result, bits);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector rsqrtSpecial(IntVector result, IntVector bits) {
        IntVector exponent = exponent(bits);
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        VectorMask<Integer> nan = fractionNonZero(bits).and(nonFinite).or(bits.compare(VectorOperators.LT, 0));
        return result.blend(0, nonFinite)
                .blend(NAN, nan)
                .blend(bits.and(SIGN).or(INFINITY), exponent.compare(VectorOperators.EQ, 0));
    }

    /** {@link Sfu#ex2} in every lane. PTX: {@code ex2.approx.ftz.f32}. */
    public static FloatVector ex2(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).and(0xFF);
        // |x|·2^23 rounded half away from zero, as Sfu.ex2: ±1/2 (the sign bit of x on 0.5f) below 1.
        FloatVector scaled = x.mul(0x1p23f);
        IntVector half = bits.and(SIGN).or(HALF_BITS).blend(0, exponent.compare(VectorOperators.GE, 127));
        IntVector fixed = (IntVector) scaled.add(half.reinterpretAsFloats()).convert(VectorOperators.F2I, 0);
        IntVector sum = EX2.sum(fixed.and(FRACTION));
        IntVector result = fixed.lanewise(VectorOperators.ASHR, 23).add(126).lanewise(VectorOperators.LSHL, 23)
                .add(sum.add(HALF_OF_6).lanewise(VectorOperators.ASHR, 6));
        result = result.blend(0, result.compare(VectorOperators.LT, MIN_NORMAL));
        // |x| >= 128: overflow, underflow, infinities, NaN.
        if (exponent.compare(VectorOperators.GE, 127 + 7).anyTrue()) {
            result = ex2Special(result, bits, fixed);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector ex2Special(IntVector result, IntVector bits, IntVector fixed) {
        IntVector exponent = exponent(bits);
        VectorMask<Integer> huge = exponent.compare(VectorOperators.GE, 127 + 8);
        VectorMask<Integer> overflow = exponent.compare(VectorOperators.EQ, 127 + 7)
                .and(fixed.lanewise(VectorOperators.ASHR, 23).compare(VectorOperators.GE, 128));
        VectorMask<Integer> nan = exponent.compare(VectorOperators.EQ, 0xFF).and(fractionNonZero(bits));
        IntVector saturated = IntVector.broadcast(VectorDatapath.INT, INFINITY)
                .blend(0, bits.compare(VectorOperators.LT, 0));
        return result.blend(INFINITY, overflow).blend(saturated, huge).blend(NAN, nan);
    }

    /** {@link Sfu#lg2} in every lane. PTX: {@code lg2.approx.ftz.f32}. */
    public static FloatVector lg2(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector sum = LG2.sum(bits.and(FRACTION));
        IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).and(0xFF);
        // As Datapath.unitInterval: clamp to [0, 2^30], nearest float, times 2^-30; then the exponent.
        FloatVector result = ((FloatVector) exponent.sub(127).convert(VectorOperators.I2F, 0))
                .add(((FloatVector) sum.max(0).min(1 << 30).convert(VectorOperators.I2F, 0)).mul(0x1p-30f));
        if (bits.add(MIN_NORMAL).and(EXPONENT_ABOVE_LOW_BIT)
                .compare(VectorOperators.EQ, 0).or(bits.compare(VectorOperators.LT, 0)).anyTrue()) {
            result = lg2Special(result.reinterpretAsInts(), bits).reinterpretAsFloats();
        }
        return result;
    }

    private static IntVector lg2Special(IntVector result, IntVector bits) {
        IntVector exponent = exponent(bits);
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        VectorMask<Integer> nan = fractionNonZero(bits).and(nonFinite).or(bits.compare(VectorOperators.LT, 0));
        return result.blend(INFINITY, nonFinite)
                .blend(NAN, nan)
                .blend(INFINITY | SIGN, exponent.compare(VectorOperators.EQ, 0));
    }

    /** {@link Sfu#sin} in every lane. PTX: {@code sin.approx.ftz.f32}. */
    public static FloatVector sin(FloatVector x) {
        return sinQuarterTurnsOn(x, 0);
    }

    /** {@link Sfu#cos} in every lane: sine a quarter turn on. PTX: {@code cos.approx.ftz.f32}. */
    public static FloatVector cos(FloatVector x) {
        return sinQuarterTurnsOn(x, QUARTER);
    }

    /**
     * sin(x + π/2·offset/2^23) for offset 0 (sine) or one quarter turn (cosine): {@link QuarterTurns#of}
     * and {@link QuarterTurns#sin} in every lane, the same float and integer operations in the same order.
     */
    private static FloatVector sinQuarterTurnsOn(FloatVector x, int offset) {
        IntVector turns = quarterTurns(x).add(offset);
        // Odd quadrants read the table mirrored: sin(π/2·(q + f)) = ±sin(π/2·(1 − f)).
        IntVector quadrant = turns.lanewise(VectorOperators.LSHR, 23);
        IntVector fraction = turns.and(QUARTER - 1);
        IntVector u = fraction.blend(fraction.neg().add(QUARTER),
                quadrant.and(1).compare(VectorOperators.NE, 0));
        IntVector sum = SIN.sum(u);
        IntVector result = ((FloatVector) sum.max(0).min(1 << 30).convert(VectorOperators.I2F, 0)).mul(0x1p-30f)
                .reinterpretAsInts()
                .blend(ONE, u.compare(VectorOperators.EQ, QUARTER))
                // Quadrants 2 and 3 negate: bit 1 of the quadrant becomes the sign bit.
                .lanewise(VectorOperators.XOR, quadrant.lanewise(VectorOperators.LSHL, 30)
                        .and(SIGN));
        IntVector bits = x.reinterpretAsInts();
        if (bits.add(MIN_NORMAL).and(EXPONENT_ABOVE_LOW_BIT)
                .compare(VectorOperators.EQ, 0).anyTrue()) {
            result = sinCosSpecial(result, bits, offset);
        }
        return result.reinterpretAsFloats();
    }

    /**
     * {@link QuarterTurns#of} in every lane. A method of its own to keep its caller within C2's 325-byte
     * inlining limit (FreqInlineSize); it comes before the datapath, while the compilation is small.
     */
    private static IntVector quarterTurns(FloatVector x) {
        FloatVector y = x.mul(QuarterTurns.TWO_OVER_PI);
        FloatVector whole = (FloatVector) y.convert(VectorOperators.F2I, 0).convert(VectorOperators.I2F, 0);
        FloatVector k = whole.add(y.sub(whole).add(QuarterTurns.RINT_MAGIC).sub(QuarterTurns.RINT_MAGIC));
        FloatVector minusK = k.neg();
        FloatVector r = minusK.lanewise(VectorOperators.FMA, QuarterTurns.PIO2_LO,
                minusK.lanewise(VectorOperators.FMA, QuarterTurns.PIO2_HI, x));
        IntVector t = (IntVector) r.mul(QuarterTurns.GRID_SCALE_HI).convert(VectorOperators.F2I, 0);
        FloatVector correction = r.lanewise(VectorOperators.FMA, QuarterTurns.GRID_SCALE_HI,
                        ((FloatVector) t.convert(VectorOperators.I2F, 0)).neg())
                .add(r.mul(QuarterTurns.GRID_SCALE_LO))
                .add(QuarterTurns.RINT_MAGIC).sub(QuarterTurns.RINT_MAGIC);
        return ((IntVector) k.convert(VectorOperators.F2I, 0)).lanewise(VectorOperators.LSHL, 23)
                .add(t)
                .add((IntVector) correction.convert(VectorOperators.F2I, 0));
    }

    private static IntVector sinCosSpecial(IntVector result, IntVector bits, int offset) {
        IntVector exponent = exponent(bits);
        IntVector atZero = offset == 0 ? bits.and(SIGN)
                : IntVector.broadcast(VectorDatapath.INT, ONE);
        return result.blend(atZero, exponent.compare(VectorOperators.EQ, 0))
                .blend(NAN, exponent.compare(VectorOperators.EQ, 0xFF));
    }

    /** The biased exponent field of each lane (special paths only). */
    private static IntVector exponent(IntVector bits) {
        return bits.lanewise(VectorOperators.LSHR, 23).and(0xFF);
    }

    private static VectorMask<Integer> fractionNonZero(IntVector bits) {
        return bits.and(FRACTION).compare(VectorOperators.NE, 0);
    }
}
