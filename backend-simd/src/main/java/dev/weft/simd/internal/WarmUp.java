package dev.weft.simd.internal;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.gen.Lanes;
import dev.weft.simd.internal.gen.Permutes;
import java.util.Objects;

/**
 * Compiles three small kernels on a daemon thread when the first compiling device is created, and runs their
 * CTAs there, so that two one-time costs fall there and not on user kernels.
 *
 * <p>Compiling: the compiler's own costs (loading some 2,000 classes of the ClassFile and Vector APIs and of
 * the compiler, and running it interpreted). Measured here in a fresh JVM: a saxpy compile took 250 ms cold
 * against 10-40 ms after this warm-up.
 *
 * <p>Running: the Vector API's methods' own profiles. C2 resolves a virtual call inside a JDK method (the
 * bounds check of a masked store calls {@code anyTrue()} and {@code firstTrue()} on a mask; {@code
 * lanewise(op, scalar)} calls {@code broadcast}) from that method's type profile, shared by every caller in the
 * JVM, wherever the receiver's exact class is unknown at parse time (a value merged from two paths or loaded at
 * an OSR entry). Where the profile is empty because C2 compiled the kernel before those JDK methods were
 * profiled, the call stays virtual and each vector or mask passed to it is boxed: measured here, 2 to 2.6 KB per
 * 256-thread CTA and some 2x slower, in 4 runs of 14 of a 4-kernel harness (and, by the previous engineer, the
 * Java fallback at 50-100x in about 1 run of 3-4 in JMH). Running these kernels' CTAs, interpreted, with odd
 * sizes (tail CTAs straddling the arrays' ends), divergent branches, a loop and {@code Math.exp}, gives those
 * methods monomorphic profiles of the preferred species before user kernels reach C2: 0 bytes per CTA in 8 runs
 * of 8 after. It takes some 3 s of one core at minimum priority, in the background.
 *
 * <p>Four more kernels are compiled and bound but never run: they cover the compiler's other paths (barriers,
 * 2D variants, atomics, shuffles, many parameters), some 140 ms of one core's CPU here after the first three
 * (270 ms). Together with the background binder ({@link Binder}) and the compiler's own changes of the same
 * round (see {@link Compiler}), measured by the compiling thread's CPU time, medians of 3 fresh JVMs: a user's
 * kernel compiled 1 s after the device was created took 57 instead of 78 ms (black-scholes), 37 instead of 47
 * (mandelbrot), 66 instead of 85 (tiled sgemm); after two other kernels 18 to 29 ms instead of 31 to 52.
 *
 * <p>The CTA runs wait while a user's compile is under way (see {@link Background}): 0.5 s after the device was
 * created they were taking as much CPU as the user's compile on two cores. The compiles here do not wait: made to
 * give way at their phase boundaries (before parsing, analyses and code generation; removed in session 20), the
 * user's compile waited less for a core but did the warm-up's class loading and linking itself (the compiling
 * thread's CPU 64-130 ms instead of 44-79; FirstCompileBenchmark, first kernel at once after the device,
 * interleaved fresh JVMs), for the same wall time within noise.
 *
 * <p>Their compilations are cached like any other, under this class. A failure here is ignored: the first real
 * compile then simply pays the cost itself.
 */
final class WarmUp {

    private static final int WARP = 32;
    private static final int BLOCK = 256;
    private static final int SHARED = 48 * 1024;
    /**
     * Rounds over the 4 CTAs of each kernel: 480 interpreted CTAs, some 3 s in the background here, with which 8
     * runs of 8 were clean; not tuned further.
     */
    private static final int ROUNDS = 40;

    private WarmUp() {
    }

    /** Starts the warm-up thread. */
    static void start(SimdBackend backend) {
        Background.start("weft-compiler-warm-up", () -> run(backend));
    }

    private static void run(SimdBackend backend) {
        try {
            DeviceShape shape = new DeviceShape(WARP, SHARED);
            // Odd sizes: the last CTA's vectors straddle the arrays' ends (masked stores past a bounds check).
            int n = 3 * BLOCK + 13;
            float[] x = new float[n];
            float[] y = new float[n];
            int[] out = new int[n];
            for (int i = 0; i < n; i++) {
                x[i] = i * 0.25f;
            }
            Dim3 grid = new Dim3((n + BLOCK - 1) / BLOCK, 1, 1);
            Dim3 block = new Dim3(BLOCK, 1, 1);
            // Compiled as a launch compiles them: the variant their CTAs run (see Compiler.Menu).
            Kernel[] kernels = {saxpy(x, y, 2f), escape(out, 0.5f / n, 64), parity(x, y, 0.5f)};
            CtaProgram[] programs = new CtaProgram[kernels.length];
            for (int k = 0; k < kernels.length; k++) {
                if (backend.compile(kernels[k], shape, block) instanceof Compilation.Compiled c) {
                    programs[k] = c.kernel().bind(kernels[k], block);
                }
            }
            // Compiled and bound, never run: they take the compiler down the paths the three above do not
            // (barriers and phases, 2D variants, shared memory, atomics, warp shuffles, many parameters), so that
            // a user kernel's first compile finds that code loaded, linked and partly JIT-compiled. Not run,
            // so that the Vector API's profiles stay those of the kernels above. Every variant: a report, or a
            // launch in CTAs of another shape, compiles the others.
            float[] z = new float[n];
            Kernel[] paths = {tile(x, y, z, 19), options(n, 0.02f, 0.3f, x, y, z, out, 1.5f, 2, 0.25),
                    histogram(out, new int[64]), warpSum(x, y)};
            for (Kernel k : paths) {
                if (backend.compile(k, shape) instanceof Compilation.Compiled c) {
                    c.kernel().bind(k);
                }
            }
            // The constant tables of warp shuffles and scans and the 64-bit species, which no compile builds (see
            // Permutes, Lanes.Wide): built here, so that a user kernel's first run does not build them.
            Background.yieldToForeground();
            Objects.requireNonNull(Permutes.SCAN_LAST);
            Objects.requireNonNull(Lanes.Wide.DS);
            Cta cta = new Cta();
            for (int round = 0; round < ROUNDS; round++) {
                for (CtaProgram p : programs) {
                    if (p == null) {
                        continue;
                    }
                    for (int b = 0; b < grid.x(); b++) {
                        Background.yieldToForeground();
                        cta.start(b, 0, 0, grid, block, WARP, null, SHARED, "warm-up");
                        p.runCta(cta);
                    }
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // Only a cost moved, not a result: the first real compile and run pay it instead.
        }
    }

    private static Kernel saxpy(float[] x, float[] y, float a) {
        return t -> {
            int i = t.globalIdX();
            if (i < y.length) {
                y[i] = a * x[i] + y[i];
            }
        };
    }

    /** Lane-divergent float arithmetic with uniform operands, both sides of a branch storing under masks. */
    private static Kernel parity(float[] x, float[] y, float a) {
        return t -> {
            int i = t.globalIdX();
            if (i < y.length) {
                if ((i & 1) == 0) {
                    y[i] = x[i] * a + 1f;
                } else {
                    y[i] = (float) Math.exp(x[i] - a);
                }
            }
        };
    }

    /** A tiled 2D product: shared memory, barriers in a loop, threadIdx.x and .y (every CTA shape variant). */
    private static Kernel tile(float[] a, float[] b, float[] c, int n) {
        return t -> {
            float[] as = t.sharedFloats(16 * 16);
            float[] bs = t.sharedFloats(16 * 16);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * 16 + ty;
            int col = t.blockIdxX() * 16 + tx;
            float sum = 0f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                as[ty * 16 + tx] = row < n && k0 + tx < n ? a[row * n + k0 + tx] : 0f;
                bs[ty * 16 + tx] = k0 + ty < n && col < n ? b[(k0 + ty) * n + col] : 0f;
                t.syncThreads();
                for (int k = 0; k < 16; k++) {
                    sum += as[ty * 16 + k] * bs[k * 16 + tx];
                }
                t.syncThreads();
            }
            if (row < n && col < n) {
                c[row * n + col] = sum;
            }
        };
    }

    /**
     * Many parameters of several kinds (the binder's method handles for them are built once per JVM), division,
     * square root, logarithm and exponential. (Weft's own methods are not inlined by the parser, so no helper.)
     */
    private static Kernel options(int n, float r, float v, float[] s, float[] k, float[] years, int[] flags, float scale,
            long seed, double bias) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float tt = years[i] + 1f;
                float sqrtT = (float) Math.sqrt(tt);
                float d1 = ((float) Math.log((s[i] + 1f) / (k[i] + 1f)) + (r + 0.5f * v * v) * tt) / (v * sqrtT);
                float e = (float) Math.exp(-r * tt) * scale;
                float q = 1f / (1f + 0.2316419f * Math.abs(d1));
                float c = 0.39894228f * (float) Math.exp(-0.5f * d1 * d1) * (q * (0.31938153f + q * -0.356563782f));
                s[i] = (d1 > 0 ? 1f - c : c) * e + (float) bias;
                flags[i] = d1 > 0 ? (int) (seed + i) : -1;
            }
        };
    }

    /** Shared-memory atomics in grid-stride loops. */
    private static Kernel histogram(int[] data, int[] bins) {
        return t -> {
            int[] local = t.sharedInts(64);
            int tid = t.threadIdxX();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < data.length; i += t.blockDimX() * t.gridDimX()) {
                dev.weft.Atomics.add(local, data[i] & 63, 1);
            }
            t.syncThreads();
            for (int b = tid; b < 64; b += t.blockDimX()) {
                if (local[b] != 0) {
                    dev.weft.Atomics.add(bins, b, local[b]);
                }
            }
        };
    }

    /** A warp reduction by shuffles. */
    private static Kernel warpSum(float[] in, float[] out) {
        return t -> {
            int i = t.globalIdX();
            float v = i < in.length ? in[i] : 0f;
            for (int d = 16; d > 0; d >>= 1) {
                v += t.shflDown(v, d);
            }
            if (t.laneId() == 0 && i < out.length) {
                out[i / 32] = v;
            }
        };
    }

    private static Kernel escape(int[] out, float scale, int limit) {
        return t -> {
            int i = t.globalIdX();
            if (i >= out.length) {
                return;
            }
            float c = scale * i;
            float z = 0f;
            int n = 0;
            for (; n < limit; n++) {
                z = z * z + c;
                if (Math.abs(z) > 2f) {
                    break;
                }
            }
            out[i] = n + (int) Math.sqrt(Math.max(z, 0f));
        };
    }
}
