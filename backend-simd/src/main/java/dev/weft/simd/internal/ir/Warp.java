package dev.weft.simd.internal.ir;

/**
 * The datum of an {@link Op#WARP} node: which warp operation of {@link dev.weft.ThreadContext} it is.
 * Votes ({@code ballot}, {@code any}, {@code all}) take (predicate as 0/1) and give one value to the whole warp;
 * shuffles ({@code shfl}, {@code shflUp}, {@code shflDown}, {@code shflXor}) take (value, lane argument,
 * width) and give each lane its own.
 *
 * @param name the ThreadContext method
 * @param isFloat whether a shuffle moves floats (votes: false)
 */
public record Warp(String name, boolean isFloat) {

    /** Whether this is a vote (its result is the same in every lane of the warp). */
    public boolean isVote() {
        return name.equals("ballot") || name.equals("any") || name.equals("all");
    }

    /** The shuffle's mode as {@code Lanes.shuffle} numbers it: 0 idx, 1 up, 2 down, 3 xor. */
    public int mode() {
        return switch (name) {
            case "shfl" -> 0;
            case "shflUp" -> 1;
            case "shflDown" -> 2;
            case "shflXor" -> 3;
            default -> throw new IllegalStateException(name + " is not a shuffle");
        };
    }

    /** The call as the listing shows it. */
    public String display() {
        return name;
    }
}
