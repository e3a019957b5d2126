package dev.weft.runtime.spi;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;

/** A kernel class prepared by an executor; shared by all launches of that class. Thread-safe. */
public interface CompiledKernel {

    /** What the executor made of the kernel, for {@code Device.compileReport}. */
    CompileReport report();

    /**
     * Prepares one launch: reads the kernel object's captured values.
     *
     * @param kernel an instance of the compiled class
     * @return the program that runs this launch's CTAs
     */
    CtaProgram bind(Kernel kernel);

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
