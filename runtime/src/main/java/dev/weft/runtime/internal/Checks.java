package dev.weft.runtime.internal;

/**
 * Validation at the API boundary, in one place so every message has the same shape: the parameter, its
 * value and the rule it broke, e.g. {@code "blockDim.x must be in [1, 1024]: 2048"}. Internal
 * impossibilities use {@link #bug} instead, so a stack trace says whose fault it is.
 */
public final class Checks {

    private Checks() {
    }

    /** Throws {@link IllegalArgumentException} with the formatted message unless {@code ok}. */
    public static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }

    /** Checks {@code lo <= value <= hi}, naming {@code name} in the message. */
    public static void inRange(String name, long value, long lo, long hi) {
        if (value < lo || value > hi) {
            throw new IllegalArgumentException(name + " must be in [" + lo + ", " + hi + "]: " + value);
        }
    }

    /** Returns {@code value}, or throws {@link NullPointerException} naming {@code name}. */
    public static <T> T notNull(String name, T value) {
        if (value == null) {
            throw new NullPointerException(name + " must not be null");
        }
        return value;
    }

    /** An internal error: a broken invariant of Weft's own, never the user's input. */
    public static IllegalStateException bug(String message) {
        return new IllegalStateException("internal error in Weft (please report): " + message);
    }
}
