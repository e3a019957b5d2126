package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntConsumer;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="ScanBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/scan.json"}
 *
 * <p>Inclusive prefix sum of 2^22 ints (16 MiB): each output depends on every input before it, so a
 * parallel scan needs a second pass. The Weft kernels are the CUDA ones, scan-then-propagate: CTAs of 256
 * threads, one element per thread; each warp scans its 32 values with five {@code shflUp} steps, lane 31
 * leaves the warp's total in shared memory, after a barrier warp 0 scans the eight totals with shuffles,
 * after another every warp adds the totals of the warps before it, and the CTA's last thread writes the
 * CTA's total. The CTA totals are scanned the same way, recursively (16384, then 64, then one CTA), and a
 * second kernel adds to every element the scanned total of the CTAs before its own. Reported in GB/s at
 * 8 bytes per element (read once, written once; the propagation pass rewrites the output, not counted).
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} scans 2^16 ints (every shuffle and barrier
 * suspends each thread), and {@code weft} too unless AUTO compiles the kernel
 * ({@link Devices#fullProblem}). The hand-written Vector API code is the same algorithm the SIMD way:
 * within a vector, log2(lanes) steps of "add the vector shifted up by d lanes" (the shuffle steps of a
 * warp), then the running total of the chunk broadcast and added; each chunk of 2^16 elements is scanned
 * by one worker, the chunk totals scanned on the caller, and a second parallel pass adds each chunk's
 * offset. {@code vectorApiCta} is the Weft kernels' own algorithm written by hand, the comparison issue #5 asks
 * for ("a hand-written Vector API version of the same algorithm"): each CTA's 256 elements scanned as above
 * (a vector for a warp, the running total for the warp totals' scan) and the CTA's total kept; the totals
 * scanned the same way, level by level up to one CTA; then each level's elements get the scanned total of
 * the CTAs before their own, from the top level down, as the propagation kernels do. Runs of 64 CTAs are
 * pulled by the workers (a CTA of 256 elements is too little work to fetch alone, where Weft's SMs take
 * CTAs from the distributor in their own runs). {@code vectorApiSerial} needs no second pass: one running
 * total over the whole array.
 * {@code javaSerial} is the running-sum loop; {@code javaParallel} copies the input and calls
 * {@link Arrays#parallelPrefix(int[], java.util.function.IntBinaryOperator)}. Integer sums (wrapping on
 * overflow) are exact in any order: every variant is checked exactly against {@code javaSerial}.
 *
 * <p>What you should see: the plain running sum already near memory bandwidth (one dependent integer add
 * per element), the in-register scan (three rearranges and masked adds per vector, plus the broadcast of
 * the running total) no faster on one thread, the two-pass parallel variants paying for their second pass;
 * the reference executor four orders of magnitude behind (two barriers and ten shuffles per thread).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class ScanBenchmark {

    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    /** Lane {@code l} of {@code SHIFT_UP[s]} reads lane {@code l - 2^s} (clamped; {@code ABOVE[s]} masks the clamped lanes out). */
    private static final VectorShuffle<Integer>[] SHIFT_UP = shiftsUp();
    /** The lanes {@code l >= 2^s}, which {@code SHIFT_UP[s]} feeds. */
    private static final VectorMask<Integer>[] ABOVE = lanesAbove();
    private static final VectorShuffle<Integer> LAST = VectorShuffle.fromOp(IS, l -> IS.length() - 1);
    private static final int N = 1 << 22;
    private static final int REFERENCE_N = 1 << 16;
    static final int BLOCK = 256;
    private static final int CHUNK = 1 << 16;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiCta", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private int[] in;
    private int[] out;
    private int[] chunkTotals;
    private Device device;
    /** Per level, bottom up: the kernel scanning that level's CTAs. */
    private final List<Kernel> scans = new ArrayList<>();
    /** Per level but the top, bottom up: the kernel adding the scanned totals of the level above. */
    private final List<Kernel> propagations = new ArrayList<>();
    private final List<Integer> levelSizes = new ArrayList<>();
    /** {@code vectorApiCta}'s arrays per level, bottom up: the level's CTA totals, and the same scanned. */
    private final List<int[]> ctaTotals = new ArrayList<>();
    private final List<int[]> scannedCtaTotals = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("scan")) ? N : REFERENCE_N;
        SplittableRandom r = new SplittableRandom(19);
        in = new int[n];
        for (int i = 0; i < n; i++) {
            in[i] = r.nextInt(-1000, 1000);
        }
        out = new int[n];
        chunkTotals = new int[(n + CHUNK - 1) / CHUNK];
        // a level of one CTA is scanned directly and keeps no totals
        for (int size = n; size > BLOCK; size = (size + BLOCK - 1) / BLOCK) {
            ctaTotals.add(new int[(size + BLOCK - 1) / BLOCK]);
            scannedCtaTotals.add(new int[(size + BLOCK - 1) / BLOCK]);
        }
        if (device != null) {
            buildLevels();
            Devices.describe("scan", impl, device, scans.get(0));
        }
        int[] expected = new int[n];
        javaScan(in, expected, 0, n, 0);
        run();
        if (!Arrays.equals(expected, out)) {
            throw new IllegalStateException(impl + " computes a different prefix sum than the plain loop");
        }
        Devices.settle(impl, this::run);
    }

    /** Scan kernels level by level until one CTA covers a level; each level's CTA totals are the next level's input. */
    private void buildLevels() {
        int[] levelIn = in;
        int[] levelOut = out;
        int size = n;
        while (true) {
            int ctas = (size + BLOCK - 1) / BLOCK;
            int[] totals = new int[ctas];
            scans.add(scanKernel(size, levelIn, levelOut, totals));
            levelSizes.add(size);
            if (ctas == 1) {
                return;
            }
            int[] scannedTotals = new int[ctas];
            propagations.add(addCtaOffsetsKernel(size, levelOut, scannedTotals));
            levelIn = totals;
            levelOut = scannedTotals;
            size = ctas;
        }
    }

    /**
     * The Weft kernel: an inclusive scan of each CTA's elements, warps by shuffles, warp totals through
     * shared memory; the CTA's total to {@code ctaTotals[blockIdx.x]}.
     */
    static Kernel scanKernel(int n, int[] in, int[] out, int[] ctaTotals) {
        return t -> {
            int[] warpTotals = t.sharedInts(32);
            int i = t.globalIdX();
            int lane = t.laneId();
            int warp = t.warpId();
            int warps = (t.blockDimX() + t.warpSize() - 1) / t.warpSize();
            int v = i < n ? in[i] : 0;
            for (int d = 1; d < t.warpSize(); d <<= 1) {
                int below = t.shflUp(v, d);
                if (lane >= d) {
                    v += below;
                }
            }
            if (lane == t.warpSize() - 1) {
                warpTotals[warp] = v;
            }
            t.syncThreads();
            if (warp == 0) {
                int w = lane < warps ? warpTotals[lane] : 0;
                for (int d = 1; d < t.warpSize(); d <<= 1) {
                    int below = t.shflUp(w, d);
                    if (lane >= d) {
                        w += below;
                    }
                }
                if (lane < warps) {
                    warpTotals[lane] = w;
                }
            }
            t.syncThreads();
            if (warp > 0) {
                v += warpTotals[warp - 1];
            }
            if (i < n) {
                out[i] = v;
            }
            if (t.threadIdxX() == t.blockDimX() - 1) {
                ctaTotals[t.blockIdxX()] = v;
            }
        };
    }

    /** The Weft kernel of the second pass: adds the scanned totals of the CTAs before this one. */
    static Kernel addCtaOffsetsKernel(int n, int[] out, int[] scannedCtaTotals) {
        return t -> {
            int i = t.globalIdX();
            int cta = t.blockIdxX();
            if (cta > 0 && i < n) {
                out[i] += scannedCtaTotals[cta - 1];
            }
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void scan(Work work, Blackhole bh) {
        run();
        work.add(n, 0, 8L * n);
        bh.consume(out);
    }

    private void run() {
        int chunks = chunkTotals.length;
        switch (impl) {
            case "weft", "weftReference" -> {
                for (int level = 0; level < scans.size(); level++) {
                    int size = levelSizes.get(level);
                    device.launch(Dim3.of((size + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), scans.get(level));
                }
                for (int level = propagations.size() - 1; level >= 0; level--) {
                    int size = levelSizes.get(level);
                    device.launch(Dim3.of((size + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), propagations.get(level));
                }
            }
            case "vectorApi" -> {
                Parallel.forEachChunk(chunks, c -> chunkTotals[c] = vectorScan(in, out, c * CHUNK, Math.min(n, (c + 1) * CHUNK), 0));
                for (int c = 1; c < chunks; c++) {
                    chunkTotals[c] += chunkTotals[c - 1];
                }
                // chunk c + 1 starts where chunk c ends
                Parallel.forEachChunk(chunks - 1, c -> vectorAdd(out, chunkTotals[c], (c + 1) * CHUNK, Math.min(n, (c + 2) * CHUNK)));
            }
            case "vectorApiCta" -> vectorCtaScan(in, out, n, 0);
            case "vectorApiSerial" -> vectorScan(in, out, 0, n, 0);
            case "javaSerial" -> javaScan(in, out, 0, n, 0);
            case "javaParallel" -> {
                System.arraycopy(in, 0, out, 0, n);
                Arrays.parallelPrefix(out, Integer::sum);
            }
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    /** Inclusive scan of {@code [from, to)} starting from {@code carry}; returns the last sum. */
    static int javaScan(int[] in, int[] out, int from, int to, int carry) {
        int sum = carry;
        for (int i = from; i < to; i++) {
            sum += in[i];
            out[i] = sum;
        }
        return sum;
    }

    /** CTAs pulled together by a worker in {@code vectorApiCta}. */
    private static final int CTAS_PER_RUN = 64;

    /**
     * The kernels' algorithm written by hand over level {@code level}: {@code dst} gets the inclusive scan of
     * {@code src[0, size)}, each CTA's elements scanned on their own, then the CTA totals (recursively), then
     * each CTA's offset added.
     */
    private void vectorCtaScan(int[] src, int[] dst, int size, int level) {
        int ctas = (size + BLOCK - 1) / BLOCK;
        if (ctas == 1) {
            vectorScan(src, dst, 0, size, 0);
            return;
        }
        int[] totals = ctaTotals.get(level);
        int[] scanned = scannedCtaTotals.get(level);
        forEachCtaRun(ctas, cta -> totals[cta] = vectorScan(src, dst, cta * BLOCK, Math.min(size, (cta + 1) * BLOCK), 0));
        vectorCtaScan(totals, scanned, ctas, level + 1);
        // CTA c + 1 adds the scanned totals of CTAs 0 to c
        forEachCtaRun(ctas - 1, c -> vectorAdd(dst, scanned[c], (c + 1) * BLOCK, Math.min(size, (c + 2) * BLOCK)));
    }

    private static void forEachCtaRun(int ctas, IntConsumer cta) {
        Parallel.forEachChunk((ctas + CTAS_PER_RUN - 1) / CTAS_PER_RUN, run -> {
            for (int c = run * CTAS_PER_RUN, end = Math.min(ctas, c + CTAS_PER_RUN); c < end; c++) {
                cta.accept(c);
            }
        });
    }

    /** As {@link #javaScan}, a vector at a time: shift-and-add steps within the vector, then the running total added. */
    static int vectorScan(int[] in, int[] out, int from, int to, int carry) {
        IntVector total = IntVector.broadcast(IS, carry);
        int i = from;
        for (int upper = from + IS.loopBound(to - from); i < upper; i += IS.length()) {
            IntVector v = IntVector.fromArray(IS, in, i);
            for (int s = 0; s < SHIFT_UP.length; s++) {
                v = v.add(v.rearrange(SHIFT_UP[s]), ABOVE[s]);
            }
            v = v.add(total);
            v.intoArray(out, i);
            total = v.rearrange(LAST);
        }
        return javaScan(in, out, i, to, total.lane(0));
    }

    static void vectorAdd(int[] out, int offset, int from, int to) {
        int i = from;
        for (int upper = from + IS.loopBound(to - from); i < upper; i += IS.length()) {
            IntVector.fromArray(IS, out, i).add(offset).intoArray(out, i);
        }
        for (; i < to; i++) {
            out[i] += offset;
        }
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Integer>[] shiftsUp() {
        int steps = Integer.numberOfTrailingZeros(IS.length());
        VectorShuffle<Integer>[] shifts = new VectorShuffle[steps];
        for (int s = 0; s < steps; s++) {
            int d = 1 << s;
            shifts[s] = VectorShuffle.fromOp(IS, l -> Math.max(0, l - d));
        }
        return shifts;
    }

    @SuppressWarnings("unchecked")
    private static VectorMask<Integer>[] lanesAbove() {
        int steps = Integer.numberOfTrailingZeros(IS.length());
        VectorMask<Integer>[] masks = new VectorMask[steps];
        for (int s = 0; s < steps; s++) {
            masks[s] = IntVector.zero(IS).addIndex(1).compare(VectorOperators.GE, 1 << s);
        }
        return masks;
    }
}
