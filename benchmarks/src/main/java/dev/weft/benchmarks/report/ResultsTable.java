package dev.weft.benchmarks.report;

import dev.weft.Kernel;
import dev.weft.benchmarks.kernels.KernelStates;
import dev.weft.benchmarks.kernels.PairedBenchmark;
import dev.weft.benchmarks.kernels.KernelsForReport;
import dev.weft.runtime.Device;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.incubator.vector.FloatVector;
import org.openjdk.jmh.annotations.Benchmark;

/**
 * Renders JMH's JSON results of the kernel benchmarks as Markdown: a header with the machine (CPU model,
 * cores, JDK, preferred vector species) and the executor Weft's AUTO device picks for each kernel; where
 * the results hold more than one benchmark, a summary with one row per benchmark (each variant relative to
 * the hand-written Vector API); then one table per benchmark with each variant's rates, GB/s or GFLOP/s where the benchmark counts bytes or
 * flops, and its ratio to the hand-written Vector API variant (multi-threaded) and to plain Java on one
 * thread, both computed per element so that variants that ran a smaller problem compare fairly. Where a
 * benchmark counts flops, each variant's GFLOP/s is also given as a share of the machine's single-precision
 * FMA peak for the cores it used ({@link Peak}: FMA pipes × float lanes × 2 flops × clock × cores), and, where
 * the results hold {@code FmaPeakBenchmark}'s (FMAs alone, in the same run), as a share of that measured rate,
 * which a virtual machine's hidden clock and pipes cannot make wrong. Where the
 * results hold {@code PairedBenchmark} results (weft and the hand-written code in one fork, alternating), a
 * table of their ratios, also a column of the summary.
 *
 * <p>Run it on the machine that ran the benchmarks (the header describes the machine running this tool):
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.results=target/saxpy.json}, or with plain
 * {@code java --add-modules jdk.incubator.vector -cp <benchmarks class path>
 * dev.weft.benchmarks.report.ResultsTable results.json [out.md]}.
 */
public final class ResultsTable {

    private static final String VECTOR_BASELINE = "vectorApi";
    private static final String JAVA_BASELINE = "javaSerial";
    /** The benchmark that measures FMAs alone, on one thread and on every processor ({@code FmaPeakBenchmark}). */
    private static final String FMA_PEAK = "FmaPeakBenchmark.fma";
    /** The benchmark that measures weft and the hand-written code in the same fork ({@code PairedBenchmark}). */
    private static final String PAIRED = "PairedBenchmark.pair";
    /** The summary's column for it. */
    private static final String PAIRED_COLUMN = "weft, paired";
    /** The variants of the kernel benchmarks, in the order the summary shows them. */
    private static final List<String> VARIANTS = List.of("weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial",
            "javaParallel");

    private ResultsTable() {
    }

    /**
     * @param args the JMH JSON file (written with {@code -rf json -rff FILE}), and optionally a file to write
     *        the Markdown to as well as to standard output
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: ResultsTable <jmh-results.json> [out.md]");
            System.exit(2);
        }
        String markdown = render(Files.readString(Path.of(args[0])), machine());
        System.out.print(markdown);
        if (args.length > 1) {
            Files.writeString(Path.of(args[1]), markdown);
            System.out.println("(written to " + Path.of(args[1]).toAbsolutePath() + ")");
        }
    }

    /** One benchmark run of one variant: its name, parameters and metrics. */
    record Row(String benchmark, String variant, Map<String, String> otherParams, double opsPerSecond, double opsError,
            double elements, double elementsError, double flops, double bytes) {
    }

    /**
     * The single-precision peak of the machine: every core issuing {@code fmaPipes} fused multiply-adds of
     * {@code floatLanes} floats per cycle, 2 flops each. The lanes are the preferred vector species' (8 with
     * AVX2, 16 with AVX-512); the clock is {@code /proc/cpuinfo}'s "cpu MHz" (under a hypervisor, the nominal
     * clock: boost is not visible, so the peak is a lower bound where the host boosts) or
     * {@code -Dweft.cpuMHz}; the pipes are 2 (Zen 2-4, Skylake-SP and later server Intel cores) or
     * {@code -Dweft.fmaPipes}; Zen 4's pipes are 256 bits wide (a 512-bit FMA takes both halves), so there the
     * lanes are 8, or {@code -Dweft.fmaLanes}.
     *
     * @param cores the cores the JVM may use
     * @param fmaPipes FMA instructions issued per cycle per core
     * @param floatLanes floats per FMA instruction
     * @param ghz clock in GHz
     * @param clockSource where the clock came from, for the header
     */
    record Peak(int cores, int fmaPipes, int floatLanes, double ghz, String clockSource) {

        /** GFLOP/s on {@code threads} cores (at most all of them). */
        double gflops(int threads) {
            return Math.min(threads, cores) * fmaPipes * floatLanes * 2 * ghz;
        }

        /** The header line: the peak and how it is computed. */
        String describe() {
            return String.format(Locale.ROOT, "- FP32 FMA peak: %d cores × %d FMA pipes × %d float lanes × 2 flops × %.3f GHz (%s) = "
                    + "%.1f GFLOP/s (%.1f per core); `%% peak` columns are shares of it for the cores a variant used\n",
                    cores, fmaPipes, floatLanes, ghz, clockSource, gflops(cores), gflops(1));
        }
    }

    /**
     * What FMAs alone reached in the same run ({@code FmaPeakBenchmark}), in GFLOP/s: on one thread and on one
     * thread per processor; 0 where not measured.
     */
    record Measured(double serial, double parallel) {

        /** The rate for a variant on {@code threads} threads, or 0. */
        double gflops(int threads) {
            return threads == 1 ? serial : parallel;
        }

        boolean present() {
            return serial > 0 || parallel > 0;
        }

        /** The header line: both rates, each as a share of the computed peak. */
        String describe(Peak peak) {
            int cores = peak.cores();
            return String.format(Locale.ROOT, "- Measured FP32 FMA throughput (`FmaPeakBenchmark`: FMAs alone, in this run): %s on %d "
                    + "threads, %s on one; `%% measured` columns are shares of it for the threads a variant used\n",
                    share(parallel, peak.gflops(cores)), cores, share(serial, peak.gflops(1)));
        }

        private static String share(double gflops, double computed) {
            if (gflops <= 0) {
                return "not measured";
            }
            return computed > 0 ? String.format(Locale.ROOT, "%.1f GFLOP/s (%.0f%% of the computed peak)", gflops, 100 * gflops / computed)
                    : String.format(Locale.ROOT, "%.1f GFLOP/s", gflops);
        }
    }

    /** {@code FmaPeakBenchmark}'s rates in {@code results}, zero where it did not run. */
    private static Measured measured(List<?> results) {
        double serial = 0;
        double parallel = 0;
        for (Object o : results) {
            Map<?, ?> result = (Map<?, ?>) o;
            if (String.valueOf(result.get("benchmark")).endsWith(FMA_PEAK)) {
                Row r = row(result);
                if (r.variant().equals("vectorApiSerial")) {
                    serial = r.flops() / 1e9;
                } else {
                    parallel = r.flops() / 1e9;
                }
            }
        }
        return new Measured(serial, parallel);
    }

    /** This machine's peak (see {@link Peak}). */
    static Peak peak() {
        String cpu = cpuinfo();
        String mhz = System.getProperty("weft.cpuMHz");
        double ghz;
        String source;
        if (mhz != null) {
            ghz = Double.parseDouble(mhz) / 1000;
            source = "-Dweft.cpuMHz";
        } else {
            ghz = cpuinfoMhz(cpu) / 1000;
            source = ghz > 0 ? "/proc/cpuinfo cpu MHz" : "clock unknown: set -Dweft.cpuMHz";
        }
        int lanes = FloatVector.SPECIES_PREFERRED.length();
        // Zen 4 (AMD family 25 with AVX-512) runs a 512-bit FMA as two halves on its 256-bit pipes: 8 floats per
        // pipe and cycle, half of what the species suggests. Zen 5 (family 26) has full-width pipes.
        if (lanes > 8 && cpu.contains("AuthenticAMD") && cpuinfoField(cpu, "cpu family") == 25) {
            lanes = 8;
            source += ", Zen 4: 256-bit FMA pipes";
        }
        return new Peak(Runtime.getRuntime().availableProcessors(), Integer.getInteger("weft.fmaPipes", 2),
                Integer.getInteger("weft.fmaLanes", lanes), ghz, source);
    }

    /** {@code /proc/cpuinfo}'s text, or "" where there is none (not Linux). */
    private static String cpuinfo() {
        try {
            return Files.readString(Path.of("/proc/cpuinfo"));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The text after the colon of the first field {@code name} of {@code /proc/cpuinfo}'s text, or null. */
    private static String cpuinfoValue(String cpuinfo, String name) {
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals(name)) {
                return line.substring(colon + 1).strip();
            }
        }
        return null;
    }

    /** The first integer field {@code name} of {@code /proc/cpuinfo}'s text, or -1. */
    static int cpuinfoField(String cpuinfo, String name) {
        String v = cpuinfoValue(cpuinfo, name);
        try {
            return v == null ? -1 : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The first "cpu MHz", or 0 where unknown. */
    private static double cpuinfoMhz(String cpuinfo) {
        String v = cpuinfoValue(cpuinfo, "cpu MHz");
        try {
            return v == null ? 0 : Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Renders the results in {@code json} under the header {@code machine}, with this machine's peak. */
    static String render(String json, String machine) {
        return render(json, machine, peak());
    }

    /** Renders the results in {@code json} under the header {@code machine}; GFLOP/s as shares of {@code peak}. */
    static String render(String json, String machine, Peak peak) {
        List<?> results = (List<?>) Json.parse(json);
        Measured measured = measured(results);
        StringBuilder md = new StringBuilder("# Weft kernel benchmarks\n\n").append(machine).append(peak.describe());
        if (measured.present()) {
            md.append(measured.describe(peak));
        }
        if (!results.isEmpty()) {
            Map<?, ?> first = (Map<?, ?>) results.get(0);
            md.append("- JDK: ").append(first.get("jdkVersion")).append(", ").append(first.get("vmName")).append(' ')
                    .append(first.get("vmVersion")).append('\n');
            md.append("- JMH ").append(first.get("jmhVersion")).append(": ").append(number(first.get("forks")))
                    .append(" fork(s), ").append(number(first.get("warmupIterations"))).append(" × ").append(first.get("warmupTime"))
                    .append(" warm-up, ").append(number(first.get("measurementIterations"))).append(" × ")
                    .append(first.get("measurementTime")).append(" measurement\n");
        }
        md.append("- Variants: `weft` = default (AUTO) device, `weftReference` = REFERENCE device, `vectorApi` = "
                + "hand-written Vector API on one thread per processor (dynamic chunks, caller included, as Weft's SMs), "
                + "`vectorApiSerial` = the same on one thread, `vectorApiTiled` (sgemm) = the weft kernel's tiled algorithm "
                + "by hand, `vectorApiCta` (reduction, histogram, scan) = the weft kernel's algorithm by hand, CTA by CTA, "
                + "`javaSerial` = plain loop, `javaParallel` = plain loop "
                + "on `IntStream.parallel()`. Ratios are per element: `×` > 1 is faster than the baseline. `±` is JMH's "
                + "99.9% confidence half-width (wide with few iterations on a shared machine).\n\n");

        Map<String, List<Row>> byBenchmark = new LinkedHashMap<>();
        Map<String, Paired> paired = new LinkedHashMap<>();
        for (Object o : results) {
            Map<?, ?> result = (Map<?, ?>) o;
            if (String.valueOf(result.get("benchmark")).endsWith(FMA_PEAK)) {
                continue;
            }
            if (String.valueOf(result.get("benchmark")).endsWith(PAIRED)) {
                Paired p = paired(result);
                paired.put(p.name(), p);
                continue;
            }
            Row row = row(result);
            String key = row.benchmark() + (row.otherParams().isEmpty() ? "" : " " + row.otherParams());
            byBenchmark.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
        }
        if (byBenchmark.size() > 1) {
            summary(md, byBenchmark, paired);
        }
        if (!paired.isEmpty()) {
            pairedTable(md, paired.values());
        }
        byBenchmark.forEach((name, rows) -> table(md, name, rows, peak, measured));
        return md.toString();
    }

    /**
     * One kernel's {@code PairedBenchmark} result: weft's per-element throughput relative to the hand-written
     * Vector API code over all measured iterations, and the lowest and highest of the iterations' ratios.
     *
     * @param benchmark the kernel benchmark's name as its rows show it ({@code SaxpyBenchmark.saxpy})
     * @param kernel the kernel's name in {@code KernelsForReport}
     * @param baseline the hand-written variant it ran against ({@code vectorApi} unless the parameter said
     *     {@code kernel:variant})
     */
    record Paired(String benchmark, String kernel, String baseline, double ratio, double lowest, double highest, int iterations) {

        /** The row's name: the benchmark's, and the hand-written variant where it is not {@code vectorApi}. */
        String name() {
            return baseline.equals(VECTOR_BASELINE) ? benchmark : benchmark + " against " + baseline;
        }
    }

    private static Paired paired(Map<?, ?> result) {
        String param = result.get("params") instanceof Map<?, ?> p ? String.valueOf(p.get("kernel")) : "?";
        String kernel = PairedBenchmark.kernelOf(param);
        String baseline = PairedBenchmark.otherVariantOf(param);
        Map<?, ?> secondary = (Map<?, ?>) result.get("secondaryMetrics");
        double[] weftElements = raw(secondary.get("weftElements"));
        double[] weftNanos = raw(secondary.get("weftNanos"));
        double[] vectorElements = raw(secondary.get("vectorApiElements"));
        double[] vectorNanos = raw(secondary.get("vectorApiNanos"));
        double lowest = Double.POSITIVE_INFINITY;
        double highest = Double.NEGATIVE_INFINITY;
        double[] sums = new double[4];
        for (int i = 0; i < weftElements.length; i++) {
            double r = weftElements[i] / weftNanos[i] / (vectorElements[i] / vectorNanos[i]);
            lowest = Math.min(lowest, r);
            highest = Math.max(highest, r);
            sums[0] += weftElements[i];
            sums[1] += weftNanos[i];
            sums[2] += vectorElements[i];
            sums[3] += vectorNanos[i];
        }
        // the ratio of the totals: each iteration weighs by the time it measured, as in one long run
        return new Paired(benchmarkOf(kernel), kernel, baseline, sums[0] / sums[1] / (sums[2] / sums[3]), lowest, highest,
                weftElements.length);
    }

    /** The kernel benchmark's method name, as {@link #row} names it, for a paired kernel. */
    private static String benchmarkOf(String kernel) {
        try {
            Class<?> c = KernelStates.benchmark(kernel);
            for (Method m : c.getMethods()) {
                if (m.isAnnotationPresent(Benchmark.class)) {
                    return c.getSimpleName() + "." + m.getName();
                }
            }
            return c.getSimpleName();
        } catch (IllegalArgumentException e) {
            return kernel;
        }
    }

    /** Every iteration's value of a metric, over all forks in order. */
    private static double[] raw(Object metric) {
        List<Double> values = new ArrayList<>();
        if (metric instanceof Map<?, ?> m && m.get("rawData") instanceof List<?> forks) {
            for (Object fork : forks) {
                for (Object v : (List<?>) fork) {
                    values.add((Double) v);
                }
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static void pairedTable(StringBuilder md, Iterable<Paired> paired) {
        md.append("## Paired: weft and the hand-written Vector API code in the same seconds\n\n"
                + "`PairedBenchmark` runs both variants in one fork, alternating about every 20 ms, so both see the same "
                + "state of the machine; the kernel benchmarks' own `weft` column compares forks run minutes apart. "
                + "Weft's per-element throughput relative to `vectorApi` (or the variant the row names), over "
                + "all iterations, and the lowest and highest single iteration.\n\n"
                + "| benchmark | weft / other variant | lowest iteration | highest iteration | iterations |\n"
                + "|---|---:|---:|---:|---:|\n");
        for (Paired p : paired) {
            md.append("| ").append(p.name()).append(" | ").append(times(p.ratio())).append(" | ").append(times(p.lowest()))
                    .append(" | ").append(times(p.highest())).append(" | ").append(p.iterations()).append(" |\n");
        }
        md.append('\n');
    }

    /**
     * One row per benchmark: the hand-written Vector API variant's rate, and every other variant's per-element
     * throughput relative to it. The rate is in GFLOP/s where the benchmark counts at least one flop per byte
     * it moves (or no bytes), in GB/s where it counts bytes, else in elements per second. Where the results
     * hold {@code PairedBenchmark} results, a column after {@code weft} gives its ratio.
     */
    private static void summary(StringBuilder md, Map<String, List<Row>> byBenchmark, Map<String, Paired> paired) {
        List<String> variants = new ArrayList<>(VARIANTS);
        byBenchmark.values().forEach(rows -> rows.forEach(r -> {
            if (!variants.contains(r.variant())) {
                variants.add(r.variant());
            }
        }));
        variants.remove(VECTOR_BASELINE);
        md.append("## Summary\n\nPer-element throughput of each variant relative to `").append(VECTOR_BASELINE)
                .append("` (× > 1: faster than the hand-written Vector API); the `").append(VECTOR_BASELINE)
                .append("` column is its own rate, in GFLOP/s where the benchmark counts at least a flop per byte moved, "
                        + "else in GB/s.");
        if (!paired.isEmpty()) {
            md.append(" `").append(PAIRED_COLUMN).append("` is `PairedBenchmark`'s ratio: weft and `").append(VECTOR_BASELINE)
                    .append("` measured in the same seconds (next section).");
        }
        md.append("\n\n| benchmark | ").append(VECTOR_BASELINE).append(" |");
        if (!paired.isEmpty()) {
            variants.add(variants.indexOf("weft") + 1, PAIRED_COLUMN);
        }
        variants.forEach(v -> md.append(' ').append(v).append(" |"));
        md.append("\n|---|---:|").append("---:|".repeat(variants.size())).append('\n');
        byBenchmark.forEach((name, rows) -> {
            Row vector = rows.stream().filter(r -> r.variant().equals(VECTOR_BASELINE)).findFirst().orElse(null);
            md.append("| ").append(name).append(" | ").append(vector == null ? "-" : rate(vector)).append(" |");
            for (String v : variants) {
                if (v.equals(PAIRED_COLUMN)) {
                    Paired p = paired.get(name);
                    md.append(' ').append(p == null ? "-" : times(p.ratio())).append(" |");
                    continue;
                }
                Row r = rows.stream().filter(x -> x.variant().equals(v)).findFirst().orElse(null);
                md.append(' ').append(r == null ? "-" : ratio(r, vector)).append(" |");
            }
            md.append('\n');
        });
        md.append('\n');
    }

    /** A variant's rate in the unit that fits its benchmark (see {@link #summary}). */
    static String rate(Row r) {
        if (r.flops() > 0 && (r.bytes() <= 0 || r.flops() >= r.bytes())) {
            return fixed(r.flops() / 1e9) + " GFLOP/s";
        }
        if (r.bytes() > 0) {
            return fixed(r.bytes() / 1e9) + " GB/s";
        }
        return si(r.elements()) + " elements/s";
    }

    private static Row row(Map<?, ?> r) {
        String benchmark = String.valueOf(r.get("benchmark"));
        benchmark = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
        Map<String, String> params = new LinkedHashMap<>();
        if (r.get("params") instanceof Map<?, ?> p) {
            p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
        }
        String variant = params.remove("impl");
        Map<?, ?> primary = (Map<?, ?>) r.get("primaryMetric");
        Map<?, ?> secondary = r.get("secondaryMetrics") instanceof Map<?, ?> s ? s : Map.of();
        return new Row(benchmark, variant == null ? "-" : variant, params, score(primary), error(primary),
                score(secondary.get("elements")), error(secondary.get("elements")),
                score(secondary.get("flops")), score(secondary.get("bytes")));
    }

    private static void table(StringBuilder md, String name, List<Row> rows, Peak peak, Measured measured) {
        boolean flops = rows.stream().anyMatch(r -> r.flops() > 0);
        boolean bytes = rows.stream().anyMatch(r -> r.bytes() > 0);
        Row vector = rows.stream().filter(r -> r.variant().equals(VECTOR_BASELINE)).findFirst().orElse(null);
        Row java = rows.stream().filter(r -> r.variant().equals(JAVA_BASELINE)).findFirst().orElse(null);
        md.append("## ").append(name).append("\n\n");
        md.append("| variant | threads | invocations/s | elements/s | ");
        if (bytes) {
            md.append("GB/s | ");
        }
        boolean shareOfMeasured = flops && measured.present();
        if (flops) {
            md.append("GFLOP/s | % peak | ").append(shareOfMeasured ? "% measured | " : "");
        }
        md.append("× Vector API | × plain Java |\n|---|---:|---:|---:|");
        md.append(bytes ? "---:|" : "").append(flops ? "---:|---:|" : "").append(shareOfMeasured ? "---:|" : "")
                .append("---:|---:|\n");
        for (Row r : rows) {
            int threads = r.variant().endsWith("Serial") ? 1 : Runtime.getRuntime().availableProcessors();
            md.append("| ").append(r.variant()).append(" | ").append(threads)
                    .append(" | ").append(withError(r.opsPerSecond(), r.opsError())).append(" | ")
                    .append(r.elements() > 0 ? withError(r.elements(), r.elementsError()) : "-").append(" | ");
            if (bytes) {
                md.append(r.bytes() > 0 ? fixed(r.bytes() / 1e9) : "-").append(" | ");
            }
            if (flops) {
                md.append(r.flops() > 0 ? fixed(r.flops() / 1e9) : "-").append(" | ")
                        .append(percent(r.flops() / 1e9, peak.gflops(threads))).append(" | ");
                if (shareOfMeasured) {
                    md.append(percent(r.flops() / 1e9, measured.gflops(threads))).append(" | ");
                }
            }
            md.append(ratio(r, vector)).append(" | ").append(ratio(r, java)).append(" |\n");
        }
        md.append('\n');
    }

    /** {@code gflops} as a share of {@code of}, or "-" where either is unknown. */
    private static String percent(double gflops, double of) {
        return gflops > 0 && of > 0 ? String.format(Locale.ROOT, "%.1f%%", 100 * gflops / of) : "-";
    }

    private static String ratio(Row r, Row baseline) {
        if (baseline == null || baseline.elements() <= 0 || r.elements() <= 0) {
            return "-";
        }
        return times(r.elements() / baseline.elements());
    }

    /** A throughput ratio: 2 significant digits or more, down to 0.0001. */
    private static String times(double x) {
        return x >= 10 ? String.format(Locale.ROOT, "%.0f", x) : x >= 0.1 ? String.format(Locale.ROOT, "%.2f", x)
                : String.format(Locale.ROOT, "%.4f", x);
    }

    private static String withError(double score, double error) {
        String s = si(score);
        return Double.isNaN(error) || score == 0 ? s : s + " ± " + String.format(Locale.ROOT, "%.0f%%", 100 * error / score);
    }

    /** 1234567 as "1.23 M". */
    static String si(double v) {
        String[] units = {"", " k", " M", " G", " T"};
        int u = 0;
        while (Math.abs(v) >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f%s" : v >= 10 ? "%.1f%s" : "%.2f%s", v, units[u]);
    }

    private static String fixed(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : v >= 1 ? "%.2f" : "%.4f", v);
    }

    private static double score(Object metric) {
        return metric instanceof Map<?, ?> m && m.get("score") instanceof Double d ? d : 0;
    }

    private static double error(Object metric) {
        return metric instanceof Map<?, ?> m && m.get("scoreError") instanceof Double d ? d : Double.NaN;
    }

    private static String number(Object o) {
        return o instanceof Double d ? String.valueOf(d.longValue()) : String.valueOf(o);
    }

    /** The header: this machine's CPU, cores, vector species, and which executor runs each kernel. */
    static String machine() {
        StringBuilder sb = new StringBuilder();
        sb.append("- CPU: ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores available to the JVM\n");
        sb.append("- Vector species: FloatVector.SPECIES_PREFERRED = ").append(FloatVector.SPECIES_PREFERRED.vectorBitSize())
                .append(" bits, ").append(FloatVector.SPECIES_PREFERRED.length()).append(" float lanes\n");
        Map<String, List<String>> kernelsByDecision = new LinkedHashMap<>();
        try (Device device = Device.create()) {
            for (Map.Entry<String, Kernel> e : KernelsForReport.kernels().entrySet()) {
                kernelsByDecision.computeIfAbsent(device.compileReport(e.getValue()).summary(), k -> new ArrayList<>()).add(e.getKey());
            }
        }
        return sb.append(executors(kernelsByDecision)).toString();
    }

    /** The header's line on Weft's AUTO device: each compile decision once, with the kernels it applies to. */
    static String executors(Map<String, List<String>> kernelsByDecision) {
        StringBuilder sb = new StringBuilder("- Weft AUTO device (asked by this tool, same class path):");
        kernelsByDecision.forEach((decision, kernels) -> sb.append(' ').append(decision).append(" (")
                .append(String.join(", ", kernels)).append(");"));
        sb.setLength(sb.length() - 1);
        return sb.append('\n').toString();
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch") + " (model unknown)";
    }
}
