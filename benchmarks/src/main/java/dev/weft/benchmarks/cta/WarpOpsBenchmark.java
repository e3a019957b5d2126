package dev.weft.benchmarks.cta;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="WarpOpsBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1"}
 *
 * <p>A scratch benchmark for issue 5's first compiled CTA features (no shared memory or barriers yet):
 * {@code scan}, an inclusive scan of every 32-element segment (a warp) with {@code shflUp}; {@code reduce},
 * the sum of every segment with a {@code shflXor} butterfly; {@code histogram}, 256 bins over 2^20 bytes with
 * global {@code Atomics.add}. Variants: {@code weft} (AUTO device, compiled: setup fails if it is not),
 * {@code weftReference} (reference executor, over 2^15 elements: compare per-element rates),
 * {@code vectorApi} (hand-written, same algorithm: a log-step scan in registers, a lane reduction; for the
 * histogram there is no vector form, so it is the plain loop), {@code java} (plain loop). All single
 * launches over the whole device; scores are operations per second, divide by n for per-element rates.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class WarpOpsBenchmark {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int N = 1 << 20;
    private static final int REFERENCE_N = 1 << 15;
    private static final int BLOCK = 256;

    @Param({"scan", "reduce", "histogram"})
    public String kernel;

    @Param({"weft", "weftReference", "vectorApi", "java"})
    public String impl;

    private int n;
    private float[] x;
    private float[] out;
    private int[] bytes;
    private int[] bins;
    private Device device;
    private Kernel k;

    @Setup(Level.Trial)
    public void setUp() {
        n = impl.equals("weftReference") ? REFERENCE_N : N;
        SplittableRandom r = new SplittableRandom(3);
        x = new float[n];
        out = new float[n];
        bytes = new int[n];
        bins = new int[256];
        for (int i = 0; i < n; i++) {
            x[i] = r.nextInt(-8, 8);
            bytes[i] = r.nextInt(256);
        }
        if (impl.startsWith("weft")) {
            device = Device.create(DeviceConfig.defaults()
                    .withExecutor(impl.equals("weft") ? ExecutorChoice.AUTO : ExecutorChoice.REFERENCE));
            k = switch (kernel) {
                case "scan" -> scanKernel(n, x, out);
                case "reduce" -> reduceKernel(n, x, out);
                default -> histogramKernel(n, bytes, bins);
            };
            CompileReport report = device.compileReport(k);
            if (impl.equals("weft") && !report.compiled()) {
                throw new IllegalStateException(kernel + " not compiled: " + report.summary());
            }
        }
        verify();
    }

    static Kernel scanKernel(int n, float[] x, float[] out) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float v = x[i];
                int lane = t.laneId();
                for (int d = 1; d < 32; d *= 2) {
                    float up = t.shflUp(v, d);
                    if (lane >= d) {
                        v += up;
                    }
                }
                out[i] = v;
            }
        };
    }

    static Kernel reduceKernel(int n, float[] x, float[] out) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                float v = x[i];
                for (int m = 16; m > 0; m /= 2) {
                    v += t.shflXor(v, m);
                }
                if (t.laneId() == 0) {
                    out[i >> 5] = v;
                }
            }
        };
    }

    static Kernel histogramKernel(int n, int[] bytes, int[] bins) {
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                Atomics.add(bins, bytes[i], 1);
            }
        };
    }

    private void verify() {
        run();
        float[] got = out.clone();
        int[] gotBins = bins.clone();
        Arrays.fill(out, 0);
        Arrays.fill(bins, 0);
        switch (kernel) {
            case "scan" -> javaScan(n, x, out);
            case "reduce" -> javaReduce(n, x, out);
            default -> javaHistogram(n, bytes, bins);
        }
        if (!Arrays.equals(got, out) || !Arrays.equals(gotBins, bins)) {
            throw new IllegalStateException(impl + " computes a different " + kernel + " than the plain loop");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (device != null) {
            device.close();
        }
    }

    @Benchmark
    public void run(Blackhole bh) {
        run();
        bh.consume(out);
        bh.consume(bins);
    }

    private void run() {
        if (kernel.equals("histogram")) {
            Arrays.fill(bins, 0);
        }
        switch (impl) {
            case "weft", "weftReference" -> device.launch(Dim3.of((n + BLOCK - 1) / BLOCK), Dim3.of(BLOCK), k);
            case "vectorApi" -> {
                switch (kernel) {
                    case "scan" -> vectorScan(n, x, out);
                    case "reduce" -> vectorReduce(n, x, out);
                    default -> javaHistogram(n, bytes, bins);
                }
            }
            default -> {
                switch (kernel) {
                    case "scan" -> javaScan(n, x, out);
                    case "reduce" -> javaReduce(n, x, out);
                    default -> javaHistogram(n, bytes, bins);
                }
            }
        }
    }

    /** The same additions as the warp scan (sums of small integers are exact, so any order agrees). */
    static void javaScan(int n, float[] x, float[] out) {
        for (int s = 0; s < n; s += 32) {
            float acc = 0;
            for (int i = s; i < Math.min(n, s + 32); i++) {
                acc += x[i];
                out[i] = acc;
            }
        }
    }

    static void javaReduce(int n, float[] x, float[] out) {
        for (int s = 0; s < n; s += 32) {
            float acc = 0;
            for (int i = s; i < Math.min(n, s + 32); i++) {
                acc += x[i];
            }
            out[s >> 5] = acc;
        }
    }

    static void javaHistogram(int n, int[] bytes, int[] bins) {
        for (int i = 0; i < n; i++) {
            bins[bytes[i]]++;
        }
    }

    /** Hand-written: a log-step scan inside each register, then the running carry across the segment's registers. */
    static void vectorScan(int n, float[] x, float[] out) {
        int l = SPECIES.length();
        int s = 0;
        for (; s + 32 <= n; s += 32) {
            float carry = 0;
            for (int o = 0; o < 32; o += l) {
                FloatVector v = FloatVector.fromArray(SPECIES, x, s + o);
                for (int d = 1; d < l; d *= 2) {
                    v = v.add(v.unslice(d)); // lanes shifted up by d, zeros below
                }
                v = v.add(carry);
                v.intoArray(out, s + o);
                carry = v.lane(l - 1);
            }
        }
        float acc = 0;
        for (int i = s; i < n; i++) {
            acc = (i - s) % 32 == 0 ? x[i] : acc + x[i];
            out[i] = acc;
        }
    }

    static void vectorReduce(int n, float[] x, float[] out) {
        int l = SPECIES.length();
        int s = 0;
        for (; s + 32 <= n; s += 32) {
            FloatVector acc = FloatVector.fromArray(SPECIES, x, s);
            for (int o = l; o < 32; o += l) {
                acc = acc.add(FloatVector.fromArray(SPECIES, x, s + o));
            }
            out[s >> 5] = acc.reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
        }
        if (s < n) {
            float acc = 0;
            for (int i = s; i < n; i++) {
                acc += x[i];
            }
            out[s >> 5] = acc;
        }
    }
}
