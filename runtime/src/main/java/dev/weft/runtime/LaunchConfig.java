package dev.weft.runtime;

import dev.weft.Dim3;
import dev.weft.runtime.internal.Checks;

/**
 * The shape of a launch: grid and CTA dimensions, and optionally the shared memory its CTAs will use.
 *
 * <p>Declaring {@code sharedMemoryBytes} lets the device reject a launch that needs more than its
 * per-CTA limit before any thread runs, and bounds the CTA's allocations to what was declared; with 0
 * (the default) allocations are checked against the device's limit as they happen.
 *
 * @param grid CTAs per grid, CUDA's {@code gridDim}
 * @param block threads per CTA, CUDA's {@code blockDim}
 * @param sharedMemoryBytes shared memory each CTA will allocate at most, or 0 for undeclared;
 *        CUDA: the third launch parameter, {@code <<<grid, block, sharedMemoryBytes>>>}
 */
public record LaunchConfig(Dim3 grid, Dim3 block, int sharedMemoryBytes) {

    /** Checks what needs no device: non-null dimensions and a non-negative byte count. */
    public LaunchConfig {
        Checks.notNull("grid", grid);
        Checks.notNull("block", block);
        Checks.check(sharedMemoryBytes >= 0, "sharedMemoryBytes must be >= 0: %d", sharedMemoryBytes);
    }

    /** A launch of {@code grid} CTAs of {@code block} threads, shared memory undeclared. */
    public static LaunchConfig of(Dim3 grid, Dim3 block) {
        return new LaunchConfig(grid, block, 0);
    }

    /** This launch, declaring that each CTA allocates at most {@code bytes} of shared memory. */
    public LaunchConfig withSharedMemoryBytes(int bytes) {
        return new LaunchConfig(grid, block, bytes);
    }
}
