package dev.weft.simd.corpus;

import dev.weft.Dim3;

/**
 * One launch shape of a corpus case: grid and CTA dimensions.
 *
 * @param grid CTAs per grid, CUDA's {@code gridDim}
 * @param block threads per CTA, CUDA's {@code blockDim}
 */
public record Shape(Dim3 grid, Dim3 block) {

    /** A 1D launch of {@code grid} CTAs of {@code block} threads. */
    public static Shape of(int grid, int block) {
        return new Shape(Dim3.of(grid), Dim3.of(block));
    }

    /** A launch with the given dimensions. */
    public static Shape of(Dim3 grid, Dim3 block) {
        return new Shape(grid, block);
    }

    /** Threads along x over the whole grid: {@code gridDim.x * blockDim.x}. */
    public int extentX() {
        return grid.x() * block.x();
    }

    /** Threads along y over the whole grid. */
    public int extentY() {
        return grid.y() * block.y();
    }

    /** Threads along z over the whole grid. */
    public int extentZ() {
        return grid.z() * block.z();
    }

    /** Every thread of the launch. */
    public int threads() {
        return Math.toIntExact(grid.volume() * block.volume());
    }

    /** Threads per CTA. */
    public int blockThreads() {
        return Math.toIntExact(block.volume());
    }

    @Override
    public String toString() {
        return "grid=" + grid + " block=" + block;
    }
}
