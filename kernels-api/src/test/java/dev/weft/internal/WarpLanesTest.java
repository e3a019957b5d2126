package dev.weft.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The shuffle lane arithmetic against the pseudo-code of PTX {@code shfl.sync} (PTX ISA, "Data Movement
 * and Conversion Instructions: shfl.sync"), generalised from 32 lanes to a warp of {@code warpSize}
 * lanes, with {@code c} set as CUDA's {@code __shfl_*_sync(mask, var, b, width)} sets it.
 */
class WarpLanesTest {

    enum Mode { UP, DOWN, BFLY, IDX }

    /** PTX: {@code if (!pval) j = lane}; the source lane of {@code lane}. */
    static int ptx(Mode mode, int lane, int b, int width, int warpSize) {
        int laneMask = warpSize - 1;
        int bval = b & laneMask;
        // CUDA: c = ((warpSize - width) << 8) | clamp, clamp = 0 for up, warpSize - 1 otherwise
        int segmask = (warpSize - width) & laneMask;
        int cval = mode == Mode.UP ? 0 : laneMask;
        int maxLane = (lane & segmask) | (cval & ~segmask & laneMask);
        int minLane = lane & segmask;
        int j;
        boolean pval;
        switch (mode) {
            case UP -> {
                j = lane - bval;
                pval = j >= maxLane;
            }
            case DOWN -> {
                j = lane + bval;
                pval = j <= maxLane;
            }
            case BFLY -> {
                j = lane ^ bval;
                pval = j <= maxLane;
            }
            default -> {
                j = minLane | (bval & ~segmask & laneMask);
                pval = j <= maxLane;
            }
        }
        return pval ? j : lane;
    }

    static int weft(Mode mode, int lane, int b, int width, int warpSize) {
        return switch (mode) {
            case UP -> WarpLanes.up(lane, b, width, warpSize);
            case DOWN -> WarpLanes.down(lane, b, width, warpSize);
            case BFLY -> WarpLanes.xor(lane, b, width, warpSize);
            case IDX -> WarpLanes.idx(lane, b, width);
        };
    }

    @Test
    void everyMode_everyWarpSizeWidthLaneAndArgument_matchesPtx() {
        int[] extraArgs = {-1, -2, -31, -33, 32, 33, 63, 64, 1000, Integer.MAX_VALUE, Integer.MIN_VALUE};
        for (int warpSize = 1; warpSize <= 32; warpSize *= 2) {
            for (int width = 1; width <= warpSize; width *= 2) {
                for (int lane = 0; lane < warpSize; lane++) {
                    for (Mode mode : Mode.values()) {
                        for (int b = 0; b < 2 * warpSize + extraArgs.length; b++) {
                            int arg = b < 2 * warpSize ? b : extraArgs[b - 2 * warpSize];
                            String at = mode + " lane=" + lane + " b=" + arg + " width=" + width + " warpSize=" + warpSize;
                            assertEquals(ptx(mode, lane, arg, width, warpSize), weft(mode, lane, arg, width, warpSize), at);
                        }
                    }
                }
            }
        }
    }

    @Test
    void documentedExamples_width8() {
        // up by 1 within segments of 8: the first lane of each segment keeps its value
        assertEquals(8, WarpLanes.up(8, 1, 8, 32));
        assertEquals(8, WarpLanes.up(9, 1, 8, 32));
        // down by 3: the last 3 lanes of a segment keep theirs
        assertEquals(7, WarpLanes.down(4, 3, 8, 32));
        assertEquals(5, WarpLanes.down(5, 3, 8, 32));
        // xor may read an earlier segment but not a later one
        assertEquals(3, WarpLanes.xor(11, 8, 8, 32));
        assertEquals(3, WarpLanes.xor(3, 8, 8, 32));
        // idx reads srcLane mod width within the segment, negative srcLane too
        assertEquals(18, WarpLanes.idx(21, 10, 8));
        assertEquals(23, WarpLanes.idx(21, -1, 8));
    }

    @Test
    void checkWidth_powersOfTwoUpToWarpSize_accepted() {
        for (int warpSize = 1; warpSize <= 32; warpSize *= 2) {
            for (int width = 1; width <= warpSize; width *= 2) {
                WarpLanes.checkWidth(width, warpSize);
            }
        }
    }

    @Test
    void checkWidth_invalid_rejectedWithMessage() {
        int[][] bad = {{0, 32}, {-1, 32}, {3, 32}, {24, 32}, {64, 32}, {16, 8}, {Integer.MIN_VALUE, 32}};
        for (int[] b : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WarpLanes.checkWidth(b[0], b[1]));
            assertEquals("shuffle width must be a power of two in [1, " + b[1] + "]: " + b[0], e.getMessage());
        }
    }
}
