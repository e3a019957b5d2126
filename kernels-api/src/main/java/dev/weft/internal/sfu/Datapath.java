package dev.weft.internal.sfu;

/**
 * The fixed-point quadratic interpolator of one SFU function: a coefficient table and the integer
 * arithmetic that evaluates {@code C0 + C1·x_l + C2·x_l²} from it. Immutable; safe to share between
 * threads.
 *
 * <p>The argument is the reduced fixed-point fraction with {@link TableSpec#ARGUMENT_BITS} bits; for a
 * table built from two specs (reciprocal square root), bit 23 selects the second half. Its upper bits
 * index the table, its low {@code L} bits are x_l. {@link #sum} returns
 * <pre>
 *   S = C0·2^(F-w0) + floor(C1·x_l / 2^(w1+23-F)) + floor(C2·sq / 2^(w2+46-t-F)),  sq = floor(x_l² / 2^t)
 * </pre>
 * with F = {@link TableSpec#sumBits()}: S is the function value with F fractional bits, before the
 * caller rounds it to the output format. The product C1·x_l is exact before its truncation; the squarer
 * keeps the top bits of the exact square.
 *
 * <h2>Implementation notes</h2>
 * Every intermediate is chosen to fit a 32-bit lane, because the vector unit evaluates this datapath on
 * {@code IntVector}s and must get the same bits: |C1| &lt; 2^17, |C2| &lt; 2^11, x_l &lt; 2^17, sq &lt; 2^20,
 * so C2·sq &lt; 2^31. C1·x_l needs up to 34 bits, so the vector unit splits x_l at the truncation point
 * ({@code floor((C1·xh·2^s + C1·xlo)/2^s) = C1·xh + floor(C1·xlo/2^s)}, exact); the scalar code here
 * uses long arithmetic, which computes the same floor directly. The constructor checks these bounds.
 *
 * <p>The hardware's squarer drops its low partial-product columns, and with them their carries, so its
 * result can fall a few units below the truncated exact square; we truncate the exact square, which is
 * at least as accurate and which a vector unit computes exactly. The truncation errs by less than
 * 2^(t−46) in x_l² (2^-32 for t = 14), far below C2's rounding.
 */
public final class Datapath {

    /** Bit position of C2 in a packed C1/C2 word; C1 occupies the low 20 bits, sign-extended. */
    public static final int C2_POSITION = 20;

    private final TableSpec spec;
    private final int[] c0;
    private final int[] c12;
    private final int c1Shift;
    private final int c2Shift;
    private final int c0Shift;

    Datapath(TableSpec spec, int[] c0, int[] c1, int[] c2) {
        this.spec = spec;
        this.c0 = c0.clone();
        this.c12 = new int[c0.length];
        this.c0Shift = spec.sumBits() - spec.c0Bits();
        this.c1Shift = spec.c1Bits() + TableSpec.ARGUMENT_BITS - spec.sumBits();
        this.c2Shift = spec.c2Bits() + 2 * TableSpec.ARGUMENT_BITS - spec.squareShift() - spec.sumBits();
        check(c0Shift >= 0 && c1Shift >= 0 && c2Shift >= 0, "negative shift");
        check(spec.lowBits() <= 17 && 2 * spec.lowBits() - spec.squareShift() <= 20, "squarer wider than 20 bits");
        check((spec.squareShift() & 1) == 0, "squarer shift must be even for the vector split");
        for (int i = 0; i < c0.length; i++) {
            check(Math.abs(c1[i]) < (1 << 17), "C1 wider than 17 bits");
            check(Math.abs(c2[i]) < (1 << 11), "C2 wider than 11 bits");
            check(Math.abs((long) c0[i] << c0Shift) < (1L << 31), "C0 outside the sum's range");
            c12[i] = (c2[i] << C2_POSITION) | (c1[i] & ((1 << C2_POSITION) - 1));
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("internal: SFU datapath invariant broken: " + what);
        }
    }

    /**
     * The interpolated value with {@link TableSpec#sumBits()} fractional bits.
     *
     * @param argument {@code index << lowBits | x_l}: the reduced argument, bit 23 choosing the half of a
     *     two-part table
     */
    public int sum(int argument) {
        int index = argument >>> spec.lowBits();
        int w = c12[index];
        return sum(spec, c0[index], (w << (32 - C2_POSITION)) >> (32 - C2_POSITION), w >> C2_POSITION,
                argument & ((1 << spec.lowBits()) - 1));
    }

    /** The datapath's one formula, for one segment's coefficients; the generator uses it too. */
    static int sum(TableSpec spec, int c0, int c1, int c2, int lowBits) {
        long xl = lowBits;
        long sq = (xl * xl) >>> spec.squareShift();
        int c0Shift = spec.sumBits() - spec.c0Bits();
        int c1Shift = spec.c1Bits() + TableSpec.ARGUMENT_BITS - spec.sumBits();
        int c2Shift = spec.c2Bits() + 2 * TableSpec.ARGUMENT_BITS - spec.squareShift() - spec.sumBits();
        return (int) (((long) c0 << c0Shift) + ((c1 * xl) >> c1Shift) + ((c2 * sq) >> c2Shift));
    }

    /**
     * A sum with 30 fractional bits meant to lie in [0, 1], as a float: clamped to that interval (a sum
     * that errs past an end of the function's range would leave it), then converted to the nearest
     * float. The output stage of the logarithm and sine tables.
     */
    public static float unitInterval(int sum) {
        return (float) Math.min(Math.max(sum, 0), 1 << 30) * 0x1p-30f;
    }

    /** The widths of this table. */
    public TableSpec spec() {
        return spec;
    }

    /** Number of segments (entries) in the table. */
    public int segments() {
        return c0.length;
    }

    /** C0 of a segment, in units of {@code 2^-c0Bits}. */
    public int c0(int segment) {
        return c0[segment];
    }

    /** C1 of a segment, in units of {@code 2^-c1Bits}. */
    public int c1(int segment) {
        return (c12[segment] << (32 - C2_POSITION)) >> (32 - C2_POSITION);
    }

    /** C2 of a segment, in units of {@code 2^-c2Bits}. */
    public int c2(int segment) {
        return c12[segment] >> C2_POSITION;
    }

    /**
     * The C0 column, shared, not copied: for the vector unit's table loads. Callers must not modify it.
     */
    public int[] c0Table() {
        return c0;
    }

    /**
     * C1 and C2 packed per segment ({@code C2 << 20 | C1 & 0xFFFFF}), shared, not copied: for the vector
     * unit's table loads. Callers must not modify it.
     */
    public int[] c12Table() {
        return c12;
    }

    /** Right shift that aligns C1·x_l to the sum: {@code w1 + 23 - F}. */
    public int c1Shift() {
        return c1Shift;
    }

    /** Right shift that aligns C2·sq to the sum: {@code w2 + 46 - t - F}. */
    public int c2Shift() {
        return c2Shift;
    }

    /** Left shift that aligns C0 to the sum: {@code F - w0}. */
    public int c0Shift() {
        return c0Shift;
    }

    /**
     * Bits a table of this datapath stores per segment for one column (0: C0, 1: C1, 2: C2): the bits
     * that encode its entries relative to the column's smallest, an offset (and a sign) that the
     * hardware hard-wires.
     */
    public int storedBits(int column) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (int i = 0; i < c0.length; i++) {
            int v = switch (column) {
                case 0 -> c0[i];
                case 1 -> c1(i);
                case 2 -> c2(i);
                default -> throw new IllegalArgumentException("column must be 0, 1 or 2: " + column);
            };
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return 32 - Integer.numberOfLeadingZeros(max - min);
    }

    /** {@link #storedBits} of the three columns together. */
    public int storedBitsPerSegment() {
        return storedBits(0) + storedBits(1) + storedBits(2);
    }
}
