package dev.weft.internal.sfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuarterTurnsTest {

    @Test
    void of_argumentsTo100Pi_withinTwoThirdsOfAGridStep() {
        // The reduced argument is the nearest grid point to x·2/π, give or take r's one rounding.
        SplittableRandom random = new SplittableRandom(7);
        double worst = 0;
        for (int n = 0; n < 200_000; n++) {
            float x = (float) ((random.nextDouble() * 2 - 1) * 100 * Math.PI);
            double exact = x * (2 / Math.PI) * 0x1p23;
            double got = QuarterTurns.of(x);
            double wrapped = Math.IEEEremainder(got - exact, 0x1p32);
            worst = Math.max(worst, Math.abs(wrapped));
        }
        assertTrue(worst <= 0.67, "grid steps off: " + worst);
    }

    @Test
    void of_largeArgument_wrapsModuloTheQuadrants() {
        float x = 1000 * (float) Math.PI;
        double exact = x * (2 / Math.PI);
        int turns = QuarterTurns.of(x);
        assertEquals(Math.floorMod((long) Math.rint(exact * 0x1p23), 1L << 25), turns & ((1 << 25) - 1), 1);
    }

    @Test
    void sin_quadrantsMirrorAndNegate() {
        int f = 1234567;
        float first = QuarterTurns.sin(f);
        assertEquals(first, QuarterTurns.sin(2 * QuarterTurns.QUARTER - f));
        assertEquals(-first, QuarterTurns.sin(2 * QuarterTurns.QUARTER + f));
        assertEquals(-first, QuarterTurns.sin(-f));
        assertEquals(1f, QuarterTurns.sin(QuarterTurns.QUARTER));
        assertEquals(-1f, QuarterTurns.sin(3 * QuarterTurns.QUARTER));
    }
}
