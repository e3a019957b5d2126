package dev.weft.simd.corpus;

import java.util.Optional;

/** Compares one output array of two executors element by element. */
public final class Compare {

    private Compare() {
    }

    /**
     * The first difference between {@code expected} (the reference executor's) and {@code actual} beyond
     * {@code tolerance}, described with both values and their bits and the count of differing elements;
     * empty when they match.
     */
    public static Optional<String> arrays(String name, Object expected, Object actual, Tolerance tolerance) {
        if (expected.getClass() != actual.getClass()) {
            return Optional.of(name + ": types differ: " + expected.getClass().getSimpleName() + " vs "
                    + actual.getClass().getSimpleName());
        }
        int n = java.lang.reflect.Array.getLength(expected);
        if (n != java.lang.reflect.Array.getLength(actual)) {
            return Optional.of(name + ": lengths differ: " + n + " vs " + java.lang.reflect.Array.getLength(actual));
        }
        int first = -1;
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (!matches(expected, actual, i, tolerance)) {
                if (first < 0) {
                    first = i;
                }
                count++;
            }
        }
        if (first < 0) {
            return Optional.empty();
        }
        return Optional.of(name + "[" + first + "]: reference " + describe(expected, first) + " vs other "
                + describe(actual, first) + " (" + count + " of " + n + " elements differ; comparison: " + tolerance + ")");
    }

    private static boolean matches(Object e, Object a, int i, Tolerance tol) {
        return switch (e) {
            case int[] x -> x[i] == ((int[]) a)[i];
            case long[] x -> x[i] == ((long[]) a)[i];
            case float[] x -> tol.matches(x[i], ((float[]) a)[i]);
            case double[] x -> tol.matches(x[i], ((double[]) a)[i]);
            case byte[] x -> x[i] == ((byte[]) a)[i];
            case short[] x -> x[i] == ((short[]) a)[i];
            case char[] x -> x[i] == ((char[]) a)[i];
            case boolean[] x -> x[i] == ((boolean[]) a)[i];
            default -> throw new IllegalArgumentException("unsupported output type " + e.getClass());
        };
    }

    /** A value with its bits, so a 1-ulp difference is visible in a message. */
    static String describe(Object array, int i) {
        return switch (array) {
            case int[] x -> x[i] + " (0x" + Integer.toHexString(x[i]) + ")";
            case long[] x -> x[i] + "L (0x" + Long.toHexString(x[i]) + ")";
            case float[] x -> x[i] + "f (0x" + Integer.toHexString(Float.floatToRawIntBits(x[i])) + ")";
            case double[] x -> x[i] + "d (0x" + Long.toHexString(Double.doubleToRawLongBits(x[i])) + ")";
            case byte[] x -> x[i] + " (0x" + Integer.toHexString(x[i] & 0xFF) + ")";
            case short[] x -> x[i] + " (0x" + Integer.toHexString(x[i] & 0xFFFF) + ")";
            case char[] x -> "0x" + Integer.toHexString(x[i]);
            case boolean[] x -> String.valueOf(x[i]);
            default -> String.valueOf(array);
        };
    }
}
