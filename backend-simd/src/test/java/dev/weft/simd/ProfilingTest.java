package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.KernelException;
import dev.weft.runtime.LaunchConfig;
import dev.weft.runtime.LaunchProfile;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Profiled launches of compiled kernels whose figures are known by hand: CTAs, warps, warp execution
 * efficiency (100% without divergence, 50% on each side of a branch on lane parity, 8 of 32 threads in the
 * second warp of a 40-thread CTA), split counts, and the reference executor's honest "not counted".
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProfilingTest {

    static Device device;

    @BeforeAll
    static void start() {
        device = Device.create();
    }

    @AfterAll
    static void stop() {
        device.close();
    }

    /** The source line of the caller: the tests name kernel lines relative to it. */
    private static int line() {
        return StackWalker.getInstance().walk(s -> s.skip(1).findFirst().orElseThrow().getLineNumber());
    }

    private static String site(int line) {
        return "ProfilingTest.java:" + line;
    }

    private static void assertCompiled(LaunchProfile p) {
        assertEquals("simd", p.executor(), p::toString);
        assertTrue(p.counted(), p::toString);
    }

    @Test
    void profile_noDivergence_fullEfficiency() {
        int n = 4 * 64;
        float[] x = new float[n];
        float[] y = new float[n];
        LaunchProfile p = device.profile(Dim3.of(4), Dim3.of(64), t -> {
            int i = t.globalIdX();
            y[i] = 2f * x[i];
        });
        assertCompiled(p);
        assertEquals(4, p.ctas());
        assertEquals(8, p.warps());
        assertEquals(1.0, p.warpExecutionEfficiency());
        assertTrue(p.warpInstructions() > 0 && p.warpInstructions() % 8 == 0, p::toString);
        assertEquals(32 * p.warpInstructions(), p.threadInstructions());
        assertTrue(p.branches().isEmpty(), p::toString);
    }

    @Test
    void profile_branchOnLaneParity_halfEfficiencyInTheBranch_everyWarpSplits() {
        int n = 2 * 128;
        int[] y = new int[n];
        int at = line();
        LaunchProfile p = device.profile(Dim3.of(2), Dim3.of(128), t -> {
            int i = t.globalIdX();
            if ((t.threadIdxX() & 1) == 0) {
                y[i] = i * 3;
            } else {
                y[i] = i - 7;
            }
        });
        assertCompiled(p);
        assertEquals(8, p.warps());
        LaunchProfile.Line even = p.lineAt(site(at + 4));
        LaunchProfile.Line odd = p.lineAt(site(at + 6));
        assertEquals(0.5, even.warpExecutionEfficiency(), p::toString);
        assertEquals(0.5, odd.warpExecutionEfficiency(), p::toString);
        assertEquals(16 * even.warpInstructions(), even.threadInstructions());
        assertEquals(1.0, p.lineAt(site(at + 2)).warpExecutionEfficiency(), p::toString);
        LaunchProfile.Branch b = p.branchAt(site(at + 3));
        assertEquals(8, b.evaluations(), p::toString);
        assertEquals(8, b.splits(), p::toString);
        assertEquals(1.0, b.splitRate());
        double e = p.warpExecutionEfficiency();
        assertTrue(e > 0.5 && e < 1, p::toString);
        for (int i = 0; i < n; i++) {
            assertEquals((i % 128) % 2 == 0 ? i * 3 : i - 7, y[i]);
        }
    }

    @Test
    void profile_treeReductionAcrossBarriers_onlyWarpZeroSplitsBelowAWarpsStride() {
        // 256 threads = 8 warps, strides 128..1: at strides >= 32 every warp is wholly in or out; at the five
        // strides below 32 warp 0 splits and the other warps are wholly out. Counted across barrier phases.
        int ctas = 4;
        float[] in = new float[ctas * 256];
        float[] out = new float[ctas];
        for (int i = 0; i < in.length; i++) {
            in[i] = i % 5;
        }
        int at = line();
        LaunchProfile p = device.profile(Dim3.of(ctas), Dim3.of(256), t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            s[tid] = in[t.globalIdX()];
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        });
        assertCompiled(p);
        assertEquals(ctas * 8, p.warps());
        LaunchProfile.Branch inner = p.branchAt(site(at + 7));
        assertEquals(ctas * 8 * 8, inner.evaluations(), p::toString);
        assertEquals(ctas * 5, inner.splits(), p::toString);
        LaunchProfile.Branch leader = p.branchAt(site(at + 12));
        assertEquals(ctas * 8, leader.evaluations(), p::toString);
        assertEquals(ctas, leader.splits(), p::toString);
        for (int c = 0; c < ctas; c++) {
            float sum = 0;
            for (int i = 0; i < 256; i++) {
                sum += in[c * 256 + i];
            }
            assertEquals(sum, out[c], p::toString);
        }
    }

    /**
     * A profiled barrier kernel's class has its methods per resume point at once, and the uniform longs computed
     * last before the barrier are the method's last locals, which the resume point's method jumps over: the class
     * did not load and the profile threw (see TieredCompileTest's localsOnlyBeforeTheResumePoint).
     */
    @Test
    void profile_localsOnlyBeforeTheResumePoint_compiles() {
        long[] in = new long[3 * 96];
        long[] out = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            in[i] = i * 0x9E3779B97F4A7C15L;
        }
        int pick = 17;
        LaunchProfile p = device.profile(Dim3.of(3), Dim3.of(96), t -> {
            long[] s = t.sharedLongs(96);
            int tid = t.threadIdxX();
            int i = t.blockIdxX() * t.blockDimX() + tid;
            out[i] += in[(tid + 10) % 96];
            Atomics.or(s, 5, (2630620544280042210L + in[pick]) << 7);
            t.syncThreads();
            out[i] += s[(tid + 10) % 96];
        });
        assertCompiled(p);
        for (int i = 0; i < in.length; i++) {
            int tid = i % 96;
            assertEquals(in[(tid + 10) % 96] + ((tid + 10) % 96 == 5 ? (2630620544280042210L + in[pick]) << 7 : 0), out[i]);
        }
    }

    @Test
    void profile_branchUniformPerWarp_neverSplits() {
        int n = 256;
        int[] y = new int[n];
        int at = line();
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(n), t -> {
            int i = t.globalIdX();
            if ((i & 32) == 0) {
                y[i] = 1;
            }
        });
        assertCompiled(p);
        LaunchProfile.Branch b = p.branchAt(site(at + 3));
        assertEquals(8, b.evaluations(), p::toString);
        assertEquals(0, b.splits(), p::toString);
        assertEquals(1.0, p.lineAt(site(at + 4)).warpExecutionEfficiency(), p::toString);
        assertEquals(1.0, p.warpExecutionEfficiency(), p::toString);
    }

    @Test
    void profile_partialWarp_countsOnlyItsActiveThreads() {
        int[] y = new int[40];
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(40), t -> y[t.threadIdxX()] = t.threadIdxX() + 1);
        assertCompiled(p);
        assertEquals(1, p.ctas());
        assertEquals(2, p.warps());
        // Every instruction issued twice (two warps), with 32 and 8 threads: 40 of 64.
        assertEquals(40.0 / 64, p.warpExecutionEfficiency(), 1e-12, p::toString);
        assertEquals(0, p.warpInstructions() % 2);
        assertEquals(20 * p.warpInstructions(), p.threadInstructions());
        assertEquals(40, y[39]);
    }

    @Test
    void profile_twoDimensionalGrid_countsCtasAndWarps() {
        int[] y = new int[6 * 64];
        LaunchProfile p = device.profile(Dim3.of(3, 2), Dim3.of(16, 4), t -> {
            int cta = t.blockIdxY() * t.gridDimX() + t.blockIdxX();
            y[cta * 64 + t.threadIdxY() * 16 + t.threadIdxX()] = cta;
        });
        assertCompiled(p);
        assertEquals(6, p.ctas());
        assertEquals(12, p.warps());
        assertEquals(1.0, p.warpExecutionEfficiency(), p::toString);
        assertEquals(5, y[6 * 64 - 1]);
    }

    @Test
    void profile_divergentLoop_iterationsThinOut() {
        // Thread k loops k % 4 times: iterations 1, 2, 3 run 24, 16 and 8 threads of each warp, 48 of 96.
        int[] y = new int[64];
        int at = line();
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(64), t -> {
            int acc = 0;
            for (int k = 0; k < t.threadIdxX() % 4; k++) {
                acc += k * 5 + 1;
            }
            y[t.threadIdxX()] = acc;
        });
        assertCompiled(p);
        LaunchProfile.Line body = p.lineAt(site(at + 4));
        assertEquals(0.5, body.warpExecutionEfficiency(), 1e-12, p::toString);
        assertEquals(0, body.warpInstructions() % 6, p::toString);
        // The loop's test: every warp evaluates it 4 times (k = 0..3) and splits on the first 3.
        LaunchProfile.Branch test = p.branchAt(site(at + 3));
        assertEquals(8, test.evaluations(), p::toString);
        assertEquals(6, test.splits(), p::toString);
        assertArrayEquals(new int[] {0, 1, 7, 18}, java.util.Arrays.copyOf(y, 4));
    }

    @Test
    void profile_smallWarps_groupOfSeveralWarps_countedPerWarp() {
        try (Device d = Device.create(DeviceConfig.defaults().withWarpSize(8))) {
            int[] y = new int[20];
            int at = line();
            LaunchProfile p = d.profile(Dim3.of(1), Dim3.of(20), t -> {
                int i = t.threadIdxX();
                if (i < 12) {
                    y[i] = 1;
                }
            });
            assertCompiled(p);
            assertEquals(8, p.warpSize());
            assertEquals(3, p.warps());
            // Warps of 8, 8 and 4 threads; the branch takes 8, 4 and 0 of them: only the second splits.
            LaunchProfile.Branch b = p.branchAt(site(at + 3));
            assertEquals(3, b.evaluations(), p::toString);
            assertEquals(1, b.splits(), p::toString);
            LaunchProfile.Line store = p.lineAt(site(at + 4));
            assertEquals(12.0 / 16, store.warpExecutionEfficiency(), 1e-12, p::toString);
            assertEquals(20.0 / 24, p.lineAt(site(at + 2)).warpExecutionEfficiency(), 1e-12, p::toString);
        }
    }

    @Test
    void profile_divergentSwitch_countsSplits() {
        int[] y = new int[64];
        int at = line();
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(64), t -> {
            int i = t.threadIdxX();
            int selector = i < 32 ? 0 : i % 3;
            switch (selector) {
                case 0 -> y[i] = 10;
                case 1 -> y[i] = 11;
                default -> y[i] = 12;
            }
        });
        assertCompiled(p);
        // Warp 0 all takes case 0; warp 1 spreads over three cases.
        LaunchProfile.Branch b = p.branchAt(site(at + 4));
        assertEquals(2, b.evaluations(), p::toString);
        assertEquals(1, b.splits(), p::toString);
        assertEquals(10, y[0]);
        assertEquals(11, y[34]);
    }

    @Test
    void profile_streamFuture_givesTheProfile() {
        float[] y = new float[64];
        LaunchProfile p = device.createStream().profile(LaunchConfig.of(Dim3.of(2), Dim3.of(32)),
                t -> y[t.globalIdX()] = 1f).join();
        assertCompiled(p);
        assertEquals(2, p.warps());
        assertEquals(1f, y[63]);
    }

    @Test
    void profile_ordinaryLaunchesOfTheSameKernel_unchanged() {
        int[] y = new int[64];
        Kernel k = t -> y[t.threadIdxX()] += (t.threadIdxX() & 1) == 0 ? 1 : 2;
        String before = device.compileReport(k).listing();
        device.launch(Dim3.of(1), Dim3.of(64), k);
        device.profile(Dim3.of(1), Dim3.of(64), k);
        device.launch(Dim3.of(1), Dim3.of(64), k);
        assertEquals(before, device.compileReport(k).listing());
        assertEquals(3, y[0]);
        assertEquals(6, y[1]);
    }

    @Test
    void profile_ordinaryCodeHasNoCounters_profilingVariantHas(@TempDir Path dir) throws IOException, InterruptedException {
        // The generated classes, as -Dweft.simd.dump writes them: the ordinary one first, then the profiling variant.
        int[] y = new int[64];
        Kernel k = t -> y[t.threadIdxX()] = (t.threadIdxX() & 1) == 0 ? 1 : 2;
        Dumps.into(dir, () -> {
            device.launch(Dim3.of(1), Dim3.of(64), k);
            device.profile(Dim3.of(1), Dim3.of(64), k);
        });
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("profile_ordinaryCodeHasNoCounters"))
                    .sorted(Comparator.comparingInt(ProfilingTest::serial)).toList();
        }
        assertEquals(2, classes.size(), classes::toString);
        assertFalse(mentionsProfiling(Files.readAllBytes(classes.get(0))), "ordinary code refers to profiling");
        assertTrue(mentionsProfiling(Files.readAllBytes(classes.get(1))), "profiling variant counts nothing");
        assertEquals(2, y[1]);
    }

    /** The compiler's serial number at the end of a generated class's name. */
    private static int serial(Path classFile) {
        String name = classFile.getFileName().toString().replace(".class", "");
        return Integer.parseInt(name.substring(name.lastIndexOf('$') + 1));
    }

    private static boolean mentionsProfiling(byte[] classFile) {
        for (PoolEntry e : ClassFile.of().parse(classFile).constantPool()) {
            if (e instanceof ClassEntry c && c.asInternalName().endsWith("/Profiling")
                    || e instanceof Utf8Entry u && u.stringValue().equals("counters")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void profile_referenceExecutor_countsCtasAndWarpsAndSaysWhyNotTheRest() {
        try (Device ref = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE))) {
            int[] y = new int[40];
            LaunchProfile p = ref.profile(Dim3.of(2), Dim3.of(20), t -> y[t.globalIdX()] = 1);
            assertEquals("reference", p.executor());
            assertFalse(p.counted());
            assertEquals(2, p.ctas());
            assertEquals(2, p.warps());
            assertTrue(p.notCountedReason().contains("reference executor"), p.notCountedReason());
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::warpExecutionEfficiency);
            assertTrue(e.getMessage().contains("warp execution efficiency was not counted"), e.getMessage());
            assertTrue(p.toString().contains("not counted"), p.toString());
            assertEquals(1, y[39]);
        }
    }

    @Test
    void profile_declinedKernel_profileSaysWhy() {
        int[] y = new int[32];
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(32), t -> y[t.threadIdxX()] = new int[3].length);
        assertEquals("reference", p.executor());
        assertFalse(p.counted());
        assertTrue(p.notCountedReason().contains("array allocation"), p.notCountedReason());
        assertEquals(3, y[31]);
    }

    @Test
    void profile_failingKernel_throwsAsALaunchDoes() {
        int[] y = new int[10];
        assertThrows(KernelException.class, () -> device.profile(Dim3.of(1), Dim3.of(32), t -> y[t.threadIdxX()] = 1));
        // The device stays usable, profiled or not.
        LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(10), t -> y[t.threadIdxX()] = 2);
        assertEquals(1, p.ctas());
        assertEquals(2, y[9]);
    }
}
