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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SgemmBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/sgemm.json"}
 *
 * <p>C = A·B for square float matrices, 544 × 544, row-major: compute-bound once each loaded value is
 * reused from fast storage. The Weft kernel is the textbook CUDA one: 16 × 16 threads per CTA, one output
 * element per thread, A and B staged through 16 × 16 tiles in shared memory with a barrier after loading
 * and after using each pair of tiles. Reported in GFLOP/s at 2n³ flops; an "element" is one multiply-add
 * (n³ of them), so per-element ratios are per-flop ratios even where sizes differ. 544 rather than 512:
 * with rows of 512 floats the column strip of B that the Vector API loop walks down falls into few cache
 * sets, which cost it 20% here (41 against 48 GFLOP/s on one core); 544 is a multiple of the tile and of
 * two AVX-512 vectors.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} multiplies 128 × 128 matrices (at 544,
 * 68 barriers for each of 295936 threads would take it seconds), and {@code weft} too unless AUTO compiles
 * the kernel ({@link Devices#fullProblem}). The hand-written Vector API code blocks the product the way
 * SIMD code does: a 4-row by two-vector tile of C held in eight vector registers while k runs (the
 * register tile plays the shared tiles' part), a row of B loaded as vectors, each element of A broadcast;
 * chunks of 16 rows spread over the workers. {@code vectorApiTiled} is the Weft kernel's own algorithm written
 * by hand, the comparison issue #5 asks for ("a hand-written Vector API version of the same algorithm"): per
 * 16 × 16 tile of C (a CTA), the tiles of A and B copied into scratch arrays (the shared arrays), then each row
 * of the C tile (a thread per lane) adding its 16 products from a row of the B tile and the broadcast element
 * of the A tile, its sums kept in a scratch row across k-tiles; tiles spread over the workers as CTAs over
 * SMs. The plain Java loops run in i-k-j order (the cache-friendly
 * order a Java programmer writes; C2 vectorises the inner loop). Every variant adds the products for one
 * element of C in increasing k with a separate multiply and add (Java never fuses them), so every variant
 * is checked bit for bit against {@code javaSerial}.
 *
 * <p>What you should see: the vector variants well ahead of plain Java, the register-blocked code about twice
 * the tiled code's rate (each thread's single add chain against eight independent ones), and the reference
 * executor three or more orders of magnitude behind (a continuation switch per thread per barrier).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class SgemmBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 544;
    private static final int REFERENCE_N = 128;
    static final int TILE = 16;
    private static final int ROWS_PER_CHUNK = 16;
    /** Rows of the Vector API's register tile; its columns are two vectors. */
    private static final int MR = 4;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiTiled", "vectorApiSerial", "javaSerial", "javaParallel"})
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
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("sgemm")) ? N : REFERENCE_N;
        if (n % ROWS_PER_CHUNK != 0 || n % (2 * FS.length()) != 0 || TILE % FS.length() != 0) {
            throw new IllegalStateException("the Vector API code needs n a multiple of " + ROWS_PER_CHUNK
                    + " and of two vectors, and the tile a multiple of a vector: " + n);
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
            Devices.describe("sgemm", impl, device, kernel);
        }
        float[] expected = new float[n * n];
        javaRows(n, a, b, expected, 0, n);
        run();
        if (!Arrays.equals(expected, c)) {
            throw new IllegalStateException(impl + " computes a different product than the plain loops");
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: one thread per element of C, A and B staged through shared 16 × 16 tiles. */
    static Kernel sgemmKernel(int n, float[] a, float[] b, float[] c) {
        return t -> {
            float[] as = t.sharedFloats(TILE * TILE);
            float[] bs = t.sharedFloats(TILE * TILE);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * TILE + ty;
            int col = t.blockIdxX() * TILE + tx;
            float sum = 0f;
            for (int k0 = 0; k0 < n; k0 += TILE) {
                as[ty * TILE + tx] = row < n && k0 + tx < n ? a[row * n + k0 + tx] : 0f;
                bs[ty * TILE + tx] = k0 + ty < n && col < n ? b[(k0 + ty) * n + col] : 0f;
                t.syncThreads();
                for (int k = 0; k < TILE; k++) {
                    sum += as[ty * TILE + k] * bs[k * TILE + tx];
                }
                t.syncThreads();
            }
            if (row < n && col < n) {
                c[row * n + col] = sum;
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
    public void sgemm(Work work, Blackhole bh) {
        run();
        long madds = (long) n * n * n;
        work.add(madds, 2 * madds, 0);
        bh.consume(c);
    }

    private void run() {
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), Dim3.of(TILE, TILE), kernel);
            case "vectorApi" -> Parallel.forEachChunk(n / ROWS_PER_CHUNK,
                    ch -> vectorRows(n, a, b, c, ch * ROWS_PER_CHUNK, (ch + 1) * ROWS_PER_CHUNK));
            case "vectorApiTiled" -> {
                int tiles = n / TILE;
                Parallel.forEachChunk(tiles * tiles, t -> vectorTile(n, a, b, c, t / tiles, t % tiles, TILE_SCRATCH.get()));
            }
            case "vectorApiSerial" -> vectorRows(n, a, b, c, 0, n);
            case "javaSerial" -> javaRows(n, a, b, c, 0, n);
            case "javaParallel" -> IntStream.range(0, n).parallel().forEach(i -> javaRows(n, a, b, c, i, i + 1));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    /** A worker's tile of A, tile of B and the C tile's sums, as a CTA's shared arrays and registers. */
    private static final ThreadLocal<float[][]> TILE_SCRATCH =
            ThreadLocal.withInitial(() -> new float[][] {new float[TILE * TILE], new float[TILE * TILE], new float[TILE * TILE]});

    /**
     * The kernel's algorithm written by hand: the 16 × 16 tile of C at tile row {@code ti} and column
     * {@code tj}, one element per lane. For each k-tile the tiles of A and B are copied into {@code scratch}
     * (the shared arrays), then each row of the C tile adds its 16 products in increasing k, a row of the
     * B tile as vectors and the A tile's element broadcast; the rows' sums stay in {@code scratch[2]} across
     * k-tiles (a thread's register). n and the tile's row must be multiples of the vector length.
     */
    static void vectorTile(int n, float[] a, float[] b, float[] c, int ti, int tj, float[][] scratch) {
        float[] as = scratch[0];
        float[] bs = scratch[1];
        float[] sums = scratch[2];
        int step = FS.length();
        Arrays.fill(sums, 0f);
        int row0 = ti * TILE;
        int col0 = tj * TILE;
        for (int k0 = 0; k0 < n; k0 += TILE) {
            for (int r = 0; r < TILE; r++) {
                for (int x = 0; x < TILE; x += step) {
                    FloatVector.fromArray(FS, a, (row0 + r) * n + k0 + x).intoArray(as, r * TILE + x);
                    FloatVector.fromArray(FS, b, (k0 + r) * n + col0 + x).intoArray(bs, r * TILE + x);
                }
            }
            for (int r = 0; r < TILE; r++) {
                for (int x = 0; x < TILE; x += step) {
                    FloatVector sum = FloatVector.fromArray(FS, sums, r * TILE + x);
                    for (int k = 0; k < TILE; k++) {
                        sum = sum.add(FloatVector.broadcast(FS, as[r * TILE + k]).mul(FloatVector.fromArray(FS, bs, k * TILE + x)));
                    }
                    sum.intoArray(sums, r * TILE + x);
                }
            }
        }
        for (int r = 0; r < TILE; r++) {
            System.arraycopy(sums, r * TILE, c, (row0 + r) * n + col0, TILE);
        }
    }

    /** Rows {@code [from, to)} of C in i-k-j order. */
    static void javaRows(int n, float[] a, float[] b, float[] c, int from, int to) {
        for (int i = from; i < to; i++) {
            Arrays.fill(c, i * n, (i + 1) * n, 0f);
            for (int k = 0; k < n; k++) {
                float aik = a[i * n + k];
                for (int j = 0; j < n; j++) {
                    c[i * n + j] += aik * b[k * n + j];
                }
            }
        }
    }

    /**
     * Rows {@code [from, to)} of C, {@value #MR} rows by two vectors at a time, accumulated in registers over
     * all k. {@code to - from} must be a multiple of {@value #MR}, n of two vectors.
     */
    static void vectorRows(int n, float[] a, float[] b, float[] c, int from, int to) {
        int step = FS.length();
        for (int j = 0; j < n; j += 2 * step) {
            for (int i = from; i < to; i += MR) {
                FloatVector c00 = FloatVector.zero(FS);
                FloatVector c01 = FloatVector.zero(FS);
                FloatVector c10 = FloatVector.zero(FS);
                FloatVector c11 = FloatVector.zero(FS);
                FloatVector c20 = FloatVector.zero(FS);
                FloatVector c21 = FloatVector.zero(FS);
                FloatVector c30 = FloatVector.zero(FS);
                FloatVector c31 = FloatVector.zero(FS);
                int a0 = i * n;
                for (int k = 0; k < n; k++) {
                    FloatVector b0 = FloatVector.fromArray(FS, b, k * n + j);
                    FloatVector b1 = FloatVector.fromArray(FS, b, k * n + j + step);
                    FloatVector x = FloatVector.broadcast(FS, a[a0 + k]);
                    c00 = c00.add(x.mul(b0));
                    c01 = c01.add(x.mul(b1));
                    x = FloatVector.broadcast(FS, a[a0 + n + k]);
                    c10 = c10.add(x.mul(b0));
                    c11 = c11.add(x.mul(b1));
                    x = FloatVector.broadcast(FS, a[a0 + 2 * n + k]);
                    c20 = c20.add(x.mul(b0));
                    c21 = c21.add(x.mul(b1));
                    x = FloatVector.broadcast(FS, a[a0 + 3 * n + k]);
                    c30 = c30.add(x.mul(b0));
                    c31 = c31.add(x.mul(b1));
                }
                c00.intoArray(c, a0 + j);
                c01.intoArray(c, a0 + j + step);
                c10.intoArray(c, a0 + n + j);
                c11.intoArray(c, a0 + n + j + step);
                c20.intoArray(c, a0 + 2 * n + j);
                c21.intoArray(c, a0 + 2 * n + j + step);
                c30.intoArray(c, a0 + 3 * n + j);
                c31.intoArray(c, a0 + 3 * n + j + step);
            }
        }
    }
}
