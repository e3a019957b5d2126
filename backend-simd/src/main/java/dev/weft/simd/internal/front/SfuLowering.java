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
 * <p>All six use {@code dev.weft.simd.sfu.VectorSfu}, which is bit-identical to the scalar {@code Sfu} lane by
 * lane (its own tests sweep that), so a compiled kernel's SFU results equal the reference executor's exactly.
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
            new Entry("rcp", "dev/weft/simd/sfu/VectorSfu.rcp"),
            new Entry("rsqrt", "dev/weft/simd/sfu/VectorSfu.rsqrt"),
            new Entry("ex2", "dev/weft/simd/sfu/VectorSfu.ex2"),
            new Entry("lg2", "dev/weft/simd/sfu/VectorSfu.lg2"),
            new Entry("sin", "dev/weft/simd/sfu/VectorSfu.sin"),
            new Entry("cos", "dev/weft/simd/sfu/VectorSfu.cos"));

    private SfuLowering() {
    }
}
