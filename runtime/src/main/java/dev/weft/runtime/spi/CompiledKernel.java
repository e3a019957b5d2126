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
}
