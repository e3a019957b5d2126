package dev.weft.simd.fuzz;

import dev.weft.runtime.CompileReport;
import dev.weft.simd.corpus.Differential;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A fuzzing campaign from the command line: many seeds in batches, each kernel run on both executors, every
 * failing seed printed with the options that reproduce it. Not a test: long campaigns run it under the JVM options
 * and backend switches being fuzzed, e.g.
 * {@code java --add-modules jdk.incubator.vector -XX:UseAVX=2 -cp ... dev.weft.simd.fuzz.FuzzCampaign 0x1000 2000 xf 32}.
 *
 * <p>Arguments: the first seed, the number of kernels, the options (letters: {@code c} FuzzTest's, {@code x} its extras
 * without faults, {@code f} with faults as FuzzTest runs them, {@code b} barriers in every kernel, {@code w} warp
 * operations in every kernel that may have them, {@code s} small kernels, {@code t} tiny ones, {@code m} the session-15 constructs,
 * {@code l} long- and double-heavy types, {@code n} byte, short, char and boolean arrays), and the warp size. A seed's options are {@link #options}.
 */
public final class FuzzCampaign {

    private static final int BATCH = 40;
    /** Extra launches of each kernel without barriers over other CTA shapes: {@code -Dweft.fuzz.reshapes=N}. */
    private static final int RESHAPES = Integer.getInteger("weft.fuzz.reshapes", 0);
    /** Barrier kernels launched again once their methods per resume point are bound: {@code -Dweft.fuzz.relaunch=true}. */
    private static final boolean RELAUNCH = Boolean.getBoolean("weft.fuzz.relaunch");

    /** A CTA shape of the same dimensionality as {@code b} (the kernels' gid formula is a bijection for any such). */
    static dev.weft.Dim3 reshape(dev.weft.Dim3 b, java.util.SplittableRandom r) {
        int[] xs = {1, 3, 7, 8, 12, 16, 17, 24, 32, 33, 48, 64};
        if (b.z() > 1) {
            int x = xs[r.nextInt(xs.length)];
            int y = r.nextInt(1, Math.max(2, Math.min(8, 512 / x)));
            return dev.weft.Dim3.of(x, y, r.nextInt(1, Math.max(2, Math.min(4, 1024 / (x * y)))));
        }
        if (b.y() > 1) {
            int x = xs[r.nextInt(xs.length)];
            return dev.weft.Dim3.of(x, r.nextInt(1, Math.max(2, Math.min(33, 1024 / x))));
        }
        return dev.weft.Dim3.of(new int[] {1, 31, 32, 64, 96, 100, 128, 256, 1024}[r.nextInt(9)]);
    }
    private static final long KERNEL_TIMEOUT_S = 120;

    private FuzzCampaign() {
    }

    /** The options of {@code seed} under the letters of {@code mode}. */
    public static KernelGenerator.Options options(long seed, String mode) {
        KernelGenerator.Options o = mode.contains("x") || mode.contains("f") ? FuzzTest.extrasOptionsFor(seed) : FuzzTest.optionsFor(seed);
        if (!mode.contains("f") && o.faults()) {
            o = new KernelGenerator.Options(o.tolerantMath(), o.statementBudget(), o.barriers(), o.warpOps(), o.extras(), false);
        }
        if (mode.contains("b") && !o.barriers()) {
            o = new KernelGenerator.Options(o.tolerantMath(), Math.min(o.statementBudget(), mode.contains("x") ? 4 : 7), true, o.warpOps(),
                    o.extras(), o.faults());
        }
        if (mode.contains("w") && !o.warpOps() && o.statementBudget() <= 8) {
            o = o.withWarpOps();
        }
        if (mode.contains("s")) {
            int budget = o.barriers() ? 3 + (int) ((seed >> 2) % 3) : 4 + (int) ((seed >> 2) % 6);
            o = new KernelGenerator.Options(o.tolerantMath(), Math.min(budget, o.statementBudget()), o.barriers(), o.warpOps(), o.extras(),
                    o.faults());
        }
        if (mode.contains("t")) {
            int budget = o.barriers() ? 2 + (int) ((seed >> 2) % 2) : 2 + (int) ((seed >> 2) % 4);
            o = new KernelGenerator.Options(o.tolerantMath(), Math.min(budget, o.statementBudget()), o.barriers(), o.warpOps(), o.extras(),
                    o.faults());
        }
        if (mode.contains("m")) {
            o = o.withMore();
        }
        if (mode.contains("l")) {
            o = o.withWideTypes();
        }
        if (mode.contains("n")) {
            o = o.withNarrowArrays();
        }
        return o;
    }

    public static void main(String[] args) throws Exception {
        long base = Long.decode(args[0]);
        int count = Integer.parseInt(args[1]);
        String mode = args.length > 2 ? args[2] : "c";
        int warp = args.length > 3 ? Integer.parseInt(args[3]) : 32;
        int compiled = 0;
        int internalErrorsSeen = 0;
        int failures = 0;
        int ran = 0;
        int reshaped = 0;
        Map<String, Integer> declines = new TreeMap<>();
        long t0 = System.nanoTime();
        ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-campaign");
            t.setDaemon(true);
            return t;
        });
        try (Differential devices = new Differential(warp)) {
            for (long from = 0; from < count; from += BATCH) {
                List<KernelGenerator.Program> batch = new ArrayList<>();
                for (long s = base + from; s < base + Math.min(count, from + BATCH); s++) {
                    batch.add(KernelGenerator.generate(s, options(s, mode)));
                }
                for (FuzzHarness.Loaded loaded : FuzzHarness.compileAll(batch)) {
                    String seed = "0x" + Long.toHexString(loaded.program().seed());
                    Future<Optional<String>> run = runner.submit(() -> FuzzHarness.runPair(devices, loaded, loaded, inst -> { }));
                    Optional<String> diff;
                    try {
                        diff = run.get(KERNEL_TIMEOUT_S, TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        System.out.println("HANG seed " + seed + " mode " + mode + " warp " + warp);
                        System.out.flush();
                        Runtime.getRuntime().halt(3);
                        return;
                    } catch (java.util.concurrent.ExecutionException e) {
                        diff = Optional.of("harness threw " + e.getCause());
                    }
                    ran++;
                    if (diff.isEmpty() && RESHAPES > 0 && !loaded.program().mayFault() && !loaded.program().source().contains("syncThreads")) {
                        // The compiled class again, over other CTA shapes of the same dimensionality: other variants.
                        java.util.SplittableRandom pick = new java.util.SplittableRandom(loaded.program().seed() ^ 0x5eedL);
                        for (int k = 0; k < RESHAPES && diff.isEmpty(); k++) {
                            KernelGenerator.Program p = loaded.program();
                            dev.weft.Dim3 block = reshape(p.block(), pick);
                            int per = (int) block.volume();
                            int ctas = Math.max(1, (p.n() + per - 1) / per - pick.nextInt(0, 2));
                            dev.weft.Dim3 grid = p.block().z() > 1 || p.grid().z() > 1 ? dev.weft.Dim3.of(ctas, 1, 1)
                                    : p.block().y() > 1 || p.grid().y() > 1 ? dev.weft.Dim3.of(Math.max(1, ctas / 2), 2) : dev.weft.Dim3.of(ctas);
                            FuzzHarness.Loaded other = new FuzzHarness.Loaded(new KernelGenerator.Program(p.seed(), p.simpleName(), p.source(), grid, block,
                                    p.n(), false), loaded.kernelClass());
                            Future<Optional<String>> again = runner.submit(() -> FuzzHarness.runPair(devices, other, other, inst -> { }));
                            try {
                                diff = again.get(KERNEL_TIMEOUT_S, TimeUnit.SECONDS).map(d -> "reshaped to grid " + grid + " block " + block + ": " + d);
                            } catch (TimeoutException e) {
                                System.out.println("HANG seed " + seed + " reshaped to grid " + grid + " block " + block);
                                System.out.flush();
                                Runtime.getRuntime().halt(3);
                                return;
                            } catch (java.util.concurrent.ExecutionException e) {
                                diff = Optional.of("harness threw on reshape " + grid + " " + block + ": " + e.getCause());
                            }
                            reshaped++;
                        }
                    }
                    if (diff.isEmpty() && RELAUNCH && loaded.program().source().contains("syncThreads")) {
                        // Again once the background compile of the methods per resume point is done: the launch binds them.
                        dev.weft.simd.internal.Background.awaitIdle(60_000);
                        Future<Optional<String>> again = runner.submit(() -> FuzzHarness.runPair(devices, loaded, loaded, inst -> { }));
                        try {
                            diff = again.get(KERNEL_TIMEOUT_S, TimeUnit.SECONDS).map(d -> "relaunched on the resume methods: " + d);
                            if (diff.isEmpty() && dev.weft.simd.internal.Background.internalErrors() > internalErrorsSeen) {
                                // Results cannot show it: the general methods stay, with the same results.
                                internalErrorsSeen = dev.weft.simd.internal.Background.internalErrors();
                                diff = Optional.of("a background compile (the methods per resume point) failed; the warning in the log names the class");
                            }
                        } catch (TimeoutException e) {
                            System.out.println("HANG seed " + seed + " relaunched");
                            System.out.flush();
                            Runtime.getRuntime().halt(3);
                            return;
                        } catch (java.util.concurrent.ExecutionException e) {
                            diff = Optional.of("harness threw on relaunch: " + e.getCause());
                        }
                        reshaped++;
                    }
                    CompileReport report = devices.auto().compileReport(FuzzHarness.instantiate(loaded).kernel());
                    if (report.compiled()) {
                        compiled++;
                    } else {
                        String show = System.getProperty("weft.fuzz.showDecline");
                        if (show != null && report.reasons().stream().anyMatch(r -> r.contains(show))) {
                            System.out.println("DECLINE seed " + seed + ": " + report.reasons() + "\n" + FuzzHarness.numbered(loaded.program().source()));
                        }
                        report.reasons().forEach(r -> declines.merge(r.replaceAll("Fuzz_\\w+\\.java:\\d+", "N")
                                .replaceAll("Fuzz_\\w+\\.lambda\\$\\w+\\$\\w+\\$\\d+", "<kernel>").replaceAll("\\d{4,} bytes", "N bytes")
                                .replaceAll("Code length \\d+", "Code length N").replaceAll("Fuzz_\\w+", "F"), 1, Integer::sum));
                    }
                    if (diff.isPresent() && !report.compiled()
                            && diff.get().replaceFirst("^(relaunched on the resume methods|reshaped to grid .*?): ", "").startsWith("both failed")) {
                        // The reference executor on both sides (a declined kernel, e.g. a shuffle width over a narrow
                        // warp), in its first launch or a later one: which CTA fails first is a race between the SMs.
                        diff = Optional.empty();
                    }
                    if (diff.isPresent()) {
                        failures++;
                        String d = diff.get();
                        System.out.println("FAIL seed " + seed + " mode " + mode + " warp " + warp + " compiled=" + report.compiled() + ": "
                                + (d.length() > 800 ? d.substring(0, 800) + "..." : d));
                        System.out.flush();
                    }
                }
            }
        }
        System.out.printf("DONE base=0x%x count=%d ran=%d reshaped=%d mode=%s warp=%d compiled=%d failures=%d in %.0f s%n", base, count, ran,
                reshaped, mode, warp, compiled, failures, (System.nanoTime() - t0) / 1e9);
        declines.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(12)
                .forEach(e -> System.out.println("  decline " + e.getValue() + ": " + (e.getKey().length() > 300 ? e.getKey().substring(0, 300) : e.getKey())));
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
