package dev.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.internal.sfu.Accuracy;
import dev.weft.internal.sfu.Table1;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Table 1 of the Tesla paper, swept exhaustively, and the special values of PTX's .approx.ftz. */
class SfuTest {

    private static final float MIN_SUBNORMAL = Float.MIN_VALUE;
    private static final float MAX_SUBNORMAL = Math.nextDown(Float.MIN_NORMAL);

    private static void assertBits(float expected, float actual, String what) {
        assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(actual),
                what + ": expected " + expected + " but was " + actual);
    }

    // ---- Table 1 ----------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Table1.class)
    void table1_everyInput_atLeastAsAccurateAsThePaper(Table1 row) {
        Accuracy.Stats s = row.measure();
        String where = row.function() + " on " + row.interval() + " (worst at " + s.worstInput() + ")";
        assertTrue(s.goodBits() >= row.paperGoodBits() - 0.1, where + ": good bits " + s.goodBits());
        if (!Double.isNaN(row.paperUlp())) {
            assertTrue(s.maxUlp() <= row.paperUlp() + 0.06, where + ": ulp error " + s.maxUlp());
        }
        if (!Double.isNaN(row.paperExactPercent()) && row != Table1.EX2) {
            assertTrue(s.exactPercent() >= row.paperExactPercent() - 1.5, where + ": exactly rounded " + s.exactPercent());
        }
        if (row.paperMonotonic()) {
            assertTrue(s.monotonic(), where + ": not monotonic");
        }
    }

    @Test
    void table1_ex2OverTheFloatsOfOneSixteenthToOne_exactlyRoundedAsThePaper() {
        // The paper's 74% matches this input set, not the grid (shared/SFU.md).
        Accuracy.Stats s = Table1.ex2OverFloats(0x1p-4f);
        assertTrue(s.exactPercent() >= 74 - 1.5, "exactly rounded " + s.exactPercent());
        assertTrue(s.monotonic(), "not monotonic");
    }

    @Test
    void sinCos_argumentsTo100Pi_within2ToTheMinus21point9() {
        SplittableRandom random = new SplittableRandom(5);
        double worst = 0;
        for (int n = 0; n < 1_000_000; n++) {
            float x = (float) ((random.nextDouble() * 2 - 1) * 100 * Math.PI);
            worst = Math.max(worst, Math.abs(Sfu.sin(x) - Math.sin(x)));
            worst = Math.max(worst, Math.abs(Sfu.cos(x) - Math.cos(x)));
        }
        assertTrue(worst <= Math.scalb(1.0, -21) / Math.pow(2, 0.9), "largest error " + worst);
    }

    @Test
    void sinCos_symmetricBitForBit() {
        SplittableRandom random = new SplittableRandom(6);
        for (int n = 0; n < 100_000; n++) {
            float x = (float) (random.nextDouble() * 1000);
            if (Sfu.sin(x) != 0) {
                assertBits(-Sfu.sin(x), Sfu.sin(-x), "sin(-" + x + ")");
            }
            assertBits(Sfu.cos(x), Sfu.cos(-x), "cos(-" + x + ")");
        }
    }

    // ---- exact points -----------------------------------------------------------------------

    @Test
    void exactPoints_powersOfTwoAndFour() {
        for (int k = -100; k <= 100; k++) {
            float p = Math.scalb(1f, k);
            assertBits(Math.scalb(1f, -k), Sfu.rcp(p), "rcp(2^" + k + ")");
            assertBits(k, Sfu.lg2(p), "lg2(2^" + k + ")");
            assertBits(p, Sfu.ex2(k), "ex2(" + k + ")");
            if (k % 2 == 0) {
                assertBits(Math.scalb(1f, -k / 2), Sfu.rsqrt(p), "rsqrt(2^" + k + ")");
            }
        }
        assertBits(0f, Sfu.sin(0f), "sin(0)");
        assertBits(1f, Sfu.cos(0f), "cos(0)");
    }

    // ---- special values ---------------------------------------------------------------------

    @Test
    void rcp_specialValues() {
        assertBits(Float.POSITIVE_INFINITY, Sfu.rcp(0f), "rcp(+0)");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.rcp(-0f), "rcp(-0)");
        assertBits(0f, Sfu.rcp(Float.POSITIVE_INFINITY), "rcp(+inf)");
        assertBits(-0f, Sfu.rcp(Float.NEGATIVE_INFINITY), "rcp(-inf)");
        assertBits(Float.NaN, Sfu.rcp(Float.NaN), "rcp(NaN)");
        assertBits(Float.POSITIVE_INFINITY, Sfu.rcp(MIN_SUBNORMAL), "subnormal flushed");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.rcp(-MAX_SUBNORMAL), "negative subnormal flushed");
        assertBits(0f, Sfu.rcp(0x1p127f), "subnormal result 2^-127 flushed");
        assertBits(-0f, Sfu.rcp(-Float.MAX_VALUE), "negative subnormal result flushed");
        assertBits(Float.MIN_NORMAL, Sfu.rcp(0x1p126f), "2^-126 is normal");
    }

    @Test
    void rsqrt_specialValues() {
        assertBits(Float.POSITIVE_INFINITY, Sfu.rsqrt(0f), "rsqrt(+0)");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.rsqrt(-0f), "rsqrt(-0)");
        assertBits(0f, Sfu.rsqrt(Float.POSITIVE_INFINITY), "rsqrt(+inf)");
        assertBits(Float.NaN, Sfu.rsqrt(Float.NEGATIVE_INFINITY), "rsqrt(-inf)");
        assertBits(Float.NaN, Sfu.rsqrt(-1f), "rsqrt(-1)");
        assertBits(Float.NaN, Sfu.rsqrt(-Float.MIN_NORMAL), "rsqrt(negative normal)");
        assertBits(Float.NaN, Sfu.rsqrt(Float.NaN), "rsqrt(NaN)");
        assertBits(Float.POSITIVE_INFINITY, Sfu.rsqrt(MIN_SUBNORMAL), "subnormal flushed");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.rsqrt(-MIN_SUBNORMAL), "negative subnormal flushed to -0");
    }

    @Test
    void ex2_specialValues() {
        assertBits(Float.POSITIVE_INFINITY, Sfu.ex2(128f), "overflow");
        assertBits(Float.POSITIVE_INFINITY, Sfu.ex2(Float.MAX_VALUE), "overflow");
        assertBits(Float.POSITIVE_INFINITY, Sfu.ex2(Float.POSITIVE_INFINITY), "ex2(+inf)");
        assertBits(0f, Sfu.ex2(Float.NEGATIVE_INFINITY), "ex2(-inf)");
        assertBits(0f, Sfu.ex2(-126.5f), "subnormal result flushed");
        assertBits(0f, Sfu.ex2(-1000f), "underflow");
        assertBits(Float.MIN_NORMAL, Sfu.ex2(-126f), "2^-126 is normal");
        assertBits(1f, Sfu.ex2(MIN_SUBNORMAL), "subnormal flushed");
        assertBits(1f, Sfu.ex2(-0f), "ex2(-0)");
        assertBits(Float.NaN, Sfu.ex2(Float.NaN), "ex2(NaN)");
        assertTrue(Sfu.ex2(127.99f) > 0x1p127f && Sfu.ex2(127.99f) < Float.POSITIVE_INFINITY, "below overflow");
    }

    @Test
    void lg2_specialValues() {
        assertBits(Float.NEGATIVE_INFINITY, Sfu.lg2(0f), "lg2(+0)");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.lg2(-0f), "lg2(-0)");
        assertBits(Float.NEGATIVE_INFINITY, Sfu.lg2(MAX_SUBNORMAL), "subnormal flushed");
        assertBits(Float.NaN, Sfu.lg2(-1f), "lg2(negative)");
        assertBits(Float.NaN, Sfu.lg2(Float.NEGATIVE_INFINITY), "lg2(-inf)");
        assertBits(Float.POSITIVE_INFINITY, Sfu.lg2(Float.POSITIVE_INFINITY), "lg2(+inf)");
        assertBits(Float.NaN, Sfu.lg2(Float.NaN), "lg2(NaN)");
        assertBits(-126f, Sfu.lg2(Float.MIN_NORMAL), "smallest normal");
    }

    @Test
    void sinCos_specialValues() {
        for (float inf : new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN}) {
            assertBits(Float.NaN, Sfu.sin(inf), "sin(" + inf + ")");
            assertBits(Float.NaN, Sfu.cos(inf), "cos(" + inf + ")");
        }
        assertBits(-0f, Sfu.sin(-0f), "sin(-0)");
        assertBits(0f, Sfu.sin(MIN_SUBNORMAL), "subnormal flushed");
        assertBits(-0f, Sfu.sin(-MAX_SUBNORMAL), "negative subnormal flushed");
        assertBits(1f, Sfu.cos(-MIN_SUBNORMAL), "cos of a subnormal");
    }
}
