package dev.weft.benchmarks.kernels;

import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;

/** The Weft devices the benchmarks launch on, and what a benchmark says about them when it starts. */
final class Devices {

    private Devices() {
    }

    /** A device of the given executor with default SMs (one per available processor) and warps. */
    static Device create(boolean reference) {
        return Device.create(DeviceConfig.defaults().withExecutor(reference ? ExecutorChoice.REFERENCE : ExecutorChoice.AUTO));
    }

    /** Prints which executor runs {@code kernel}, so a run's log says whether "weft" was compiled. */
    static void describe(String benchmark, String impl, Device device, Kernel kernel) {
        System.out.println("# " + benchmark + " " + impl + ": " + device.compileReport(kernel).summary());
    }
}
