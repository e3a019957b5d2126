package dev.weft.benchmarks.kernels;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.annotations.Param;

/**
 * Every variant of every kernel benchmark runs its trial set-up, which computes the result once and throws
 * if it differs from the plain loop's: so a variant that computes something else fails the build, not only
 * a JMH run, on whatever vector width the machine has.
 */
class BenchmarkVerificationTest {

    private static final List<String> VARIANTS = List.of("weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial",
            "javaParallel");

    /** Every kernel with every variant its benchmark declares ({@code impl}'s values). */
    static Stream<Arguments> trials() {
        return KernelsForReport.kernels().keySet().stream().flatMap(k -> Stream.of(impls(k)).map(v -> Arguments.of(k, v)));
    }

    private static String[] impls(String kernel) {
        try {
            return KernelStates.benchmark(kernel).getField("impl").getAnnotation(Param.class).value();
        } catch (NoSuchFieldException e) {
            throw new AssertionError(kernel + "'s benchmark has no impl parameter", e);
        }
    }

    @Test
    void everyBenchmark_declaresTheCommonVariants() {
        for (String k : KernelsForReport.kernels().keySet()) {
            assertTrue(List.of(impls(k)).containsAll(VARIANTS), k + ": " + List.of(impls(k)));
        }
    }

    @Test
    void everyReportedKernel_hasATrial() {
        assertEquals(KernelsForReport.kernels().keySet(), KernelStates.kernels());
    }

    @Test
    void pairedBenchmark_coversEveryReportedKernel() throws NoSuchFieldException {
        Set<String> kernels = new java.util.HashSet<>();
        for (String k : PairedBenchmark.class.getField("kernel").getAnnotation(Param.class).value()) {
            kernels.add(PairedBenchmark.kernelOf(k));
        }
        assertEquals(KernelsForReport.kernels().keySet(), kernels);
    }

    @Test
    void create_unknownKernel_rejectedNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KernelStates.create("fft", "weft"));
        assertEquals("kernel fft: not one of " + KernelStates.kernels(), e.getMessage());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("trials")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void setUp_variant_matchesPlainJava(String kernel, String impl) {
        KernelStates.State state = KernelStates.create(kernel, impl);
        assertDoesNotThrow(state::setUp);
        state.tearDown();
    }

    /**
     * The benchmarks' sizes are whole strides of whole CTAs; these sizes end a stride, and a vector, within a
     * CTA, so the same-algorithm variants' tails run too. Values are small integers, exact in any order.
     */
    @Test
    void ctaVariants_sizesEndingWithinACta_matchPlainJava() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(3);
        for (int n : new int[] {1, 17, 255, 1000, 4099, 70_001}) {
            float[] a = new float[n];
            int[] bins = new int[n];
            for (int i = 0; i < n; i++) {
                a[i] = r.nextInt(4);
                bins[i] = r.nextInt(HistogramBenchmark.BINS);
            }
            int ctas = Math.min(7, (n + 255) / 256);
            float[] partials = new float[ctas];
            float[] sums = new float[256];
            for (int cta = 0; cta < ctas; cta++) {
                partials[cta] = ReductionBenchmark.vectorCtaSum(a, n, cta, ctas, sums);
            }
            assertEquals(ReductionBenchmark.javaSum(a, 0, n), ReductionBenchmark.vectorCtaSum(partials, ctas, 0, 1, sums), "n = " + n);

            int[] expected = new int[HistogramBenchmark.BINS];
            HistogramBenchmark.javaCount(bins, 0, n, expected);
            int[][] ctaBins = new int[HistogramBenchmark.CTAS][HistogramBenchmark.BINS];
            int[] merged = new int[HistogramBenchmark.BINS];
            for (int cta = 0; cta < HistogramBenchmark.CTAS; cta++) {
                HistogramBenchmark.countCta(bins, n, cta, ctaBins[cta]);
            }
            HistogramBenchmark.vectorMerge(ctaBins, merged);
            assertTrue(java.util.Arrays.equals(expected, merged), "n = " + n);
        }
    }
}
