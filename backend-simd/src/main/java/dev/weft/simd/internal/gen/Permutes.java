package dev.weft.simd.internal.gen;

import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The constant shuffles and masks generated kernels read (static finals, which C2 folds to constant vectors): those
 * of warp shuffles whose lane argument is uniform (CodeGen's permuteShuffle) and of the folded warp scan (CodeGen's
 * warpScanAdd).
 *
 * <p>Apart from {@link Lanes} so that a first compile does not build them: building them takes the Vector API through
 * dozens of shuffles and masks and a lambda each, interpreted, which was most of the 40-60 ms of CPU that
 * {@code Lanes}' initialisation took in a fresh JVM, paid by the first compile whenever it reached {@code Lanes}
 * before the warm-up (measured here, a main that only touched {@code Lanes.L32}: 16 ms after the move). The warm-up
 * builds them in the background after its compiles; failing that, a kernel that reads them builds them on its first
 * run.
 */
public final class Permutes {

    private static final VectorSpecies<Integer> IS = Lanes.IS;
    private static final VectorSpecies<Float> FS = Lanes.FS;
    private static final int L32 = Lanes.L32;

    private Permutes() {
    }

    // Shuffles whose lane argument is the same in every lane (CodeGen.permuteShuffle): the data moves by Vector API
    // rearranges of the warp's registers with shuffles from these tables (vpermd/vpermps on AVX2, never a trip through
    // memory).

    /** {@code ROTATE_*[m]}: lane {@code l} reads lane {@code (l - m) mod lanes}, the lanes of a warp rotated up by m. */
    public static final VectorShuffle<Integer>[] ROTATE_I = shuffles(IS, (m, l) -> (l - m) & (L32 - 1));
    public static final VectorShuffle<Float>[] ROTATE_F = shuffles(FS, (m, l) -> (l - m) & (L32 - 1));
    /** {@code XOR_*[m]}: lane {@code l} reads lane {@code l ^ m}. */
    public static final VectorShuffle<Integer>[] XOR_I = shuffles(IS, (m, l) -> l ^ m);
    public static final VectorShuffle<Float>[] XOR_F = shuffles(FS, (m, l) -> l ^ m);
    /**
     * {@code IDX_*[log2 w][j]}, {@code w} up to the register's lanes: lane {@code l} reads lane {@code j} of its
     * segment of {@code w} lanes (wider segments read lane {@code j} of the register, row {@code log2 lanes}).
     */
    public static final VectorShuffle<Integer>[][] IDX_I = segmentShuffles(IS);
    public static final VectorShuffle<Float>[][] IDX_F = segmentShuffles(FS);
    /** {@code FROM_*[m]}: the lanes {@code l >= m}, which a rotation by m fills from the same register. */
    public static final VectorMask<Integer>[] FROM_I = lanesFrom(IS);
    public static final VectorMask<Float>[] FROM_F = lanesFrom(FS);

    // The folded warp scan (front.WarpScans, CodeGen's warpScanAdd): each register scanned in place by log2(lanes)
    // steps of "add the register shifted up by 2^s lanes", then the total of the registers before it added. One static
    // final field per step, not an array: C2 folds a static final's shuffle or mask to a constant vector, whereas an
    // array element is loaded, type-checked and unboxed on every use.

    /** Lane {@code l} reads lane {@code max(0, l - 2^s)}; {@code SCAN_ABOVE_s} says which lanes take it. */
    public static final VectorShuffle<Integer> SCAN_UP_0 = IS.shuffleFromOp(l -> Math.max(0, l - 1));
    public static final VectorShuffle<Integer> SCAN_UP_1 = IS.shuffleFromOp(l -> Math.max(0, l - 2));
    public static final VectorShuffle<Integer> SCAN_UP_2 = IS.shuffleFromOp(l -> Math.max(0, l - 4));
    public static final VectorShuffle<Integer> SCAN_UP_3 = IS.shuffleFromOp(l -> Math.max(0, l - 8));
    /** The lanes {@code l >= 2^s}. */
    public static final VectorMask<Integer> SCAN_ABOVE_0 = lanesAtLeast(1);
    public static final VectorMask<Integer> SCAN_ABOVE_1 = lanesAtLeast(2);
    public static final VectorMask<Integer> SCAN_ABOVE_2 = lanesAtLeast(4);
    public static final VectorMask<Integer> SCAN_ABOVE_3 = lanesAtLeast(8);
    private static VectorMask<Integer> lanesAtLeast(int lane) {
        return IntVector.zero(IS).addIndex(1).compare(VectorOperators.GE, lane);
    }

    /** Every lane reads the register's last lane: a register's total, broadcast. */
    public static final VectorShuffle<Integer> SCAN_LAST = IS.shuffleFromOp(l -> L32 - 1);

    private interface LaneMap {
        int source(int m, int lane);
    }

    @SuppressWarnings("unchecked")
    private static <E> VectorShuffle<E>[] shuffles(VectorSpecies<E> s, LaneMap map) {
        VectorShuffle<E>[] t = new VectorShuffle[s.length()];
        for (int m = 0; m < t.length; m++) {
            int mm = m;
            t[m] = VectorShuffle.fromOp(s, l -> map.source(mm, l));
        }
        return t;
    }

    @SuppressWarnings("unchecked")
    private static <E> VectorShuffle<E>[][] segmentShuffles(VectorSpecies<E> s) {
        int rows = Integer.numberOfTrailingZeros(s.length()) + 1;
        VectorShuffle<E>[][] t = new VectorShuffle[rows][];
        for (int lw = 0; lw < rows; lw++) {
            int w = 1 << lw;
            t[lw] = shuffles(s, (j, l) -> (l & -w) | (j & (w - 1)));
        }
        return t;
    }

    @SuppressWarnings("unchecked")
    private static <E> VectorMask<E>[] lanesFrom(VectorSpecies<E> s) {
        VectorMask<E>[] t = new VectorMask[s.length()];
        for (int m = 0; m < t.length; m++) {
            t[m] = VectorMask.fromLong(s, -1L << m);
        }
        return t;
    }
}
