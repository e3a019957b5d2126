/**
 * The SIMD backend's compiler: kernel lambdas to Vector API code, a warp's threads on vector lanes.
 *
 * <h2>Pipeline</h2>
 * <ol>
 * <li>{@link dev.weft.simd.internal.LambdaSource}: the kernel's SerializedLambda (implementation method,
 * captured values) and class files.
 * <li>{@link dev.weft.simd.internal.front.Parser}: bytecode to SSA IR ({@link dev.weft.simd.internal.ir}),
 * static calls inlined, {@code ThreadContext} calls as special registers, {@code Math} and {@code Sfu} calls as
 * known functions ({@link dev.weft.simd.internal.front.Intrinsics}); every unsupported construct becomes a
 * reason naming it and its source line.
 * <li>{@link dev.weft.simd.internal.analysis.Cfg}: dominators, loops, the linear block order;
 * {@link dev.weft.simd.internal.analysis.Uniformity}: uniform, affine and varying values, divergent branches
 * and loops; {@link dev.weft.simd.internal.analysis.MaskPlan}: which blocks share a mask and how each decides
 * to run.
 * <li>{@link dev.weft.simd.internal.gen.CodeGen}: a hidden class whose static method runs a CTA group by
 * group (a warp: 32 threads in as many registers as the species needs), with vectors and masks in locals;
 * {@link dev.weft.simd.internal.gen.Listing}: the teaching view of the same code.
 * <li>{@link dev.weft.simd.internal.Binder}: per launch, the captured values into the generated class's
 * constructor.
 * </ol>
 *
 * <h2>Semantics kept</h2>
 * Results are those of the reference executor bit for bit, except the vector forms of transcendental
 * {@code Math} functions (within twice the ulp bound {@code Math} documents; see
 * {@link dev.weft.simd.internal.front.Intrinsics}). Out-of-bounds accesses, integer division by zero and null
 * arrays fail the thread the reference executor would fail: the first faulting thread in linear order, with
 * the threads before it completed. Kernels with data races between threads (a thread reading what another
 * writes, without barriers or atomics) have no defined result; the two executors may differ on them.
 *
 * <p>Atomics run once per active thread in lane order, so threads of a warp on one address are serialised and
 * no update is lost. The reference executor runs each thread on until it blocks, so a thread doing several
 * atomics on an address that other threads also update may see a different (equally valid) interleaving in
 * the old values returned; final counts, extrema and exact sums agree. Warp votes and shuffles are compiled
 * with a group of exactly one warp, and only where {@link dev.weft.simd.internal.analysis.WarpSync} proves
 * that the lanes at the operation are the ones the reference executor would find waiting; other kernels with
 * warp operations are declined. When a kernel with warp operations faults, the thread reported may differ
 * from the reference's if two warps fault on different sides of a warp operation (both launches fail).
 * Shared memory and {@code syncThreads()} are not compiled yet: such kernels run on the reference executor.
 *
 * <h2>Performance notes</h2>
 * Generated methods are excluded from C1 ({@link dev.weft.simd.internal.gen.C1Exclusion}) and must stay under
 * C2's 8000-byte limit; the compiler picks the threads per group from the loops' register pressure
 * ({@link dev.weft.simd.internal.analysis.Pressure}) and shrinks the group when the code would be too large.
 */
package dev.weft.simd.internal;
