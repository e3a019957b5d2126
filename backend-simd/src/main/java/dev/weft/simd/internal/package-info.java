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
 * to run; {@link dev.weft.simd.internal.analysis.StrideLoops}: divergent loops whose exit compares an affine
 * value with a uniform bound (CUDA's grid-stride loop), which run whole iterations without masks after one
 * scalar test.
 * <li>{@link dev.weft.simd.internal.gen.CodeGen}: a hidden class whose static method runs a CTA group by
 * group (a warp: 32 threads in as many registers as the species needs), with vectors and masks in locals.
 * Each of its methods is a {@code gen.MethodGen} (the group loop, locals, masks, blocks and edges) with a part
 * per kind of operation: arithmetic, memory, atomics, warp operations, faults, grid-stride loops, and for
 * kernels with barriers the spill plan, the code at barriers and the passing over of idle groups;
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
 * from the reference's if two warps fault on different sides of a warp operation (both launches fail). In a
 * launch that fails inside a grid-stride loop run round-robin across a CTA's groups, the faulting iteration is
 * run again on the ordinary path to report the fault, so the atomics of the threads before the faulting one in
 * that iteration may have run twice: memory after a failed launch is partial in either executor.
 *
 * <p>Shared memory and {@code syncThreads()}. A kernel with barriers runs its CTA in phases
 * ({@link dev.weft.simd.internal.gen.Phases}): every group runs until it reaches a barrier with all its threads,
 * keeps the masks and values live across it in per-CTA storage, and stops; when every group of the CTA waits at
 * the same {@code syncThreads()} call (the reference's notion: one call instruction), the next phase resumes each
 * after it. A barrier that some thread of the CTA does not reach (divergent, under a loop that differs between
 * warps, or after some threads returned) fails the launch with {@code KernelFault.inCta} and the reference's
 * message's opening, "syncThreads() not reached by all threads of the CTA: ...", and where the threads wait; it
 * never hangs. Faults keep their order:
 * a thread faulting before a barrier fails the CTA when its group reaches the barrier, so later groups do not run
 * past it, as in the reference's rounds. Where the threads of one warp wait at different barriers, the launch
 * fails with the barrier error, where the reference might first report a fault of a thread running on past its
 * warp's barrier; and two barriers inlined from one call instruction of a helper meet across warps but not within
 * one. Shared arrays are the runtime's own ({@code SharedMemory}): the k-th allocation of a thread is the CTA's
 * k-th array, zeroed at the CTA's start, with the same limit and mismatch errors, reported for the first thread
 * that makes the allocation; the compiler knows k for each allocation when the allocations lie on one dominance
 * chain outside loops, and declines the others naming the allocation and its line. Atomics on shared arrays run
 * as on global ones, once per active thread in lane order.
 *
 * <h2>Performance notes</h2>
 * Generated methods are excluded from C1 ({@link dev.weft.simd.internal.gen.C1Exclusion}) and must stay under
 * C2's 8000-byte limit; the compiler picks the threads per group from the loops' register pressure
 * ({@link dev.weft.simd.internal.analysis.Pressure}; two warps for a reduction's interleaved grid-stride loop with
 * 16-lane registers, for its read order) and shrinks the group when the code would be too large,
 * after the steps that cost no speed (dead code, dead stores and jumps through {@code goto}s removed, the most used
 * locals moved to the one-byte slots: {@link dev.weft.simd.internal.gen.CodeGen#fit}) and, in the smallest group,
 * compact masks ({@link dev.weft.simd.internal.gen.CodeGen#withCompactMasks}).
 * At a barrier a group stores what is live across the kernel's barriers (one shared spill keeps the code
 * small); its vectors go there as lanes, its masks as references (boxed). Kernels using shared
 * memory also get a row variant for groups of half the size, so that 16-wide tiles on 8-lane registers keep
 * their tile reads as broadcasts and vector loads: measured here (AVX2, 2 busy cores, plain timing), a 256 x 256
 * tiled matmul with 16 x 16 CTAs took about 20 ms compiled against 400 ms without that variant and 300 to 800 ms
 * on the reference executor; a tree reduction of 2^20 ints in 256-thread CTAs about 15 ms against 1.4 to 2 s. Shared-array accesses at affine indexes are vector loads and stores, as global
 * ones are. A loop containing a barrier is entered both at its header and where groups resume, so C2 sees it as
 * irreducible; loops between barriers are optimised as usual.
 */
package dev.weft.simd.internal;
