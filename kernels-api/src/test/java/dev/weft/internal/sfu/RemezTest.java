package dev.weft.internal.sfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RemezTest {

    private static final int POINTS = 1025;

    private static double[][] powers(int... exponents) {
        double[][] basis = new double[exponents.length][POINTS];
        for (int k = 0; k < exponents.length; k++) {
            for (int i = 0; i < POINTS; i++) {
                basis[k][i] = Math.pow(i / (POINTS - 1.0), exponents[k]);
            }
        }
        return basis;
    }

    private static double[] values(java.util.function.DoubleUnaryOperator f) {
        double[] g = new double[POINTS];
        for (int i = 0; i < POINTS; i++) {
            g[i] = f.applyAsDouble(i / (POINTS - 1.0));
        }
        return g;
    }

    @Test
    void fit_lineToParabola_levelsErrorAtOneEighth() {
        // The best line for s² on [0, 1] is s − 1/8: error +1/8, −1/8, +1/8 at 0, 1/2, 1.
        double[] a = Remez.fit(powers(0, 1), values(s -> s * s));
        assertEquals(-0.125, a[0], 1e-12);
        assertEquals(1.0, a[1], 1e-12);
        assertEquals(0.125, Math.abs(a[2]), 1e-12);
    }

    @Test
    void fit_quadraticToCubic_givesShiftedChebyshevError() {
        // s³ − (1.5 s² − 0.5625 s + 1/32) = T3(2s − 1)/32: the error equioscillates at 1/32.
        double[] a = Remez.fit(powers(0, 1, 2), values(s -> s * s * s));
        assertEquals(1.0 / 32, a[0], 1e-12);
        assertEquals(-0.5625, a[1], 1e-12);
        assertEquals(1.5, a[2], 1e-12);
        assertEquals(1.0 / 32, Math.abs(a[3]), 1e-12);
    }

    @Test
    void fit_smoothFunction_noPointErrsMoreThanTheLevel() {
        double[] g = values(Math::exp);
        double[][] basis = powers(0, 1, 2);
        double[] a = Remez.fit(basis, g);
        double worst = 0;
        for (int i = 0; i < POINTS; i++) {
            worst = Math.max(worst, Math.abs(g[i] - a[0] - a[1] * basis[1][i] - a[2] * basis[2][i]));
        }
        assertTrue(worst <= Math.abs(a[3]) * (1 + 1e-9), "largest error " + worst + " above level " + a[3]);
    }

    @Test
    void fit_tooFewPoints_rejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Remez.fit(new double[][] {{1, 1}, {0, 1}, {0, 1}}, new double[] {1, 2}));
        assertEquals("a minimax fit of 3 functions needs at least 4 points: 2", e.getMessage());
    }
}
