package dev.weft.simd.internal.gen;

/**
 * Switches for the trims of a phase's per-group work in the tile-loading phases of tiled kernels (session 9), read
 * once; each {@code -Dweft.simd.<name>=false} turns one off, to compare.
 *
 * <p>Measured together (PairedBenchmark weft/vectorApi, median of 6 one-second iterations, all three on vs all three
 * off back to back, 2 cores at load averages up to 23): tiled sgemm 0.186/0.172, 0.186/0.193, 0.200/0.180;
 * register-blocked sgemm 0.328/0.259, 0.310/0.258, 0.274/0.308 (that last off run disturbed: 0.13 to 1.20). One at a
 * time on the tiled sgemm (on vs that one off) the differences were inside the noise: phaseKeptSets 0.186/0.180,
 * 0.191/0.222, 0.194/0.195; lazyLaneMasks 0.186/0.194, 0.194/0.261 (and one disturbed pair). In one perfasm profile the
 * load phase's method took 0.68 of the compute phase's samples (session 8: 0.95).
 */
final class PhaseTrims {

    /**
     * Each barrier keeps only the values live across it, rather than the union over the kernel's barriers, where the
     * values that only some barriers keep are vectors linked through phis ({@code MethodGen.phaseKeptSets}): with their
     * own sets those share one spill column ({@code MethodGen.sharePhiColumns}), and a phase that only hands them on
     * neither restores nor spills them. The tiled sgemm kept both its accumulator phis (the k-tile loop's and the
     * k-loop's) at both barriers, so each group restored two vectors per phase of which it read one.
     * {@code -Dweft.simd.phaseKeptSets=false} turns it off.
     */
    static final boolean PHASE_KEPT_SETS = !"false".equals(System.getProperty("weft.simd.phaseKeptSets"));

    /**
     * A contiguous load or store makes the mask of its lane type (a float mask cast from the block's int-lane mask)
     * where its masked path needs it, not at the block's start, where the block's only users are such accesses; and a
     * store tests "every thread active" on the int-lane masks ({@code MethodGen.lazyLaneMasks}). At the block's start
     * the cast mask was live into the range check's rarely taken path, which C2 compiles as a trap whose state holds
     * the mask: a mask-to-booleans conversion per register and load, never used otherwise.
     * {@code -Dweft.simd.lazyLaneMasks=false} turns it off.
     */
    static final boolean LAZY_LANE_MASKS = !"false".equals(System.getProperty("weft.simd.lazyLaneMasks"));

    /**
     * A resume point's method does not fetch a group's spill row of a class (ints, floats, references, ...) that none
     * of its code restores or spills ({@code MethodGen.rowUnused}): in the tiled sgemm's phases the reference row,
     * whose only kept values are the tiles' arrays fetched once per phase, was still loaded and range-checked per
     * group. {@code -Dweft.simd.unusedRows=false} turns it off.
     */
    static final boolean UNUSED_ROWS = !"false".equals(System.getProperty("weft.simd.unusedRows"));

    private PhaseTrims() {
    }
}
