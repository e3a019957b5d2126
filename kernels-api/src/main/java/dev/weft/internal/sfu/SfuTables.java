package dev.weft.internal.sfu;

/**
 * The special function unit's five tables (448 segments), generated once when this class initialises.
 *
 * <p>The scalar {@code dev.weft.Sfu} and the vector unit in the SIMD backend both read these, so they
 * evaluate the same coefficients with the same integer datapath.
 */
public final class SfuTables {

    /** 1/x on [1, 2): 128 segments. */
    public static final Datapath RCP = EnhancedMinimax.generate(TableSpec.RCP);

    /** 1/sqrt(x) on [1, 2) (segments 0-63) and [2, 4) (64-127), chosen by the exponent's parity. */
    public static final Datapath RSQRT = EnhancedMinimax.generate(TableSpec.RSQRT_EVEN, TableSpec.RSQRT_ODD);

    /** 2^u on [0, 1): 64 segments. */
    public static final Datapath EX2 = EnhancedMinimax.generate(TableSpec.EX2);

    /** log2(1 + u) on [0, 1): 64 segments. */
    public static final Datapath LG2 = EnhancedMinimax.generate(TableSpec.LG2);

    /** sin(π/2·u) on [0, 1): 64 segments, shared by sine and cosine. */
    public static final Datapath SIN = EnhancedMinimax.generate(TableSpec.SIN);

    private SfuTables() {
    }

    /** All tables, in the order of Table 1. */
    public static Datapath[] all() {
        return new Datapath[] {RCP, RSQRT, EX2, LG2, SIN};
    }
}
