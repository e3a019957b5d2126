package dev.weft.benchmarks.kernels;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every variant of every kernel benchmark runs its trial set-up, which computes the result once and throws
 * if it differs from the plain loop's: so a variant that computes something else fails the build, not only
 * a JMH run, on whatever vector width the machine has.
 */
class BenchmarkVerificationTest {

    private static final List<String> VARIANTS = List.of("weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial",
            "javaParallel");

    /** Each benchmark state, as JMH builds it: a new instance, {@code impl} set, then the trial set-up. */
    private interface Trial {
        void run(String impl);
    }

    private static final Map<String, Trial> TRIALS = Map.ofEntries(
            Map.entry("saxpy", (Trial) impl -> { var b = new SaxpyBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("reduction", (Trial) impl -> { var b = new ReductionBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("mandelbrot", (Trial) impl -> { var b = new MandelbrotBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("sgemm", (Trial) impl -> { var b = new SgemmBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("sgemmRegisterBlocked", (Trial) impl -> { var b = new SgemmRegisterBlockedBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("histogram", (Trial) impl -> { var b = new HistogramBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("blackScholes", (Trial) impl -> { var b = new BlackScholesBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("nbody", (Trial) impl -> { var b = new NBodyBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("transpose", (Trial) impl -> { var b = new TransposeBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("scan", (Trial) impl -> { var b = new ScanBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }),
            Map.entry("stencil", (Trial) impl -> { var b = new StencilBenchmark(); b.impl = impl; b.setUp(); b.tearDown(); }));

    static Stream<Arguments> trials() {
        return KernelsForReport.kernels().keySet().stream().flatMap(k -> VARIANTS.stream().map(v -> Arguments.of(k, v)));
    }

    @Test
    void everyReportedKernel_hasATrial() {
        assertEquals(KernelsForReport.kernels().keySet(), TRIALS.keySet());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("trials")
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void setUp_variant_matchesPlainJava(String kernel, String impl) {
        assertDoesNotThrow(() -> TRIALS.get(kernel).run(impl));
    }
}
