package dev.weft.runtime.spi;

/**
 * What a backend may assume about the device it compiles for.
 *
 * @param warpSize threads per warp, a power of two in [1, 32]
 * @param sharedMemoryPerBlockBytes the device's per-CTA shared memory limit
 */
public record DeviceShape(int warpSize, int sharedMemoryPerBlockBytes) {
}
