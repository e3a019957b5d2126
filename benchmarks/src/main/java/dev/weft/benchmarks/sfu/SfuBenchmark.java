package dev.weft.benchmarks.sfu;

import dev.weft.simd.sfu.VectorSfu;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SfuBenchmark -f 1 -wi 10 -w 200ms -i 30 -r 100ms -prof gc"}
 *
 * <p>The vector SFU against the two things a Java programmer would otherwise write: the Vector API's own
 * lanewise operator for the same function, and a scalar {@link Math} loop. One array of 4096 floats
 * (in L1 with its result), every function in the same run:
 * <ul>
 *   <li>{@code sfu}: {@link VectorSfu} over the preferred species;</li>
 *   <li>{@code vectorApi}: {@code 1/x} and {@code 1/sqrt(x)} by lanewise division and square root;
 *       2^x, log2 x, sin and cos by the {@code EXP} (of {@code x·ln 2}), {@code LOG} (times
 *       {@code 1/ln 2}), {@code SIN} and {@code COS} operators;</li>
 *   <li>{@code scalarMath}: the same formulas with {@code Math} in a plain loop, rounded to float. C2
 *       vectorises the {@code 1/x} loop itself (a division instruction per 8 lanes), so for 1/x it is
 *       as fast as the Vector API.</li>
 * </ul>
 * Arguments: 1/x in [1, 1000), 1/sqrt in (0, 1000), 2^x in [-20, 20), log2 in (0, 1000), sin and cos in
 * [-10π, 10π). Each variant reads the same array and writes the same result array, which goes to the
 * {@link Blackhole}, so no variant's work can be dropped.
 *
 * <p>What you should see: {@code gc.alloc.rate.norm} near 0 B/op for {@code sfu} (a boxed vector per
 * call means a missed inlining, 32 bytes or more per 8 elements). On a shared machine C2 may still be
 * compiling after a short warm-up, and an iteration that allocates ran before its final code: hence the
 * long warm-up, and many short iterations whose minimum is the figure to compare when others load the
 * machine. Read the ratios, not the absolute times. On AVX2 the vector SFU beats the {@code Math} loop
 * for 2^x, log2, sin and cos and loses to every Vector API operator; see the README for the table and
 * for why.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@Warmup(iterations = 10, time = 200, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 30, time = 100, timeUnit = TimeUnit.MILLISECONDS)
public class SfuBenchmark {

    private static final VectorSpecies<Float> SPECIES = VectorSfu.SPECIES;
    private static final int N = 4096;
    private static final float LN_2 = (float) Math.log(2);
    private static final float LOG2_E = (float) (1 / Math.log(2));

    /** The function. */
    @Param({"rcp", "rsqrt", "ex2", "lg2", "sin", "cos"})
    public String function;

    private final float[] in = new float[N];
    private final float[] out = new float[N];

    /** Arguments in each function's range, the same seed every run. */
    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < N; i++) {
            in[i] = switch (function) {
                case "rcp" -> 1 + 999 * random.nextFloat();
                case "rsqrt", "lg2" -> 1000 * (1 - random.nextFloat());
                case "ex2" -> -20 + 40 * random.nextFloat();
                default -> (float) (Math.PI * (-10 + 20 * random.nextDouble()));
            };
        }
    }

    /** The vector SFU. */
    @Benchmark
    public void sfu(Blackhole bh) {
        switch (function) {
            case "rcp" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.rcp(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            case "rsqrt" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.rsqrt(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            case "ex2" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.ex2(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            case "lg2" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.lg2(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            case "sin" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.sin(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            default -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    VectorSfu.cos(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
        }
        bh.consume(out);
    }

    /** The Vector API's lanewise operators for the same function. */
    @Benchmark
    public void vectorApi(Blackhole bh) {
        switch (function) {
            case "rcp" -> {
                FloatVector one = FloatVector.broadcast(SPECIES, 1f);
                for (int i = 0; i < N; i += SPECIES.length()) {
                    one.div(FloatVector.fromArray(SPECIES, in, i)).intoArray(out, i);
                }
            }
            case "rsqrt" -> {
                FloatVector one = FloatVector.broadcast(SPECIES, 1f);
                for (int i = 0; i < N; i += SPECIES.length()) {
                    one.div(FloatVector.fromArray(SPECIES, in, i).sqrt()).intoArray(out, i);
                }
            }
            case "ex2" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    FloatVector.fromArray(SPECIES, in, i).mul(LN_2).lanewise(VectorOperators.EXP).intoArray(out, i);
                }
            }
            case "lg2" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    FloatVector.fromArray(SPECIES, in, i).lanewise(VectorOperators.LOG).mul(LOG2_E).intoArray(out, i);
                }
            }
            case "sin" -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    FloatVector.fromArray(SPECIES, in, i).lanewise(VectorOperators.SIN).intoArray(out, i);
                }
            }
            default -> {
                for (int i = 0; i < N; i += SPECIES.length()) {
                    FloatVector.fromArray(SPECIES, in, i).lanewise(VectorOperators.COS).intoArray(out, i);
                }
            }
        }
        bh.consume(out);
    }

    /** A scalar loop over {@link Math}. */
    @Benchmark
    public void scalarMath(Blackhole bh) {
        switch (function) {
            case "rcp" -> {
                for (int i = 0; i < N; i++) {
                    out[i] = 1f / in[i];
                }
            }
            case "rsqrt" -> {
                for (int i = 0; i < N; i++) {
                    out[i] = (float) (1 / Math.sqrt(in[i]));
                }
            }
            case "ex2" -> {
                for (int i = 0; i < N; i++) {
                    out[i] = (float) Math.exp(in[i] * LN_2);
                }
            }
            case "lg2" -> {
                for (int i = 0; i < N; i++) {
                    out[i] = (float) Math.log(in[i]) * LOG2_E;
                }
            }
            case "sin" -> {
                for (int i = 0; i < N; i++) {
                    out[i] = (float) Math.sin(in[i]);
                }
            }
            default -> {
                for (int i = 0; i < N; i++) {
                    out[i] = (float) Math.cos(in[i]);
                }
            }
        }
        bh.consume(out);
    }
}
