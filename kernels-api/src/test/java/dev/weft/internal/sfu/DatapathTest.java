package dev.weft.internal.sfu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class DatapathTest {

    /** The datapath's formula in arbitrary precision: each product exact, then floored. */
    private static long reference(TableSpec spec, int c0, int c1, int c2, int xl) {
        BigInteger x = BigInteger.valueOf(xl);
        BigInteger square = x.multiply(x).shiftRight(spec.squareShift());
        BigInteger t0 = BigInteger.valueOf(c0).shiftLeft(spec.sumBits() - spec.c0Bits());
        BigInteger t1 = BigInteger.valueOf(c1).multiply(x)
                .shiftRight(spec.c1Bits() + TableSpec.ARGUMENT_BITS - spec.sumBits());
        BigInteger t2 = BigInteger.valueOf(c2).multiply(square)
                .shiftRight(spec.c2Bits() + 2 * TableSpec.ARGUMENT_BITS - spec.squareShift() - spec.sumBits());
        return t0.add(t1).add(t2).longValueExact();
    }

    @Test
    void sum_matchesExactProductsFloored_negativeCoefficientsToo() {
        for (TableSpec spec : TableSpec.values()) {
            int[] c0 = {1 << (spec.c0Bits() - 1), 3};
            int[] c1 = {-(1 << 16) + 7, (1 << 16) - 3};
            int[] c2 = {(1 << 10) - 1, -(1 << 10) + 5};
            Datapath d = new Datapath(spec, c0, c1, c2);
            for (int k = 0; k < 2; k++) {
                for (int xl : new int[] {0, 1, 12345, (1 << spec.lowBits()) - 1}) {
                    assertEquals(reference(spec, c0[k], c1[k], c2[k], xl), d.sum((k << spec.lowBits()) | xl),
                            spec + " segment " + k + " x_l " + xl);
                }
            }
        }
    }

    @Test
    void coefficients_unpackWithTheirSigns() {
        Datapath d = new Datapath(TableSpec.LG2, new int[] {5}, new int[] {-70000}, new int[] {-1000});
        assertEquals(5, d.c0(0));
        assertEquals(-70000, d.c1(0));
        assertEquals(-1000, d.c2(0));
    }

    @Test
    void constructor_c1TooWide_rejected() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new Datapath(TableSpec.RCP, new int[] {0}, new int[] {1 << 17}, new int[] {0}));
        assertEquals("internal: SFU datapath invariant broken: C1 wider than 17 bits", e.getMessage());
    }

    @Test
    void unitInterval_clampsAndRoundsToNearestFloat() {
        assertEquals(0f, Datapath.unitInterval(-5));
        assertEquals(1f, Datapath.unitInterval((1 << 30) + 99));
        assertEquals(0.5f, Datapath.unitInterval(1 << 29));
        assertEquals(1f, Datapath.unitInterval((1 << 30) - 1));
    }
}
