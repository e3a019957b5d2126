package dev.weft.benchmarks.machine;

import dev.weft.benchmarks.kernels.Parallel;
import dev.weft.benchmarks.kernels.Work;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code mvn -q -pl benchmarks -am package -DskipTests -Djmh.args="FmaPeakBenchmark"}
 *
 * <p>The machine's measured single-precision FMA throughput: fused multiply-adds on the preferred species and
 * nothing else, in {@value #CHAINS} independent chains per thread (more than an FMA's latency times the FMA pipes
 * of any x86 core, so the chains never wait on each other), on one thread ({@code vectorApiSerial}) and on one
 * thread per processor ({@code vectorApi}, chunks as the kernel benchmarks split theirs).
 *
 * <p>Why. The report's computed peak (pipes × lanes × 2 × clock, {@code ResultsTable.Peak}) assumes a clock and a
 * pipe count that a virtual machine does not show: a host may run 512-bit code below the nominal clock, or have
 * one 512-bit FMA pipe where the model of its family has two. The sgemm benchmarks' GFLOP/s are then also given
 * as a share of what FMAs alone reach here, in the same run ({@code ResultsTable} reads this benchmark's rows).
 * Counted as 2 flops per lane of each FMA.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@State(Scope.Benchmark)
public class FmaPeakBenchmark {

    private static final VectorSpecies<Float> FS = FloatVector.SPECIES_PREFERRED;
    /** Independent accumulators per thread: 12 covers 2 pipes × a 4-5 cycle latency with room. */
    static final int CHAINS = 12;
    /** FMA steps of every chain per chunk: some 10 µs of one core, long against a chunk's hand-out. */
    static final int STEPS = 1 << 12;
    /** Chunks per invocation and processor, so that the dynamic split balances. */
    private static final int CHUNKS_PER_WORKER = 4;

    /** {@code vectorApi}: every processor; {@code vectorApiSerial}: one thread. */
    @Param({"vectorApi", "vectorApiSerial"})
    public String impl;

    private final float[] results = new float[Parallel.WORKERS * CHUNKS_PER_WORKER];
    /**
     * The chains' two factors, lanes of vectors loaded before the loop: C2 re-materialises a broadcast (of a
     * constant or of a variable alike) before each use, which put one or two broadcasts beside every FMA (measured
     * on one thread of the Ice Lake machine: 48 and 72 GFLOP/s against 169); a loaded vector stays in its register.
     */
    private final float[] factors = new float[2 * FS.length()];

    {
        Arrays.fill(factors, 1e-3f);
    }

    @Benchmark
    public void fma(Work work, Blackhole bh) {
        int chunks;
        if (impl.equals("vectorApi")) {
            chunks = results.length;
            Parallel.forEachChunk(chunks, c -> results[c] = chains(STEPS, c, factors));
        } else if (impl.equals("vectorApiSerial")) {
            chunks = CHUNKS_PER_WORKER;
            for (int c = 0; c < chunks; c++) {
                results[c] = chains(STEPS, c, factors);
            }
        } else {
            throw new IllegalArgumentException("impl " + impl);
        }
        long fmas = (long) chunks * STEPS * CHAINS * FS.length();
        work.add(fmas, 2 * fmas, 0);
        bh.consume(results);
    }

    /**
     * {@value #CHAINS} chains of {@code steps} FMAs each, {@code acc = a * b + acc} with {@code a} and {@code b}
     * the two vectors of {@code factors}: the accumulator is the addend, as in a matrix product's inner loop, so C2
     * compiles each step to one {@code vfmadd231ps} on registers. Returns a lane of their sum, so that no chain is
     * dead code.
     */
    static float chains(int steps, int seed, float[] factors) {
        FloatVector a = FloatVector.fromArray(FS, factors, 0);
        FloatVector b = FloatVector.fromArray(FS, factors, FS.length());
        // twelve named locals, not an array: C2 keeps each in a register, where an array of vectors would box them
        FloatVector c0 = FloatVector.broadcast(FS, seed);
        FloatVector c1 = c0.add(1f);
        FloatVector c2 = c0.add(2f);
        FloatVector c3 = c0.add(3f);
        FloatVector c4 = c0.add(4f);
        FloatVector c5 = c0.add(5f);
        FloatVector c6 = c0.add(6f);
        FloatVector c7 = c0.add(7f);
        FloatVector c8 = c0.add(8f);
        FloatVector c9 = c0.add(9f);
        FloatVector c10 = c0.add(10f);
        FloatVector c11 = c0.add(11f);
        for (int s = 0; s < steps; s++) {
            c0 = a.fma(b, c0);
            c1 = a.fma(b, c1);
            c2 = a.fma(b, c2);
            c3 = a.fma(b, c3);
            c4 = a.fma(b, c4);
            c5 = a.fma(b, c5);
            c6 = a.fma(b, c6);
            c7 = a.fma(b, c7);
            c8 = a.fma(b, c8);
            c9 = a.fma(b, c9);
            c10 = a.fma(b, c10);
            c11 = a.fma(b, c11);
        }
        return c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11).lane(0);
    }
}
