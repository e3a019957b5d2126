package dev.weft.runtime;

import dev.weft.Dim3;
import java.util.Optional;

/**
 * A kernel failed: a thread threw, or threads broke a convergence rule (a barrier or warp operation not
 * reached by all). Names the kernel, the CTA and, where one thread is at fault, its coordinates; the
 * original exception is the cause.
 */
public final class KernelException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String kernel;
    private final Dim3 blockIdx;
    private final Dim3 threadIdx;

    /**
     * Creates the exception.
     *
     * @param kernel the kernel's name (its implementation method where known)
     * @param blockIdx the failing CTA
     * @param threadIdx the failing thread, or {@code null} when the fault is the CTA's (a convergence error)
     * @param detail what went wrong
     * @param cause the original exception, or {@code null}
     */
    public KernelException(String kernel, Dim3 blockIdx, Dim3 threadIdx, String detail, Throwable cause) {
        super("kernel " + kernel + " failed in CTA blockIdx=" + blockIdx
                + (threadIdx == null ? "" : " thread threadIdx=" + threadIdx) + ": " + detail, cause);
        this.kernel = kernel;
        this.blockIdx = blockIdx;
        this.threadIdx = threadIdx;
    }

    /** The kernel's name. */
    public String kernel() {
        return kernel;
    }

    /** The CTA that failed. CUDA: {@code blockIdx}. */
    public Dim3 blockIdx() {
        return blockIdx;
    }

    /** The thread at fault, if one is: empty for errors of the whole CTA or warp. CUDA: {@code threadIdx}. */
    public Optional<Dim3> threadIdx() {
        return Optional.ofNullable(threadIdx);
    }
}
