package dev.weft.simd.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ToleranceTest {

    @Test
    void exact_nanPayloadsMatch_zeroSignsDoNot() {
        assertTrue(Tolerance.EXACT.matches(Float.NaN, Float.intBitsToFloat(0xffc00000)));
        assertTrue(Tolerance.EXACT.matches(Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L)));
        assertFalse(Tolerance.EXACT.matches(0f, -0f));
        assertFalse(Tolerance.EXACT.matches(0d, -0d));
        assertFalse(Tolerance.EXACT.matches(1f, Math.nextUp(1f)));
        assertFalse(Tolerance.EXACT.matches(Float.NaN, 0f));
    }

    @Test
    void ulpDistance_neighboursAcrossZeroAndInfinity_counted() {
        assertEquals(1, Tolerance.ulpDistance(1f, Math.nextUp(1f)));
        assertEquals(2, Tolerance.ulpDistance(Float.MIN_VALUE, -Float.MIN_VALUE));
        assertEquals(0, Tolerance.ulpDistance(0f, -0f));
        assertEquals(1, Tolerance.ulpDistance(Float.MAX_VALUE, Float.POSITIVE_INFINITY));
        assertEquals(1, Tolerance.ulpDistance(1.0, Math.nextDown(1.0)));
        assertEquals(Long.MAX_VALUE, Tolerance.ulpDistance(Double.MAX_VALUE, -Double.MAX_VALUE));
    }

    @Test
    void math1ulp_floatOneUlpPasses_twoFail() {
        float x = 0.7f;
        assertTrue(Tolerance.MATH_1ULP.matches(x, Math.nextUp(x)));
        assertFalse(Tolerance.MATH_1ULP.matches(x, Math.nextUp(Math.nextUp(x))));
        assertFalse(Tolerance.MATH_1ULP.matches(x, Float.NaN));
        double d = 0.7;
        assertTrue(Tolerance.MATH_1ULP.matches(d, Math.nextUp(Math.nextUp(d))));
        assertFalse(Tolerance.MATH_1ULP.matches(d, Math.nextUp(Math.nextUp(Math.nextUp(d)))));
    }

    @Test
    void absolute_boundInclusive() {
        Tolerance t = Tolerance.absolute(1e-3, "test");
        assertTrue(t.matches(1.0, 1.0009));
        assertFalse(t.matches(1.0, 1.0011));
        assertFalse(t.matches(Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY));
    }

    @Test
    void compareArrays_firstDifferenceAndCount_described() {
        Optional<String> d = Compare.arrays("y", new float[] {1f, 2f, 3f}, new float[] {1f, 2.5f, 4f}, Tolerance.EXACT);
        assertTrue(d.isPresent());
        assertTrue(d.get().startsWith("y[1]: reference 2.0f (0x40000000) vs other 2.5f"), d.get());
        assertTrue(d.get().contains("2 of 3 elements differ"), d.get());
        assertEquals(Optional.empty(), Compare.arrays("i", new int[] {1, 2}, new int[] {1, 2}, Tolerance.EXACT));
    }
}
