package dev.weft.benchmarks.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

class FmaPeakBenchmarkTest {

    /** The vector chains compute what the same FMAs compute one lane at a time: every step is counted work. */
    @Test
    void chains_equalTheScalarFmas_inTheSameOrder() {
        int lanes = FloatVector.SPECIES_PREFERRED.length();
        float[] factors = new float[2 * lanes];
        Arrays.fill(factors, 0, lanes, 0.75f);
        Arrays.fill(factors, lanes, 2 * lanes, 1.5f);
        int steps = 37;
        int seed = 5;
        float[] chains = new float[FmaPeakBenchmark.CHAINS];
        for (int c = 0; c < chains.length; c++) {
            float acc = seed + c;
            for (int s = 0; s < steps; s++) {
                acc = Math.fma(0.75f, 1.5f, acc);
            }
            chains[c] = acc;
        }
        float sum = chains[0];
        for (int c = 1; c < chains.length; c++) {
            sum += chains[c];
        }
        assertEquals(sum, FmaPeakBenchmark.chains(steps, seed, factors));
    }
}
