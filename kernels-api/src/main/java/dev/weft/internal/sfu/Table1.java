package dev.weft.internal.sfu;

import dev.weft.Sfu;

/**
 * The rows of Table 1 of the Tesla paper (Lindholm et al., IEEE Micro 2008, "Function approximation
 * statistics"), the paper's numbers, and the sweeps that measure ours the same way (shared/SFU.md):
 * every float of the interval for 1/x, 1/sqrt(x) and log2 x; for 2^x and sin/cos, the 2^23 points of
 * the 23-bit fixed-point grid that range reduction produces.
 */
public enum Table1 {
    /** 1/x on every float of [1, 2); ULP 2^-24 (results in (0.5, 1]). */
    RCP("1/x", "[1, 2)", 24.02, 0.98, 87, true),
    /** 1/sqrt(x) on every float of [1, 4); ULP 2^-24. */
    RSQRT("1/sqrt(x)", "[1, 4)", 23.40, 1.52, 78, true),
    /** 2^x on the 23-bit grid of [0, 1); ULP 2^-23 (results in [1, 2)). */
    EX2("2^x", "[0, 1)", 22.51, 1.41, 74, true),
    /** log2 x on every float of [1, 2); absolute error only. */
    LG2("log2 x", "[1, 2)", 22.57, Double.NaN, Double.NaN, true),
    /** sin and cos of π/2·t for t on the 23-bit grid of [0, 1); absolute error only. */
    SIN_COS("sin/cos", "[0, π/2)", 22.47, Double.NaN, Double.NaN, false);

    private final String function;
    private final String interval;
    private final double paperGoodBits;
    private final double paperUlp;
    private final double paperExactPercent;
    private final boolean paperMonotonic;

    Table1(String function, String interval, double paperGoodBits, double paperUlp, double paperExactPercent,
           boolean paperMonotonic) {
        this.function = function;
        this.interval = interval;
        this.paperGoodBits = paperGoodBits;
        this.paperUlp = paperUlp;
        this.paperExactPercent = paperExactPercent;
        this.paperMonotonic = paperMonotonic;
    }

    /** Sweeps every input of this row's set through the scalar {@link Sfu}. */
    public Accuracy.Stats measure() {
        return switch (this) {
            case RCP -> Accuracy.overFloats(1f, 2f, Sfu::rcp, x -> 1.0 / x, 0x1p-24, -1);
            case RSQRT -> Accuracy.overFloats(1f, 4f, Sfu::rsqrt, x -> 1.0 / Math.sqrt(x), 0x1p-24, -1);
            case EX2 -> Accuracy.overGrid(i -> Sfu.ex2(Math.scalb((float) i, -TableSpec.ARGUMENT_BITS)),
                    u -> Math.pow(2.0, u), 0x1p-23, +1);
            case LG2 -> Accuracy.overFloats(1f, 2f, Sfu::lg2, x -> Math.log(x) / Math.log(2.0), Double.NaN, +1);
            case SIN_COS -> Accuracy.overGrid(QuarterTurns::sin, u -> Math.sin(Math.PI / 2 * u), Double.NaN, +1)
                    .merge(Accuracy.overGrid(i -> QuarterTurns.sin(i + QuarterTurns.QUARTER),
                            u -> Math.cos(Math.PI / 2 * u), Double.NaN, -1));
        };
    }

    /**
     * 2^x over every float of [lo, 1) (the floats themselves, not grid points: the unit rounds them to
     * the grid, so the share of exactly rounded results depends on the set; shared/SFU.md).
     */
    public static Accuracy.Stats ex2OverFloats(float lo) {
        return Accuracy.overFloats(lo, 1f, Sfu::ex2, x -> Math.pow(2.0, x), 0x1p-23, +1);
    }

    /** The function's name as Table 1 prints it. */
    public String function() {
        return function;
    }

    /** The input interval as Table 1 prints it. */
    public String interval() {
        return interval;
    }

    /** The paper's good bits. */
    public double paperGoodBits() {
        return paperGoodBits;
    }

    /** The paper's ULP error; NaN where it reports none. */
    public double paperUlp() {
        return paperUlp;
    }

    /** The paper's share of exactly rounded results, in percent; NaN where it reports none. */
    public double paperExactPercent() {
        return paperExactPercent;
    }

    /** Whether the paper reports the function monotonic. */
    public boolean paperMonotonic() {
        return paperMonotonic;
    }
}
