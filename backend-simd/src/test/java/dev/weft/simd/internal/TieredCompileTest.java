package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kernels with barriers compile in two tiers (see {@link Compiler.Resumed}): the compile returns a class with the
 * general methods only, and a background compile adds the methods per resume point, which the kernel's binder
 * then binds. Both classes must compute the same results. The tests hold the second tier back while they run
 * the first (a user's compile in flight makes background work wait, see {@link Background}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TieredCompileTest {

    private static final int WARP = 32;
    private static final int SHARED = 48 * 1024;
    private static final DeviceShape SHAPE = new DeviceShape(WARP, SHARED);

    @Test
    void blockSum_generalThenResumeMethods_sameResults() throws Exception {
        int block = 128;
        int blocks = 5;
        int[] in = new int[block * blocks - 37];
        for (int i = 0; i < in.length; i++) {
            in[i] = (i * 7919) % 1000 - 500;
        }
        int[] out = new int[blocks];
        Kernel k = t -> {
            int[] s = t.sharedInts(128);
            int tid = t.threadIdxX();
            int i = t.blockIdxX() * t.blockDimX() + tid;
            s[tid] = i < in.length ? in[i] : 0;
            t.syncThreads();
            for (int d = t.blockDimX() / 2; d > 0; d >>= 1) {
                if (tid < d) {
                    s[tid] += s[tid + d];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                out[t.blockIdxX()] = s[0];
            }
        };
        int[] expected = new int[blocks];
        for (int i = 0; i < in.length; i++) {
            expected[i / block] += in[i];
        }
        Dim3 grid = new Dim3(blocks, 1, 1);
        Dim3 cta = new Dim3(block, 1, 1);
        int[][] results = bothTiers(k, grid, cta, () -> Arrays.fill(out, 0), () -> out.clone());
        assertArrayEquals(expected, results[0], "general methods only");
        assertArrayEquals(expected, results[1], "with the methods per resume point");
    }

    @Test
    void tiledMatmul_generalThenResumeMethods_sameResults() throws Exception {
        int n = 32;
        float[] a = new float[n * n];
        float[] b = new float[n * n];
        float[] c = new float[n * n];
        for (int i = 0; i < n * n; i++) {
            a[i] = (i % 7) * 0.5f;
            b[i] = (i % 5) * 0.25f;
        }
        Kernel k = t -> {
            float[] as = t.sharedFloats(256);
            float[] bs = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * 16 + ty;
            int col = t.blockIdxX() * 16 + tx;
            float sum = 0f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                as[ty * 16 + tx] = a[row * n + k0 + tx];
                bs[ty * 16 + tx] = b[(k0 + ty) * n + col];
                t.syncThreads();
                for (int kk = 0; kk < 16; kk++) {
                    sum += as[ty * 16 + kk] * bs[kk * 16 + tx];
                }
                t.syncThreads();
            }
            c[row * n + col] = sum;
        };
        float[] expected = new float[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0f;
                for (int kk = 0; kk < n; kk++) {
                    sum += a[i * n + kk] * b[kk * n + j];
                }
                expected[i * n + j] = sum;
            }
        }
        float[][] results = bothTiers(k, new Dim3(n / 16, n / 16, 1), new Dim3(16, 16, 1), () -> Arrays.fill(c, 0f), () -> c.clone());
        assertArrayEquals(expected, results[0], "general methods only");
        assertArrayEquals(expected, results[1], "with the methods per resume point");
    }

    /**
     * The uniform longs computed last before the barrier take the method's last locals, and the method per the
     * barrier's resume point jumps over that code. Its class did not load and the kernel kept its general methods
     * (fuzz seed 0x20200043): a Java 5 class file's max_locals was counted over the code its entry reaches, and the
     * JVM's verifier checks the locals of unreachable code too.
     */
    @Test
    void localsOnlyBeforeTheResumePoint_resumeMethodsLoad() throws Exception {
        int block = 96;
        int blocks = 3;
        long[] in = new long[block * blocks];
        for (int i = 0; i < in.length; i++) {
            in[i] = i * 0x9E3779B97F4A7C15L;
        }
        int pick = 17;
        long[] out = new long[in.length];
        Kernel k = t -> {
            long[] s = t.sharedLongs(96);
            int tid = t.threadIdxX();
            int i = t.blockIdxX() * t.blockDimX() + tid;
            out[i] += in[(tid + 10) % 96];
            Atomics.or(s, 5, (2630620544280042210L + in[pick]) << 7);
            t.syncThreads();
            out[i] += s[(tid + 10) % 96];
        };
        long[] expected = new long[in.length];
        for (int i = 0; i < in.length; i++) {
            int tid = i % block;
            expected[i] = in[(tid + 10) % 96] + ((tid + 10) % 96 == 5 ? (2630620544280042210L + in[pick]) << 7 : 0);
        }
        long[][] results = bothTiers(k, new Dim3(blocks, 1, 1), new Dim3(block, 1, 1), () -> Arrays.fill(out, 0L), () -> out.clone());
        assertArrayEquals(expected, results[0], "general methods only");
        assertArrayEquals(expected, results[1], "with the methods per resume point");
    }

    /**
     * Compiles {@code k}, runs its first tier while holding the second back, then waits for the second, checks
     * the binder took it, and runs it: the outputs of the two runs.
     */
    private static <T> T[] bothTiers(Kernel k, Dim3 grid, Dim3 block, Runnable clear,
            java.util.function.Supplier<T> output) throws Exception {
        // Off with -Dweft.simd.backgroundResume=false (one tier, as before) or -Dweft.simd.noResumeMethods=true.
        assumeTrue(Compiler.BACKGROUND_RESUME && !Boolean.getBoolean("weft.simd.noResumeMethods"), "tiered compile is off");
        SimdBackend backend = new SimdBackend();
        Object[] results = new Object[2];
        CompiledKernel compiled;
        CtaProgram first;
        // As a user's compile in flight would: the second tier waits at its start.
        Background.foregroundBegin();
        try {
            Compilation c = backend.compile(k, SHAPE);
            assertTrue(c instanceof Compilation.Compiled, c::toString);
            compiled = ((Compilation.Compiled) c).kernel();
            assertTrue(compiled.report().listing().contains("compiled in the background"), compiled.report().listing());
            first = compiled.bind(k);
            assertFalse(hasResumeMethods(first.getClass()), "the first tier has the general methods only");
            clear.run();
            run(first, grid, block);
            results[0] = output.get();
        } finally {
            Background.foregroundEnd();
        }
        assertTrue(Background.awaitIdle(100_000), "the second tier did not finish");
        CtaProgram second = compiled.bind(k);
        assertNotSame(first.getClass(), second.getClass());
        assertTrue(hasResumeMethods(second.getClass()), "the binder took the class with the methods per resume point");
        clear.run();
        run(second, grid, block);
        results[1] = output.get();
        @SuppressWarnings("unchecked")
        T[] typed = (T[]) java.lang.reflect.Array.newInstance(results[0].getClass(), 2);
        typed[0] = (T) results[0];
        typed[1] = (T) results[1];
        return typed;
    }

    private static boolean hasResumeMethods(Class<?> program) {
        for (Method m : program.getDeclaredMethods()) {
            if (m.getName().endsWith("$0")) {
                return true;
            }
        }
        return false;
    }

    private static void run(CtaProgram program, Dim3 grid, Dim3 block) {
        Cta cta = new Cta();
        for (int y = 0; y < grid.y(); y++) {
            for (int x = 0; x < grid.x(); x++) {
                cta.start(x, y, 0, grid, block, WARP, null, SHARED, "tiered compile test");
                program.runCta(cta);
            }
        }
    }
}
