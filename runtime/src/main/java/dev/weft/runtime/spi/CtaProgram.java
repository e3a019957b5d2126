package dev.weft.runtime.spi;

/**
 * Runs the CTAs of one launch. SM workers call {@link #runCta} concurrently, one CTA per call per SM, so
 * an implementation keeps per-CTA state in locals or in the {@link Cta}, never in its own fields.
 */
public interface CtaProgram {

    /**
     * Runs every thread of one CTA to completion.
     *
     * @param cta the CTA's coordinates, shared memory and cancellation flag; valid only during this call
     * @throws KernelFault when a thread faults or threads break a convergence rule
     */
    void runCta(Cta cta);
}
