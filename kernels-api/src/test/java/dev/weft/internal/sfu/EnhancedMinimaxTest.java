package dev.weft.internal.sfu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class EnhancedMinimaxTest {

    private static int[] column(Datapath d, int k) {
        int[] out = new int[d.segments()];
        for (int i = 0; i < out.length; i++) {
            out[i] = k == 0 ? d.c0(i) : k == 1 ? d.c1(i) : d.c2(i);
        }
        return out;
    }

    @Test
    void generate_twice_sameCoefficients() {
        Datapath first = EnhancedMinimax.generate(TableSpec.SIN);
        Datapath second = EnhancedMinimax.generate(TableSpec.SIN);
        for (int k = 0; k < 3; k++) {
            assertArrayEquals(column(first, k), column(second, k), "column C" + k);
        }
        assertArrayEquals(column(SfuTables.SIN, 0), column(first, 0));
    }

    @Test
    void tables_segmentCountsAsSfuMd_448InAll() {
        assertEquals(128, SfuTables.RCP.segments());
        assertEquals(128, SfuTables.RSQRT.segments());
        assertEquals(64, SfuTables.EX2.segments());
        assertEquals(64, SfuTables.LG2.segments());
        assertEquals(64, SfuTables.SIN.segments());
    }

    @Test
    void tables_storedBitsWithinTheNominalWidths() {
        int total = 0;
        for (Datapath d : SfuTables.all()) {
            TableSpec s = d.spec();
            assertTrue(d.storedBits(0) <= s.c0Bits() + s.c0IntegerBits(), s + " C0 " + d.storedBits(0));
            // C1 and C2 may need an integer bit (sine's C1 reaches π/2) beyond their fractional bits.
            assertTrue(d.storedBits(1) <= s.c1Bits() + 1, s + " C1 " + d.storedBits(1));
            assertTrue(d.storedBits(2) <= s.c2Bits() + 1, s + " C2 " + d.storedBits(2));
            total += d.segments() * d.storedBitsPerSegment();
        }
        // Table 1's unit: 448 segments of 52-bit words, 23,296 bits (22.75 Kb).
        assertTrue(total <= 23_296, "table bits " + total);
    }

    @Test
    void tables_everySegmentCloseToTheFunction() {
        // At each segment's ends and middle, the sum (before the output's rounding) is within the
        // accuracy Table 1 asks for: 1/x 2^-24, 1/sqrt 1.1·2^-24, 2^x and log2 2^-23, sine 2^-22.5.
        for (Datapath d : SfuTables.all()) {
            TableSpec first = d.spec();
            double bound = switch (first) {
                case RCP -> 0x1p-24;
                case RSQRT_EVEN -> 1.1 * 0x1p-24;
                case SIN -> Math.scalb(1.0, -22) / Math.sqrt(2);
                default -> 0x1p-23;
            };
            int perPart = first.segments();
            for (int k = 0; k < d.segments(); k++) {
                TableSpec spec = k < perPart ? first : TableSpec.RSQRT_ODD;
                for (int xl : new int[] {0, 1 << (spec.lowBits() - 1), (1 << spec.lowBits()) - 1}) {
                    int argument = (k << spec.lowBits()) | xl;
                    int u = ((k % perPart) << spec.lowBits()) | xl;
                    double exact = spec.exact(Math.scalb((double) u, -TableSpec.ARGUMENT_BITS));
                    double got = Math.scalb((double) d.sum(argument), -spec.sumBits());
                    assertTrue(Math.abs(got - exact) < bound, spec + " segment " + k + " x_l " + xl + ": " + got
                            + " vs " + exact);
                }
            }
        }
    }

    @Test
    void tables_monotonicFunctionsNeverStepBackAtABoundary() {
        for (Datapath d : new Datapath[] {SfuTables.RCP, SfuTables.RSQRT, SfuTables.EX2, SfuTables.LG2}) {
            TableSpec spec = d.spec();
            int last = (1 << spec.lowBits()) - 1;
            for (int k = 0; k + 1 < d.segments(); k++) {
                long end = d.sum((k << spec.lowBits()) | last);
                long start = d.sum((k + 1) << spec.lowBits());
                assertTrue((start - end) * spec.direction() >= 0, spec + " boundary " + k + ": " + end + " then " + start);
            }
        }
    }

    @Test
    void tables_pinnedFirstInputsGiveExactOutputs() {
        assertEquals(1.0, TableSpec.RCP.output(SfuTables.RCP.sum(0)));
        assertEquals(1.0, TableSpec.EX2.output(SfuTables.EX2.sum(0)));
        assertEquals(0.0, TableSpec.LG2.output(SfuTables.LG2.sum(0)));
        assertEquals(0.0, TableSpec.SIN.output(SfuTables.SIN.sum(0)));
    }

    @Test
    void segment_searchBeatsRoundingToNearest() {
        // The worst segment of 2^x: the best rounded pair errs less than the nearest pair.
        TableSpec spec = TableSpec.EX2;
        double worstTuned = 0;
        for (int j = 0; j < spec.segments(); j++) {
            worstTuned = Math.max(worstTuned, new EnhancedMinimax.Segment(spec, j)
                    .choose(Double.NaN, Long.MIN_VALUE, Long.MAX_VALUE).maxError());
        }
        assertTrue(worstTuned < 0.47 * 0x1p-23, "2^x worst segment error " + worstTuned / 0x1p-23 + " ulp");
    }

    @Test
    void generate_partsOfDifferentWidths_rejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EnhancedMinimax.generate(TableSpec.RCP, TableSpec.EX2));
        assertEquals("table parts must share their widths: RCP, EX2", e.getMessage());
    }
}
