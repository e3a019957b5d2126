package dev.weft.simd.internal.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The branch-free floorDiv and floorMod the parser inlines equal the JDK's, at the edges and over random operands. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FloorOpsTest {

    private static final int[] INT_EDGES = {0, 1, -1, 2, -2, 3, -3, 7, -7, 31, Integer.MAX_VALUE, Integer.MIN_VALUE,
        Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1, 65536, -65536};
    private static final long[] LONG_EDGES = {0, 1, -1, 2, -2, 3, -3, 7, -7, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
        Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 32, -(1L << 32)};

    @Test
    void floorDivAndMod_equalTheJdks() {
        SplittableRandom r = new SplittableRandom(15);
        for (int i = 0; i < 200_000; i++) {
            int x = i < 256 ? INT_EDGES[i & 15] : r.nextInt(8) == 0 ? r.nextInt(-20, 20) : r.nextInt();
            int y = i < 256 ? INT_EDGES[i >>> 4] : r.nextInt(4) == 0 ? r.nextInt(-9, 10) : r.nextInt();
            long lx = i < 256 ? LONG_EDGES[i & 15] : r.nextInt(8) == 0 ? r.nextLong(-20, 20) : r.nextLong();
            long ly = i < 256 ? LONG_EDGES[i >>> 4] : r.nextInt(4) == 0 ? r.nextLong(-9, 10) : r.nextLong();
            if (y != 0) {
                assertEquals(Math.floorDiv(x, y), FloorOps.floorDiv(x, y), x + " floorDiv " + y);
                assertEquals(Math.floorMod(x, y), FloorOps.floorMod(x, y), x + " floorMod " + y);
                assertEquals(Math.floorDiv(lx, y), FloorOps.floorDiv(lx, y), lx + " floorDiv " + y);
                assertEquals(Math.floorMod(lx, y), FloorOps.floorMod(lx, y), lx + " floorMod " + y);
            }
            if (ly != 0) {
                assertEquals(Math.floorDiv(lx, ly), FloorOps.floorDiv(lx, ly), lx + " floorDiv " + ly);
                assertEquals(Math.floorMod(lx, ly), FloorOps.floorMod(lx, ly), lx + " floorMod " + ly);
            }
        }
        assertThrows(ArithmeticException.class, () -> FloorOps.floorDiv(1, 0));
        assertThrows(ArithmeticException.class, () -> FloorOps.floorMod(1L, 0));
    }
}
