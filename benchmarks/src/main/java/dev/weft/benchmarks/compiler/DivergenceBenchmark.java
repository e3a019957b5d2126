package dev.weft.benchmarks.compiler;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.SimdBackend;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="DivergenceBenchmark -f 1 -wi 4 -w 1 -i 4 -r 1 -prof gc"}
 *
 * <p>Lesson 3's kernel (two 256-step recurrences, chosen per thread) compiled by the SIMD backend and run CTA by
 * CTA on one core, with three branch conditions over the same work: on the thread's parity ({@code lane}: every
 * warp runs both sides under masks), on its warp's parity computed from the thread index ({@code warp}: a
 * divergent branch whose side one group skips), and on {@code t.warpId()} ({@code uniform}: proven the same for
 * the whole warp, a plain jump); against a hand-written Vector API loop of the warp-grouped algorithm
 * ({@code hand}). Compiled code should allocate nothing per CTA ({@code gc.alloc.rate.norm} near 0 B/op).
 *
 * <p>What you should see (AVX2, 8 float lanes, shared 2-core machine): {@code warp} and {@code uniform} about
 * half the time of {@code lane} (half the warp instructions) and close to {@code hand}, all at about 0 B/op.
 * Before the fix that initialises generated locals per group, {@code warp} and {@code uniform} allocated a
 * boxed vector per loop iteration and register (some 33 and 66 MB/op here) and ran 3 to 10 times slower than
 * {@code lane}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@State(Scope.Thread)
public class DivergenceBenchmark {

    static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    static final int N = 1 << 17;
    static final int STEPS = 256;
    static final int BLOCK = 256;

    float[] x;
    float[] y;
    CtaProgram lane;
    CtaProgram warp;
    CtaProgram uniform;
    final Cta cta = new Cta();

    @Setup
    public void setup() {
        x = new float[N];
        y = new float[N];
        for (int i = 0; i < N; i++) {
            x[i] = (i % 1000) * 0.001f;
        }
        lane = bind(lane(x, y));
        warp = bind(warp(x, y));
        uniform = bind(uniform(x, y));
    }

    private static CtaProgram bind(Kernel k) {
        Compilation c = new SimdBackend().compile(k, new DeviceShape(32, 48 * 1024));
        if (!(c instanceof Compilation.Compiled compiled)) {
            throw new IllegalStateException("not compiled: " + c);
        }
        return compiled.kernel().bind(k);
    }

    static Kernel lane(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            float v = x[i];
            if ((i & 1) == 0) {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.999f + 0.25f;
                }
            } else {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.998f - 0.5f;
                }
            }
            y[i] = v;
        };
    }

    static Kernel warp(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            float v = x[i];
            if (((i >> 5) & 1) == 0) {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.999f + 0.25f;
                }
            } else {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.998f - 0.5f;
                }
            }
            y[i] = v;
        };
    }

    static Kernel uniform(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            float v = x[i];
            if ((t.warpId() & 1) == 0) {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.999f + 0.25f;
                }
            } else {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.998f - 0.5f;
                }
            }
            y[i] = v;
        };
    }

    private void runGrid(CtaProgram p) {
        Dim3 grid = Dim3.of(N / BLOCK);
        Dim3 block = Dim3.of(BLOCK);
        for (int b = 0; b < grid.x(); b++) {
            cta.start(b, 0, 0, grid, block, 32, null, 48 * 1024, "limit");
            p.runCta(cta);
        }
    }

    @Benchmark
    public void lane(Blackhole bh) {
        runGrid(lane);
        bh.consume(y);
    }

    @Benchmark
    public void warp(Blackhole bh) {
        runGrid(warp);
        bh.consume(y);
    }

    @Benchmark
    public void uniform(Blackhole bh) {
        runGrid(uniform);
        bh.consume(y);
    }

    /** The warp-grouped algorithm by hand: each run of 32 elements takes one recurrence, a register at a time. */
    @Benchmark
    public void hand(Blackhole bh) {
        float[] x = this.x;
        float[] y = this.y;
        for (int i = 0; i < N; i += FS.length()) {
            FloatVector v = FloatVector.fromArray(FS, x, i);
            if (((i >> 5) & 1) == 0) {
                for (int k = 0; k < STEPS; k++) {
                    v = v.mul(0.999f).add(0.25f);
                }
            } else {
                for (int k = 0; k < STEPS; k++) {
                    v = v.mul(0.998f).sub(0.5f);
                }
            }
            v.intoArray(y, i);
        }
        bh.consume(y);
    }
}
