package dev.weft.simd.sfu;

import dev.weft.Sfu;
import dev.weft.internal.sfu.QuarterTurns;
import dev.weft.internal.sfu.SfuTables;
import dev.weft.internal.sfu.TableSpec;
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
 * lookup by lane permutes ({@link VectorDatapath}), the fixed-point interpolation, and the result's
 * exponent. Special values (zeros, subnormals, infinities, NaN, out-of-range arguments) are tested with
 * one mask per call and handled on a separate path only when some lane has one. Nothing allocates once
 * C2 has inlined a call, and the species and tables are {@code static final}, so calls from a compiled
 * kernel inline whole. The SFU benchmark in the benchmarks module compares each function with the
 * Vector API's own lanewise operator and a scalar loop.
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
    private static final int QUARTER = QuarterTurns.QUARTER;

    static {
        if (SPECIES.length() != VectorDatapath.INT.length()) {
            throw new IllegalStateException("internal: preferred float and int species differ in lanes");
        }
    }

    private VectorSfu() {
    }

    /** {@link Sfu#rcp} in every lane. PTX: {@code rcp.approx.ftz.f32}. */
    public static FloatVector rcp(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = exponent(bits);
        IntVector sign = bits.lanewise(VectorOperators.AND, SIGN);
        IntVector fraction = bits.lanewise(VectorOperators.AND, FRACTION);
        IntVector result = exponent.neg().add(252).lanewise(VectorOperators.LSHL, 23)
                .add(round(RCP.sum(fraction), 6));
        result = flushSubnormal(result).or(sign);
        VectorMask<Integer> special = zeroOrNonFinite(bits);
        if (special.anyTrue()) {
            result = rcpSpecial(result, exponent, fraction, sign);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector rcpSpecial(IntVector result, IntVector exponent, IntVector fraction, IntVector sign) {
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        return result.blend(sign.or(INFINITY), exponent.compare(VectorOperators.EQ, 0))
                .blend(sign, nonFinite)
                .blend(NAN, nonFinite.and(fraction.compare(VectorOperators.NE, 0)));
    }

    /** {@link Sfu#rsqrt} in every lane. PTX: {@code rsqrt.approx.ftz.f32}. */
    public static FloatVector rsqrt(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = exponent(bits);
        IntVector fraction = bits.lanewise(VectorOperators.AND, FRACTION);
        IntVector half = exponent.lanewise(VectorOperators.NOT).lanewise(VectorOperators.AND, 1);
        IntVector scale = exponent.sub(127).lanewise(VectorOperators.ASHR, 1);
        IntVector argument = half.lanewise(VectorOperators.LSHL, 23).or(fraction);
        IntVector result = scale.neg().add(125).lanewise(VectorOperators.LSHL, 23)
                .add(round(RSQRT.sum(argument), 6));
        VectorMask<Integer> special = zeroOrNonFinite(bits).or(bits.compare(VectorOperators.LT, 0));
        if (special.anyTrue()) {
            result = rsqrtSpecial(result, bits, exponent, fraction);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector rsqrtSpecial(IntVector result, IntVector bits, IntVector exponent, IntVector fraction) {
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        VectorMask<Integer> negative = bits.compare(VectorOperators.LT, 0);
        VectorMask<Integer> nan = fraction.compare(VectorOperators.NE, 0).and(nonFinite).or(negative);
        return result.blend(0, nonFinite)
                .blend(NAN, nan)
                .blend(bits.lanewise(VectorOperators.AND, SIGN).or(INFINITY), exponent.compare(VectorOperators.EQ, 0));
    }

    /** {@link Sfu#ex2} in every lane. PTX: {@code ex2.approx.ftz.f32}. */
    public static FloatVector ex2(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = exponent(bits);
        // |x|·2^23 rounded half away from zero: a left shift for |x| >= 1, a rounding right shift (at most
        // 31 places, which leaves 0) below; zero and subnormals drop all their bits.
        IntVector significand = bits.lanewise(VectorOperators.AND, FRACTION).or(MIN_NORMAL);
        IntVector up = exponent.sub(127).max(0);
        IntVector down = exponent.neg().add(127).max(0).min(31);
        IntVector roundingHalf = IntVector.broadcast(VectorDatapath.INT, 1)
                .lanewise(VectorOperators.LSHL, down).lanewise(VectorOperators.LSHR, 1);
        IntVector magnitude = significand.lanewise(VectorOperators.LSHL, up).add(roundingHalf)
                .lanewise(VectorOperators.ASHR, down);
        VectorMask<Integer> negative = bits.compare(VectorOperators.LT, 0);
        IntVector fixed = magnitude.blend(magnitude.neg(), negative);
        IntVector whole = fixed.lanewise(VectorOperators.ASHR, 23);
        IntVector result = whole.add(126).lanewise(VectorOperators.LSHL, 23)
                .add(round(EX2.sum(fixed.lanewise(VectorOperators.AND, FRACTION)), 6));
        result = flushSubnormal(result);
        // |x| >= 128: overflow, underflow, infinities, NaN.
        VectorMask<Integer> special = exponent.compare(VectorOperators.GE, 127 + 7);
        if (special.anyTrue()) {
            result = ex2Special(result, bits, exponent, whole, special);
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector ex2Special(IntVector result, IntVector bits, IntVector exponent, IntVector whole,
                                        VectorMask<Integer> special) {
        VectorMask<Integer> huge = exponent.compare(VectorOperators.GE, 127 + 8);
        VectorMask<Integer> negative = bits.compare(VectorOperators.LT, 0);
        VectorMask<Integer> nan = exponent.compare(VectorOperators.EQ, 0xFF)
                .and(bits.lanewise(VectorOperators.AND, FRACTION).compare(VectorOperators.NE, 0));
        return result.blend(INFINITY, special.and(whole.compare(VectorOperators.GE, 128)))
                .blend(IntVector.zero(VectorDatapath.INT).blend(INFINITY, negative.not()), huge)
                .blend(NAN, nan);
    }

    /** {@link Sfu#lg2} in every lane. PTX: {@code lg2.approx.ftz.f32}. */
    public static FloatVector lg2(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector exponent = exponent(bits);
        FloatVector fraction = unitInterval(LG2.sum(bits.lanewise(VectorOperators.AND, FRACTION)));
        FloatVector result = toFloat(exponent.sub(127)).add(fraction);
        VectorMask<Integer> special = zeroOrNonFinite(bits).or(bits.compare(VectorOperators.LT, 0));
        if (special.anyTrue()) {
            result = lg2Special(result.reinterpretAsInts(), bits, exponent).reinterpretAsFloats();
        }
        return result;
    }

    private static IntVector lg2Special(IntVector result, IntVector bits, IntVector exponent) {
        VectorMask<Integer> nonFinite = exponent.compare(VectorOperators.EQ, 0xFF);
        VectorMask<Integer> nan = bits.lanewise(VectorOperators.AND, FRACTION).compare(VectorOperators.NE, 0)
                .and(nonFinite).or(bits.compare(VectorOperators.LT, 0));
        return result.blend(INFINITY, nonFinite)
                .blend(NAN, nan)
                .blend(INFINITY | SIGN, exponent.compare(VectorOperators.EQ, 0));
    }

    /** {@link Sfu#sin} in every lane. PTX: {@code sin.approx.ftz.f32}. */
    public static FloatVector sin(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector result = sinOfTurns(quarterTurns(x));
        VectorMask<Integer> special = zeroOrNonFinite(bits);
        if (special.anyTrue()) {
            result = sinCosSpecial(result, bits, bits.lanewise(VectorOperators.AND, SIGN));
        }
        return result.reinterpretAsFloats();
    }

    /** {@link Sfu#cos} in every lane. PTX: {@code cos.approx.ftz.f32}. */
    public static FloatVector cos(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector result = sinOfTurns(quarterTurns(x).add(QUARTER));
        VectorMask<Integer> special = zeroOrNonFinite(bits);
        if (special.anyTrue()) {
            result = sinCosSpecial(result, bits, IntVector.broadcast(VectorDatapath.INT, ONE));
        }
        return result.reinterpretAsFloats();
    }

    private static IntVector sinCosSpecial(IntVector result, IntVector bits, IntVector atZero) {
        IntVector exponent = exponent(bits);
        return result.blend(atZero, exponent.compare(VectorOperators.EQ, 0))
                .blend(NAN, exponent.compare(VectorOperators.EQ, 0xFF));
    }

    /** {@link QuarterTurns#of} in every lane: the same float operations, in the same order. */
    private static IntVector quarterTurns(FloatVector x) {
        FloatVector k = x.mul(QuarterTurns.TWO_OVER_PI).add(QuarterTurns.RINT_MAGIC).sub(QuarterTurns.RINT_MAGIC);
        FloatVector minusK = k.neg();
        FloatVector r = minusK.lanewise(VectorOperators.FMA, QuarterTurns.PIO2_LO,
                minusK.lanewise(VectorOperators.FMA, QuarterTurns.PIO2_HI, x));
        FloatVector high = r.mul(QuarterTurns.GRID_SCALE_HI);
        FloatVector t = high.add(QuarterTurns.RINT_MAGIC).sub(QuarterTurns.RINT_MAGIC);
        FloatVector rest = r.lanewise(VectorOperators.FMA, QuarterTurns.GRID_SCALE_HI, t.neg())
                .add(r.mul(QuarterTurns.GRID_SCALE_LO));
        FloatVector correction = rest.add(QuarterTurns.RINT_MAGIC).sub(QuarterTurns.RINT_MAGIC);
        return toInt(k).lanewise(VectorOperators.LSHL, TableSpec.ARGUMENT_BITS).add(toInt(t)).add(toInt(correction));
    }

    /** {@link QuarterTurns#sin} in every lane: the result's bits. */
    private static IntVector sinOfTurns(IntVector turns) {
        IntVector quadrant = turns.lanewise(VectorOperators.LSHR, TableSpec.ARGUMENT_BITS)
                .lanewise(VectorOperators.AND, 3);
        IntVector fraction = turns.lanewise(VectorOperators.AND, QUARTER - 1);
        VectorMask<Integer> odd = quadrant.lanewise(VectorOperators.AND, 1).compare(VectorOperators.NE, 0);
        IntVector u = fraction.blend(fraction.neg().add(QUARTER), odd);
        IntVector value = unitInterval(SIN.sum(u)).reinterpretAsInts()
                .blend(ONE, u.compare(VectorOperators.EQ, QUARTER));
        // Quadrants 2 and 3 negate: their bit 1 becomes the sign bit.
        return value.lanewise(VectorOperators.XOR,
                quadrant.lanewise(VectorOperators.LSHR, 1).lanewise(VectorOperators.LSHL, 31));
    }

    /** The biased exponent field of each lane. */
    private static IntVector exponent(IntVector bits) {
        return bits.lanewise(VectorOperators.LSHR, 23).lanewise(VectorOperators.AND, 0xFF);
    }

    /**
     * Lanes whose exponent field is 0 (zeros, subnormals) or 255 (infinities, NaN): adding 1 to the
     * field clears bits 24-30 exactly for these two.
     */
    private static VectorMask<Integer> zeroOrNonFinite(IntVector bits) {
        return bits.add(MIN_NORMAL).lanewise(VectorOperators.AND, 0x7F00_0000).compare(VectorOperators.EQ, 0);
    }

    private static IntVector round(IntVector sum, int bits) {
        return sum.add(1 << (bits - 1)).lanewise(VectorOperators.ASHR, bits);
    }

    private static IntVector flushSubnormal(IntVector bits) {
        return bits.blend(0, bits.compare(VectorOperators.LT, MIN_NORMAL));
    }

    /** As {@code Datapath.unitInterval}: clamp to [0, 2^30], convert to nearest float, scale by 2^-30. */
    private static FloatVector unitInterval(IntVector sum) {
        return toFloat(sum.max(0).min(1 << 30)).mul(0x1p-30f);
    }

    private static FloatVector toFloat(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }

    private static IntVector toInt(FloatVector v) {
        return (IntVector) v.convert(VectorOperators.F2I, 0);
    }
}
