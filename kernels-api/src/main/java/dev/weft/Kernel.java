package dev.weft;

import java.io.Serializable;

/**
 * A kernel: the code one thread runs, written as plain per-thread Java, as in CUDA.
 *
 * <p>Write it as a lambda. The values it captures (arrays, scalars) are the kernel's parameters; they are
 * uniform, the same for every thread of a launch. The lambda is {@link Serializable} so that a backend can
 * find its code and captured values and compile it for warps on vector lanes.
 *
 * {@snippet :
 * float[] x = new float[n], y = new float[n];
 * float a = 2f;
 * Kernel saxpy = t -> {
 *     int i = t.globalIdX();
 *     if (i < n) y[i] = a * x[i] + y[i];
 * };
 * }
 *
 * <p>Kernels should only read their parameters, their thread context and memory they are given; a kernel
 * that keeps state in fields of its own object or talks to other threads by other means than shared
 * memory, barriers and atomics has no defined meaning.
 *
 * <p>CUDA: a {@code __global__} function.
 */
@FunctionalInterface
public interface Kernel extends Serializable {

    /**
     * Runs one thread of the kernel.
     *
     * @param t this thread's context: its ids, its CTA's shared memory, barrier and warp operations
     */
    void run(ThreadContext t);
}
