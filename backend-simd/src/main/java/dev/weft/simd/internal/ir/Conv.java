package dev.weft.simd.internal.ir;

/** The JVM's primitive conversions, with the kinds they map between (narrowing to byte, char, short stays int). */
public enum Conv {
    I2L(Kind.INT, Kind.LONG), I2F(Kind.INT, Kind.FLOAT), I2D(Kind.INT, Kind.DOUBLE),
    L2I(Kind.LONG, Kind.INT), L2F(Kind.LONG, Kind.FLOAT), L2D(Kind.LONG, Kind.DOUBLE),
    F2I(Kind.FLOAT, Kind.INT), F2L(Kind.FLOAT, Kind.LONG), F2D(Kind.FLOAT, Kind.DOUBLE),
    D2I(Kind.DOUBLE, Kind.INT), D2L(Kind.DOUBLE, Kind.LONG), D2F(Kind.DOUBLE, Kind.FLOAT),
    I2B(Kind.INT, Kind.INT), I2C(Kind.INT, Kind.INT), I2S(Kind.INT, Kind.INT);

    public final Kind from;
    public final Kind to;

    Conv(Kind from, Kind to) {
        this.from = from;
        this.to = to;
    }

    /** The conversion from {@code from} to {@code to}. */
    public static Conv of(Kind from, Kind to) {
        for (Conv c : values()) {
            if (c.from == from && c.to == to && c.ordinal() < I2B.ordinal()) {
                return c;
            }
        }
        throw new IllegalArgumentException(from + " -> " + to);
    }
}
