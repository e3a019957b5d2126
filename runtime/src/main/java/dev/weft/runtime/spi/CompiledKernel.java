package dev.weft.runtime.spi;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;

/** A kernel class prepared by an executor; shared by all launches of that class. Thread-safe. */
public interface CompiledKernel {

    /** What the executor made of the kernel, for {@code Device.compileReport}. */
    CompileReport report();

    /**
     * What the executor made of the kernel for launches in CTAs of shape {@code block}, compiled as such a launch
     * compiles it ({@link #bind(Kernel, Dim3)}); null where it cannot run that shape. The default is
     * {@link #report()}.
     */
    default CompileReport report(Dim3 block) {
        return report();
    }

    /**
     * The executor's name, as in {@link #report()}; for launches, which need only the name (a report may compile
     * more than a launch needs).
     */
    default String executor() {
        return report().executor();
    }

    /**
     * Prepares one launch: reads the kernel object's captured values. The runtime binds launches with their shape
     * ({@link #bind(Kernel, Dim3)}).
     *
     * @param kernel an instance of the compiled class
     * @return the program that runs this launch's CTAs
     * @throws UnsupportedOperationException where the kernel was compiled for a first launch's CTA shape
     *         ({@link KernelBackend#compile(Kernel, DeviceShape, Dim3)}) and this executor cannot run every shape
     */
    CtaProgram bind(Kernel kernel);

    /**
     * Prepares one launch whose CTAs have the shape {@code block}, compiling for that shape first if a compile for
     * another shape left it out ({@link KernelBackend#compile(Kernel, DeviceShape, Dim3)}). The default is
     * {@link #bind(Kernel)}.
     *
     * @param kernel an instance of the compiled class
     * @param block the launch's blockDim
     * @return the program that runs this launch's CTAs, or null where this executor cannot run CTAs of this shape
     *         (the runtime then runs the launch on the reference executor)
     */
    default CtaProgram bind(Kernel kernel, Dim3 block) {
        return bind(kernel);
    }

    /**
     * Prepares one profiled launch: the kernel's profiling variant (compiled on first use), bound to the kernel
     * object's captured values. The ordinary program of {@link #bind} must stay as it is: profiling is a
     * separate variant, so that it costs nothing when off.
     *
     * @param kernel an instance of the compiled class
     * @return the program that runs this launch's CTAs and counts what they do
     * @throws UnsupportedOperationException if this executor does not count warp instructions for this
     *         kernel; the message, one line, says why (the runtime puts it in the profile)
     */
    default ProfiledProgram bindProfiled(Kernel kernel) {
        throw new UnsupportedOperationException(report().executor() + " executor: warp instructions are not counted");
    }
}
