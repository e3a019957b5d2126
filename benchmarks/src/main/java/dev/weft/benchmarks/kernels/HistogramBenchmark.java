package dev.weft.benchmarks.kernels;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.IntVector;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="HistogramBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/histogram.json"}
 *
 * <p>A 256-bin histogram of 2^22 random bin indices, ints in [0, 256) (16 MiB): scattered read-modify-writes,
 * where threads that hit the same bin must not lose updates. The data are ints, not bytes, in every variant:
 * until session 16 Weft's SIMD backend declined byte arrays, and the input stays what it was so that the figures
 * compare across sessions. The Weft kernel is the CUDA one: a fixed grid of 64 CTAs of 256
 * threads; each CTA zeroes a histogram in shared memory, its threads count a grid-stride slice with
 * shared-memory atomics, and after a barrier add the CTA's non-zero bins to the global histogram with
 * global atomics. Reported in elements (values counted) per second and GB/s at 4 bytes per element; zeroing
 * the global histogram is part of every variant's invocation.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} counts 2^20 values, and {@code weft} too
 * unless AUTO compiles the kernel ({@link Devices#fullProblem}). The hand-written Vector API code
 * privatises as CPU code does: each chunk of 2^16 values counts into its own histogram with plain
 * increments (as Weft's per-CTA shared ones, without atomics since one worker owns it), and the chunk
 * histograms are merged with vector adds. The counting is scalar because the SIMD way, a private histogram
 * per lane updated by gather and scatter, measured 10–15 times slower than scalar increments on the AVX2
 * machine of the early sessions (AVX2 has no scatter instruction, and the Vector API falls back to a Java
 * loop); Weft's compiled kernel counts a lane at a time too. {@code vectorApiCta} is
 * the Weft kernel's own algorithm written by hand, the comparison issue #5 asks for ("a hand-written Vector API
 * version of the same algorithm"): the same 64 CTAs pulled by the workers as CTAs by SMs, each counting its
 * grid-stride slice into its own histogram, a stride's 256 values (one per thread) before the next stride's,
 * then the CTAs' histograms merged with vector adds (where the kernel's CTAs add theirs with global atomics).
 * Its counting is scalar for the reason above. {@code javaParallel}
 * is a parallel stream collecting into per-split histograms. Counts are integers: every variant is checked
 * exactly against {@code javaSerial}.
 *
 * <p>What you should see: the privatised CPU variants close to each other, the plain serial loop not far
 * behind (one increment per value); on the reference executor every count is a {@code VarHandle} atomic
 * add, a locked instruction per value.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class HistogramBenchmark {

    private static final VectorSpecies<Integer> IS = IntVector.SPECIES_PREFERRED;
    private static final int N = 1 << 22;
    private static final int REFERENCE_N = 1 << 20;
    static final int BINS = 256;
    static final int BLOCK = 256;
    static final int CTAS = 64;
    private static final int CHUNK = 1 << 16;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiCta", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private int[] data;
    private int[] bins;
    private int[][] chunkBins;
    private int[][] ctaBins;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("histogram")) ? N : REFERENCE_N;
        data = new SplittableRandom(13).ints(n, 0, BINS).toArray();
        bins = new int[BINS];
        chunkBins = new int[(n + CHUNK - 1) / CHUNK][BINS];
        ctaBins = new int[CTAS][BINS];
        if (device != null) {
            kernel = histogramKernel(n, data, bins);
            Devices.describe("histogram", impl, device, kernel);
        }
        int[] expected = new int[BINS];
        javaCount(data, 0, n, expected);
        run();
        if (!Arrays.equals(expected, bins)) {
            throw new IllegalStateException(impl + " counts a different histogram than the plain loop");
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: a shared-memory histogram per CTA, then its bins added to the global one. */
    static Kernel histogramKernel(int n, int[] data, int[] bins) {
        return t -> {
            int[] local = t.sharedInts(BINS);
            int tid = t.threadIdxX();
            for (int b = tid; b < BINS; b += t.blockDimX()) {
                local[b] = 0;
            }
            t.syncThreads();
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                Atomics.add(local, data[i], 1);
            }
            t.syncThreads();
            for (int b = tid; b < BINS; b += t.blockDimX()) {
                int count = local[b];
                if (count != 0) {
                    Atomics.add(bins, b, count);
                }
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
    public void histogram(Work work, Blackhole bh) {
        run();
        work.add(n, 0, 4L * n);
        bh.consume(bins);
    }

    private void run() {
        Arrays.fill(bins, 0);
        int chunks = chunkBins.length;
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of(CTAS), Dim3.of(BLOCK), kernel);
            case "vectorApi" -> {
                Parallel.forEachChunk(chunks, this::countChunk);
                vectorMerge(chunkBins, bins);
            }
            case "vectorApiCta" -> {
                Parallel.forEachChunk(CTAS, cta -> countCta(data, n, cta, ctaBins[cta]));
                vectorMerge(ctaBins, bins);
            }
            case "vectorApiSerial" -> {
                for (int c = 0; c < chunks; c++) {
                    countChunk(c);
                }
                vectorMerge(chunkBins, bins);
            }
            case "javaSerial" -> javaCount(data, 0, n, bins);
            case "javaParallel" -> {
                int[] h = IntStream.range(0, n).parallel().collect(() -> new int[BINS], (acc, i) -> acc[data[i]]++, (x, y) -> {
                    for (int b = 0; b < BINS; b++) {
                        x[b] += y[b];
                    }
                });
                System.arraycopy(h, 0, bins, 0, BINS);
            }
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    private void countChunk(int c) {
        int[] h = chunkBins[c];
        Arrays.fill(h, 0);
        javaCount(data, c * CHUNK, Math.min(n, (c + 1) * CHUNK), h);
    }

    /**
     * The kernel's counting written by hand for CTA {@code cta}: thread {@code t} counts {@code data[cta * BLOCK + t]}
     * and every {@code BLOCK * CTAS}-th value after it, every thread a value of a stride before any the next.
     */
    static void countCta(int[] data, int n, int cta, int[] local) {
        Arrays.fill(local, 0);
        for (int i0 = cta * BLOCK; i0 < n; i0 += BLOCK * CTAS) {
            for (int i = i0, end = Math.min(n, i0 + BLOCK); i < end; i++) {
                local[data[i]]++;
            }
        }
    }

    static void javaCount(int[] data, int from, int to, int[] bins) {
        for (int i = from; i < to; i++) {
            bins[data[i]]++;
        }
    }

    /** Adds every chunk's histogram into {@code bins}, a vector of bins at a time ({@value #BINS} is a multiple of the lanes). */
    static void vectorMerge(int[][] chunkBins, int[] bins) {
        for (int b = 0; b < BINS; b += IS.length()) {
            IntVector sum = IntVector.fromArray(IS, bins, b);
            for (int[] h : chunkBins) {
                sum = sum.add(IntVector.fromArray(IS, h, b));
            }
            sum.intoArray(bins, b);
        }
    }
}
