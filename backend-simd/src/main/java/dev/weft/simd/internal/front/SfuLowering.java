package dev.weft.simd.internal.front;

import java.util.List;

/**
 * How varying {@link dev.weft.Sfu} calls are compiled: the one place to switch when the vectorised SFU lands.
 *
 * <p>Each entry names an Sfu function and, optionally, a static vector function {@code "owner/internal/Name.method"}
 * taking and returning one {@code FloatVector} (one register of a warp), bit for bit equal to the scalar
 * function lane by lane. With no vector function, a varying call runs the scalar {@code Sfu} method once per
 * lane: exact and slow. Uniform calls always run the scalar method.
 *
 * <p>To switch to {@code dev.weft.simd.sfu.VectorSfu}: set each entry's second field to e.g.
 * {@code "dev/weft/simd/sfu/VectorSfu.rcp"} (a {@code public static FloatVector rcp(FloatVector)}).
 */
public final class SfuLowering {

    /**
     * One Sfu function.
     *
     * @param name the {@code Sfu} method, {@code (F)F}
     * @param vectorHelper the vector function, or null to run the scalar one per lane
     */
    public record Entry(String name, String vectorHelper) {
    }

    /** The SFU's functions and their vector forms. */
    public static final List<Entry> ENTRIES = List.of(
            new Entry("rcp", null),
            new Entry("rsqrt", null),
            new Entry("ex2", null),
            new Entry("lg2", null),
            new Entry("sin", null),
            new Entry("cos", null));

    private SfuLowering() {
    }
}
