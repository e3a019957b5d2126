package dev.weft.runtime.internal.reference;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.ProfiledProgram;
import java.util.List;

/**
 * The reference executor for one kernel class: every thread runs the kernel's lambda as ordinary Java,
 * suspended at barriers and warp operations by its CTA's {@link CtaScheduler}. The specification every
 * compiling backend is tested against.
 */
public final class ReferenceKernel implements CompiledKernel {

    private static final Site[] NO_SITES = new Site[0];

    private final CompileReport report;
    private final SiteTagging tagging;

    /**
     * @param kernel an instance of the kernel class, for the report
     * @param reasons why no backend compiled it (empty when the reference executor was asked for)
     */
    public ReferenceKernel(Kernel kernel, List<String> reasons) {
        this.tagging = SiteTagging.of(kernel);
        this.report = new CompileReport("reference", false, reasons,
                "reference executor: each thread runs " + kernel.getClass().getName()
                        + " as ordinary Java on " + Fiber.mechanism() + " fibers"
                        + (tagging == null ? "" : tagging.neverWaits ? ", one after another (no thread can wait)"
                                : ", " + tagging.sites.length + " barrier and warp-operation sites tagged")
                        + "; no vector code generated");
    }

    @Override
    public CompileReport report() {
        return report;
    }

    /**
     * Always refuses: each thread runs as ordinary Java, one after another or suspended at its barriers, so
     * no warp issues instructions under a mask and there is nothing a warp-level count could honestly
     * report. CTAs and warps are still counted by the runtime.
     */
    @Override
    public ProfiledProgram bindProfiled(Kernel kernel) {
        throw new UnsupportedOperationException("the reference executor runs each thread as ordinary Java, not warps "
                + "under masks: warp instructions and branch splits are counted only for kernels a backend compiles"
                + (report.reasons().isEmpty() ? "" : " (not compiled: " + String.join("; ", report.reasons()) + ")"));
    }

    @Override
    public CtaProgram bind(Kernel kernel) {
        KernelBody body = null;
        if (tagging != null) {
            try {
                body = tagging.bind(kernel);
            } catch (Throwable e) {
                body = null; // this object's captures could not be read: run it untagged
            }
        }
        KernelBody run = body != null ? body : kernel::run;
        Site[] sites = body != null ? tagging.sites : NO_SITES;
        boolean direct = body != null && tagging.neverWaits;
        return cta -> CtaScheduler.forCurrentSm(cta.warpSize()).run(cta, run, sites, direct);
    }

    /** Which suspension mechanism the reference executor uses in this JVM. */
    public static String fiberMechanism() {
        return Fiber.mechanism();
    }
}
