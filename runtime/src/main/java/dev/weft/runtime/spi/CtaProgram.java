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

    /**
     * Runs {@code count} CTAs of one grid row in order: the first is {@code cta} as started by the runtime, each
     * next one {@code blockIdx.x + 1} ({@link Cta#nextX}). The runtime calls this for the CTAs of a claimed chunk
     * that share a row, so a program can keep what is the same for all of them (the CTA shape, its set-up) in
     * registers instead of redoing it per CTA. Stops early, without error, when {@link Cta#cancelled}.
     *
     * @param cta the first CTA; after a {@link KernelFault}, {@link Cta#blockIdxX} is the faulting CTA's
     * @param count CTAs to run, at least 1
     * @throws KernelFault when a thread faults or threads break a convergence rule
     */
    default void runCtaRow(Cta cta, int count) {
        runCta(cta);
        for (int k = 1; k < count && !cta.cancelled(); k++) {
            cta.nextX();
            runCta(cta);
        }
    }
}
