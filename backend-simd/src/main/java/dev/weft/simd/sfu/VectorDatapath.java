package dev.weft.simd.sfu;

import dev.weft.internal.sfu.Datapath;
import dev.weft.internal.sfu.TableSpec;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One SFU table and its fixed-point interpolator on int lanes: the vector twin of {@link Datapath#sum}.
 *
 * <p>A record so that C2 trusts its final fields: reached through a {@code static final} instance, the
 * table arrays, their lengths and every shift are compile-time constants, the lookup loop unrolls and
 * the shifts become immediates.
 *
 * <h2>Implementation notes</h2>
 * <b>Lookup.</b> The Vector API's gathers take their indexes from an {@code int[]}, not a vector, so a
 * gather would need a scratch array per call (and allocated one per call when tried). Instead the
 * table is read as vectors and indexed with two-vector {@code selectFrom} (a permute across two
 * registers): 2·VLENGTH entries per permute, the partial results merged by blends on the index's upper
 * bits. A 64-entry table costs 4 permutes and 3 blends per coefficient word with 8 lanes (AVX2), 2 and
 * 1 with 16 (AVX-512). C0 and the packed C1/C2 word share the index and the blend masks.
 *
 * <p><b>Products.</b> Datapath keeps every intermediate inside 32 bits except C1·x_l (up to 34 bits) and
 * the square x_l² (up to 34). Both are split at their truncation point so each partial product fits:
 * {@code floor(c·x / 2^s) = c·(x >> s) + floor(c·(x & (2^s − 1)) / 2^s)}, and with x = xh·2^k + xlo,
 * {@code floor(x² / 2^2k) = xh² + floor((2·xh·xlo·2^k + xlo²) / 2^2k)}. Both identities are exact, so
 * the lanes equal the scalar unit's long arithmetic bit for bit.
 */
record VectorDatapath(int[] c0, int[] c12, int lowBits, int c0Shift, int c1Shift, int c2Shift, int squareShift) {

    static final VectorSpecies<Integer> INT = IntVector.SPECIES_PREFERRED;

    /** The vector form of a scalar datapath: the same arrays (shared, never written) and shifts. */
    static VectorDatapath of(Datapath d) {
        TableSpec spec = d.spec();
        if (d.segments() % (2 * INT.length()) != 0) {
            throw new IllegalStateException("internal: SFU table of " + d.segments()
                    + " entries does not split into pairs of " + INT.length() + "-lane vectors");
        }
        return new VectorDatapath(d.c0Table(), d.c12Table(), spec.lowBits(), d.c0Shift(), d.c1Shift(),
                d.c2Shift(), spec.squareShift());
    }

    /** The sum with the table's fractional bits, per lane; as {@link Datapath#sum}. */
    IntVector sum(IntVector argument) {
        IntVector index = argument.lanewise(VectorOperators.LSHR, lowBits);
        IntVector xl = argument.lanewise(VectorOperators.AND, (1 << lowBits) - 1);

        // Both coefficient words through one set of permutes and blend masks.
        int pair = 2 * INT.length();
        IntVector coefficient0 = index.selectFrom(IntVector.fromArray(INT, c0, 0),
                IntVector.fromArray(INT, c0, INT.length()));
        IntVector packed = index.selectFrom(IntVector.fromArray(INT, c12, 0),
                IntVector.fromArray(INT, c12, INT.length()));
        for (int base = pair; base < c0.length; base += pair) {
            var here = index.compare(VectorOperators.GE, base);
            coefficient0 = coefficient0.blend(index.selectFrom(IntVector.fromArray(INT, c0, base),
                    IntVector.fromArray(INT, c0, base + INT.length())), here);
            packed = packed.blend(index.selectFrom(IntVector.fromArray(INT, c12, base),
                    IntVector.fromArray(INT, c12, base + INT.length())), here);
        }
        int c1Field = 32 - Datapath.C2_POSITION;
        IntVector c1 = packed.lanewise(VectorOperators.LSHL, c1Field).lanewise(VectorOperators.ASHR, c1Field);
        IntVector c2 = packed.lanewise(VectorOperators.ASHR, Datapath.C2_POSITION);

        IntVector t1 = c1.mul(xl.lanewise(VectorOperators.LSHR, c1Shift))
                .add(c1.mul(xl.lanewise(VectorOperators.AND, (1 << c1Shift) - 1))
                        .lanewise(VectorOperators.ASHR, c1Shift));

        int half = squareShift / 2;
        IntVector xh = xl.lanewise(VectorOperators.LSHR, half);
        IntVector xlo = xl.lanewise(VectorOperators.AND, (1 << half) - 1);
        IntVector square = xh.mul(xh).add(xh.mul(xlo).lanewise(VectorOperators.LSHL, half + 1)
                .add(xlo.mul(xlo)).lanewise(VectorOperators.LSHR, squareShift));
        IntVector t2 = c2.mul(square).lanewise(VectorOperators.ASHR, c2Shift);

        return coefficient0.lanewise(VectorOperators.LSHL, c0Shift).add(t1).add(t2);
    }
}
