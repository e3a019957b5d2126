package dev.weft.runtime;

import dev.weft.runtime.internal.Checks;

/**
 * How a {@link Device} is built: its SM count, warp size, shared memory per CTA and executor.
 *
 * {@snippet :
 * Device device = Device.create(DeviceConfig.defaults().withSmCount(4).withExecutor(ExecutorChoice.REFERENCE));
 * }
 *
 * @param smCount SM worker threads, each a platform thread; default: available processors
 * @param warpSize threads per warp, a power of two in [1, 32]; default 32 as on NVIDIA hardware
 * @param sharedMemoryPerBlockBytes the most shared memory one CTA may allocate; default 48 KiB
 * @param executor which executor runs kernels; default {@link ExecutorChoice#AUTO}
 */
public record DeviceConfig(int smCount, int warpSize, int sharedMemoryPerBlockBytes, ExecutorChoice executor) {

    /** The largest shared memory per CTA a device may be configured with: 1 GiB, far past any GPU's. */
    public static final int MAX_SHARED_MEMORY_PER_BLOCK_BYTES = 1 << 30;

    /** Validates every component, naming it and its rule. */
    public DeviceConfig {
        Checks.inRange("smCount", smCount, 1, 4096);
        Checks.check(warpSize >= 1 && warpSize <= 32 && Integer.bitCount(warpSize) == 1,
                "warpSize must be a power of two in [1, 32]: %d", warpSize);
        Checks.inRange("sharedMemoryPerBlockBytes", sharedMemoryPerBlockBytes, 0, MAX_SHARED_MEMORY_PER_BLOCK_BYTES);
        Checks.notNull("executor", executor);
    }

    /**
     * The defaults: one SM per available processor, 32-thread warps, 48 KiB of shared memory per CTA,
     * {@link ExecutorChoice#AUTO}. The system property {@code weft.executor=reference} turns the default
     * executor to {@link ExecutorChoice#REFERENCE} without a code change (a debug switch).
     */
    public static DeviceConfig defaults() {
        ExecutorChoice executor = "reference".equalsIgnoreCase(System.getProperty("weft.executor"))
                ? ExecutorChoice.REFERENCE : ExecutorChoice.AUTO;
        return new DeviceConfig(Runtime.getRuntime().availableProcessors(), 32, 48 * 1024, executor);
    }

    /** This configuration with {@code smCount} SM workers. */
    public DeviceConfig withSmCount(int smCount) {
        return new DeviceConfig(smCount, warpSize, sharedMemoryPerBlockBytes, executor);
    }

    /** This configuration with {@code warpSize} threads per warp. */
    public DeviceConfig withWarpSize(int warpSize) {
        return new DeviceConfig(smCount, warpSize, sharedMemoryPerBlockBytes, executor);
    }

    /** This configuration with a per-CTA shared memory limit of {@code bytes}. */
    public DeviceConfig withSharedMemoryPerBlockBytes(int bytes) {
        return new DeviceConfig(smCount, warpSize, bytes, executor);
    }

    /** This configuration with the given executor choice. */
    public DeviceConfig withExecutor(ExecutorChoice executor) {
        return new DeviceConfig(smCount, warpSize, sharedMemoryPerBlockBytes, executor);
    }
}
