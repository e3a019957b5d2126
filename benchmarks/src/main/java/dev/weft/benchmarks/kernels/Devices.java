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

    /**
     * Runs {@code op}, the {@code weft} variant's benchmark body, for the seconds in system property
     * {@code weft.bench.settle} (none by default; the suite profiles set it), before JMH's own warm-up. Why: a
     * compiled kernel's methods skip C1 (see the backend's {@code C1Exclusion}) and stay interpreted, 50 to 100
     * times slower, until C2 compiles them, and a large phased kernel is often recompiled once or twice after an
     * uncommon trap (a path its first profile had not seen). Measured on 2 busy cores: the reduction's last
     * recompile at about 4.5 s after the fork started, sgemm's at 11 s, scan's (7,168 bytes of bytecode) at
     * 20 to 25 s; the quick suite's one 1-s warm-up iteration alone would measure the interpreter. A fixed
     * time, not "until the rate settles": the interpreted rate is steady too, so a settling test could stop
     * before C2 finished.
     */
    static void settle(String impl, Runnable op) {
        double seconds = Double.parseDouble(System.getProperty("weft.bench.settle", "0"));
        if (!impl.equals("weft") || seconds <= 0) {
            return;
        }
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            op.run();
        }
    }
}
