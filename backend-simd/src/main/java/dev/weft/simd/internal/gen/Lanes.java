package dev.weft.simd.internal.gen;

import dev.weft.Dim3;
import dev.weft.internal.WarpLanes;
import dev.weft.runtime.spi.KernelFault;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * What generated kernels call besides the Vector API: the species they use, mask conversions between 32-bit
 * and 64-bit lanes, Java-exact arithmetic the Vector API lacks or runs slowly, scatters, and the faults.
 * Everything on a hot path is small and static so that C2 inlines it into the kernel.
 */
public final class Lanes {

    /** The species of 32-bit lanes: the machine's preferred vector size. */
    public static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    public static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    /** Lanes of a 32-bit register. */
    public static final int L32 = IS.length();
    /** Every lane set, as one object: what a paused group keeps as its grid-stride loop's mask (see CodeGen's interleavedPause). */
    public static final VectorMask<Integer> ALL_TRUE = IS.maskAll(true);
    /** Lanes of a 64-bit register (of {@link Wide}'s species, the same bit size as {@link #IS}). */
    public static final int L64 = IS.vectorBitSize() / Long.SIZE;
    /** Whether the Vector API's scatter is a machine instruction here (AVX-512); else stores go lane by lane. */
    static final boolean NATIVE_SCATTER = IS.vectorBitSize() >= 512 || Boolean.getBoolean("weft.simd.nativeScatter");
    /**
     * Whether a masked store of byte and short lanes is a machine instruction here (AVX-512's byte and word masks);
     * else a narrow array's masked stores go lane by lane ({@code storeLanes}).
     */
    static final boolean NATIVE_NARROW_MASKED_STORE = IS.vectorBitSize() >= 512 || Boolean.getBoolean("weft.simd.nativeNarrowMaskedStore");

    private Lanes() {
    }

    /**
     * The species of 64-bit lanes, of the same bit size as {@link #IS}: half as many lanes. Apart, so that a first
     * compile does not initialise them (the Vector API's long and double classes of every shape: 14-22 ms of CPU in
     * a fresh JVM here); the warm-up does after its compiles, or failing that a kernel with long or double values
     * on its first run.
     */
    public static final class Wide {
        public static final VectorSpecies<Long> LS = LongVector.SPECIES_PREFERRED;
        public static final VectorSpecies<Double> DS = DoubleVector.SPECIES_PREFERRED;

        private Wide() {
        }
    }

    /**
     * The species of 8- and 16-bit lanes with as many lanes as {@link #IS}: a byte, boolean, short or char array's
     * elements load into them and widen to the int lanes kernels compute in (and narrow back to be stored). Apart,
     * as {@link Wide}, so that kernels without narrow arrays never initialise the byte and short vector classes.
     * Null where no vector of that size exists ({@link #hasNarrowLanes}).
     */
    public static final class Narrow {
        public static final VectorSpecies<Byte> BS = hasNarrowLanes(Byte.SIZE)
                ? VectorSpecies.of(byte.class, VectorShape.forBitSize(L32 * Byte.SIZE)) : null;
        public static final VectorSpecies<Short> SS = hasNarrowLanes(Short.SIZE)
                ? VectorSpecies.of(short.class, VectorShape.forBitSize(L32 * Short.SIZE)) : null;

        private Narrow() {
        }
    }

    /**
     * Whether a vector of {@link #L32} lanes of {@code bits} bits exists: the Vector API's smallest is 64 bits, so
     * bytes need 8-lane registers (256-bit int vectors) or wider, shorts 4-lane ones.
     */
    public static boolean hasNarrowLanes(int bits) {
        return L32 * bits >= 64 && L32 * bits <= 512;
    }

    // ---- masks ------------------------------------------------------------------------------

    /** The low half of a 32-bit-lane mask as a 64-bit-lane mask. */
    public static VectorMask<Long> wideLo(VectorMask<Integer> m) {
        return VectorMask.fromLong(Wide.LS, m.toLong());
    }

    /** The high half of a 32-bit-lane mask as a 64-bit-lane mask. */
    public static VectorMask<Long> wideHi(VectorMask<Integer> m) {
        return VectorMask.fromLong(Wide.LS, m.toLong() >>> L64);
    }

    /** The low half of a 32-bit-lane mask as a double-lane mask (one call instead of three: less bytecode per kernel). */
    public static VectorMask<Double> wideLoDouble(VectorMask<Integer> m) {
        return VectorMask.fromLong(Wide.DS, m.toLong());
    }

    /** The high half of a 32-bit-lane mask as a double-lane mask. */
    public static VectorMask<Double> wideHiDouble(VectorMask<Integer> m) {
        return VectorMask.fromLong(Wide.DS, m.toLong() >>> L64);
    }

    /** A 32-bit-lane mask as a float-lane mask. */
    public static VectorMask<Float> floatLanes(VectorMask<Integer> m) {
        return m.cast(FS);
    }

    /** The lanes of two mask registers of {@code lanes} lanes each as bits of a long, register 0 lowest. */
    public static long bits(VectorMask<?> m0, VectorMask<?> m1, int lanes) {
        return m0.toLong() | m1.toLong() << lanes;
    }

    /** As {@link #bits(VectorMask, VectorMask, int)}, four registers. */
    public static long bits(VectorMask<?> m0, VectorMask<?> m1, VectorMask<?> m2, VectorMask<?> m3, int lanes) {
        return m0.toLong() | m1.toLong() << lanes | m2.toLong() << 2 * lanes | m3.toLong() << 3 * lanes;
    }

    /** As {@link #bits(VectorMask, VectorMask, int)}, eight registers. */
    public static long bits(VectorMask<?> m0, VectorMask<?> m1, VectorMask<?> m2, VectorMask<?> m3, VectorMask<?> m4,
            VectorMask<?> m5, VectorMask<?> m6, VectorMask<?> m7, int lanes) {
        return bits(m0, m1, m2, m3, lanes) | bits(m4, m5, m6, m7, lanes) << 4 * lanes;
    }

    /** Two 64-bit-lane masks (low, high) as one 32-bit-lane mask. */
    public static VectorMask<Integer> narrow(VectorMask<?> lo, VectorMask<?> hi) {
        return VectorMask.fromLong(IS, lo.toLong() | (hi.toLong() << L64));
    }

    /** {@code v} clamped into the int range. */
    public static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    /**
     * Register {@code reg} of {@code base + lane op bound} over the lanes of a group, in wrapping int arithmetic:
     * for a group whose affine values run past Integer.MAX_VALUE, where they are not monotone in the lane.
     */
    public static VectorMask<Integer> affineCompare(int base, int reg, int bound, VectorOperators.Comparison op) {
        return IntVector.broadcast(IS, base + reg * L32).addIndex(1).compare(op, bound);
    }

    /** Lanes of register {@code reg} whose thread (lane of the group) is below {@code lane}. */
    public static VectorMask<Integer> below(int reg, int lane) {
        return IS.indexInRange(reg * L32, lane);
    }

    // ---- int arithmetic ---------------------------------------------------------------------

    /**
     * {@code a / b} lane by lane with Java's semantics, for divisors that are not zero: the quotient of two
     * ints is exact in double and truncation matches Java's, except {@code MIN_VALUE / -1}, which wraps.
     * Measured here: 5 times faster than the Vector API's integer DIV, which has no x86 instruction.
     */
    public static IntVector div(IntVector a, IntVector b) {
        IntVector q;
        if (L32 == L64) {
            q = (IntVector) ((DoubleVector) a.convertShape(VectorOperators.I2D, Wide.DS, 0))
                    .div((DoubleVector) b.convertShape(VectorOperators.I2D, Wide.DS, 0))
                    .convertShape(VectorOperators.D2I, IS, 0);
        } else {
            DoubleVector a0 = (DoubleVector) a.convertShape(VectorOperators.I2D, Wide.DS, 0);
            DoubleVector a1 = (DoubleVector) a.convertShape(VectorOperators.I2D, Wide.DS, 1);
            DoubleVector b0 = (DoubleVector) b.convertShape(VectorOperators.I2D, Wide.DS, 0);
            DoubleVector b1 = (DoubleVector) b.convertShape(VectorOperators.I2D, Wide.DS, 1);
            IntVector q0 = (IntVector) a0.div(b0).convertShape(VectorOperators.D2I, IS, 0);
            IntVector q1 = (IntVector) a1.div(b1).convertShape(VectorOperators.D2I, IS, -1);
            q = q0.or(q1);
        }
        VectorMask<Integer> wrap = a.compare(VectorOperators.EQ, Integer.MIN_VALUE).and(b.compare(VectorOperators.EQ, -1));
        return q.blend(Integer.MIN_VALUE, wrap);
    }

    /** {@code a % b} lane by lane with Java's semantics, for divisors that are not zero. */
    public static IntVector rem(IntVector a, IntVector b) {
        return a.sub(div(a, b).mul(b));
    }

    /** {@code a / b} for longs with Java's semantics (divisors not zero). */
    public static LongVector div(LongVector a, LongVector b) {
        return a.lanewise(VectorOperators.DIV, b);
    }

    /** {@code a % b} for longs with Java's semantics (divisors not zero). */
    public static LongVector rem(LongVector a, LongVector b) {
        return a.sub(a.lanewise(VectorOperators.DIV, b).mul(b));
    }

    /** Java's {@code %} on floats: the truncated remainder, lane by lane. */
    public static float frem(float a, float b) {
        return a % b;
    }

    /** Java's {@code %} on doubles. */
    public static double drem(double a, double b) {
        return a % b;
    }

    // ---- rounding and bits, exact -----------------------------------------------------------

    /** {@link Math#floor} lane by lane, bit for bit. */
    public static DoubleVector floor(DoubleVector x) {
        return round(x, true);
    }

    /** {@link Math#ceil} lane by lane, bit for bit. */
    public static DoubleVector ceil(DoubleVector x) {
        return round(x, false);
    }

    private static DoubleVector round(DoubleVector x, boolean down) {
        // rint, then a step where it went the wrong way; the sign of x carries over (floor(-0.5) is -1.0,
        // ceil(-0.5) is -0.0). |x| >= 2^52, infinities and NaN are their own floor and ceiling.
        DoubleVector r = rint(x);
        VectorMask<Double> step = down ? r.compare(VectorOperators.GT, x) : r.compare(VectorOperators.LT, x);
        r = r.sub(DoubleVector.broadcast(Wide.DS, down ? 1.0 : -1.0), step);
        return copySign(r, x);
    }

    /** {@link Math#rint} lane by lane, bit for bit: round half to even. */
    public static DoubleVector rint(DoubleVector x) {
        // Adding and subtracting 2^52 rounds to an integer in the current (nearest-even) mode.
        DoubleVector two52 = DoubleVector.broadcast(Wide.DS, 0x1p52);
        DoubleVector a = x.abs();
        DoubleVector r = a.add(two52).sub(two52);
        VectorMask<Double> small = a.compare(VectorOperators.LT, 0x1p52);
        return copySign(a.blend(r, small), x);
    }

    /** {@code (float) Math.floor(x)} for floats, bit for bit. */
    public static FloatVector floor(FloatVector x) {
        return round(x, true);
    }

    /** {@code (float) Math.ceil(x)} for floats, bit for bit. */
    public static FloatVector ceil(FloatVector x) {
        return round(x, false);
    }

    private static FloatVector round(FloatVector x, boolean down) {
        FloatVector r = rint(x);
        VectorMask<Float> step = down ? r.compare(VectorOperators.GT, x) : r.compare(VectorOperators.LT, x);
        r = r.sub(FloatVector.broadcast(FS, down ? 1f : -1f), step);
        return copySign(r, x);
    }

    /** {@code (float) Math.rint(x)} for floats, bit for bit. */
    public static FloatVector rint(FloatVector x) {
        FloatVector two23 = FloatVector.broadcast(FS, 0x1p23f);
        FloatVector a = x.abs();
        FloatVector r = a.add(two23).sub(two23);
        VectorMask<Float> small = a.compare(VectorOperators.LT, 0x1p23f);
        return copySign(a.blend(r, small), x);
    }

    /** {@link Math#copySign(double, double)} lane by lane. */
    public static DoubleVector copySign(DoubleVector magnitude, DoubleVector sign) {
        LongVector m = magnitude.reinterpretAsLongs().and(Long.MAX_VALUE);
        LongVector s = sign.reinterpretAsLongs().and(Long.MIN_VALUE);
        return m.or(s).reinterpretAsDoubles();
    }

    /** {@link Math#copySign(float, float)} lane by lane. */
    public static FloatVector copySign(FloatVector magnitude, FloatVector sign) {
        IntVector m = magnitude.reinterpretAsInts().and(Integer.MAX_VALUE);
        IntVector s = sign.reinterpretAsInts().and(Integer.MIN_VALUE);
        return m.or(s).reinterpretAsFloats();
    }

    /** {@link Math#signum(double)} lane by lane: 1, -1, or x itself for zeros and NaN. */
    public static DoubleVector signum(DoubleVector x) {
        DoubleVector one = copySign(DoubleVector.broadcast(Wide.DS, 1.0), x);
        VectorMask<Double> keep = x.compare(VectorOperators.EQ, 0.0).or(x.test(VectorOperators.IS_NAN));
        return one.blend(x, keep);
    }

    /** {@link Math#signum(float)} lane by lane. */
    public static FloatVector signum(FloatVector x) {
        FloatVector one = copySign(FloatVector.broadcast(FS, 1f), x);
        VectorMask<Float> keep = x.compare(VectorOperators.EQ, 0f).or(x.test(VectorOperators.IS_NAN));
        return one.blend(x, keep);
    }

    public static IntVector floatToRawIntBits(FloatVector x) {
        return x.reinterpretAsInts();
    }

    /** {@link Float#floatToIntBits}: every NaN as the canonical one. */
    public static IntVector floatToIntBits(FloatVector x) {
        return x.reinterpretAsInts().blend(0x7fc00000, x.test(VectorOperators.IS_NAN).cast(IS));
    }

    public static FloatVector intBitsToFloat(IntVector x) {
        return x.reinterpretAsFloats();
    }

    public static LongVector doubleToRawLongBits(DoubleVector x) {
        return x.reinterpretAsLongs();
    }

    /** {@link Double#doubleToLongBits}: every NaN as the canonical one. */
    public static LongVector doubleToLongBits(DoubleVector x) {
        return x.reinterpretAsLongs().blend(0x7ff8000000000000L, x.test(VectorOperators.IS_NAN).cast(Wide.LS));
    }

    public static DoubleVector longBitsToDouble(LongVector x) {
        return x.reinterpretAsDoubles();
    }

    /** {@link Float#isNaN} as 1 or 0. */
    public static IntVector isNaN(FloatVector x) {
        return IntVector.zero(IS).blend(1, x.test(VectorOperators.IS_NAN).cast(IS));
    }

    // ---- memory -----------------------------------------------------------------------------

    /**
     * Stores register {@code idx} of a gather's or scatter's indices at {@code map[offset...]}, and returns
     * the active lanes whose index is outside {@code [0, length)} as bits (lane 0 at bit 0).
     */
    public static long outside(IntVector idx, VectorMask<Integer> active, int length, int[] map, int offset) {
        idx.intoArray(map, offset);
        return idx.compare(VectorOperators.UGE, length).and(active).toLong();
    }

    /**
     * {@link #outside(IntVector, VectorMask, int, int[], int)} for the affine register {@code base + stride * lane}:
     * compact code passes the two scalars (4 bytes) where building the vector takes 13.
     */
    public static long outside(int base, int stride, VectorMask<Integer> active, int length, int[] map, int offset) {
        return outside(IntVector.broadcast(IS, base).addIndex(stride), active, length, map, offset);
    }

    /** {@link #inside(IntVector, VectorMask, int[], int)} for the affine register {@code base + stride * lane}. */
    public static void inside(int base, int stride, VectorMask<Integer> active, int[] map, int offset) {
        inside(IntVector.broadcast(IS, base).addIndex(stride), active, map, offset);
    }

    /** Stores register {@code idx} at {@code map[offset...]} with inactive lanes reading element 0 instead. */
    public static void inside(IntVector idx, VectorMask<Integer> active, int[] map, int offset) {
        idx.blend(0, active.not()).intoArray(map, offset);
    }

    /** The mask register {@code m} keeping only lanes of the group below {@code lane}. */
    public static VectorMask<Integer> keepBelow(VectorMask<Integer> m, int reg, int lane) {
        return m.and(IS.indexInRange(reg * L32, lane));
    }

    /** {@link #keepBelow(VectorMask, int, int)} of register 0: compact code's form (a byte less per mask and fault). */
    public static VectorMask<Integer> keepBelow(VectorMask<Integer> m, int lane) {
        return keepBelow(m, 0, lane);
    }

    /**
     * The first lane set in {@code bits}, or -1 where none is: compact code's test for a fault's first lane
     * ({@code iflt}, where the count of trailing zeros needs a compare against 64: 2 bytes less per fault site).
     */
    public static int firstLane(long bits) {
        return bits == 0 ? -1 : Long.numberOfTrailingZeros(bits);
    }

    /** The first lane set in {@code active} whose index {@code base + lane} is outside {@code [0, length)}, or -1. */
    public static int firstOutside(int base, int length, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int lane = Long.numberOfTrailingZeros(bits);
            int i = base + lane;
            if (i < 0 || i >= length) {
                return lane;
            }
        }
        return -1;
    }

    /**
     * Stores {@code vals[valsOffset + j]} into {@code a[idx[j]]} for each lane j set in {@code active}, in lane
     * order, so that of lanes writing the same element the last one wins, as the last thread does in the
     * reference executor.
     */
    public static void scatter(int[] a, int[] idx, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = vals[valsOffset + j];
        }
    }

    public static void scatter(long[] a, int[] idx, long[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = vals[valsOffset + j];
        }
    }

    public static void scatter(float[] a, int[] idx, float[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = vals[valsOffset + j];
        }
    }

    public static void scatter(double[] a, int[] idx, double[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = vals[valsOffset + j];
        }
    }

    /** As {@link #scatter(int[], int[], int[], int, long)} into a byte array: each value's low 8 bits. */
    public static void scatter(byte[] a, int[] idx, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = (byte) vals[valsOffset + j];
        }
    }

    /** As {@link #scatter(int[], int[], int[], int, long)} into a short array: each value's low 16 bits. */
    public static void scatter(short[] a, int[] idx, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = (short) vals[valsOffset + j];
        }
    }

    /** As {@link #scatter(int[], int[], int[], int, long)} into a char array: each value's low 16 bits. */
    public static void scatter(char[] a, int[] idx, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = (char) vals[valsOffset + j];
        }
    }

    /** As {@link #scatter(int[], int[], int[], int, long)} into a boolean array: each value's low bit, as {@code bastore}. */
    public static void scatter(boolean[] a, int[] idx, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[idx[j]] = (vals[valsOffset + j] & 1) != 0;
        }
    }

    /**
     * Stores {@code vals[valsOffset + j]}'s low 8 bits into {@code a[base + j]} for each lane j set in {@code active}: a
     * masked contiguous store where the machine has none for bytes. The lanes' indices are inside the array (the
     * caller's range check and faults).
     */
    public static void storeLanes(byte[] a, int base, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[base + j] = (byte) vals[valsOffset + j];
        }
    }

    /** As {@link #storeLanes(byte[], int, int[], int, long)}, the low 16 bits. */
    public static void storeLanes(short[] a, int base, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[base + j] = (short) vals[valsOffset + j];
        }
    }

    /** As {@link #storeLanes(byte[], int, int[], int, long)}, the low 16 bits. */
    public static void storeLanes(char[] a, int base, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[base + j] = (char) vals[valsOffset + j];
        }
    }

    /** As {@link #storeLanes(byte[], int, int[], int, long)}, the low bit. */
    public static void storeLanes(boolean[] a, int base, int[] vals, int valsOffset, long active) {
        for (long bits = active; bits != 0; bits &= bits - 1) {
            int j = Long.numberOfTrailingZeros(bits);
            a[base + j] = (vals[valsOffset + j] & 1) != 0;
        }
    }

    // ---- faults -----------------------------------------------------------------------------

    /** The exception Java throws for {@code a[index]} out of bounds, with the same message. */
    public static ArrayIndexOutOfBoundsException outOfBounds(int index, int length) {
        return new ArrayIndexOutOfBoundsException("Index " + index + " out of bounds for length " + length);
    }

    /** The exception Java throws for an integer division by zero. */
    public static ArithmeticException divideByZero() {
        return new ArithmeticException("/ by zero");
    }

    /** The exception for an access through a null array. */
    public static NullPointerException nullArray(String what) {
        return new NullPointerException(what);
    }

    /**
     * The fault of the thread with linear id {@code linear} in a CTA of {@code bx * by} threads per z-plane,
     * for the generated code to throw.
     */
    public static KernelFault fault(int linear, int bx, int by, Throwable cause) {
        int x = linear % bx;
        int y = (linear / bx) % by;
        int z = linear / (bx * by);
        return KernelFault.inThread(new Dim3(x, y, z), cause);
    }

    // ---- thread coordinates of the general CTA shape ------------------------------------------

    /** threadIdx.x of register {@code reg} of the group starting at linear id {@code base}. */
    public static IntVector tidX(int base, int reg, int bx) {
        IntVector linear = IntVector.broadcast(IS, base + reg * L32).addIndex(1);
        return rem(linear, IntVector.broadcast(IS, bx));
    }

    /** threadIdx.y, likewise. */
    public static IntVector tidY(int base, int reg, int bx, int by) {
        IntVector linear = IntVector.broadcast(IS, base + reg * L32).addIndex(1);
        return rem(div(linear, IntVector.broadcast(IS, bx)), IntVector.broadcast(IS, by));
    }

    /** threadIdx.z, likewise. */
    public static IntVector tidZ(int base, int reg, int bx, int by) {
        IntVector linear = IntVector.broadcast(IS, base + reg * L32).addIndex(1);
        return div(linear, IntVector.broadcast(IS, bx * by));
    }

    // ---- warp operations (the group is one warp) ---------------------------------------------------

    /** {@code any}: 1 if some active lane voted. */
    public static int anyVote(long votes) {
        return votes != 0 ? 1 : 0;
    }

    /** {@code all}: 1 if every active lane voted (as the reference: the votes equal the active lanes). */
    public static int allVote(long votes, long active) {
        return votes == active ? 1 : 0;
    }

    /**
     * A shuffle over a warp in scratch: {@code values[0, n)} the lanes' values, {@code args[n, 2n)} their lane
     * arguments; each active lane's result goes to {@code values[3n + lane]}: the value of its source lane
     * ({@link WarpLanes}) if that lane is active, else its own (the reference executor's rule).
     *
     * @param mode 0 idx, 1 up, 2 down, 3 xor
     */
    public static void shuffle(int[] values, int[] args, int n, long active, int mode, int width, int warpSize) {
        for (long left = active; left != 0; left &= left - 1) {
            int lane = Long.numberOfTrailingZeros(left);
            int src = source(lane, args[n + lane], mode, width, warpSize);
            values[3 * n + lane] = src < n && (active >>> src & 1) != 0 ? values[src] : values[lane];
        }
    }

    /** As {@link #shuffle(int[], int[], int, long, int, int, int)}, for floats (bits moved unchanged). */
    public static void shuffle(float[] values, int[] args, int n, long active, int mode, int width, int warpSize) {
        for (long left = active; left != 0; left &= left - 1) {
            int lane = Long.numberOfTrailingZeros(left);
            int src = source(lane, args[n + lane], mode, width, warpSize);
            values[3 * n + lane] = src < n && (active >>> src & 1) != 0 ? values[src] : values[lane];
        }
    }

    // Shuffles whose lane argument is the same in every lane (CodeGen.permuteShuffle): the data moves by Vector API
    // rearranges of the warp's registers with the constant shuffles of Permutes (vpermd/vpermps on AVX2, never a trip
    // through memory), and the lanes that take the moved value are computed as bits in O(1) here, with no loop over lanes.

    /** The scan steps of one register: log2 of its lanes (at most 4: Permutes' SCAN_ fields). */
    public static final int SCAN_STEPS = Integer.numberOfTrailingZeros(L32);

    /**
     * The folded warp scan where the active lanes are not a prefix of the warp: the loop it replaced, lane by lane,
     * on the warp's values in {@code v[0, warpSize)}. Each step reads the values of the step before (lanes go down,
     * so a source lane, always lower, is not yet updated); an inactive source gives the reader its own value.
     */
    public static void scanAddLanes(int[] v, long active, int warpSize) {
        for (int d = 1; d < warpSize; d <<= 1) {
            for (int l = warpSize - 1; l >= d; l--) {
                if ((active >>> l & 1) != 0) {
                    int src = l - d;
                    v[l] += (active >>> src & 1) != 0 ? v[src] : v[l];
                }
            }
        }
    }

    /** The largest stride, either way, of an affine index that {@link #STRIDED} has a gather map for. */
    public static final int MAX_GATHER_STRIDE = 64;
    /**
     * {@code STRIDED[s + MAX_GATHER_STRIDE]}: the gather map {@code 0, s, 2s, ...} of one register's lanes, for the
     * loads whose index is {@code base + s * lane} (a column of a shared tile). Constant, so a load at such an index
     * in range for every lane is one gather from a map that no code writes, with no per-group index stores.
     */
    public static final int[][] STRIDED = stridedMaps();

    private static int[][] stridedMaps() {
        int[][] t = new int[2 * MAX_GATHER_STRIDE + 1][];
        for (int s = -MAX_GATHER_STRIDE; s <= MAX_GATHER_STRIDE; s++) {
            int[] m = new int[L32];
            for (int l = 0; l < L32; l++) {
                m[l] = s * l;
            }
            t[s + MAX_GATHER_STRIDE] = m;
        }
        return t;
    }

    /** The low {@code bits} bits set. */
    private static long ones(int bits) {
        return bits >= 64 ? -1L : (1L << bits) - 1;
    }

    /** A bit at the first lane of every segment of {@code width} lanes (constant once C2 inlines). */
    private static long segmentStarts(int width, int warpSize) {
        return ones(warpSize) / ones(width);
    }

    /**
     * {@code shflUp} by a uniform delta: the active lanes whose source lane ({@link WarpLanes#up}) is another, active
     * one. CodeGen emits this formula inline (so does it for down and idx), branch-free: a delta of a segment or more
     * leaves no lane of {@code ones(width) & -1 << d}.
     */
    public static long takeUp(long active, int delta, int width, int warpSize) {
        int d = delta & (warpSize - 1);
        return active << d & active & segmentStarts(width, warpSize) * (ones(width) & -1L << d);
    }

    /** {@code shflDown} by a uniform delta, as {@link #takeUp}. */
    public static long takeDown(long active, int delta, int width, int warpSize) {
        int d = delta & (warpSize - 1);
        return active >>> d & active & segmentStarts(width, warpSize) * (ones(width) >>> d);
    }

    /** Lanes whose index has bit {@code b} clear, for {@code b} = 0..5. */
    private static final long[] BIT_CLEAR = {
        0x5555_5555_5555_5555L, 0x3333_3333_3333_3333L, 0x0f0f_0f0f_0f0f_0f0fL,
        0x00ff_00ff_00ff_00ffL, 0x0000_ffff_0000_ffffL, 0x0000_0000_ffff_ffffL,
    };

    /** {@code shflXor} by a uniform lane mask, as {@link #takeUp}: the active bits permuted like the values. */
    public static long takeXor(long active, int laneMask, int width, int warpSize) {
        int m = laneMask & (warpSize - 1);
        long p = active;
        for (int b = 0; 1 << b < warpSize; b++) {
            if ((m >>> b & 1) != 0) {
                long low = BIT_CLEAR[b];
                p = (p & low) << (1 << b) | p >>> (1 << b) & low;
            }
        }
        int later = m & -width;
        if (later != 0) {
            // the source lies in another segment: taken only where that segment is an earlier one (WarpLanes.xor)
            p &= ~BIT_CLEAR[31 - Integer.numberOfLeadingZeros(later)];
        }
        return p & active;
    }

    /** {@code shfl} from a uniform source lane, as {@link #takeUp}: every lane of a segment whose source is active. */
    public static long takeIdx(long active, int srcLane, int width, int warpSize) {
        int s = srcLane & (width - 1);
        return (active >>> s & segmentStarts(width, warpSize)) * ones(width) & active;
    }

    private static int source(int lane, int arg, int mode, int width, int warpSize) {
        return switch (mode) {
            case 0 -> WarpLanes.idx(lane, arg, width);
            case 1 -> WarpLanes.up(lane, arg, width, warpSize);
            case 2 -> WarpLanes.down(lane, arg, width, warpSize);
            default -> WarpLanes.xor(lane, arg, width, warpSize);
        };
    }

    // Vectors kept across a barrier (CodeGen's spill rows): vector i of the int row at columns [i * L32, (i + 1) * L32),
    // its bits as ints (every species has the same size, and a reinterpretation changes no bit). Helpers rather than
    // inline code, and one row for all, keep each spill and restore a few bytes shorter under C2's 8000-byte limit.
    // Int vectors use them only where inline code would not fit (CodeGen.withSpillCalls): near that limit C2 does
    // not inline them, and boxes every vector passed. Float vectors have their own row, without reinterpretation
    // (see CodeGen.vectorSpill).

    public static IntVector restoreInts(int[] row, int i) {
        return IntVector.fromArray(IS, row, i * L32);
    }

    public static LongVector restoreLongs(int[] row, int i) {
        return (LongVector) IntVector.fromArray(IS, row, i * L32).reinterpretAsLongs();
    }

    public static DoubleVector restoreDoubles(int[] row, int i) {
        return (DoubleVector) IntVector.fromArray(IS, row, i * L32).reinterpretAsDoubles();
    }

    public static void spill(IntVector v, int[] row, int i) {
        v.intoArray(row, i * L32);
    }

    public static void spill(LongVector v, int[] row, int i) {
        ((IntVector) v.reinterpretAsInts()).intoArray(row, i * L32);
    }

    public static void spill(DoubleVector v, int[] row, int i) {
        ((IntVector) v.reinterpretAsInts()).intoArray(row, i * L32);
    }

    public static void spill(IntVector v, IntVector w, int[] row, int i) {
        spill(v, row, i);
        spill(w, row, i + 1);
    }

    public static void spill(LongVector v, LongVector w, int[] row, int i) {
        spill(v, row, i);
        spill(w, row, i + 1);
    }

    public static void spill(DoubleVector v, DoubleVector w, int[] row, int i) {
        spill(v, row, i);
        spill(w, row, i + 1);
    }
}
