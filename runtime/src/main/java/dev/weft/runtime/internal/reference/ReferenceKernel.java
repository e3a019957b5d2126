package dev.weft.runtime.internal.reference;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.CtaProgram;
import java.util.List;

/**
 * The reference executor for one kernel class: every thread runs the kernel's lambda as ordinary Java,
 * suspended at barriers and warp operations by its CTA's {@link CtaScheduler}. The specification every
 * compiling backend is tested against.
 */
public final class ReferenceKernel implements CompiledKernel {

    private final CompileReport report;

    /**
     * @param kernel an instance of the kernel class, for the report
     * @param reasons why no backend compiled it (empty when the reference executor was asked for)
     */
    public ReferenceKernel(Kernel kernel, List<String> reasons) {
        this.report = new CompileReport("reference", false, reasons,
                "reference executor: each thread runs " + kernel.getClass().getName()
                        + " as ordinary Java on " + Fiber.mechanism() + " fibers; no code generated");
    }

    @Override
    public CompileReport report() {
        return report;
    }

    @Override
    public CtaProgram bind(Kernel kernel) {
        return cta -> CtaScheduler.forCurrentSm(cta.warpSize()).run(cta, kernel);
    }

    /** Which suspension mechanism the reference executor uses in this JVM. */
    public static String fiberMechanism() {
        return Fiber.mechanism();
    }
}
