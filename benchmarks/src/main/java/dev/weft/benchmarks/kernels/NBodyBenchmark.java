package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.util.Arrays;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="NBodyBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1 -rf json -rff target/nbody.json"}
 *
 * <p>One velocity step of the all-pairs n-body method for 2048 bodies in float, each thread reading every
 * body's position straight from global memory (no tiles in shared memory: that version belongs to the
 * shared-memory issue). Compute-bound; reported in GFLOP/s at the customary 20 flops per interaction
 * (Nyland, Harris and Prins, GPU Gems 3, ch. 31), n² interactions per step.
 *
 * <p>Variants as in {@link SaxpyBenchmark}; every variant, {@code weftReference} included, runs the full
 * problem (a thread's 2048-iteration loop dwarfs the reference executor's per-thread cost). The
 * hand-written Vector API code puts one body per lane and loops over the others with their position
 * broadcast, the layout a SIMT compiler produces; every operation in the scalar order, and the lane-wise
 * {@code SQRT} correctly rounded, so all variants are checked bit for bit against {@code javaSerial}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class NBodyBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    private static final int N = 2048;
    /** Threads per CTA of the weft launch (1D). */
    static final int BLOCK = 128;
    private static final int BODIES_PER_CHUNK = 64;
    private static final float DT = 0.01f;
    private static final float SOFTENING = 1e-3f;

    @Param({"weft", "weftReference", "vectorApi", "vectorApiSerial", "javaSerial", "javaParallel"})
    public String impl;

    private final int n = N;
    private float[] px;
    private float[] py;
    private float[] pz;
    private float[] mass;
    private float[] vx;
    private float[] vy;
    private float[] vz;
    private Device device;
    private Kernel kernel;

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom r = new SplittableRandom(5);
        px = floats(r, -10, 10);
        py = floats(r, -10, 10);
        pz = floats(r, -10, 10);
        mass = floats(r, 0.1, 2);
        vx = floats(r, -1, 1);
        vy = floats(r, -1, 1);
        vz = floats(r, -1, 1);
        if (impl.startsWith("weft")) {
            device = Devices.create(impl.equals("weftReference"));
            kernel = nbodyKernel(n, DT, SOFTENING, px, py, pz, mass, vx, vy, vz);
            Devices.describe("nbody", impl, device, kernel);
        }
        float[][] expected = {vx.clone(), vy.clone(), vz.clone()};
        javaRange(0, n, px, py, pz, mass, expected[0], expected[1], expected[2]);
        float[][] before = {vx.clone(), vy.clone(), vz.clone()};
        run();
        if (!Arrays.equals(expected[0], vx) || !Arrays.equals(expected[1], vy) || !Arrays.equals(expected[2], vz)) {
            throw new IllegalStateException(impl + " computes different velocities than the plain loop");
        }
        System.arraycopy(before[0], 0, vx, 0, n);
        System.arraycopy(before[1], 0, vy, 0, n);
        System.arraycopy(before[2], 0, vz, 0, n);
        Devices.settle(impl, this::run);
    }

    private float[] floats(SplittableRandom r, double lo, double hi) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextDouble(lo, hi);
        }
        return a;
    }

    /** The Weft kernel: one thread per body, all positions read from global memory. */
    static Kernel nbodyKernel(int n, float dt, float softening, float[] px, float[] py, float[] pz, float[] mass,
            float[] vx, float[] vy, float[] vz) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float xi = px[i];
                float yi = py[i];
                float zi = pz[i];
                float ax = 0f;
                float ay = 0f;
                float az = 0f;
                for (int j = 0; j < n; j++) {
                    float dx = px[j] - xi;
                    float dy = py[j] - yi;
                    float dz = pz[j] - zi;
                    float d2 = dx * dx + dy * dy + dz * dz + softening;
                    float inv = 1f / (float) Math.sqrt(d2);
                    float s = mass[j] * inv * inv * inv;
                    ax += dx * s;
                    ay += dy * s;
                    az += dz * s;
                }
                vx[i] += ax * dt;
                vy[i] += ay * dt;
                vz[i] += az * dt;
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
    public void nbody(Work work, Blackhole bh) {
        run();
        work.add(n, 20L * n * n, 0);
        bh.consume(vx);
    }

    private void run() {
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((n + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), kernel);
            case "vectorApi" -> Parallel.forEachChunk((n + BODIES_PER_CHUNK - 1) / BODIES_PER_CHUNK,
                    c -> vectorRange(c * BODIES_PER_CHUNK, Math.min(n, (c + 1) * BODIES_PER_CHUNK)));
            case "vectorApiSerial" -> vectorRange(0, n);
            case "javaSerial" -> javaRange(0, n, px, py, pz, mass, vx, vy, vz);
            case "javaParallel" -> IntStream.range(0, n).parallel().forEach(i -> javaOne(i, px, py, pz, mass, vx, vy, vz));
            default -> throw new IllegalArgumentException("impl " + impl);
        }
    }

    private void javaRange(int from, int to, float[] px, float[] py, float[] pz, float[] mass, float[] vx, float[] vy, float[] vz) {
        for (int i = from; i < to; i++) {
            javaOne(i, px, py, pz, mass, vx, vy, vz);
        }
    }

    private void javaOne(int i, float[] px, float[] py, float[] pz, float[] mass, float[] vx, float[] vy, float[] vz) {
        float xi = px[i];
        float yi = py[i];
        float zi = pz[i];
        float ax = 0f;
        float ay = 0f;
        float az = 0f;
        for (int j = 0; j < n; j++) {
            float dx = px[j] - xi;
            float dy = py[j] - yi;
            float dz = pz[j] - zi;
            float d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            float inv = 1f / (float) Math.sqrt(d2);
            float s = mass[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        vx[i] += ax * DT;
        vy[i] += ay * DT;
        vz[i] += az * DT;
    }

    /** Bodies {@code [from, to)}, one per lane; the others broadcast one at a time. */
    private void vectorRange(int from, int to) {
        FloatVector one = FloatVector.broadcast(FS, 1f);
        for (int i = from; i < to; i += FS.length()) {
            VectorMask<Float> m = FS.indexInRange(i, to);
            FloatVector xi = FloatVector.fromArray(FS, px, i, m);
            FloatVector yi = FloatVector.fromArray(FS, py, i, m);
            FloatVector zi = FloatVector.fromArray(FS, pz, i, m);
            FloatVector ax = FloatVector.zero(FS);
            FloatVector ay = FloatVector.zero(FS);
            FloatVector az = FloatVector.zero(FS);
            for (int j = 0; j < n; j++) {
                FloatVector dx = FloatVector.broadcast(FS, px[j]).sub(xi);
                FloatVector dy = FloatVector.broadcast(FS, py[j]).sub(yi);
                FloatVector dz = FloatVector.broadcast(FS, pz[j]).sub(zi);
                FloatVector d2 = dx.mul(dx).add(dy.mul(dy)).add(dz.mul(dz)).add(SOFTENING);
                FloatVector inv = one.div(d2.lanewise(VectorOperators.SQRT));
                FloatVector s = inv.mul(mass[j]).mul(inv).mul(inv);
                ax = ax.add(dx.mul(s));
                ay = ay.add(dy.mul(s));
                az = az.add(dz.mul(s));
            }
            FloatVector.fromArray(FS, vx, i, m).add(ax.mul(DT)).intoArray(vx, i, m);
            FloatVector.fromArray(FS, vy, i, m).add(ay.mul(DT)).intoArray(vy, i, m);
            FloatVector.fromArray(FS, vz, i, m).add(az.mul(DT)).intoArray(vz, i, m);
        }
    }
}
