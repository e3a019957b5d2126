package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;

/**
 * Lesson 15: read order. Which part of memory a CTA reads, and when, matters on a CPU in a way it does not on
 * a GPU.
 *
 * <p>CUDA's idiom for a kernel over more elements than threads is the grid-stride loop: thread {@code i} of
 * the grid reads elements {@code i}, {@code i + G}, {@code i + 2G}, ... where {@code G} is the number of threads
 * in the grid. On a GPU that is the best order there is: all resident warps advance together, so at any moment
 * the whole grid reads one contiguous stretch of memory, and each warp's 32 consecutive words coalesce into one
 * transaction. The other order a CUDA programmer may write gives each CTA its own contiguous slice, its threads
 * striding by the CTA's size within it; every warp still reads 32 consecutive words, so on a GPU the two run
 * alike.
 *
 * <p>On a CPU an SM is a core, and it runs one CTA at a time. In the grid-stride loop a CTA of 256 threads reads
 * 1 KiB, skips the other CTAs' 255 KiB, reads the next 1 KiB, and so on over the whole array: the core's
 * prefetchers, which follow streams within a page, see a new page at every step. With a slice per CTA the core
 * reads its 64 KiB from end to end, and the prefetchers run ahead of it. Same sums, same loads, same number of
 * threads. On the AMD Zen 4 the slices ran 1.2 to 1.4 times as fast; on an Intel Ice Lake virtual machine
 * (session 23) the ratio moved with the machine's state from run to run, 0.67 to 1.32: how far the prefetchers
 * follow a stream, and how the memory is shared, differ from machine to machine.
 *
 * <p>Both kernels sum 2^22 floats in 256 CTAs of 256 threads, each CTA ending with lesson 5's tree in shared
 * memory. The values are small integers, so every partial sum is exact in float and both totals equal the
 * plain loop's whatever the order. The benchmarks module's reduction is the grid-stride kernel: written by hand
 * with the Vector API in the same order ({@code ReductionBenchmark}'s {@code vectorApiCta}) it ran at about half
 * the rate of hand-written code that reads contiguous chunks, so the order costs as much by hand as compiled.
 * The timings are best-of-N wall times after 10 s of launches (C2 takes seconds over the kernels' methods on two
 * busy cores), there to show the order of magnitude; the benchmarks module measures properly (JMH).
 *
 * <p>Run it: {@code mvn -q -pl samples -am compile exec:exec -Dtour.args=15}. You should see both totals equal to
 * the plain loop's, and the two orders' times side by side: which is faster depends on the machine.
 */
public final class Sample15_ReadOrder {

    private Sample15_ReadOrder() {
    }

    static final int CTAS = 256;
    static final int THREADS = 256;

    /** CUDA's grid-stride loop: thread i sums elements i, i + G, i + 2G, ... for G threads in the grid. */
    static Kernel gridStride(int n, float[] in, float[] partials) {
        return t -> {
            float[] s = t.sharedFloats(THREADS);
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            treeSum(t, s, sum, partials);
        };
    }

    /** A contiguous slice per CTA: its threads stride by the CTA's size within it. */
    static Kernel slicePerCta(int n, float[] in, float[] partials) {
        return t -> {
            float[] s = t.sharedFloats(THREADS);
            int slice = (n + t.gridDimX() - 1) / t.gridDimX();
            int start = t.blockIdxX() * slice;
            int end = Math.min(n, start + slice);
            float sum = 0f;
            for (int i = start + t.threadIdxX(); i < end; i += t.blockDimX()) {
                sum += in[i];
            }
            treeSum(t, s, sum, partials);
        };
    }

    /** Lesson 5's tree: the CTA's sums halved at each barrier, thread 0 writing the CTA's partial. */
    static void treeSum(dev.weft.ThreadContext t, float[] s, float sum, float[] partials) {
        int tid = t.threadIdxX();
        s[tid] = sum;
        t.syncThreads();
        for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
            if (tid < stride) {
                s[tid] += s[tid + stride];
            }
            t.syncThreads();
        }
        if (tid == 0) {
            partials[t.blockIdxX()] = s[0];
        }
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 15: read order, the grid-stride loop against a slice per CTA");
        int n = 1 << 22;
        float[] in = new float[n];
        float expect = 0f;
        for (int i = 0; i < n; i++) {
            in[i] = (i * 7919) & 3;
            expect += in[i];
        }
        float[] stridePartials = new float[CTAS];
        float[] slicePartials = new float[CTAS];
        Kernel strided = gridStride(n, in, stridePartials);
        Kernel sliced = slicePerCta(n, in, slicePartials);
        Dim3 grid = Dim3.of(CTAS);
        Dim3 block = Dim3.of(THREADS);
        try (Device device = Device.create()) {
            device.launch(grid, block, strided);
            device.launch(grid, block, sliced);
            Lessons.check(sum(stridePartials) == expect, "the grid-stride total differs from the plain loop's");
            Lessons.check(sum(slicePartials) == expect, "the slice-per-CTA total differs from the plain loop's");

            // Launches until the JIT has compiled both kernels' code, then the best of 30 each. C2 compiles the
            // kernels' methods on two busy cores for several seconds: after 3 s one kernel could still run
            // interpreted, three to ten times slower (session 23, Ice Lake: 3.5-12 ms against 0.5-1.3).
            long warm = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < warm) {
                device.launch(grid, block, strided);
                device.launch(grid, block, sliced);
            }
            double msStrided = Lessons.bestMillis(30, () -> device.launch(grid, block, strided));
            double msSliced = Lessons.bestMillis(30, () -> device.launch(grid, block, sliced));
            CompileReport reportStrided = device.compileReport(strided);
            CompileReport reportSliced = device.compileReport(sliced);

            int sliceKiB = n / CTAS * Float.BYTES / 1024;
            int gridKiB = CTAS * THREADS * Float.BYTES / 1024;
            System.out.println("  sum of " + n + " floats, " + CTAS + " CTAs of " + THREADS + " threads; a CTA reads "
                    + THREADS * Float.BYTES / 1024 + " KiB per loop step");
            System.out.printf("  %-16s %-46s %s%n", "", "what a CTA reads", "time");
            System.out.printf("  %-16s %-46s %8.3f ms  %5.1f GB/s  (%s)%n", "grid-stride",
                    "1 KiB of every " + gridKiB + " KiB, over the whole array", msStrided, gb(n, msStrided), Lessons.executor(reportStrided));
            System.out.printf("  %-16s %-46s %8.3f ms  %5.1f GB/s  (%s)%n", "slice per CTA",
                    "its own " + sliceKiB + " KiB, end to end", msSliced, gb(n, msSliced), Lessons.executor(reportSliced));
            System.out.printf("  slice per CTA: %.2fx the grid-stride loop's speed%n", msStrided / msSliced);
            Lessons.check(reportStrided.compiled() && reportSliced.compiled(), "both kernels compiled by the SIMD backend");
        }
        System.out.println("  ok: both totals equal the plain loop's; on a GPU both orders coalesce, on a CPU a core");
        System.out.println("      runs one CTA at a time, and whether its prefetchers favour the slice depends on the machine");
    }

    private static float sum(float[] partials) {
        float total = 0f;
        for (float p : partials) {
            total += p;
        }
        return total;
    }

    private static double gb(int n, double ms) {
        return (double) n * Float.BYTES / (ms * 1e6);
    }
}
