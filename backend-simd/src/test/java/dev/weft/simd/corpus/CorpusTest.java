package dev.weft.simd.corpus;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.runtime.CompileReport;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differential corpus: every case on a REFERENCE device and an AUTO device, over its launch shapes
 * and seeded random inputs, outputs compared bit for bit (or under the tolerance the case states). And,
 * once the SIMD backend is on the class path, that every in-scope case compiles and every out-of-scope case
 * is declined with a reason naming its construct.
 *
 * <p>Inputs are random per run; the base seed is printed with every failure and pinned with
 * {@code -Dweft.corpus.seed=<seed>}: {@code mvn -o -q -pl backend-simd -am test -Dtest=CorpusTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dweft.corpus.seed=0x1234}.
 */
// A separate thread, so a kernel that never ends fails its test instead of hanging the run.
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CorpusTest {

    /** The seed every case's inputs derive from. */
    static final long BASE_SEED = baseSeed();

    /** Input sets per launch shape: {@code -Dweft.corpus.rounds=N}, default 3. */
    static final int ROUNDS = Integer.getInteger("weft.corpus.rounds", 3);

    private static Differential warp32;
    private static Differential warp8;
    private static final Map<String, String> COMPILE_OUTCOMES = new ConcurrentSkipListMap<>();

    @BeforeAll
    static void startDevices() {
        warp32 = new Differential(32);
        warp8 = new Differential(8);
    }

    @AfterAll
    static void stopDevices() {
        warp32.close();
        warp8.close();
        if (!COMPILE_OUTCOMES.isEmpty() && !Backends.simdBackendPresent()) {
            System.out.println("corpus: no simd backend on the class path; all " + COMPILE_OUTCOMES.size()
                    + " kernels run on the reference executor");
        } else if (!COMPILE_OUTCOMES.isEmpty()) {
            StringBuilder sb = new StringBuilder("corpus compile outcomes (AUTO device, warp size 32):\n");
            COMPILE_OUTCOMES.forEach((name, outcome) -> sb.append("  ").append(name).append(": ").append(outcome).append('\n'));
            System.out.print(sb);
        }
    }

    static Stream<CorpusCase> allCases() {
        return Corpus.all().stream();
    }

    static Stream<CorpusCase> inScopeCases() {
        return Corpus.inScope().stream();
    }

    static Stream<CorpusCase> outOfScopeCases() {
        return Corpus.outOfScope().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void differential_everyShape_matchesReference(CorpusCase c) {
        List<String> failures = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < c.shapes().size(); i++) {
                Shape shape = c.shapes().get(i);
                long seed = caseSeed(c, round * 1000 + i);
                warp32.run(c, shape, seed).ifPresent(d -> failures.add(describe(c, shape, seed, 32, d)));
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures) + "\n" + reproduce());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void differential_warpSize8_matchesReference(CorpusCase c) {
        // Warps narrower than a vector register: a compiler must not assume a warp fills one.
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < Math.min(3, c.shapes().size()); i++) {
            Shape shape = c.shapes().get(i);
            long seed = caseSeed(c, 100 + i);
            warp8.run(c, shape, seed).ifPresent(d -> failures.add(describe(c, shape, seed, 8, d)));
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures) + "\n" + reproduce());
        }
    }

    static Stream<CorpusCase> casesWithExpectations() {
        return Corpus.all().stream().filter(c -> !c.setup().build(new Inputs(1), c.shapes().get(0)).expectations().isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("casesWithExpectations")
    void reference_everyShape_computesWhatPlainJavaDoes(CorpusCase c) {
        // The oracle must be right about the kernel itself: a tree reduction that sums wrongly would still
        // match on both executors. Expectations assume 32-thread warps (the block scan's warp totals fit one warp).
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < c.shapes().size(); i++) {
            Shape shape = c.shapes().get(i);
            long seed = caseSeed(c, 500 + i);
            Instance instance = c.setup().build(new Inputs(seed), shape);
            warp32.reference().launch(shape.grid(), shape.block(), instance.kernel());
            for (Instance.Expectation e : instance.expectations()) {
                Compare.arrays(e.name(), e.expected(), e.array(), e.tolerance())
                        .ifPresent(d -> failures.add("corpus case " + c.name() + ", " + shape + ", input seed 0x"
                                + Long.toHexString(seed) + ": plain Java vs reference executor: " + d));
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures) + "\n" + reproduce());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inScopeCases")
    void compile_inScopeKernel_compiledBySimd(CorpusCase c) {
        CompileReport report = reportFor(c);
        COMPILE_OUTCOMES.put(c.name(), report.summary());
        assumeTrue(Backends.simdBackendPresent(), "no \"simd\" KernelBackend on the class path yet");
        assertTrue(report.compiled(), () -> c.name() + " was not compiled: " + report.summary());
        assertFalse(report.listing().isBlank(), () -> c.name() + ": a compiled kernel has a listing");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfScopeCases")
    void compile_outOfScopeKernel_declinedNamingConstruct(CorpusCase c) {
        CompileReport report = reportFor(c);
        COMPILE_OUTCOMES.put(c.name(), report.summary());
        assumeTrue(Backends.simdBackendPresent(), "no \"simd\" KernelBackend on the class path yet");
        assertFalse(report.compiled(), () -> c.name() + " uses a construct outside issue 4 but was compiled");
        String reasons = String.join("; ", report.reasons()).toLowerCase(Locale.ROOT);
        assertTrue(c.declineKeywords().stream().anyMatch(w -> reasons.contains(w.toLowerCase(Locale.ROOT))),
                () -> c.name() + ": the decline reasons should name one of " + c.declineKeywords() + ": " + report.reasons());
    }

    @Test
    void corpus_inScope_hasAtLeastFortyKernels() {
        assertTrue(Corpus.inScope().size() >= 40, "in-scope cases: " + Corpus.inScope().size());
    }

    @Test
    void corpus_setups_areDeterministicPerSeed() {
        // Differential.run relies on it: both executors must get equal inputs.
        for (CorpusCase c : Corpus.all()) {
            Shape shape = c.shapes().get(c.shapes().size() - 1);
            Optional<String> diff = Differential.compareOutputs(
                    c.setup().build(new Inputs(42), shape), c.setup().build(new Inputs(42), shape));
            assertTrue(diff.isEmpty(), () -> c.name() + ": " + diff.get());
        }
    }

    private static CompileReport reportFor(CorpusCase c) {
        Instance instance = c.setup().build(new Inputs(caseSeed(c, 0)), c.shapes().get(0));
        return warp32.auto().compileReport(instance.kernel());
    }

    static long caseSeed(CorpusCase c, int shapeIndex) {
        long h = BASE_SEED ^ (c.name().hashCode() * 0x9E3779B97F4A7C15L) ^ (shapeIndex * 0xC2B2AE3D27D4EB4FL);
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    private static String describe(CorpusCase c, Shape shape, long seed, int warpSize, String difference) {
        return "corpus case " + c.name() + " (" + c.group() + "), " + shape + ", warp size " + warpSize
                + ", input seed 0x" + Long.toHexString(seed) + ": " + difference;
    }

    private static String reproduce() {
        return "base seed 0x" + Long.toHexString(BASE_SEED) + "; reproduce with -Dweft.corpus.seed=0x"
                + Long.toHexString(BASE_SEED);
    }

    private static long baseSeed() {
        String pinned = System.getProperty("weft.corpus.seed");
        return pinned != null ? Long.decode(pinned) : new SecureRandom().nextLong();
    }
}
