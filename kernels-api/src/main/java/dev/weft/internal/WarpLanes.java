package dev.weft.internal;

/**
 * The lane arithmetic of the warp shuffles, as PTX {@code shfl.sync} defines it, in one place so that every
 * executor computes the same source lanes. Not API.
 *
 * <p>Each method returns the lane a given lane reads from, or the lane itself when the rule says it keeps
 * its own value. Whether the source lane is active is the caller's question.
 */
public final class WarpLanes {

    private WarpLanes() {
    }

    /**
     * Checks a shuffle width against the warp size.
     *
     * @throws IllegalArgumentException unless {@code width} is a power of two in {@code [1, warpSize]}
     */
    public static void checkWidth(int width, int warpSize) {
        if (width < 1 || width > warpSize || Integer.bitCount(width) != 1) {
            throw new IllegalArgumentException(
                    "shuffle width must be a power of two in [1, " + warpSize + "]: " + width);
        }
    }

    /** {@code shfl.idx}: lane {@code srcLane mod width} of this lane's segment. */
    public static int idx(int lane, int srcLane, int width) {
        return (lane & -width) | (srcLane & (width - 1));
    }

    /** {@code shfl.up}: {@code lane - delta} if it stays in this lane's segment, else {@code lane}. */
    public static int up(int lane, int delta, int width, int warpSize) {
        int src = lane - (delta & (warpSize - 1));
        return src >= (lane & -width) ? src : lane;
    }

    /** {@code shfl.down}: {@code lane + delta} if it stays in this lane's segment, else {@code lane}. */
    public static int down(int lane, int delta, int width, int warpSize) {
        int src = lane + (delta & (warpSize - 1));
        return src <= (lane | (width - 1)) ? src : lane;
    }

    /** {@code shfl.bfly}: {@code lane ^ laneMask} unless it lies in a later segment, else {@code lane}. */
    public static int xor(int lane, int laneMask, int width, int warpSize) {
        int src = lane ^ (laneMask & (warpSize - 1));
        return src <= (lane | (width - 1)) ? src : lane;
    }
}
