package dev.weft.runtime.spi;

import dev.weft.Dim3;
import dev.weft.Kernel;

/** A compiling executor, found with {@link java.util.ServiceLoader}. Implementations are thread-safe. */
public interface KernelBackend {

    /** A short name for reports and diagnostics, e.g. {@code "simd"}. */
    String name();

    /**
     * Compiles kernels of {@code kernel}'s class for a device. Called once per kernel class and device;
     * the result is cached by the runtime, so this may be slow, but must not run the kernel.
     *
     * @param kernel one instance of the class; its captured values are an example, not constants
     * @param device the device's shape
     * @return the compiled kernel, or the reasons it cannot be compiled, one line per construct
     */
    Compilation compile(Kernel kernel, DeviceShape device);

    /**
     * As {@link #compile(Kernel, DeviceShape)}, for a first launch whose CTAs have the shape {@code block}: the
     * backend may compile only what CTAs of that shape run, and compile for other shapes when a launch first binds
     * them ({@link CompiledKernel#bind(Kernel, Dim3)}). The default compiles for every shape.
     *
     * @param block the first launch's blockDim
     */
    default Compilation compile(Kernel kernel, DeviceShape device, Dim3 block) {
        return compile(kernel, device);
    }

    /**
     * Prepares the compiler in the background, once per JVM, when the first device that may compile is
     * created: a backend whose first compile pays for class loading and interpretation can pay it here, off
     * the first launch's path. Must return at once and must not fail; the default does nothing.
     */
    default void warmUp() {
    }
}
