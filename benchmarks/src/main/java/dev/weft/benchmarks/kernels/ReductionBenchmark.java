package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="ReductionBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/reduction.json"}
 *
 * <p>The sum of 2^22 floats (16 MiB): memory-bound, plus the one step every reduction has where threads
 * combine their results. The Weft kernel is the one a CUDA programmer writes: a fixed grid of up to 256
 * CTAs of 256 threads, each thread summing a grid-stride slice in a register, then a tree over the CTA in
 * shared memory with a barrier per level, thread 0 writing its CTA's partial; a second launch of one CTA
 * reduces the partials the same way. Reported in GB/s at 4 bytes and 1 flop per element.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} sums 2^20 floats (nine barriers per
 * thread), and {@code weft} too unless AUTO compiles the kernel ({@link Devices#fullProblem}). The
 * hand-written Vector API code keeps four vector accumulators per chunk (independent adds, so the FP
 * adder's latency is hidden), reduces them across lanes into one partial per chunk (as Weft's per-CTA
 * partials), and the caller adds the partials. {@code vectorApiCta} is the Weft kernel's own algorithm written
 * by hand, the comparison issue #5 asks for ("a hand-written Vector API version of the same algorithm"): the
 * same grid of CTAs pulled by the workers as CTAs by SMs, each CTA's 256 grid-stride sums a lane each, eight
 * vectors of threads adding their next elements before any adds the one after (near the order a GPU's threads
 * run in, which a Java model of the read order measured fastest of a CTA's possible orders), then the tree in
 * a scratch row (the shared array), half the sums into the other half per level, the last levels within one
 * vector; the partials are reduced by the same code as one CTA, as the kernel's second launch does. {@code javaParallel} sums chunks on a parallel stream.
 *
 * <p>The values are small integers (0 to 3), so every partial sum is an integer below 2^24 and exact in
 * float: the order of the additions, different in every variant, cannot change the sum, and every variant
 * is checked bit for bit against {@code javaSerial}.
 *
 * <p>What you should see: {@code javaSerial} far behind (one dependent add per element: the JIT must
 * not reorder float additions), the vector and parallel variants limited by memory bandwidth.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class ReductionBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 1 << 22;
    private static final int REFERENCE_N = 1 << 20;
    static final int BLOCK = 256;
    private static final int MAX_CTAS = 256;
    private static final int CHUNK = 1 << 16;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiCta", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private float[] in;
    private float[] partials;
    private float[] result;
    private Device device;
    private Kernel ctaPartials;
    private Kernel finalSum;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("reduction")) ? N : REFERENCE_N;
        SplittableRandom r = new SplittableRandom(7);
        in = new float[n];
        for (int i = 0; i < n; i++) {
            in[i] = r.nextInt(4);
        }
        int ctas = Math.min(MAX_CTAS, (n + BLOCK - 1) / BLOCK);
        partials = new float[Math.max(ctas, (n + CHUNK - 1) / CHUNK)];
        result = new float[1];
        if (device != null) {
            ctaPartials = reductionKernel(n, in, partials);
            finalSum = reductionKernel(ctas, partials, result);
            Devices.describe("reduction", impl, device, ctaPartials);
        }
        float expected = javaSum(in, 0, n);
        run();
        if (Float.floatToIntBits(result[0]) != Float.floatToIntBits(expected)) {
            throw new IllegalStateException(impl + " sums to " + result[0] + ", the plain loop to " + expected);
        }
        Devices.settle(impl, this::run);
    }

    /**
     * The Weft kernel: grid-stride sums per thread, a shared-memory tree per CTA, one partial per CTA in
     * {@code out[blockIdx.x]}. Launched once over the input, then on one CTA over the partials.
     */
    static Kernel reductionKernel(int n, float[] in, float[] out) {
        return t -> {
            float[] s = t.sharedFloats(t.blockDimX());
            int tid = t.threadIdxX();
            float sum = 0f;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                sum += in[i];
            }
            s[tid] = sum;
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
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void sum(Work work, Blackhole bh) {
        run();
        work.add(n, n, 4L * n);
        bh.consume(result[0]);
    }

    private void run() {
        int chunks = (n + CHUNK - 1) / CHUNK;
        switch (impl) {
            case "weft", "weftReference" -> {
                int ctas = Math.min(MAX_CTAS, (n + BLOCK - 1) / BLOCK);
                device.launch(Dim3.of(ctas), Dim3.of(BLOCK), ctaPartials);
                device.launch(Dim3.of(1), Dim3.of(BLOCK), finalSum);
            }
            case "vectorApi" -> {
                Parallel.forEachChunk(chunks, c -> partials[c] = vectorSum(in, c * CHUNK, Math.min(n, (c + 1) * CHUNK)));
                result[0] = javaSum(partials, 0, chunks);
            }
            case "vectorApiCta" -> {
                int ctas = Math.min(MAX_CTAS, (n + BLOCK - 1) / BLOCK);
                Parallel.forEachChunk(ctas, cta -> partials[cta] = vectorCtaSum(in, n, cta, ctas, CTA_SUMS.get()));
                result[0] = vectorCtaSum(partials, ctas, 0, 1, CTA_SUMS.get());
            }
            case "vectorApiSerial" -> result[0] = vectorSum(in, 0, n);
            case "javaSerial" -> result[0] = javaSum(in, 0, n);
            // the chunk sums are small integers, so the stream's double (compensated) sum of them is exact
            case "javaParallel" -> result[0] = (float) IntStream.range(0, chunks).parallel()
                    .mapToDouble(c -> javaSum(in, c * CHUNK, Math.min(n, (c + 1) * CHUNK))).sum();
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    static float javaSum(float[] a, int from, int to) {
        float sum = 0f;
        for (int i = from; i < to; i++) {
            sum += a[i];
        }
        return sum;
    }

    /** A worker's row of a CTA's per-thread sums, for the tree. */
    private static final ThreadLocal<float[]> CTA_SUMS = ThreadLocal.withInitial(() -> new float[BLOCK]);

    /**
     * The kernel's algorithm written by hand for CTA {@code cta} of {@code ctas} over {@code a[0, n)}: thread
     * {@code t}'s sum (lane {@code t} of {@code sums}) adds {@code a[cta * BLOCK + t]} and every
     * {@code BLOCK * ctas}-th element after it, then the tree of the kernel's shared-memory loop. Returns the
     * CTA's partial. The sums are summed eight vectors of threads at a time in registers (two passes of the
     * grid-stride loop with 16 lanes): measured 15% faster than all of a CTA's sums in a scratch row, and as
     * fast as 16 registers in one pass.
     */
    static float vectorCtaSum(float[] a, int n, int cta, int ctas, float[] sums) {
        int step = FS.length();
        int stride = BLOCK * ctas;
        for (int t0 = 0; t0 < BLOCK; t0 += 8 * step) {
            FloatVector s0 = FloatVector.zero(FS);
            FloatVector s1 = s0;
            FloatVector s2 = s0;
            FloatVector s3 = s0;
            FloatVector s4 = s0;
            FloatVector s5 = s0;
            FloatVector s6 = s0;
            FloatVector s7 = s0;
            int i = cta * BLOCK + t0;
            for (; i + 8 * step <= n; i += stride) {
                s0 = s0.add(FloatVector.fromArray(FS, a, i));
                s1 = s1.add(FloatVector.fromArray(FS, a, i + step));
                s2 = s2.add(FloatVector.fromArray(FS, a, i + 2 * step));
                s3 = s3.add(FloatVector.fromArray(FS, a, i + 3 * step));
                s4 = s4.add(FloatVector.fromArray(FS, a, i + 4 * step));
                s5 = s5.add(FloatVector.fromArray(FS, a, i + 5 * step));
                s6 = s6.add(FloatVector.fromArray(FS, a, i + 6 * step));
                s7 = s7.add(FloatVector.fromArray(FS, a, i + 7 * step));
            }
            s0.intoArray(sums, t0);
            s1.intoArray(sums, t0 + step);
            s2.intoArray(sums, t0 + 2 * step);
            s3.intoArray(sums, t0 + 3 * step);
            s4.intoArray(sums, t0 + 4 * step);
            s5.intoArray(sums, t0 + 5 * step);
            s6.intoArray(sums, t0 + 6 * step);
            s7.intoArray(sums, t0 + 7 * step);
            // the last stride may end within these threads: the lanes past n add nothing, as those threads
            for (int t = 0; i < n && t < 8 * step; t += step) {
                VectorMask<Float> inRange = FS.indexInRange(i + t, n);
                FloatVector.fromArray(FS, sums, t0 + t).add(FloatVector.fromArray(FS, a, i + t, inRange)).intoArray(sums, t0 + t);
            }
        }
        for (int half = BLOCK / 2; half >= step; half >>= 1) {
            for (int t = 0; t < half; t += step) {
                FloatVector.fromArray(FS, sums, t).add(FloatVector.fromArray(FS, sums, t + half)).intoArray(sums, t);
            }
        }
        return FloatVector.fromArray(FS, sums, 0).reduceLanes(VectorOperators.ADD);
    }

    /** Four accumulators so consecutive vector adds do not wait on each other. */
    static float vectorSum(float[] a, int from, int to) {
        int step = FS.length();
        FloatVector s0 = FloatVector.zero(FS);
        FloatVector s1 = FloatVector.zero(FS);
        FloatVector s2 = FloatVector.zero(FS);
        FloatVector s3 = FloatVector.zero(FS);
        int i = from;
        for (int upper = to - 4 * step; i <= upper; i += 4 * step) {
            s0 = s0.add(FloatVector.fromArray(FS, a, i));
            s1 = s1.add(FloatVector.fromArray(FS, a, i + step));
            s2 = s2.add(FloatVector.fromArray(FS, a, i + 2 * step));
            s3 = s3.add(FloatVector.fromArray(FS, a, i + 3 * step));
        }
        float sum = s0.add(s1).add(s2.add(s3)).reduceLanes(VectorOperators.ADD);
        for (; i < to; i++) {
            sum += a[i];
        }
        return sum;
    }
}
