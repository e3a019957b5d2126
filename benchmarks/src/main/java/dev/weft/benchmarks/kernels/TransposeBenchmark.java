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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="TransposeBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/transpose.json"}
 *
 * <p>The transpose of a 2016 × 2016 float matrix (15.5 MiB each way): pure data movement, where reading rows
 * means writing columns unless a tile in fast storage turns the access around. The Weft kernel is the CUDA
 * one (Harris, "An efficient matrix transpose in CUDA C/C++"): CTAs of 32 × 8 threads, each CTA moving a
 * 32 × 32 tile, every thread four elements, read row-wise into a shared tile, a barrier, and written
 * row-wise out of the tile's columns. The tile has 33 floats per row as in CUDA, where the padding keeps a
 * column's 32 elements in 32 different banks; here shared memory is a Java array, the padding is just
 * the index arithmetic {@code row * 33 + col}, kept so the kernel is the one CUDA programmers know.
 * Reported in GB/s at 8 bytes per element (one read, one write).
 *
 * <p>The sizes are multiples of the tile but not powers of two on purpose: with rows of 2048 floats (8 KiB)
 * the 32 rows of a tile fall into the same few L1 sets and evict each other, which halved every variant's
 * throughput here (the plain tiled loops: 2.3 GB/s at 2048, 5.0 GB/s at 2016), the CPU's version of the
 * bank conflicts CUDA's padding avoids; the benchmark measures the transpose, not that.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; {@code weftReference} transposes 992 × 992, and {@code weft}
 * too unless AUTO compiles the kernel ({@link Devices#fullProblem}). The hand-written Vector API code
 * walks the same 32 × 32 tiles (the cache plays the shared tile): for each column of an input tile it
 * gathers a vector's worth of rows and stores them as a contiguous piece of an output row; chunks are rows
 * of tiles. The other SIMD way, loading 8 × 8 blocks and transposing them in registers with 24 two-vector
 * rearranges, measured no faster on one core here (8.8 ms against 7.4 ms for the gathers and 7.6 ms for the
 * scalar loops at 2016 × 2016): the transpose is bound by memory, not instructions. The plain Java loops walk
 * the same tiles element by element. Every variant is checked exactly against {@code javaSerial}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class TransposeBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 2016;
    private static final int REFERENCE_N = 992;
    static final int TILE = 32;
    static final int BLOCK_ROWS = 8;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private int n;
    private float[] in;
    private float[] out;
    /** Gather offsets of one vector's worth of consecutive rows: {@code 0, n, 2n, ...}. */
    private int[] rowOffsets;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
        }
        n = Devices.fullProblem(impl, device, KernelsForReport.kernels().get("transpose")) ? N : REFERENCE_N;
        if (n % TILE != 0 || TILE % FS.length() != 0) {
            throw new IllegalStateException("the Vector API code needs whole tiles of whole vectors: n " + n + ", lanes " + FS.length());
        }
        SplittableRandom r = new SplittableRandom(17);
        in = new float[n * n];
        for (int i = 0; i < n * n; i++) {
            in[i] = (float) r.nextDouble();
        }
        out = new float[n * n];
        rowOffsets = new int[FS.length()];
        for (int l = 0; l < rowOffsets.length; l++) {
            rowOffsets[l] = l * n;
        }
        if (device != null) {
            kernel = transposeKernel(n, in, out);
            Devices.describe("transpose", impl, device, kernel);
        }
        float[] expected = new float[n * n];
        javaTiles(n, in, expected, 0, n / TILE);
        run();
        if (!Arrays.equals(expected, out)) {
            throw new IllegalStateException(impl + " computes a different transpose than the plain loops");
        }
        Devices.settle(impl, this::run);
    }

    /** The Weft kernel: a 32 × 32 tile through shared memory, rows padded to 33 floats. */
    static Kernel transposeKernel(int n, float[] in, float[] out) {
        return t -> {
            float[] tile = t.sharedFloats(TILE * (TILE + 1));
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int x = t.blockIdxX() * TILE + tx;
            int y = t.blockIdxY() * TILE + ty;
            for (int j = 0; j < TILE; j += BLOCK_ROWS) {
                if (x < n && y + j < n) {
                    tile[(ty + j) * (TILE + 1) + tx] = in[(y + j) * n + x];
                }
            }
            t.syncThreads();
            x = t.blockIdxY() * TILE + tx;
            y = t.blockIdxX() * TILE + ty;
            for (int j = 0; j < TILE; j += BLOCK_ROWS) {
                if (x < n && y + j < n) {
                    out[(y + j) * n + x] = tile[tx * (TILE + 1) + ty + j];
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
    public void transpose(Work work, Blackhole bh) {
        run();
        long elements = (long) n * n;
        work.add(elements, 0, 8 * elements);
        bh.consume(out);
    }

    private void run() {
        int tileRows = n / TILE;
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of(tileRows, tileRows), Dim3.of(TILE, BLOCK_ROWS), kernel);
            case "vectorApi" -> Parallel.forEachChunk(tileRows, tr -> vectorTiles(n, in, out, rowOffsets, tr, tr + 1));
            case "vectorApiSerial" -> vectorTiles(n, in, out, rowOffsets, 0, tileRows);
            case "javaSerial" -> javaTiles(n, in, out, 0, tileRows);
            case "javaParallel" -> IntStream.range(0, tileRows).parallel().forEach(tr -> javaTiles(n, in, out, tr, tr + 1));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    /** Input tile rows {@code [from, to)}, tile by tile, element by element. */
    static void javaTiles(int n, float[] in, float[] out, int from, int to) {
        for (int ty = from; ty < to; ty++) {
            for (int tx = 0; tx < n / TILE; tx++) {
                for (int x = tx * TILE; x < (tx + 1) * TILE; x++) {
                    for (int y = ty * TILE; y < (ty + 1) * TILE; y++) {
                        out[x * n + y] = in[y * n + x];
                    }
                }
            }
        }
    }

    /** Input tile rows {@code [from, to)}: each column of a tile gathered a vector at a time into a piece of an output row. */
    static void vectorTiles(int n, float[] in, float[] out, int[] rowOffsets, int from, int to) {
        for (int ty = from; ty < to; ty++) {
            for (int tx = 0; tx < n / TILE; tx++) {
                for (int x = tx * TILE; x < (tx + 1) * TILE; x++) {
                    for (int y = ty * TILE; y < (ty + 1) * TILE; y += FS.length()) {
                        FloatVector.fromArray(FS, in, y * n + x, rowOffsets, 0).intoArray(out, x * n + y);
                    }
                }
            }
        }
    }
}
