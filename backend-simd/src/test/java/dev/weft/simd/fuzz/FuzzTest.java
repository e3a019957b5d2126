package dev.weft.simd.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.weft.runtime.CompileReport;
import dev.weft.runtime.KernelException;
import dev.weft.simd.corpus.Differential;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random kernels from {@link KernelGenerator}, compiled in memory, run on a REFERENCE and an AUTO device,
 * outputs compared. Prints how many of them the AUTO device compiled and the reasons it gave for the rest.
 *
 * <p>A third runs the session-15 constructs ({@link KernelGenerator.Options#withMore}), as {@link FuzzCampaign} runs longer
 * campaigns from the command line; a fourth kernels over byte, short, char and boolean arrays
 * ({@link KernelGenerator.Options#withNarrowArrays}).
 *
 * <p>A second test runs kernels with the generator's extra constructs ({@link KernelGenerator.Options#withExtras}), half of
 * them with statements that may fault ({@link KernelGenerator.Options#withFaults}), whose launches must then fail
 * alike on both devices.
 *
 * <p>System properties: {@code weft.fuzz.count} (kernels per run, default 100; 60 for the extras), {@code weft.fuzz.base}
 * (the first seed; a fixed one by default so that CI is repeatable, {@code random} for a fresh one
 * each run; printed either way), {@code weft.fuzz.seed} (run only this seed, printing
 * its source), e.g.
 * {@code mvn -o -q -pl backend-simd -am test -Dtest=FuzzTest -Dsurefire.failIfNoSpecifiedTests=false -Dweft.fuzz.seed=0x1f}.
 */
// A separate thread, so a kernel that never ends fails its test instead of hanging the run.
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FuzzTest {

    /** The seeds CI runs: a failing build must be reproducible by running it again. */
    private static final long DEFAULT_BASE = 0x57EF7L << 20;
    /** The extras' seeds in CI. */
    private static final long EXTRAS_BASE = 0x57EF8L << 20;
    private static final int BATCH = 40;
    private static final int MAX_REPORTED = 3;

    /**
     * Every fourth seed also stores transcendental results (compared within 1-2 ulps). Every other seed
     * is a small kernel (6 statements; 8 before warp operations and atomics made statements larger): large ones
     * mostly exceed the JIT's method size limit after vectorisation and are declined, so without small ones the
     * fuzzer would hardly reach the compiler.
     * Every third seed uses shared memory and barriers in CTA-uniform control flow (issue 5); the three
     * choices are independent, so barrier kernels come smaller and larger, with and without transcendentals.
     * Half the small and barrier kernels (seed bit 2 clear) also have warp votes and shuffles: a warp operation fixes
     * the group at one warp, so large kernels with them would hardly ever compile.
     */
    static KernelGenerator.Options optionsFor(long seed) {
        KernelGenerator.Options o = (seed & 3) == 0 ? KernelGenerator.Options.withTolerantMath() : KernelGenerator.Options.exact();
        o = (seed & 1) == 1 ? new KernelGenerator.Options(o.tolerantMath(), 6) : o;
        // Barrier kernels are kept smaller (4 or 7 statements): the backend generates every phase between
        // barriers per group of warps, so larger ones mostly exceed the JIT's method size limit and are declined.
        o = Math.floorMod(seed, 3) == 2 ? new KernelGenerator.Options(o.tolerantMath(), o.statementBudget() > 8 ? 7 : 4, true) : o;
        return (seed & 4) == 0 && o.statementBudget() <= 8 ? o.withWarpOps() : o;
    }

    /**
     * The extras' options: {@link #optionsFor}'s mix of barriers, warp operations and transcendentals, all kernels small
     * (3 to 7 statements, 2 to 4 with barriers; the extra constructs make statements larger), and faults in every other
     * group of eight seeds.
     */
    static KernelGenerator.Options extrasOptionsFor(long seed) {
        KernelGenerator.Options o = optionsFor(seed);
        int budget = o.barriers() ? 2 + (int) ((seed >> 2) % 3) : 3 + (int) ((seed >> 2) % 5);
        o = new KernelGenerator.Options(o.tolerantMath(), budget, o.barriers(), o.warpOps()).withExtras();
        return (seed & 8) != 0 ? o.withFaults() : o;
    }

    /** The session-15 constructs' seeds in CI. */
    private static final long MORE_BASE = 0x57EF9L << 20;

    /**
     * The session-15 constructs ({@link KernelGenerator.Options#withMore}): {@link FuzzCampaign#options}'s tiny kernels of
     * FuzzTest's mix, with the extras in half of the groups of sixteen seeds and long- and double-heavy types in the other;
     * barrier kernels without the extras (with them, most are too large for the JIT).
     */
    static KernelGenerator.Options moreOptionsFor(long seed) {
        return FuzzCampaign.options(seed, Math.floorMod(seed, 3) == 2 ? "mt" : (seed & 16) == 0 ? "xmt" : "mlt");
    }

    private static final long NARROW_BASE = 0x57EFAL << 20;

    /**
     * Byte, short, char and boolean arrays ({@link KernelGenerator.Options#withNarrowArrays}) in FuzzTest's mix of
     * small and barrier kernels, with the session-15 constructs in every other group of sixteen seeds and faults in
     * every third seed.
     */
    static KernelGenerator.Options narrowOptionsFor(long seed) {
        return FuzzCampaign.options(seed, (Math.floorMod(seed, 3) == 1 ? "f" : "") + ((seed & 16) == 0 ? "tn" : "mtn"));
    }

    /** The smallest kernel with shared memory and a barrier: whether the backend compiles barriers at all. */
    private static final dev.weft.Kernel BARRIER_PROBE = t -> {
        int[] s = t.sharedInts(t.blockDimX());
        s[t.threadIdxX()] = t.threadIdxX();
        t.syncThreads();
        s[t.threadIdxX()] += s[(t.threadIdxX() + 1) % t.blockDimX()];
    };

    @Test
    void fuzz_randomKernels_matchReference() {
        fuzz(DEFAULT_BASE, 100, FuzzTest::optionsFor, "fuzz");
    }

    @Test
    void fuzz_extraConstructsAndFaults_matchReference() {
        fuzz(EXTRAS_BASE, 60, FuzzTest::extrasOptionsFor, "fuzz extras");
    }

    @Test
    void fuzz_sessionFifteenConstructs_matchReference() {
        fuzz(MORE_BASE, 60, FuzzTest::moreOptionsFor, "fuzz more");
    }

    @Test
    void fuzz_narrowArrays_matchReference() {
        fuzz(NARROW_BASE, 60, FuzzTest::narrowOptionsFor, "fuzz narrow");
    }

    private static final long COMPACT_BASE = 0x57EFBL << 20;

    /**
     * The compact masks ({@code CodeGen.withCompactMasks}) that kernels get only when they are otherwise too large for the
     * JIT, forced for every kernel: long- and double-heavy kernels in every other seed, whose masks of wide lanes are then
     * made where used, and faults in every other group of eight seeds, after which those masks must leave out the
     * faulted lanes.
     */
    @Test
    void fuzz_compactMasks_matchReference() {
        String before = System.getProperty("weft.simd.compactMasks");
        System.setProperty("weft.simd.compactMasks", "true");
        try {
            fuzz(COMPACT_BASE, 60, seed -> FuzzCampaign.options(seed, (seed & 1) == 0 ? "fl" : "f"), "fuzz compact");
        } finally {
            if (before == null) {
                System.clearProperty("weft.simd.compactMasks");
            } else {
                System.setProperty("weft.simd.compactMasks", before);
            }
        }
    }

    private static void fuzz(long defaultBase, int defaultCount, java.util.function.LongFunction<KernelGenerator.Options> options, String label) {
        String single = System.getProperty("weft.fuzz.seed");
        long[] seeds;
        if (single != null) {
            seeds = new long[] {Long.decode(single)};
        } else {
            String pinned = System.getProperty("weft.fuzz.base");
            long base = pinned == null ? defaultBase
                    : pinned.equals("random") ? new SecureRandom().nextLong() >>> 8 : Long.decode(pinned);
            int count = Integer.getInteger("weft.fuzz.count", defaultCount);
            seeds = LongStream.range(0, count).map(i -> base + i).toArray();
            System.out.println(label + ": " + count + " kernels from seed 0x" + Long.toHexString(base)
                    + " (pin with -Dweft.fuzz.base=0x" + Long.toHexString(base) + ")");
        }
        List<String> failures = new ArrayList<>();
        Map<String, Integer> declines = new TreeMap<>();
        int compiled = 0;
        int barrierKernels = 0;
        int barrierCompiled = 0;
        int faultKernels = 0;
        int faulted = 0;
        int compact = 0;
        boolean barriersCompile;
        try (Differential devices = new Differential(32)) {
            barriersCompile = devices.auto().compileReport(BARRIER_PROBE).compiled();
            for (int from = 0; from < seeds.length && failures.size() < MAX_REPORTED; from += BATCH) {
                List<KernelGenerator.Program> batch = new ArrayList<>();
                for (int i = from; i < Math.min(seeds.length, from + BATCH); i++) {
                    batch.add(KernelGenerator.generate(seeds[i], options.apply(seeds[i])));
                }
                for (FuzzHarness.Loaded loaded : FuzzHarness.compileAll(batch)) {
                    if (single != null) {
                        System.out.println(FuzzHarness.numbered(loaded.program().source()));
                    }
                    Optional<String> diff = FuzzHarness.runPair(devices, loaded, loaded, inst -> { });
                    diff.ifPresent(d -> failures.add(FuzzHarness.report(loaded.program(), d)));
                    CompileReport report = devices.auto().compileReport(FuzzHarness.instantiate(loaded).kernel());
                    boolean barriers = loaded.program().source().contains("t.syncThreads();");
                    if (loaded.program().mayFault()) {
                        faultKernels++;
                        faulted += referenceFault(devices, loaded).isPresent() ? 1 : 0;
                    } else if (barriers) {
                        // Both executors failing alike counts as a match, so check that the generator kept the
                        // convergence rules: a barrier kernel must run to completion on the reference executor.
                        referenceFault(devices, loaded).ifPresent(failures::add);
                    }
                    barrierKernels += barriers ? 1 : 0;
                    if (report.compiled()) {
                        compiled++;
                        compact += report.listing().contains("; compact masks") ? 1 : 0;
                        barrierCompiled += barriers ? 1 : 0;
                    } else {
                        report.reasons().forEach(r -> declines.merge(withoutLineNumbers(r), 1, Integer::sum));
                    }
                    if (failures.size() >= MAX_REPORTED) {
                        break;
                    }
                }
            }
        }
        System.out.println(label + ": " + compiled + " of " + seeds.length + " kernels compiled by a backend, " + barrierCompiled
                + " of the " + barrierKernels + " with barriers (the backend " + (barriersCompile ? "compiles" : "does not compile")
                + " barriers)" + (faultKernels == 0 ? "" : "; " + faulted + " of the " + faultKernels + " that may fault failed")
                + (compact == 0 ? "" : "; " + compact + " with compact masks")
                + (declines.isEmpty() ? "" : "; decline reasons (count): " + declines));
        if (!failures.isEmpty()) {
            fail(failures.size() + " generated kernel(s) differ between the executors:\n\n" + String.join("\n\n", failures));
        }
        if (seeds.length >= 60 && dev.weft.simd.corpus.Backends.simdBackendPresent()) {
            // A fuzzer whose kernels all fall back compares the reference executor with itself.
            // Until the backend compiles barriers at all (BARRIER_PROBE), the barrier kernels are expected to fall back
            // and the share is taken over the others; from then on over each kind.
            int plainKernels = seeds.length - barrierKernels;
            int plainCompiled = compiled - barrierCompiled;
            assertTrue(plainCompiled * 6 >= plainKernels, "only " + plainCompiled + " of " + plainKernels
                    + " generated kernels without barriers compiled: the fuzzer no longer reaches the compiler; " + declines);
            if (barriersCompile) {
                assertTrue(barrierCompiled * 6 >= barrierKernels, "only " + barrierCompiled + " of " + barrierKernels
                        + " generated kernels with barriers compiled: the fuzzer no longer reaches the barrier lowering; " + declines);
            }
            if (Boolean.getBoolean("weft.simd.compactMasks")) {
                assertTrue(compact == compiled, "compact masks forced, yet " + (compiled - compact) + " of " + compiled
                        + " compiled kernels have none");
            }
            // Kernels that may fault but never do would not test the fault paths.
            assertTrue(faulted * 6 >= faultKernels, "only " + faulted + " of " + faultKernels + " kernels that may fault failed");
        }
    }

    private static Optional<String> referenceFault(Differential devices, FuzzHarness.Loaded loaded) {
        KernelGenerator.Program p = loaded.program();
        try {
            devices.reference().launch(p.grid(), p.block(), FuzzHarness.instantiate(loaded).kernel());
            return Optional.empty();
        } catch (KernelException e) {
            return Optional.of(FuzzHarness.report(p, "the generator broke a rule: the reference executor failed: " + e.getMessage()));
        }
    }

    /** Groups reasons that differ only in the source line they name. */
    private static String withoutLineNumbers(String reason) {
        return reason.replaceAll("Fuzz_\\w+\\.java:\\d+", "<generated>.java:N").replaceAll("Fuzz_\\w+\\.lambda\\$\\w+\\$\\w+\\$\\d+", "<kernel>")
                .replaceAll("\\d{4,} bytes", "N bytes").replaceAll("Code length \\d+", "Code length N");
    }
}
