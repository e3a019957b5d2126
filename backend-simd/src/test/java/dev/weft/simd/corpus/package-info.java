/**
 * The differential corpus the SIMD compiler is judged by (issue 4): kernels as data, each run on a
 * REFERENCE device and a default (AUTO) device and compared.
 *
 * <h2>How it is organised</h2>
 * A {@link dev.weft.simd.corpus.CorpusCase} names a kernel, the launch shapes to run it over
 * ({@link dev.weft.simd.corpus.Shapes}) and a setup that, from seeded {@link dev.weft.simd.corpus.Inputs}
 * and a shape, builds an {@link dev.weft.simd.corpus.Instance}: the kernel lambda over fresh arrays, and
 * the arrays to compare with their {@link dev.weft.simd.corpus.Tolerance}. The setup runs twice per launch
 * with equal seeds, once per executor, so each gets its own equal arrays. Cases live in one class per
 * theme ({@code ClassicKernels}, {@code ControlFlowKernels}, {@code ArithmeticKernels}, {@code MathKernels},
 * {@code IndexingKernels}, {@code OutOfScopeKernels}) and are listed by {@link dev.weft.simd.corpus.Corpus}.
 *
 * <h2>Adding a kernel</h2>
 * Add a {@code CorpusCase.of(name, GROUP, shapes, (in, s) -> { ... })} to the theme's list: draw inputs
 * from {@code in}, size them from {@code s}, write the kernel as a lambda capturing only primitives and
 * primitive arrays, and {@code check} every array it writes. Compare exactly unless the kernel stores the
 * result of a Math transcendental ({@code Tolerance.MATH_1ULP}) or feeds one into more arithmetic (an
 * absolute bound, with its error analysis in a comment).
 *
 * <h2>Running and reproducing</h2>
 * {@code mvn -o -q -pl backend-simd -am test -Dtest='CorpusTest' -Dsurefire.failIfNoSpecifiedTests=false}.
 * Inputs are random per run; every failure prints the base seed; {@code -Dweft.corpus.seed=0x...} pins it,
 * {@code -Dweft.corpus.rounds=N} sets the input sets per shape (default 3). The compile tests are skipped
 * until a {@code KernelBackend} named {@code "simd"} is on the class path (found through
 * {@code META-INF/services/dev.weft.runtime.spi.KernelBackend}), and are hard assertions from then on.
 */
package dev.weft.simd.corpus;
