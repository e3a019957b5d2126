package dev.weft.runtime.spi;

import dev.weft.Dim3;

/**
 * Thrown by a {@link CtaProgram} when its CTA fails: one thread faulted (its coordinates and the cause), or
 * the CTA broke a convergence rule (no single thread at fault). The runtime adds the kernel and CTA and
 * fails the launch with a {@code KernelException}.
 */
public final class KernelFault extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Dim3 threadIdx;

    private KernelFault(Dim3 threadIdx, String message, Throwable cause) {
        super(message, cause, false, false);
        this.threadIdx = threadIdx;
    }

    /** Thread {@code threadIdx} threw {@code cause}. */
    public static KernelFault inThread(Dim3 threadIdx, Throwable cause) {
        return new KernelFault(threadIdx, String.valueOf(cause), cause);
    }

    /** Thread {@code threadIdx} broke a rule described by {@code message}. */
    public static KernelFault inThread(Dim3 threadIdx, String message) {
        return new KernelFault(threadIdx, message, null);
    }

    /** The CTA as a whole broke a rule (a barrier or warp operation not reached by all). */
    public static KernelFault inCta(String message) {
        return new KernelFault(null, message, null);
    }

    /** The faulting thread, or {@code null} for a fault of the whole CTA. */
    public Dim3 threadIdx() {
        return threadIdx;
    }
}
