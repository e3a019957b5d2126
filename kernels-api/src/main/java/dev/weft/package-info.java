/**
 * Weft's kernel API: CUDA's programming model as Java lambdas.
 *
 * <p>A {@link dev.weft.Kernel} is the code of one thread. It is launched over a grid of CTAs (thread
 * blocks), each a 1D, 2D or 3D array of threads ({@link dev.weft.Dim3}); each thread learns its
 * coordinates from its {@link dev.weft.ThreadContext}, as a CUDA thread reads {@code threadIdx} and
 * {@code blockIdx}. Threads of one CTA cooperate through shared arrays, the {@code syncThreads()} barrier,
 * {@link dev.weft.Atomics} and warp vote and shuffle. Transcendentals at the GPU's accuracy are in
 * {@link dev.weft.Sfu}.
 *
 * {@snippet :
 * // y = a*x + y, one thread per element
 * Kernel saxpy = t -> {
 *     int i = t.globalIdX();
 *     if (i < n) y[i] = a * x[i] + y[i];
 * };
 * device.launch(Dim3.of((n + 255) / 256), Dim3.of(256), saxpy);
 * }
 *
 * <h2>Performance notes</h2>
 * Captured values are uniform parameters; keep per-thread state in locals. A backend compiles kernels for
 * warps on vector lanes when it can; the runtime's {@code compileReport} says whether it did and why not.
 *
 * <p>Null policy: no method of this package accepts or returns {@code null}.
 */
package dev.weft;
