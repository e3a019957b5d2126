package dev.weft.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultsTableTest {

    private static String result(String impl, double ops, double elements, double flops, double bytes) {
        return result("SaxpyBenchmark.saxpy", impl, ops, elements, flops, bytes);
    }

    private static String result(String benchmark, String impl, double ops, double elements, double flops, double bytes) {
        return """
                {"jmhVersion": "1.37", "benchmark": "dev.weft.benchmarks.kernels.%s", "mode": "thrpt",
                 "forks": 1, "jdkVersion": "25", "vmName": "VM", "vmVersion": "25+1", "warmupIterations": 2,
                 "warmupTime": "1 s", "measurementIterations": 3, "measurementTime": "1 s",
                 "params": {"impl": "%s"},
                 "primaryMetric": {"score": %s, "scoreError": "NaN", "scoreUnit": "ops/s"},
                 "secondaryMetrics": {"elements": {"score": %s, "scoreError": 0.0, "scoreUnit": "ops/s"},
                                      "flops": {"score": %s, "scoreError": 0.0, "scoreUnit": "ops/s"},
                                      "bytes": {"score": %s, "scoreError": 0.0, "scoreUnit": "ops/s"}}}
                """.formatted(benchmark, impl, ops, elements, flops, bytes);
    }

    @Test
    void render_ratiosPerElement_againstBothBaselines() {
        String json = "[" + String.join(",",
                result("weftReference", 100, 1e6, 2e6, 12e6),
                result("vectorApi", 1000, 4e9, 8e9, 48e9),
                result("javaSerial", 500, 2e9, 4e9, 24e9)) + "]";
        String md = ResultsTable.render(json, "- machine\n");
        assertTrue(md.contains("## SaxpyBenchmark.saxpy"), md);
        assertTrue(md.contains("| weftReference | "), md);
        // 1e6 elements/s against 4e9 and 2e9: the reference's invocation rate must not matter.
        assertTrue(md.contains("| 0.0003 | 0.0005 |"), md);
        assertTrue(md.contains("| vectorApi | ") && md.contains("| 48.00 | 8.00 | "), md);
        assertTrue(md.contains(" | 1.00 | 2.00 |"), md);
        assertTrue(md.contains("1 fork(s), 2 × 1 s warm-up, 3 × 1 s measurement"), md);
    }

    @Test
    void render_gflops_asShareOfPeakForTheCoresUsed() {
        // 2 cores × 2 pipes × 8 lanes × 2 flops × 2.5 GHz = 160 GFLOP/s, 80 per core.
        ResultsTable.Peak peak = new ResultsTable.Peak(2, 2, 8, 2.5, "test");
        String json = "[" + String.join(",",
                result("SgemmBenchmark.sgemm", "vectorApiSerial", 10, 4e10, 8e10, 0),
                result("SgemmBenchmark.sgemm", "javaSerial", 10, 1e10, 2e10, 0)) + "]";
        String md = ResultsTable.render(json, "- machine\n", peak);
        assertTrue(md.contains("= 160.0 GFLOP/s (80.0 per core)"), md);
        assertTrue(md.contains("| GFLOP/s | % peak |"), md);
        assertTrue(md.contains("| vectorApiSerial | 1 | ") && md.contains("| 80.00 | 100.0% |"), md);
        assertTrue(md.contains("| 20.00 | 25.0% |"), md);
        assertEquals(80.0, peak.gflops(1), 1e-9);
        assertEquals(160.0, peak.gflops(64), 1e-9);
    }

    @Test
    void render_gflops_alsoAsShareOfTheMeasuredFmaRate_whenFmaPeakRan() {
        ResultsTable.Peak peak = new ResultsTable.Peak(2, 2, 8, 2.5, "test");
        String json = "[" + String.join(",",
                result("FmaPeakBenchmark.fma", "vectorApi", 10, 7e10, 14e10, 0),
                result("FmaPeakBenchmark.fma", "vectorApiSerial", 10, 3.6e10, 7.2e10, 0),
                result("SgemmBenchmark.sgemm", "vectorApi", 10, 3.5e10, 7e10, 0),
                result("SgemmBenchmark.sgemm", "vectorApiSerial", 10, 1.8e10, 3.6e10, 0)) + "]";
        String md = ResultsTable.render(json, "- machine\n", peak);
        // 140 of the computed 160 on 2 cores, 72 of 80 on one
        assertTrue(md.contains("- Measured FP32 FMA throughput (`FmaPeakBenchmark`: FMAs alone, in this run): "
                + "140.0 GFLOP/s (88% of the computed peak) on 2 threads, 72.0 GFLOP/s (90% of the computed peak) on one"), md);
        assertTrue(md.indexOf("- Measured FP32") > md.indexOf("- FP32 FMA peak") && md.indexOf("- Measured FP32") < md.indexOf("- JDK"), md);
        assertTrue(md.contains("| GFLOP/s | % peak | % measured | × Vector API |"), md);
        // sgemm on 2 threads: 70 of 160 and of 140; on one: 36 of 80 and of 72
        assertTrue(md.contains("| 70.00 | 43.8% | 50.0% | 1.00 |"), md);
        assertTrue(md.contains("| 36.00 | 45.0% | 50.0% | 0.51 |"), md);
        // the FMA benchmark is the yardstick, not a kernel: no table or summary row of its own
        assertFalse(md.contains("## FmaPeakBenchmark"), md);
        assertFalse(md.contains("## Summary"), md);
    }

    @Test
    void render_noMeasuredColumn_withoutFmaPeak() {
        String json = "[" + result("SgemmBenchmark.sgemm", "vectorApi", 10, 3.5e10, 7e10, 0) + "]";
        String md = ResultsTable.render(json, "- machine\n", new ResultsTable.Peak(2, 2, 8, 2.5, "test"));
        assertFalse(md.contains("% measured"), md);
        assertFalse(md.contains("Measured FP32"), md);
    }

    @Test
    void cpuinfoField_readsTheNamedFieldOnly() {
        String cpuinfo = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n";
        assertEquals(25, ResultsTable.cpuinfoField(cpuinfo, "cpu family"));
        assertEquals(17, ResultsTable.cpuinfoField(cpuinfo, "model"));
        assertEquals(-1, ResultsTable.cpuinfoField(cpuinfo, "stepping"));
    }

    @Test
    void render_oneBenchmark_noSummary() {
        String md = ResultsTable.render("[" + result("vectorApi", 1000, 4e9, 8e9, 48e9) + "]", "- machine\n");
        assertFalse(md.contains("## Summary"), md);
    }

    @Test
    void render_severalBenchmarks_summaryRowPerBenchmarkRelativeToVectorApi() {
        String json = "[" + String.join(",",
                result("SaxpyBenchmark.saxpy", "weft", 10, 1e9, 2e9, 12e9),
                result("SaxpyBenchmark.saxpy", "vectorApi", 10, 4e9, 8e9, 48e9),
                result("SaxpyBenchmark.saxpy", "javaSerial", 10, 2e9, 4e9, 24e9),
                result("SgemmBenchmark.sgemm", "vectorApi", 10, 20e9, 40e9, 0),
                result("SgemmBenchmark.sgemm", "weftReference", 10, 2e6, 4e6, 0)) + "]";
        String md = ResultsTable.render(json, "- machine\n");
        assertTrue(md.indexOf("## Summary") < md.indexOf("## SaxpyBenchmark.saxpy"), md);
        assertTrue(md.contains("| benchmark | vectorApi | weft | weftReference | vectorApiSerial | javaSerial | javaParallel |"), md);
        // saxpy moves more bytes than it computes flops: GB/s; variants it lacks are dashes
        assertTrue(md.contains("| SaxpyBenchmark.saxpy | 48.00 GB/s | 0.25 | - | - | 0.50 | - |"), md);
        assertTrue(md.contains("| SgemmBenchmark.sgemm | 40.00 GFLOP/s | - | 0.0001 | - | - | - |"), md);
    }

    /** A PairedBenchmark result for {@code kernel}: per iteration, weft's and vectorApi's elements and nanoseconds. */
    private static String paired(String kernel, long[] weftElements, long[] weftNanos, long[] vectorElements, long[] vectorNanos) {
        return """
                {"jmhVersion": "1.37", "benchmark": "dev.weft.benchmarks.kernels.PairedBenchmark.pair", "mode": "thrpt",
                 "forks": 1, "jdkVersion": "25", "vmName": "VM", "vmVersion": "25+1", "warmupIterations": 2,
                 "warmupTime": "1 s", "measurementIterations": 2, "measurementTime": "1 s",
                 "params": {"kernel": "%s"},
                 "primaryMetric": {"score": 20.0, "scoreError": "NaN", "scoreUnit": "ops/s"},
                 "secondaryMetrics": {"weftElements": %s, "weftNanos": %s, "vectorApiElements": %s, "vectorApiNanos": %s}}
                """.formatted(kernel, events(weftElements), events(weftNanos), events(vectorElements), events(vectorNanos));
    }

    private static String events(long[] perIteration) {
        long sum = java.util.Arrays.stream(perIteration).sum();
        return "{\"score\": %d.0, \"scoreError\": \"NaN\", \"scoreUnit\": \"#\", \"rawData\": [%s]}".formatted(sum,
                java.util.Arrays.toString(java.util.Arrays.stream(perIteration).mapToDouble(v -> v).toArray()));
    }

    @Test
    void render_paired_ratioOfTotalsAndIterationRange_inSummaryAndOwnTable() {
        String json = "[" + String.join(",",
                result("SaxpyBenchmark.saxpy", "weft", 10, 1e9, 2e9, 12e9),
                result("SaxpyBenchmark.saxpy", "vectorApi", 10, 4e9, 8e9, 48e9),
                result("SgemmBenchmark.sgemm", "vectorApi", 10, 20e9, 40e9, 0),
                // iteration 1: weft 100 elements in 100 ns, vectorApi 100 in 50 ns: 0.5; iteration 2: 300/100 vs 100/100: 3
                paired("saxpy", new long[] {100, 300}, new long[] {100, 100}, new long[] {100, 100}, new long[] {50, 100})) + "]";
        String md = ResultsTable.render(json, "- machine\n");
        assertTrue(md.contains("| benchmark | vectorApi | weft | weft, paired | weftReference |"), md);
        // totals: weft 400 in 200 ns, vectorApi 200 in 150 ns: 2 / (4/3) = 1.5
        assertTrue(md.contains("| SaxpyBenchmark.saxpy | 48.00 GB/s | 0.25 | 1.50 | - |"), md);
        assertTrue(md.contains("| SgemmBenchmark.sgemm | 40.00 GFLOP/s | - | - | - |"), md);
        assertTrue(md.contains("| SaxpyBenchmark.saxpy | 1.50 | 0.50 | 3.00 | 2 |"), md);
        assertFalse(md.contains("PairedBenchmark.pair"), md);
    }

    @Test
    void render_pairedAgainstAnotherVariant_ownRow_notTheSummaryColumn() {
        String json = "[" + String.join(",",
                result("SgemmBenchmark.sgemm", "weft", 10, 1e9, 2e9, 0),
                result("SgemmBenchmark.sgemm", "vectorApi", 10, 4e9, 8e9, 0),
                result("SaxpyBenchmark.saxpy", "vectorApi", 10, 4e9, 8e9, 48e9),
                paired("sgemm", new long[] {100}, new long[] {100}, new long[] {100}, new long[] {25}),
                paired("sgemm:vectorApiTiled", new long[] {100}, new long[] {100}, new long[] {100}, new long[] {50})) + "]";
        String md = ResultsTable.render(json, "- machine\n");
        assertTrue(md.contains("| SgemmBenchmark.sgemm | 8.00 GFLOP/s | 0.25 | 0.25 | -"), md);
        assertTrue(md.contains("| SgemmBenchmark.sgemm | 0.25 | 0.25 | 0.25 | 1 |"), md);
        assertTrue(md.contains("| SgemmBenchmark.sgemm against vectorApiTiled | 0.50 | 0.50 | 0.50 | 1 |"), md);
    }

    @Test
    void rate_unitByFlopsPerByte() {
        assertEquals("3.00 GFLOP/s", ResultsTable.rate(row(1e9, 3e9, 2e9)));
        assertEquals("3.00 GFLOP/s", ResultsTable.rate(row(1e9, 3e9, 0)));
        assertEquals("2.00 GB/s", ResultsTable.rate(row(1e9, 1e9, 2e9)));
        assertEquals("1.00 G elements/s", ResultsTable.rate(row(1e9, 0, 0)));
    }

    private static ResultsTable.Row row(double elements, double flops, double bytes) {
        return new ResultsTable.Row("B.b", "vectorApi", Map.of(), 1, 0, elements, 0, flops, bytes);
    }

    @Test
    void executors_eachDecisionOnce_withItsKernels() {
        Map<String, List<String>> decisions = new java.util.LinkedHashMap<>();
        decisions.put("compiled by simd", List.of("saxpy", "mandelbrot"));
        decisions.put("runs on the reference executor: syncThreads() at Kernels.java:12", List.of("sgemm"));
        assertEquals("- Weft AUTO device (asked by this tool, same class path): compiled by simd (saxpy, mandelbrot); "
                + "runs on the reference executor: syncThreads() at Kernels.java:12 (sgemm)\n", ResultsTable.executors(decisions));
    }

    @Test
    void json_parsesJmhShapes() {
        Object v = Json.parse("[{\"a\": [1, 2.5e3, -3], \"b\": \"x\\\"y\", \"c\": null, \"d\": true}]");
        Map<?, ?> m = (Map<?, ?>) ((List<?>) v).get(0);
        assertEquals(List.of(1.0, 2500.0, -3.0), m.get("a"));
        assertEquals("x\"y", m.get("b"));
        assertEquals(Boolean.TRUE, m.get("d"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
    }

    @Test
    void si_scalesByThousands() {
        assertEquals("1.23 M", ResultsTable.si(1_234_567));
        assertEquals("999", ResultsTable.si(999));
        assertEquals("12.0 G", ResultsTable.si(12e9));
    }
}
