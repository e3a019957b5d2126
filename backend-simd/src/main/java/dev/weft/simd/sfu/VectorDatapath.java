package dev.weft.simd.sfu;

import dev.weft.internal.sfu.Datapath;
import dev.weft.internal.sfu.TableSpec;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * One SFU table and its fixed-point interpolator on int lanes: the vector twin of {@link Datapath#sum}.
 *
 * <p>A record so that C2 trusts its final fields: reached through a {@code static final} instance, the
 * table arrays, their lengths and every shift are compile-time constants, the lookup loop unrolls and
 * the shifts become immediates.
 *
 * <h2>Implementation notes</h2>
 * <b>Lookup.</b> Two forms, both giving C0 (pre-shifted) and the packed C1/C2 word of each lane's
 * segment; each function uses the one measured faster for it. Figures in ns per 8-lane vector on AVX2
 * (Zen 3), lookups alone: the minimum of 40 runs over 4096 elements.
 * <ul>
 *   <li>{@link #sum}: permutes. The table is read as blocks of LANES entries, each block permuted by
 *       a one-vector {@code selectFrom}; adjacent blocks are merged by the index bit that tells them
 *       apart, moved to the sign bit (all that a blend instruction reads), and the pairs in order by
 *       comparison. A 64-entry table costs 8 permutes and 7 blends per word with 8 lanes: both words
 *       8.3 ns; a 128-entry table twice that. Used by ex2, lg2, sin and cos.</li>
 *   <li>{@link #sumGathered}: hardware gathers. C0 and the C1/C2 word of a segment are one
 *       {@code long}, so two 4-lane {@code vpgatherqq} fetch both words for 8 lanes. The Vector API
 *       takes a gather's indexes from an {@code int[]}, not a vector, so the index vector goes through
 *       a per-thread scratch array (a {@code ThreadLocal}: a scratch array per call allocates, a shared
 *       one would race). Its lanes are stored even lanes first, so that one gather holds the even
 *       lanes and the other the odd ones and a shift and a blend per word put them in place, with no
 *       cross-lane shuffle of the results. Both words 6.3 ns with a static array, 8.9 ns through the
 *       {@code ThreadLocal}, whatever the table's size: for the 128-entry tables of rcp and rsqrt it
 *       halves the lookup and makes both functions 1.6 to 1.7 times faster than with permutes. For the
 *       64-entry tables it measured no faster in the benchmark (ex2, lg2), and sin and cos grew past
 *       C2's inlining node budget with it (boxing, 3 times slower).</li>
 * </ul>
 * Also measured and rejected, for one 64-entry word: a chain of one compare and one blend per block
 * (5.0 ns against 4.8 for the pair merge); a full tree merge by index bits (4.3 ns, but it needs a
 * form per block count and more bytecode than {@link #sum} can spare);
 * two-vector {@code selectFrom} (4.2 ns, same as one-vector permutes: without AVX-512's vpermi2d it is
 * two permutes and a blend), two 8-lane {@code vpgatherdd} (7.6 ns static, 9.9 through the
 * {@code ThreadLocal}), and a gather for one word beside permutes for the other (7.4 ns static, no
 * overlap gained). The lookup is still about half the time of ex2 and lg2. A permute lookup cannot go
 * below 16 permutes for 64 segments of 55 bits with 8 lanes: each lane needs its own 2 of the 16
 * registers the table fills. AVX-512's two-register permute (vpermi2d) would make it four times
 * cheaper.
 *
 * <p><b>Inlining.</b> {@link #sum} is one method of at most 325 bytecodes (C2's FreqInlineSize) that
 * calls nothing but the Vector API; C0 is stored pre-shifted and the masks and shifts are components,
 * derived once in {@link #of}, which saves a shift per call and the bytecodes that kept it under the
 * limit. The lookup loop starts from the index vector itself (the first blend, index &gt;= 0, takes every
 * lane), which saves the bytecodes of a zero vector. Earlier shapes were up to four times slower: a
 * 449-byte method was never inlined; split into helpers, the helpers were compiled on their own first
 * (C1 code called them), their code outgrew InlineSmallCode, and later compilations refused them;
 * helpers called after the lookups, even one of 33 bytecodes, fell under C2's node budget
 * (NodeCountInliningCutoff). Each refusal boxes the vectors that cross the call.
 *
 * <p><b>Products.</b> Datapath keeps every intermediate inside 32 bits except C1·x_l (up to 34 bits) and
 * the square x_l² (up to 34). C1·x_l is split at its truncation point so each partial product fits:
 * {@code floor(c·x / 2^s) = c·(x >> s) + floor(c·(x & (2^s − 1)) / 2^s)}. The square takes one product:
 * with x = 2y + b (b the low bit), {@code x² = 4·y(y + b) + b}; y(y + b) &lt; 2^32 for x &lt; 2^17, exact as an
 * unsigned 32-bit product, and adding b &lt; 4 to a multiple of 4 cannot reach the next multiple of
 * 2^t, so {@code floor(x² / 2^t) = y(y + b) >>> (t − 2)} for t &gt;= 2 (three products before).
 * Both identities are exact, so the lanes equal the scalar unit's long arithmetic bit for
 * bit.
 */
record VectorDatapath(int[] c0, int[] c12, long[] words, int lowBits, int lowMask, int c1Shift, int c1Mask,
                      int squareDrop, int c2Shift) {

    static final VectorSpecies<Integer> INT = IntVector.SPECIES_PREFERRED;
    private static final int LANES = INT.length();
    /** Entries in two blocks of LANES, the unit of the lookup loop. */
    private static final int PAIR = 2 * LANES;
    /** Moves the index bit that tells two blocks apart to the sign bit. */
    private static final int ODD_SHIFT = 31 - Integer.numberOfTrailingZeros(LANES);
    static final VectorSpecies<Long> LONG = LongVector.SPECIES_PREFERRED;
    /** Even lanes first, then odd: the order in which {@link #sumGathered} gathers the lanes. */
    private static final VectorShuffle<Integer> EVEN_THEN_ODD =
            VectorShuffle.fromOp(INT, i -> i < LANES / 2 ? 2 * i : 2 * (i - LANES / 2) + 1);
    private static final VectorMask<Integer> ODD_LANES = VectorMask.fromLong(INT, 0xAAAA_AAAA_AAAA_AAAAL);
    private static final ThreadLocal<int[]> GATHER_INDEXES = ThreadLocal.withInitial(() -> new int[LANES]);
    private static final int C1_FIELD = 32 - Datapath.C2_POSITION;

    /**
     * The vector form of a scalar datapath: its packed C1/C2 array (shared, never written), its C0
     * array already aligned to the sum (C0·2^(F−w0), one shift fewer per call), and its shifts.
     */
    static VectorDatapath of(Datapath d) {
        TableSpec spec = d.spec();
        if (d.segments() % PAIR != 0) {
            throw new IllegalStateException("internal: SFU table of " + d.segments()
                    + " entries does not split into pairs of " + INT.length() + "-lane vectors");
        }
        if (spec.lowBits() > 17 || spec.squareShift() < 2) {
            throw new IllegalStateException("internal: SFU table with x_l of " + spec.lowBits()
                    + " bits or a squarer dropping " + spec.squareShift() + " does not fit the one-product square");
        }
        int[] c0 = d.c0Table().clone();
        for (int i = 0; i < c0.length; i++) {
            c0[i] <<= d.c0Shift();
        }
        long[] words = new long[c0.length];
        for (int i = 0; i < c0.length; i++) {
            words[i] = (long) d.c12Table()[i] << 32 | c0[i] & 0xFFFF_FFFFL;
        }
        return new VectorDatapath(c0, d.c12Table(), words, spec.lowBits(), (1 << spec.lowBits()) - 1, d.c1Shift(),
                (1 << d.c1Shift()) - 1, spec.squareShift() - 2, d.c2Shift());
    }

    /**
     * The sum with the table's fractional bits, per lane; as {@link Datapath#sum}. One method with no
     * calls but the Vector API's (see the implementation notes).
     */
    IntVector sum(IntVector argument) {
        IntVector index = argument.lanewise(VectorOperators.LSHR, lowBits);
        IntVector xl = argument.and(lowMask);

        // C0 and the packed C1/C2 word of each lane's segment: a one-vector permute of each block of
        // LANES entries (selectFrom wraps the index); adjacent blocks merged by the index bit that tells
        // them apart (moved to the sign bit, all that a blend instruction reads), the pairs in order by
        // comparison. A tree merge by index bits throughout measured no faster and needs more bytecode.
        VectorMask<Integer> odd = index.lanewise(VectorOperators.LSHL, ODD_SHIFT).compare(VectorOperators.LT, 0);
        // Any start: the first blend (index >= 0) takes every lane.
        IntVector coefficient0 = index;
        IntVector packed = index;
        for (int base = 0; base < c0.length; base += PAIR) {
            VectorMask<Integer> reached = index.compare(VectorOperators.GE, base);
            coefficient0 = coefficient0.blend(index.selectFrom(IntVector.fromArray(INT, c0, base))
                    .blend(index.selectFrom(IntVector.fromArray(INT, c0, base + LANES)), odd), reached);
            packed = packed.blend(index.selectFrom(IntVector.fromArray(INT, c12, base))
                    .blend(index.selectFrom(IntVector.fromArray(INT, c12, base + LANES)), odd), reached);
        }

        // floor(C1·x_l / 2^s1), with x_l split at s1.
        IntVector c1 = packed.lanewise(VectorOperators.LSHL, C1_FIELD).lanewise(VectorOperators.ASHR, C1_FIELD);
        IntVector linear = c1.mul(xl.lanewise(VectorOperators.LSHR, c1Shift))
                .add(c1.mul(xl.and(c1Mask)).lanewise(VectorOperators.ASHR, c1Shift));

        // sq = floor(x_l² / 2^t) in one 32-bit product: with x_l = 2y + b, x_l² = 4·y(y + b) + b, and
        // y(y + b) < 2^32 as an unsigned int; b < 4 never carries past bit 1, so sq = y(y + b) >>> (t − 2).
        IntVector y = xl.lanewise(VectorOperators.LSHR, 1);
        IntVector square = y.mul(y.add(xl.and(1))).lanewise(VectorOperators.LSHR, squareDrop);
        IntVector quadratic = packed.lanewise(VectorOperators.ASHR, Datapath.C2_POSITION).mul(square)
                .lanewise(VectorOperators.ASHR, c2Shift);

        return coefficient0.add(linear).add(quadratic);
    }

    /**
     * As {@link #sum}, the coefficients fetched by two 64-bit gathers (see the implementation notes).
     * The interpolation repeats {@link #sum}'s lines: a shared helper would be a call that C2's node
     * budget can refuse.
     */
    IntVector sumGathered(IntVector argument) {
        IntVector index = argument.lanewise(VectorOperators.LSHR, lowBits);
        IntVector xl = argument.and(lowMask);
        int[] indexes = GATHER_INDEXES.get();
        index.rearrange(EVEN_THEN_ODD).intoArray(indexes, 0);
        LongVector even = LongVector.fromArray(LONG, words, 0, indexes, 0);
        LongVector odd = LongVector.fromArray(LONG, words, 0, indexes, LANES / 2);
        IntVector coefficient0 = even.reinterpretAsInts()
                .blend(odd.lanewise(VectorOperators.LSHL, 32).reinterpretAsInts(), ODD_LANES);
        IntVector packed = odd.reinterpretAsInts()
                .blend(even.lanewise(VectorOperators.LSHR, 32).reinterpretAsInts(), ODD_LANES.not());

        IntVector c1 = packed.lanewise(VectorOperators.LSHL, C1_FIELD).lanewise(VectorOperators.ASHR, C1_FIELD);
        IntVector linear = c1.mul(xl.lanewise(VectorOperators.LSHR, c1Shift))
                .add(c1.mul(xl.and(c1Mask)).lanewise(VectorOperators.ASHR, c1Shift));
        IntVector y = xl.lanewise(VectorOperators.LSHR, 1);
        IntVector square = y.mul(y.add(xl.and(1))).lanewise(VectorOperators.LSHR, squareDrop);
        IntVector quadratic = packed.lanewise(VectorOperators.ASHR, Datapath.C2_POSITION).mul(square)
                .lanewise(VectorOperators.ASHR, c2Shift);
        return coefficient0.add(linear).add(quadratic);
    }
}
