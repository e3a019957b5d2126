package dev.weft;

import java.io.Serializable;

/**
 * A 1D, 2D or 3D extent or coordinate: grid and block dimensions, block and thread indices.
 *
 * <p>As an extent every component is at least 1; as a coordinate at least 0. The record itself only
 * rejects negative components; the runtime checks launch limits (which parameter, what limit) before
 * any thread runs.
 *
 * <p>Serializable, so that a {@code KernelException}, which carries the failing CTA's and thread's
 * coordinates, can be serialized.
 *
 * <p>CUDA: {@code dim3} (extents) and {@code uint3} (coordinates).
 *
 * @param x the x component
 * @param y the y component
 * @param z the z component
 */
public record Dim3(int x, int y, int z) implements Serializable {

    /** Validates that no component is negative. */
    public Dim3 {
        if (x < 0 || y < 0 || z < 0) {
            throw new IllegalArgumentException("Dim3 components must be >= 0: (" + x + ", " + y + ", " + z + ")");
        }
    }

    /** A 1D extent {@code (x, 1, 1)}. CUDA: {@code dim3(x)}. */
    public static Dim3 of(int x) {
        return new Dim3(x, 1, 1);
    }

    /** A 2D extent {@code (x, y, 1)}. CUDA: {@code dim3(x, y)}. */
    public static Dim3 of(int x, int y) {
        return new Dim3(x, y, 1);
    }

    /** A 3D extent. CUDA: {@code dim3(x, y, z)}. */
    public static Dim3 of(int x, int y, int z) {
        return new Dim3(x, y, z);
    }

    /** {@code x * y * z}, the number of elements of this extent, as a long so it cannot overflow. */
    public long volume() {
        return (long) x * y * z;
    }

    /** {@code "(x, y, z)"}, the way error messages print coordinates. */
    @Override
    public String toString() {
        return "(" + x + ", " + y + ", " + z + ")";
    }
}
