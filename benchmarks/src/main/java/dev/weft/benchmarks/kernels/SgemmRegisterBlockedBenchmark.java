package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SgemmRegisterBlockedBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/sgemm-rb.json"}
 *
 * <p>C = A·B for square float matrices, 576 × 576, row-major, every product accumulated with a fused
 * multiply-add: the compute-bound kernel whose speed is a share of the machine's FMA peak (the report tool
 * prints the peak and each variant's share of it). {@link SgemmBenchmark} is the textbook tiled kernel, one
 * output per thread; this is the kernel fast GPU sgemms are built on (Volkov and Demmel's register
 * blocking): a CTA of 16 × 16 threads computes a 64 × 64 block of C, each thread a 4 × 4 block of it in 16
 * register accumulators; per step of k the CTA loads a 64 × 16 slice of A and a 16 × 64 slice of B into
 * shared memory cooperatively (four elements per thread each, both slices stored as they lie in A and B),
 * and every value a thread reads from shared memory feeds four FMAs. A thread's rows are {@code ty + 16·i}
 * and its columns {@code tx + 16·j}, so each of its 16 stores, and each shared read of B, is contiguous
 * across the lanes of a warp (coalesced, in CUDA's terms), and each shared read of A is one address per row
 * of threads (a broadcast).
 *
 * <p>Why A's slice is not transposed, as in many CUDA sgemms: those read a thread's rows of A, which are
 * consecutive there, with one {@code float4} from the transposed slice. This kernel's rows are 16 apart,
 * so the transpose would buy its reads nothing, and its store would cost: consecutive threads would write
 * words 64 apart, a 16-way bank conflict on a GPU and a scatter of every register here. Stored so until
 * session 14, paired against the Vector API code in alternating runs: 0.40-0.43 transposed, 0.49-0.50 not.
 *
 * <p>The Vector API variant is the same algorithm as CPU BLAS writes it: the register block is 6 rows by
 * two vectors of C (12 accumulators; with 8-lane AVX2 vectors, 12 of the 16 ymm registers), a 192-deep
 * slice of a two-vector-wide column panel of B packed contiguously (12 KiB with AVX2, in L1) plays the
 * shared tile, each element of A is broadcast and multiplied into two vectors. Panels of columns are
 * spread over the workers. The plain Java loops run in i-k-j order with {@code Math.fma} (the loop a Java
 * programmer writes; C2 vectorises the inner loop).
 *
 * <p>Every variant accumulates each element of C as one chain of FMAs in increasing k starting from zero,
 * so every variant is checked bit for bit against {@code javaSerial}, once, in the trial set-up. Sizes: 576
 * is a multiple of the CTA's 64 × 64 block (the Weft kernel has no bounds checks: as the fast GPU kernels
 * it requires whole blocks), of 6 rows and of two vectors of 8 or 16 floats. {@code weftReference}
 * multiplies 128 × 128 matrices (its barriers cost a continuation switch per thread), and {@code weft} too
 * unless AUTO compiles the kernel ({@link Devices#fullProblem}). Reported in GFLOP/s at 2n³ flops; an
 * element is one FMA.
 *
 * <p>What you should see: the Vector API variant at a large share of the FMA peak (the issue expects about
 * 87%); plain Java well behind it; Weft compiled between the two, or, while the backend declines barriers,
 * on the reference executor three or more orders of magnitude behind.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class SgemmRegisterBlockedBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 576;
    private static final int REFERENCE_N = 128;

    /** The CTA: {@value #THREADS_X} × {@value #THREADS_Y} threads. */
    static final int THREADS_X = 16;
    static final int THREADS_Y = 16;
    /** Rows and columns of the thread's register block. */
    static final int TM = 4;
    static final int TN = 4;
    /** The CTA's block of C ({@value #BM} × {@value #BN}) and the depth of one k step ({@value #BK}). */
    static final int BM = THREADS_Y * TM;
    static final int BN = THREADS_X * TN;
    static final int BK = 16;
    private static final int CTA_THREADS = THREADS_X * THREADS_Y;
    /** Elements of each shared slice a thread loads per k step; log2 of BK and BN for the index arithmetic. */
    private static final int LOADS = BM * BK / CTA_THREADS;
    private static final int LOG_BK = 4;
    private static final int LOG_BN = 6;

    /** Rows of the Vector API's register block; its columns are two vectors. */
    private static final int MR = 6;
    /** Depth of the packed slice of the B panel. */
    private static final int KC = 192;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private float[] a;
    private float[] b;
    private float[] c;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("sgemmRegisterBlocked")) ? N : REFERENCE_N;
        if (n % BM != 0 || (!impl.startsWith("weft") && (n % MR != 0 || n % (2 * FS.length()) != 0 || n % KC != 0))) {
            throw new IllegalStateException("n must be a multiple of " + BM + " (Weft) and of " + MR + ", " + KC
                    + " and two vectors (Vector API): " + n);
        }
        SplittableRandom r = new SplittableRandom(11);
        a = new float[n * n];
        b = new float[n * n];
        for (int i = 0; i < n * n; i++) {
            a[i] = (float) r.nextDouble(-1, 1);
            b[i] = (float) r.nextDouble(-1, 1);
        }
        c = new float[n * n];
        if (device != null) {
            kernel = sgemmKernel(n, a, b, c);
            Devices.describe("sgemmRegisterBlocked", impl, device, kernel);
        }
        float[] expected = new float[n * n];
        javaRows(n, a, b, expected, 0, n);
        run();
        if (!Arrays.equals(expected, c)) {
            throw new IllegalStateException(impl + " computes a different product than the plain loops");
        }
        Devices.settle(impl, this::run);
    }

    /**
     * The Weft kernel, launched over {@code (n / 64, n / 64)} CTAs of 16 × 16 threads; n a multiple of 64.
     * CUDA: the register-blocked sgemm of Volkov and Demmel (2008), with 4 × 4 outputs per thread.
     */
    static Kernel sgemmKernel(int n, float[] a, float[] b, float[] c) {
        return t -> {
            float[] as = t.sharedFloats(BM * BK);   // as[m * BK + k]
            float[] bs = t.sharedFloats(BK * BN);   // bs[k * BN + j]
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int tid = ty * THREADS_X + tx;
            int row0 = t.blockIdxY() * BM;
            int col0 = t.blockIdxX() * BN;
            float c00 = 0f, c01 = 0f, c02 = 0f, c03 = 0f;
            float c10 = 0f, c11 = 0f, c12 = 0f, c13 = 0f;
            float c20 = 0f, c21 = 0f, c22 = 0f, c23 = 0f;
            float c30 = 0f, c31 = 0f, c32 = 0f, c33 = 0f;
            for (int k0 = 0; k0 < n; k0 += BK) {
                // Both slices hold CTA_THREADS * LOADS elements; element e of A's is row e / BK, column e % BK
                // (consecutive threads read consecutive k of a row), element e of B's is row e / BN, column e % BN.
                for (int r = 0; r < LOADS; r++) {
                    int e = r * CTA_THREADS + tid;
                    as[e] = a[(row0 + (e >> LOG_BK)) * n + k0 + (e & (BK - 1))];
                    bs[e] = b[(k0 + (e >> LOG_BN)) * n + col0 + (e & (BN - 1))];
                }
                t.syncThreads();
                for (int kk = 0; kk < BK; kk++) {
                    float a0 = as[ty * BK + kk];
                    float a1 = as[(ty + THREADS_Y) * BK + kk];
                    float a2 = as[(ty + 2 * THREADS_Y) * BK + kk];
                    float a3 = as[(ty + 3 * THREADS_Y) * BK + kk];
                    float b0 = bs[kk * BN + tx];
                    float b1 = bs[kk * BN + tx + THREADS_X];
                    float b2 = bs[kk * BN + tx + 2 * THREADS_X];
                    float b3 = bs[kk * BN + tx + 3 * THREADS_X];
                    c00 = Math.fma(a0, b0, c00);
                    c01 = Math.fma(a0, b1, c01);
                    c02 = Math.fma(a0, b2, c02);
                    c03 = Math.fma(a0, b3, c03);
                    c10 = Math.fma(a1, b0, c10);
                    c11 = Math.fma(a1, b1, c11);
                    c12 = Math.fma(a1, b2, c12);
                    c13 = Math.fma(a1, b3, c13);
                    c20 = Math.fma(a2, b0, c20);
                    c21 = Math.fma(a2, b1, c21);
                    c22 = Math.fma(a2, b2, c22);
                    c23 = Math.fma(a2, b3, c23);
                    c30 = Math.fma(a3, b0, c30);
                    c31 = Math.fma(a3, b1, c31);
                    c32 = Math.fma(a3, b2, c32);
                    c33 = Math.fma(a3, b3, c33);
                }
                t.syncThreads();
            }
            int i0 = (row0 + ty) * n + col0 + tx;
            int i1 = i0 + THREADS_Y * n;
            int i2 = i1 + THREADS_Y * n;
            int i3 = i2 + THREADS_Y * n;
            c[i0] = c00;
            c[i0 + THREADS_X] = c01;
            c[i0 + 2 * THREADS_X] = c02;
            c[i0 + 3 * THREADS_X] = c03;
            c[i1] = c10;
            c[i1 + THREADS_X] = c11;
            c[i1 + 2 * THREADS_X] = c12;
            c[i1 + 3 * THREADS_X] = c13;
            c[i2] = c20;
            c[i2 + THREADS_X] = c21;
            c[i2 + 2 * THREADS_X] = c22;
            c[i2 + 3 * THREADS_X] = c23;
            c[i3] = c30;
            c[i3 + THREADS_X] = c31;
            c[i3 + 2 * THREADS_X] = c32;
            c[i3 + 3 * THREADS_X] = c33;
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void sgemm(Work work, Blackhole bh) {
        run();
        long fmas = (long) n * n * n;
        work.add(fmas, 2 * fmas, 0);
        bh.consume(c);
    }

    private void run() {
        int panelWidth = 2 * FS.length();
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of(n / BN, n / BM), Dim3.of(THREADS_X, THREADS_Y), kernel);
            case "vectorApi" -> Parallel.forEachChunk(n / panelWidth, p -> vectorPanel(n, a, b, c, p * panelWidth, new float[KC * panelWidth]));
            case "vectorApiSerial" -> {
                float[] packed = new float[KC * panelWidth];
                for (int p = 0; p < n / panelWidth; p++) {
                    vectorPanel(n, a, b, c, p * panelWidth, packed);
                }
            }
            case "javaSerial" -> javaRows(n, a, b, c, 0, n);
            case "javaParallel" -> IntStream.range(0, n).parallel().forEach(i -> javaRows(n, a, b, c, i, i + 1));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    /** Rows {@code [from, to)} of C in i-k-j order, each element one FMA chain in increasing k. */
    static void javaRows(int n, float[] a, float[] b, float[] c, int from, int to) {
        for (int i = from; i < to; i++) {
            Arrays.fill(c, i * n, (i + 1) * n, 0f);
            for (int k = 0; k < n; k++) {
                float aik = a[i * n + k];
                for (int j = 0; j < n; j++) {
                    c[i * n + j] = Math.fma(aik, b[k * n + j], c[i * n + j]);
                }
            }
        }
    }

    /**
     * Columns {@code [j, j + 2 vectors)} of C: for each {@value #KC}-deep slice of k, that slice of B's column
     * panel is packed contiguously into {@code packed}, then every block of {@value #MR} rows of C is
     * accumulated over the slice in 12 vector registers (loaded from C after the first slice, so each element
     * stays one FMA chain in increasing k).
     */
    static void vectorPanel(int n, float[] a, float[] b, float[] c, int j, float[] packed) {
        int step = FS.length();
        int width = 2 * step;
        for (int k0 = 0; k0 < n; k0 += KC) {
            for (int k = 0; k < KC; k++) {
                System.arraycopy(b, (k0 + k) * n + j, packed, k * width, width);
            }
            boolean first = k0 == 0;
            for (int i = 0; i < n; i += MR) {
                int r0 = i * n + j;
                FloatVector c00 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0);
                FloatVector c01 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + step);
                FloatVector c10 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + n);
                FloatVector c11 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + n + step);
                FloatVector c20 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 2 * n);
                FloatVector c21 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 2 * n + step);
                FloatVector c30 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 3 * n);
                FloatVector c31 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 3 * n + step);
                FloatVector c40 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 4 * n);
                FloatVector c41 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 4 * n + step);
                FloatVector c50 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 5 * n);
                FloatVector c51 = first ? FloatVector.zero(FS) : FloatVector.fromArray(FS, c, r0 + 5 * n + step);
                int a0 = i * n + k0;
                for (int k = 0; k < KC; k++) {
                    FloatVector b0 = FloatVector.fromArray(FS, packed, k * width);
                    FloatVector b1 = FloatVector.fromArray(FS, packed, k * width + step);
                    FloatVector x = FloatVector.broadcast(FS, a[a0 + k]);
                    c00 = x.fma(b0, c00);
                    c01 = x.fma(b1, c01);
                    x = FloatVector.broadcast(FS, a[a0 + n + k]);
                    c10 = x.fma(b0, c10);
                    c11 = x.fma(b1, c11);
                    x = FloatVector.broadcast(FS, a[a0 + 2 * n + k]);
                    c20 = x.fma(b0, c20);
                    c21 = x.fma(b1, c21);
                    x = FloatVector.broadcast(FS, a[a0 + 3 * n + k]);
                    c30 = x.fma(b0, c30);
                    c31 = x.fma(b1, c31);
                    x = FloatVector.broadcast(FS, a[a0 + 4 * n + k]);
                    c40 = x.fma(b0, c40);
                    c41 = x.fma(b1, c41);
                    x = FloatVector.broadcast(FS, a[a0 + 5 * n + k]);
                    c50 = x.fma(b0, c50);
                    c51 = x.fma(b1, c51);
                }
                c00.intoArray(c, r0);
                c01.intoArray(c, r0 + step);
                c10.intoArray(c, r0 + n);
                c11.intoArray(c, r0 + n + step);
                c20.intoArray(c, r0 + 2 * n);
                c21.intoArray(c, r0 + 2 * n + step);
                c30.intoArray(c, r0 + 3 * n);
                c31.intoArray(c, r0 + 3 * n + step);
                c40.intoArray(c, r0 + 4 * n);
                c41.intoArray(c, r0 + 4 * n + step);
                c50.intoArray(c, r0 + 5 * n);
                c51.intoArray(c, r0 + 5 * n + step);
            }
        }
    }
}
