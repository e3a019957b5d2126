package dev.weft.runtime.spi;

import java.util.Arrays;

/**
 * One SM's shared memory: the arrays of the CTA it runs. The k-th allocation of a CTA is one array, made (or
 * reused from an earlier CTA of the same shape, and zeroed) the first time any thread asks for it.
 *
 * <p>Owned by one SM worker thread; not thread-safe. {@link #reset} at every CTA start.
 */
public final class SharedMemory {

    private Object[] arrays = new Object[8];
    private int count;
    private long bytes;
    private int limitBytes;
    private String limitName = "";

    /**
     * Starts a CTA: forgets its allocations (keeping the arrays for reuse) and sets its byte limit.
     *
     * @param limitBytes the most this CTA may allocate
     * @param limitName what the limit is, for the error message
     */
    public void reset(int limitBytes, String limitName) {
        reset();
        this.limitBytes = limitBytes;
        if (this.limitName != limitName) {
            this.limitName = limitName; // a reference store only when it changes: see Cta.start
        }
    }

    /** Starts the next CTA of the same launch: forgets the allocations, keeps the limit. */
    public void reset() {
        this.count = 0;
        this.bytes = 0;
    }

    /** Bytes this CTA has allocated so far. */
    public long bytes() {
        return bytes;
    }

    /** The CTA's {@code k}-th allocation as ints of {@code length}; allocations are made in order from 0. */
    public int[] ints(int k, int length) {
        Object a = find(k, int[].class, length, 4);
        if (a != null) {
            return (int[]) a;
        }
        int[] fresh = reuse(k) instanceof int[] old && old.length == length ? zero(old) : new int[length];
        return store(k, fresh);
    }

    /** As {@link #ints}, for longs. */
    public long[] longs(int k, int length) {
        Object a = find(k, long[].class, length, 8);
        if (a != null) {
            return (long[]) a;
        }
        long[] fresh = reuse(k) instanceof long[] old && old.length == length ? zero(old) : new long[length];
        return store(k, fresh);
    }

    /** As {@link #ints}, for floats. */
    public float[] floats(int k, int length) {
        Object a = find(k, float[].class, length, 4);
        if (a != null) {
            return (float[]) a;
        }
        float[] fresh = reuse(k) instanceof float[] old && old.length == length ? zero(old) : new float[length];
        return store(k, fresh);
    }

    /** As {@link #ints}, for doubles. */
    public double[] doubles(int k, int length) {
        Object a = find(k, double[].class, length, 8);
        if (a != null) {
            return (double[]) a;
        }
        double[] fresh = reuse(k) instanceof double[] old && old.length == length ? zero(old) : new double[length];
        return store(k, fresh);
    }

    /** The existing k-th allocation if it matches, else null after checking the new one is allowed. */
    private Object find(int k, Class<?> type, int length, int elementBytes) {
        if (k < count) {
            Object a = arrays[k];
            if (a.getClass() != type || java.lang.reflect.Array.getLength(a) != length) {
                throw new IllegalArgumentException("shared allocation #" + k + " was "
                        + describe(a.getClass(), java.lang.reflect.Array.getLength(a)) + " for another thread of this CTA, "
                        + "here " + describe(type, length) + ": every thread must make the same allocations in the same order");
            }
            return a;
        }
        if (k != count) {
            throw new IllegalArgumentException("shared allocation #" + k + " requested before #" + count);
        }
        if (length < 0) {
            throw new IllegalArgumentException("shared array length must be >= 0: " + length);
        }
        long need = bytes + (long) length * elementBytes;
        if (need > limitBytes) {
            throw new IllegalArgumentException("shared memory of this CTA would reach " + need + " bytes with "
                    + describe(type, length) + ", over the " + limitName + " of " + limitBytes + " bytes");
        }
        bytes = need;
        return null;
    }

    private Object reuse(int k) {
        return k < arrays.length ? arrays[k] : null;
    }

    private <T> T store(int k, T array) {
        if (k == arrays.length) {
            arrays = Arrays.copyOf(arrays, k * 2);
        }
        arrays[k] = array;
        count = k + 1;
        return array;
    }

    private static String describe(Class<?> type, int length) {
        return type.getComponentType() + "[" + length + "]";
    }

    private static int[] zero(int[] a) {
        Arrays.fill(a, 0);
        return a;
    }

    private static long[] zero(long[] a) {
        Arrays.fill(a, 0);
        return a;
    }

    private static float[] zero(float[] a) {
        Arrays.fill(a, 0);
        return a;
    }

    private static double[] zero(double[] a) {
        Arrays.fill(a, 0);
        return a;
    }
}
