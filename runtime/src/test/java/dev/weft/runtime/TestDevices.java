package dev.weft.runtime;

/** The devices the runtime tests launch on: the reference executor, with a chosen SM count and warp size. */
final class TestDevices {

    private TestDevices() {
    }

    /** A reference-executor device with {@code smCount} SM workers and 32-thread warps. */
    static Device reference(int smCount) {
        return Device.create(config(smCount));
    }

    /** A reference-executor device with {@code smCount} SM workers and {@code warpSize}-thread warps. */
    static Device reference(int smCount, int warpSize) {
        return Device.create(config(smCount).withWarpSize(warpSize));
    }

    static DeviceConfig config(int smCount) {
        return DeviceConfig.defaults().withSmCount(smCount).withExecutor(ExecutorChoice.REFERENCE);
    }
}
