package dev.weft.simd.internal.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.internal.WarpLanes;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The O(1) bit formulas for the lanes of a uniform shuffle that read their source lane ({@code Lanes.take*}, which
 * CodeGen emits inline) against the lane-by-lane rule of the reference executor: source lane from
 * {@link WarpLanes}, taken if it is another lane and active.
 */
class ShuffleTakeTest {

    private static long byLanes(long active, int mode, int arg, int width, int warpSize) {
        long take = 0;
        for (int lane = 0; lane < warpSize; lane++) {
            if ((active >>> lane & 1) == 0) {
                continue;
            }
            int src = switch (mode) {
                case 0 -> WarpLanes.idx(lane, arg, width);
                case 1 -> WarpLanes.up(lane, arg, width, warpSize);
                case 2 -> WarpLanes.down(lane, arg, width, warpSize);
                default -> WarpLanes.xor(lane, arg, width, warpSize);
            };
            if ((active >>> src & 1) != 0) {
                take |= 1L << lane;
            }
        }
        return take;
    }

    private static long formula(long active, int mode, int arg, int width, int warpSize) {
        return switch (mode) {
            case 0 -> Lanes.takeIdx(active, arg, width, warpSize);
            case 1 -> Lanes.takeUp(active, arg, width, warpSize);
            case 2 -> Lanes.takeDown(active, arg, width, warpSize);
            default -> Lanes.takeXor(active, arg, width, warpSize);
        };
    }

    @Test
    void take_everyModeWidthAndArgument_matchesLaneByLaneRule() {
        SplittableRandom r = new SplittableRandom(31);
        for (int warpSize : new int[] {8, 16, 32}) {
            long all = warpSize == 64 ? -1L : (1L << warpSize) - 1;
            long[] actives = new long[40];
            actives[0] = all;
            actives[1] = 0;
            actives[2] = all >>> 5; // a partial warp
            for (int i = 3; i < actives.length; i++) {
                actives[i] = r.nextLong() & all;
            }
            for (int width = 1; width <= warpSize; width <<= 1) {
                for (int mode = 0; mode < 4; mode++) {
                    for (int arg = -3; arg < 2 * warpSize + 3; arg++) {
                        for (long active : actives) {
                            // a lane that keeps its own value may be counted either way: only differing sources matter
                            long own = ownLanes(mode, arg, width, warpSize);
                            int m = mode;
                            int a = arg;
                            int w = width;
                            int ws = warpSize;
                            assertEquals(byLanes(active, mode, arg, width, warpSize) & ~own,
                                    formula(active, mode, arg, width, warpSize) & ~own,
                                    () -> "mode " + m + " arg " + a + " width " + w + " warpSize " + ws
                                            + " active " + Long.toHexString(active));
                        }
                    }
                }
            }
        }
    }

    /** The lanes whose source lane is themselves (their result is their own value whatever take says). */
    private static long ownLanes(int mode, int arg, int width, int warpSize) {
        long own = 0;
        for (int lane = 0; lane < warpSize; lane++) {
            int src = switch (mode) {
                case 0 -> WarpLanes.idx(lane, arg, width);
                case 1 -> WarpLanes.up(lane, arg, width, warpSize);
                case 2 -> WarpLanes.down(lane, arg, width, warpSize);
                default -> WarpLanes.xor(lane, arg, width, warpSize);
            };
            if (src == lane) {
                own |= 1L << lane;
            }
        }
        return own;
    }
}
