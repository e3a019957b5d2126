package dev.weft.simd.internal.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.KernelFault;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Phases#next} after a phase, on stops set by hand: the one pass over the groups' stops
 * ({@code -Dweft.simd.onePassNext}) decides only when every group agrees, whichever group is the one that differs,
 * for CTAs of 1 to 33 groups; the full checks decide the rest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PhasesNextTest {

    /** Barrier nodes 1 and 2 are two calls of one site (a helper inlined twice); node 3 is another site. */
    private static final String TABLE = "1|K.k(K.java:10)\n1|K.k(K.java:10)\n2|K.k(K.java:20)";
    private static final int GROUP = 32;
    private final Cta cta = new Cta();

    private static Phases at(int groups, int s) {
        Phases p = Phases.begin(groups * GROUP, GROUP);
        for (int g = 0; g < groups; g++) {
            p.stop[g] = s;
        }
        return p;
    }

    @Test
    void next_everyGroupAtOneBarrier_resumesThere() {
        for (int groups = 1; groups <= 33; groups++) {
            Phases p = at(groups, 3);
            assertTrue(p.next(cta, groups * GROUP, GROUP, TABLE));
            assertEquals(3, p.resumePoint(groups * GROUP, GROUP), "groups " + groups);
        }
    }

    @Test
    void next_everyGroupReturned_ends() {
        for (int groups = 1; groups <= 33; groups++) {
            assertFalse(at(groups, 0).next(cta, groups * GROUP, GROUP, TABLE), "groups " + groups);
        }
    }

    @Test
    void next_oneGroupAtAnotherSite_fails() {
        for (int groups = 2; groups <= 33; groups++) {
            for (int odd = 0; odd < groups; odd++) {
                Phases p = at(groups, 1);
                p.stop[odd] = 3;
                int n = groups;
                assertThrows(KernelFault.class, () -> p.next(cta, n * GROUP, GROUP, TABLE), "groups " + groups + ", group " + odd);
            }
        }
    }

    @Test
    void next_oneGroupReturnedEarly_fails() {
        for (int groups = 2; groups <= 33; groups++) {
            for (int odd = 0; odd < groups; odd++) {
                Phases p = at(groups, 3);
                p.stop[odd] = 0;
                int n = groups;
                assertThrows(KernelFault.class, () -> p.next(cta, n * GROUP, GROUP, TABLE), "groups " + groups + ", group " + odd);
            }
        }
    }

    @Test
    void next_oneGroupAtAnotherCallOfTheSameSite_resumesInTheGeneralMethod() {
        for (int groups = 2; groups <= 33; groups++) {
            for (int odd = 0; odd < groups; odd++) {
                Phases p = at(groups, 1);
                p.stop[odd] = 2;
                assertTrue(p.next(cta, groups * GROUP, GROUP, TABLE));
                assertEquals(-1, p.resumePoint(groups * GROUP, GROUP), "groups " + groups + ", group " + odd);
            }
        }
    }
}
