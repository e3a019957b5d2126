package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import java.util.Arrays;

/**
 * Lesson 13: access patterns. A GPU's memory rewards a warp whose threads touch consecutive words: global
 * loads coalesce into a few transactions, and shared-memory accesses spread over the 32 banks. The same
 * pattern is what a SIMD machine rewards: consecutive words are one vector load or store, anything else is
 * a gather or scatter, one element at a time. So the rules CUDA programmers learn carry over, with one
 * exception this lesson shows.
 *
 * <p>Three kernels stage every CTA's 256 elements through a 32 × 8 tile in shared memory and copy them
 * back out, each with its own layout of the tile; all three compute the same output. {@code rows} keeps
 * the tile as it lies in memory: thread i uses word i. {@code columns} stores it transposed: consecutive
 * threads use words 8 apart. On a GPU a warp's 32 words then fall in 4 of the 32 banks, 8 to a bank, so
 * the access is served in 8 rounds (an 8-way bank conflict); Weft's compiler, which sees the index as
 * {@code base + 8 * lane}, turns it into a strided scatter and gather. {@code padded} is the CUDA fix:
 * rows of 9 words, so consecutive threads use words 9 apart, all in different banks. On a GPU that
 * removes the conflict; on a SIMD machine the words are still not consecutive, and it is still a scatter.
 * Padding fixes banks, not vectors: only a layout in which consecutive threads use consecutive words is
 * free on both.
 *
 * <p>The lesson computes each layout's bank conflict for a warp from the same index function the kernel
 * uses, quotes the line of the compile report that says what the backend made of the store, and times the
 * three kernels on the SIMD backend. Benchmarks measure properly (JMH, in the benchmarks module); these
 * timings are best-of-N wall times, there to show the order of magnitude. The register-blocked sgemm in
 * the benchmarks had such a store (16 words apart: 16-way) until session 14; storing its tile as it lies
 * made it some 20% faster.
 *
 * <p>Run it: {@code mvn -q -pl samples -am compile exec:exec -Dtour.args=13}. You should see no conflict
 * for {@code rows} and {@code padded} and an 8-way conflict for {@code columns}; a vector store for {@code
 * rows} and strided stores for the other two; and {@code rows} the fastest.
 */
public final class Sample13_AccessPatterns {

    private Sample13_AccessPatterns() {
    }

    /** Threads per CTA; the tile is 32 × 8. */
    private static final int BLOCK = 256;

    /** Shared word of thread {@code tid}: the tile as it lies in memory. */
    static int rows(int tid) {
        return tid;
    }

    /** Shared word of thread {@code tid}: the tile transposed, consecutive threads 8 words apart. */
    static int columns(int tid) {
        return (tid & 31) * 8 + (tid >> 5);
    }

    /** Shared word of thread {@code tid}: transposed into rows of 9 words, consecutive threads 9 apart. */
    static int padded(int tid) {
        return (tid & 31) * 9 + (tid >> 5);
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 13: access patterns, coalescing and bank conflicts on SIMD");
        int n = BLOCK * 512;   // 512 KiB per array: in the cache, so the tile's accesses are a large part of the time
        int[] in = new int[n];
        for (int i = 0; i < n; i++) {
            in[i] = i * 31 + 7;
        }
        int[] outRows = new int[n];
        int[] outColumns = new int[n];
        int[] outPadded = new int[n];

        // The same kernel three times, each with its own layout: the index functions are static methods of
        // this class, which the compiler inlines.
        Kernel rowsKernel = t -> {
            int[] tile = t.sharedInts(BLOCK);
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            tile[rows(tid)] = in[i];
            t.syncThreads();
            outRows[i] = tile[rows(tid)];
        };
        Kernel columnsKernel = t -> {
            int[] tile = t.sharedInts(BLOCK);
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            tile[columns(tid)] = in[i];
            t.syncThreads();
            outColumns[i] = tile[columns(tid)];
        };
        Kernel paddedKernel = t -> {
            int[] tile = t.sharedInts(32 * 9);
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            tile[padded(tid)] = in[i];
            t.syncThreads();
            outPadded[i] = tile[padded(tid)];
        };

        Dim3 grid = Dim3.of(n / BLOCK);
        Dim3 block = Dim3.of(BLOCK);
        try (Device device = Device.create();
                Device ref = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE))) {
            String[] names = {"rows", "columns", "padded"};
            Kernel[] kernels = {rowsKernel, columnsKernel, paddedKernel};
            int[][] outs = {outRows, outColumns, outPadded};
            System.out.println("  " + n + " ints through a 32 x 8 shared tile per CTA, three layouts of the tile");
            System.out.printf("  %-8s %-26s %-12s %s%n", "layout", "GPU: a warp's shared store", "Weft: time", "Weft: the store");
            for (int k = 0; k < kernels.length; k++) {
                device.launch(grid, block, kernels[k]);
                Lessons.check(Arrays.equals(outs[k], in), names[k] + " copies every element");
            }
            // Launches until the JIT has compiled the kernels' code (a few seconds), then the best of 50 each.
            long warm = System.nanoTime() + 4_000_000_000L;
            while (System.nanoTime() < warm) {
                for (Kernel kernel : kernels) {
                    device.launch(grid, block, kernel);
                }
            }
            for (int k = 0; k < kernels.length; k++) {
                int kk = k;
                CompileReport report = device.compileReport(kernels[k]);
                double ms = Lessons.bestMillis(50, () -> device.launch(grid, block, kernels[kk]));
                System.out.printf("  %-8s %-26s %8.3f ms  %s%n", names[k], conflict(k), ms, storeLine(report));
            }
            // The reference executor, the specification, agrees with all three.
            int[] refOut = new int[n];
            ref.launch(grid, block, t -> {
                int[] tile = t.sharedInts(32 * 9);
                int tid = t.threadIdxX();
                int i = t.globalIdX();
                tile[padded(tid)] = in[i];
                t.syncThreads();
                refOut[i] = tile[padded(tid)];
            });
            Lessons.check(Arrays.equals(refOut, outPadded), "the reference executor agrees");
            Lessons.check(ways(0) == 1 && ways(1) == 8 && ways(2) == 1, "bank conflicts: 1, 8 and 1 way");
        }
        System.out.println("  ok: consecutive threads on consecutive words is the fast pattern on both machines;");
        System.out.println("      padding removes a GPU's bank conflict but leaves a SIMD machine's scatter");
    }

    /**
     * The bank conflict of the first warp's shared access under layout {@code k}: the most distinct words any
     * one of the 32 four-byte banks must serve (threads reading one word share it, a broadcast).
     */
    static int ways(int k) {
        java.util.Map<Integer, java.util.Set<Integer>> wordsPerBank = new java.util.HashMap<>();
        for (int tid = 0; tid < 32; tid++) {
            int word = k == 0 ? rows(tid) : k == 1 ? columns(tid) : padded(tid);
            wordsPerBank.computeIfAbsent(word % 32, b -> new java.util.HashSet<>()).add(word);
        }
        int worst = 0;
        for (java.util.Set<Integer> words : wordsPerBank.values()) {
            worst = Math.max(worst, words.size());
        }
        return worst;
    }

    private static String conflict(int k) {
        int w = ways(k);
        return w == 1 ? "no bank conflict" : w + "-way bank conflict";
    }

    /** The compile report's line for the store into the tile (the first store into a shared array). */
    private static String storeLine(CompileReport report) {
        if (!report.compiled()) {
            return "(not compiled: " + report.executor() + " executor)";
        }
        for (String line : report.listing().split("\n")) {
            if (line.matches("\\s*u\\d+\\[.*\\] = .*//.*")) {
                return line.substring(line.indexOf("//") + 2).replaceAll("\\s*\\(line \\d+\\)", "").trim();
            }
        }
        return "(not in the listing)";
    }
}
