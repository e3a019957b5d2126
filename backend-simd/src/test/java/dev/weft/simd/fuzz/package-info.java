/**
 * Differential fuzzing of the SIMD compiler: {@link dev.weft.simd.fuzz.KernelGenerator} writes random,
 * well-typed, terminating, race-free kernels as Java source; {@link dev.weft.simd.fuzz.InMemoryCompiler}
 * compiles them with {@code javax.tools} and loads them with a class loader that also serves their bytes
 * as resources (the backend reads bytecode through {@code Class.getResourceAsStream});
 * {@link dev.weft.simd.fuzz.FuzzHarness} runs each on a REFERENCE and an AUTO device and compares.
 *
 * <p>{@code FuzzTest} runs 120 kernels per build from a fixed base seed ({@code -Dweft.fuzz.count},
 * {@code -Dweft.fuzz.base}); a difference prints the seed and the numbered source, and
 * {@code -Dweft.fuzz.seed=0x...} re-runs that one kernel. {@code FuzzSelfTest} shows the fuzzer finds
 * bugs: it must catch a corrupted output on every seed and each of seven kinds of mutant program (a
 * dropped barrier among them). One generated kernel in three uses shared memory and barriers, in
 * CTA-uniform control flow only.
 */
package dev.weft.simd.fuzz;
