package dev.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.internal.sfu.FastMathBounds;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class FastMathTest {

    private static void assertBits(float expected, float actual, String what) {
        assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(actual),
                what + ": expected " + expected + " but was " + actual);
    }

    @ParameterizedTest
    @EnumSource(FastMathBounds.class)
    void intrinsic_withinCudasDocumentedBound(FastMathBounds b) {
        FastMathBounds.Result r = b.measure();
        assertTrue(r.withinBound(), b.intrinsic() + ": error " + r.maxError() + " is " + r.boundRatio()
                + " of CUDA's " + b.cudaBound() + " at " + r.worstInput());
    }

    @Test
    void sqrtf_isRcpOfRsqrt_exactOnSquaresOfPowersOfTwo() {
        for (int k = -60; k <= 60; k++) {
            assertBits(Math.scalb(1f, k), FastMath.sqrtf(Math.scalb(1f, 2 * k)), "sqrtf(4^" + k + ")");
        }
        assertBits(0f, FastMath.sqrtf(0f), "sqrtf(+0)");
        assertBits(-0f, FastMath.sqrtf(-0f), "sqrtf(-0)");
        assertBits(Float.POSITIVE_INFINITY, FastMath.sqrtf(Float.POSITIVE_INFINITY), "sqrtf(+inf)");
        assertBits(Float.NaN, FastMath.sqrtf(-4f), "sqrtf(negative)");
        assertTrue(Math.abs(FastMath.sqrtf(2f) - Math.sqrt(2)) < 0x1p-22, "sqrtf(2)");
    }

    @Test
    void fdividef_hugeDivisor_zero_andInfiniteDividend_nan() {
        // CUDA: for 2^126 < |y| < 2^128, __fdividef(x, y) is 0, and NaN for an infinite x.
        assertBits(0f, FastMath.fdividef(5f, 0x1.8p126f), "x / huge");
        assertTrue(Float.isNaN(FastMath.fdividef(Float.POSITIVE_INFINITY, 0x1.8p126f)), "inf / huge");
        assertBits(-0f, FastMath.fdividef(Float.MIN_NORMAL, -4f), "subnormal quotient flushed");
        assertBits(2.5f, FastMath.fdividef(10f, 4f), "10 / 4");
    }

    @Test
    void expfLogf_matchTheirDefinitions() {
        assertBits(Sfu.ex2(3f * (float) (1 / Math.log(2))), FastMath.expf(3f), "expf(3)");
        assertBits(Sfu.lg2(10f) * (float) Math.log(2), FastMath.logf(10f), "logf(10)");
        assertBits(1f, FastMath.expf(0f), "expf(0)");
        assertBits(0f, FastMath.logf(1f), "logf(1)");
        assertBits(Float.NEGATIVE_INFINITY, FastMath.logf(0f), "logf(0)");
    }
}
