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

    /**
     * Whether variant {@code impl} runs its benchmark's full problem or the smaller one sized for the reference
     * executor. {@code weftReference} always runs the small one; {@code weft} runs the full one only when its
     * AUTO {@code device} compiles the kernel ({@code probe}, an instance of the same lambda: the decision is
     * per kernel, not per size), else the small one, because on the reference executor every barrier and warp
     * operation suspends each thread (about 0.16 µs), which at the full size of sgemm or scan is seconds per
     * invocation. The rates are per element, so the sizes compare; where AUTO falls back, the {@code weft}
     * and {@code weftReference} rows measure the same executor on the same problem.
     */
    static boolean fullProblem(String impl, Device device, Kernel probe) {
        return switch (impl) {
            case "weftReference" -> false;
            case "weft" -> device.compileReport(probe).compiled();
            default -> true;
        };
    }

    /** Prints which executor runs {@code kernel}, so a run's log says whether "weft" was compiled. */
    static void describe(String benchmark, String impl, Device device, Kernel kernel) {
        System.out.println("# " + benchmark + " " + impl + ": " + device.compileReport(kernel).summary());
    }
}
