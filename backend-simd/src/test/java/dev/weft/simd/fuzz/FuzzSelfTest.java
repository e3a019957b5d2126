package dev.weft.simd.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.simd.corpus.Differential;
import dev.weft.simd.corpus.Instance;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fuzzer can find differences on its own. Two deliberately wrong "executors" stand in for a buggy
 * compiler: one corrupts one output element after an otherwise correct run; the others run a mutant of
 * the generated program, changed the way a lowering bug would change it (a signed shift done unsigned, a
 * comparison off by one, an early return or a break that does not take effect, min taken for max, a mask
 * combined with or instead of and, a barrier that does not wait). Over fixed seeds, every kind of bug must be caught.
 */
// A separate thread, so a kernel that never ends fails its test instead of hanging the run.
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FuzzSelfTest {

    private static final long FIRST_SEED = 0x5eed_0000L;
    private static Differential devices;

    @BeforeAll
    static void startDevices() {
        devices = new Differential(32);
    }

    @AfterAll
    static void stopDevices() {
        devices.close();
    }

    @Test
    void generator_sameSeed_sameProgram() {
        for (long seed = 0; seed < 20; seed++) {
            assertEquals(KernelGenerator.generate(seed, KernelGenerator.Options.exact()),
                    KernelGenerator.generate(seed, KernelGenerator.Options.exact()));
        }
    }

    @Test
    void generator_overManySeeds_usesEveryConstruct() {
        StringBuilder all = new StringBuilder();
        for (long seed = 0; seed < 80; seed++) {
            all.append(KernelGenerator.generate(FIRST_SEED + seed, FuzzTest.optionsFor(seed)).source());
        }
        String text = all.toString();
        for (String construct : List.of("for (", "while (", "do {", "break;", "continue;", "return;", " ? ", " && ", " || ",
                "} else {", "} else if (", "(int) ", "(long) ", "(float) ", "(double) ", "(byte) ", "(char) ", ">>>", " % ",
                " / ", "Math.fma(", "Math.sqrt(", "Math.min(", "Math.abs(", "Math.sin(", "Math.pow(", "ia[gid]",
                "& 0x7fffffff) % n]", "Float.NaN", "Integer.MIN_VALUE", "h0(", "(ia[gid] & 7)", "(si & 7)", "t.laneId()",
                "t.syncThreads();", "shI[tid] = ", "shL[", "shF[", "shD[", "Atomics.add(sh", "(tid + t.warpSize()) % nt",
                "t.shflUp(", "t.shflXor(", "<<= 1) {", "Atomics.compareAndSwap(", "Atomics.max(a", "Atomics.min(sh", "t.blockIdxZ()", "shP[tid] ", "^= shP[")) {
            assertTrue(text.contains(construct), "no generated kernel uses " + construct);
        }
    }

    @Test
    void generator_extrasAndFaults_usesEveryConstruct() {
        StringBuilder all = new StringBuilder();
        for (long seed = 0; seed < 400; seed++) {
            all.append(KernelGenerator.generate(FIRST_SEED + seed, FuzzTest.extrasOptionsFor(seed)).source());
        }
        String text = all.toString();
        List<String> missing = new ArrayList<>();
        for (String construct : List.of("switch ((int) ", "case Integer.MIN_VALUE", "default: {", "default -> ", "break L", "continue L",
                "for (long ", "for (float ", "boolean v", "short v", "Integer.bitCount(", "Long.numberOfLeadingZeros(", "Math.round(",
                "Math.scalb(", "Float.floatToIntBits(", "Double.isNaN(", "dev.weft.Sfu.", " != 0 ? ", ", n) < 0 ? ", "Atomics.exchange(a",
                "Atomics.compareAndSwap(a", "(shA, ", "(shAF, ", "(t, ", "barrier(t);", "read(shI, ", "+= t.blockDimX() * t.gridDimX())",
                "+= t.warpSize())", " += nt)", "% (n + 1)];", "t.laneId() == t.warpSize() - 1", "int mi", " = nt;")) {
            if (!text.contains(construct)) {
                missing.add(construct);
            }
        }
        assertEquals(List.of(), missing, "constructs no generated kernel uses");
    }

    @Test
    void generator_sessionFifteenConstructs_usesEveryConstruct() {
        StringBuilder all = new StringBuilder();
        for (long seed = 0; seed < 400; seed++) {
            all.append(KernelGenerator.generate(FIRST_SEED + seed, FuzzCampaign.options(seed, seed % 2 == 0 ? "xmt" : "mlbt")).source());
        }
        String text = all.toString();
        List<String> missing = new ArrayList<>();
        for (String construct : List.of("Math.floorDiv(", "Math.floorMod(", "ro[(n - 1 - gid) * 8 + ", "rd[(n - 1 - gid) * 8 + ", "++;", "--;",
                " /= ", " %= ", " >>>= ", "byte v", "char v", "(Integer.MIN_VALUE + (", "(-1))", " do {", "} while (k", "bump(", "mix(",
                "step(lo, ", "a[n - 1 - gid]", " & (-16))]", "(t.threadIdxY() & 3)", "(int) (", "(char) ", "Long.MIN_VALUE", "[tid]++;",
                "break;", "1e30f)", "? ((byte) ", "go[i")) {
            if (!text.contains(construct)) {
                missing.add(construct);
            }
        }
        assertEquals(List.of(), missing, "constructs no generated kernel uses");
    }

    @Test
    void generator_narrowArrays_usesEveryConstruct() {
        StringBuilder all = new StringBuilder();
        for (long seed = 0; seed < 600; seed++) {
            all.append(KernelGenerator.generate(FIRST_SEED + seed, FuzzTest.narrowOptionsFor(seed)).source());
        }
        String text = all.toString();
        List<String> missing = new ArrayList<>();
        for (String construct : List.of(KernelGenerator.NARROW_PARAMS, "ba[gid]", "sa[n - 1 - gid]", "ca[(", "za[gid]", "!za[",
                "bo[gid * 8 + ", "so[(n - 1 - gid) * 8 + ", "co[gid * 8 + ", "zo[gid * 8 + ", "= (byte) (", "= (short) (",
                "= (char) (", "] += ", "] >>= ", "]++;", "]--;", "] ^= (", "] &= (")) {
            if (!text.contains(construct)) {
                missing.add(construct);
            }
        }
        assertEquals(List.of(), missing, "constructs no generated kernel uses");
    }

    @Test
    void generator_withoutNarrowArrays_noNarrowArray() {
        // The knob is off for every older seed: their programs must stay as they were.
        for (long seed = 0; seed < 200; seed++) {
            String source = KernelGenerator.generate(FIRST_SEED + seed, FuzzCampaign.options(seed, seed % 2 == 0 ? "xmt" : "fmlbt")).source();
            assertTrue(!source.contains("byte[]") && !source.contains("boolean[]"), source);
        }
    }

    @Test
    void fuzz_otherExecutorCorruptsOneOutput_everySeedDetected() {
        List<KernelGenerator.Program> programs = new ArrayList<>();
        for (long seed = 0; seed < 20; seed++) {
            programs.add(KernelGenerator.generate(FIRST_SEED + seed, KernelGenerator.Options.exact()));
        }
        for (FuzzHarness.Loaded loaded : FuzzHarness.compileAll(programs)) {
            SplittableRandom pick = new SplittableRandom(loaded.program().seed());
            Optional<String> diff = FuzzHarness.runPair(devices, loaded, loaded, inst -> corruptOne(inst, pick));
            assertTrue(diff.isPresent(), () -> "a corrupted output went unnoticed:\n" + loaded.program().source());
        }
    }

    @Test
    void fuzz_mutantPrograms_eachKindOfBugDetected() {
        Map<String, BiFunction<String, SplittableRandom, String>> mutations = new LinkedHashMap<>();
        mutations.put("signed shift done unsigned", (src, r) -> replaceOne(src, " >> ", " >>> ", 0, r));
        mutations.put("comparison off by one", (src, r) -> replaceOne(src, " < ", " <= ", 0, r));
        mutations.put("early return ignored", (src, r) -> replaceOne(src, "return;", ";", 1, r));   // keeps the gid guard
        mutations.put("break taken as continue", (src, r) -> replaceOne(src, "break;", "continue;", 0, r));
        mutations.put("min taken as max", (src, r) -> replaceOne(src, "Math.min(", "Math.max(", 0, r));
        mutations.put("mask and taken as or", (src, r) -> replaceOne(src, " && ", " || ", 0, r));
        // A barrier that does not hold every warp of the CTA back: a warp reads slots others have not written.
        mutations.put("barrier dropped", (src, r) -> replaceOne(src, "t.syncThreads();", ";", 0, r));
        mutations.put("shuffle up taken as down", (src, r) -> replaceOne(src, "t.shflUp(", "t.shflDown(", 0, r));
        mutations.put("atomic max taken as min", (src, r) -> replaceOne(src, "Atomics.max(", "Atomics.min(", 0, r));

        List<KernelGenerator.Program> programs = new ArrayList<>();
        for (long seed = 0; seed < 60; seed++) {
            // One in three with barriers (the others keep the early returns the return mutation needs).
            KernelGenerator.Options options = seed % 3 == 2 ? new KernelGenerator.Options(false, 7, true) : KernelGenerator.Options.exact();
            options = seed % 2 == 0 ? options.withWarpOps() : options;
            programs.add(KernelGenerator.generate(FIRST_SEED + 1000 + seed, options));
        }
        StringBuilder rates = new StringBuilder();
        List<String> undetected = new ArrayList<>();
        for (var mutation : mutations.entrySet()) {
            List<KernelGenerator.Program> originals = new ArrayList<>();
            List<KernelGenerator.Program> mutants = new ArrayList<>();
            for (KernelGenerator.Program p : programs) {
                String mutated = mutation.getValue().apply(p.source(), new SplittableRandom(p.seed()));
                if (!mutated.equals(p.source())) {
                    String name = p.simpleName() + "_mutant";
                    originals.add(p);
                    mutants.add(p.withSource(name, mutated.replace("class " + p.simpleName() + " ", "class " + name + " ")));
                }
            }
            List<KernelGenerator.Program> both = new ArrayList<>(originals);
            both.addAll(mutants);
            List<FuzzHarness.Loaded> loaded = FuzzHarness.compileAll(both);
            int detected = 0;
            for (int i = 0; i < originals.size(); i++) {
                if (FuzzHarness.runPair(devices, loaded.get(i), loaded.get(originals.size() + i), inst -> { }).isPresent()) {
                    detected++;
                }
            }
            rates.append(String.format("  %-28s detected in %d of %d mutated programs%n", mutation.getKey(), detected, originals.size()));
            if (detected == 0) {
                undetected.add(mutation.getKey());
            }
        }
        System.out.print("fuzz self-test, mutants of 60 programs:\n" + rates);
        assertTrue(undetected.isEmpty(), "bugs the fuzzer never caught: " + undetected + "\n" + rates);
    }

    /**
     * Replaces the k-th occurrence (k >= skip, chosen by {@code r}) of {@code from}, outside while and do-while
     * conditions (there a mutant such as {@code c < 5 || x} could loop forever); the source unchanged if none.
     */
    static String replaceOne(String source, String from, String to, int skip, SplittableRandom r) {
        List<Integer> at = new ArrayList<>();
        Matcher m = Pattern.compile(Pattern.quote(from)).matcher(source);
        while (m.find()) {
            int lineStart = source.lastIndexOf('\n', m.start()) + 1;
            String line = source.substring(lineStart, m.start()).strip();
            if (!line.startsWith("while (") && !line.startsWith("} while (")) {
                at.add(m.start());
            }
        }
        if (at.size() <= skip) {
            return source;
        }
        int pos = at.get(r.nextInt(skip, at.size()));
        return source.substring(0, pos) + to + source.substring(pos + from.length());
    }

    private static void corruptOne(Instance instance, SplittableRandom pick) {
        Instance.Output out = instance.outputs().get(pick.nextInt(4));      // one of the exact outputs
        Object a = out.array();
        int i = pick.nextInt(java.lang.reflect.Array.getLength(a));
        switch (a) {
            case int[] x -> x[i] ^= 1 << pick.nextInt(32);
            case long[] x -> x[i] ^= 1L << pick.nextInt(64);
            case float[] x -> x[i] = Float.isNaN(x[i]) ? 0f : Float.intBitsToFloat(Float.floatToRawIntBits(x[i]) ^ 1);
            case double[] x -> x[i] = Double.isNaN(x[i]) ? 0d : Double.longBitsToDouble(Double.doubleToRawLongBits(x[i]) ^ 1);
            default -> throw new IllegalArgumentException(a.getClass().toString());
        }
    }
}
