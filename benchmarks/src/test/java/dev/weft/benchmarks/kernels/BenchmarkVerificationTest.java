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
}
