package dev.weft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Atomic read-modify-write operations on elements of global or shared arrays, as CUDA's
 * {@code atomicXxx} functions: each returns the element's old value, and no concurrent update is lost,
 * whether it comes from another lane of the warp, another warp, or a CTA on another SM.
 *
 * <p>All four element types have add, min, max, exchange and compare-and-swap; int and long also have
 * and, or, xor and the wrapping increment and decrement of {@code atomicInc}/{@code atomicDec}.
 * Float and double min and max follow {@link Math#min(float, float)}: NaN wins, and -0.0 is less than
 * +0.0. Compare-and-swap on float and double compares bit patterns, as CUDA's {@code atomicCAS} on the
 * reinterpreted word does.
 *
 * <p>Every operation has sequentially consistent (volatile) ordering. An index out of bounds throws
 * {@link ArrayIndexOutOfBoundsException}, which fails the launch with the thread's coordinates.
 */
public final class Atomics {

    private static final VarHandle INT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle LONG = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle FLOAT = MethodHandles.arrayElementVarHandle(float[].class);
    private static final VarHandle DOUBLE = MethodHandles.arrayElementVarHandle(double[].class);

    private Atomics() {
    }

    // ---- int ---------------------------------------------------------------------------------

    /** Adds {@code v} to {@code a[i]} (wrapping); returns the old value. CUDA: {@code atomicAdd}. */
    public static int add(int[] a, int i, int v) {
        return (int) INT.getAndAdd(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]}; returns the old value. CUDA: {@code atomicExch}. */
    public static int exchange(int[] a, int i, int v) {
        return (int) INT.getAndSet(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]} if it equals {@code expected}; returns the old value. CUDA: {@code atomicCAS}. */
    public static int compareAndSwap(int[] a, int i, int expected, int v) {
        return (int) INT.compareAndExchange(a, i, expected, v);
    }

    /** Stores the signed minimum of {@code a[i]} and {@code v}; returns the old value. CUDA: {@code atomicMin}. */
    public static int min(int[] a, int i, int v) {
        int old = (int) INT.getVolatile(a, i);
        while (old > v) {
            int witness = (int) INT.compareAndExchange(a, i, old, v);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        return old;
    }

    /** Stores the signed maximum of {@code a[i]} and {@code v}; returns the old value. CUDA: {@code atomicMax}. */
    public static int max(int[] a, int i, int v) {
        int old = (int) INT.getVolatile(a, i);
        while (old < v) {
            int witness = (int) INT.compareAndExchange(a, i, old, v);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        return old;
    }

    /** Stores {@code a[i] & v}; returns the old value. CUDA: {@code atomicAnd}. */
    public static int and(int[] a, int i, int v) {
        return (int) INT.getAndBitwiseAnd(a, i, v);
    }

    /** Stores {@code a[i] | v}; returns the old value. CUDA: {@code atomicOr}. */
    public static int or(int[] a, int i, int v) {
        return (int) INT.getAndBitwiseOr(a, i, v);
    }

    /** Stores {@code a[i] ^ v}; returns the old value. CUDA: {@code atomicXor}. */
    public static int xor(int[] a, int i, int v) {
        return (int) INT.getAndBitwiseXor(a, i, v);
    }

    /**
     * Stores {@code old >= limit ? 0 : old + 1}, comparing unsigned; returns the old value: a counter that
     * wraps to 0 after {@code limit}. CUDA: {@code atomicInc}.
     */
    public static int inc(int[] a, int i, int limit) {
        int old = (int) INT.getVolatile(a, i);
        while (true) {
            int next = Integer.compareUnsigned(old, limit) >= 0 ? 0 : old + 1;
            int witness = (int) INT.compareAndExchange(a, i, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    /**
     * Stores {@code (old == 0 || old > limit) ? limit : old - 1}, comparing unsigned; returns the old
     * value: a counter that wraps to {@code limit} below 0. CUDA: {@code atomicDec}.
     */
    public static int dec(int[] a, int i, int limit) {
        int old = (int) INT.getVolatile(a, i);
        while (true) {
            int next = (old == 0 || Integer.compareUnsigned(old, limit) > 0) ? limit : old - 1;
            int witness = (int) INT.compareAndExchange(a, i, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    // ---- long --------------------------------------------------------------------------------

    /** Adds {@code v} to {@code a[i]} (wrapping); returns the old value. CUDA: {@code atomicAdd}. */
    public static long add(long[] a, int i, long v) {
        return (long) LONG.getAndAdd(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]}; returns the old value. CUDA: {@code atomicExch}. */
    public static long exchange(long[] a, int i, long v) {
        return (long) LONG.getAndSet(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]} if it equals {@code expected}; returns the old value. CUDA: {@code atomicCAS}. */
    public static long compareAndSwap(long[] a, int i, long expected, long v) {
        return (long) LONG.compareAndExchange(a, i, expected, v);
    }

    /** Stores the signed minimum of {@code a[i]} and {@code v}; returns the old value. CUDA: {@code atomicMin}. */
    public static long min(long[] a, int i, long v) {
        long old = (long) LONG.getVolatile(a, i);
        while (old > v) {
            long witness = (long) LONG.compareAndExchange(a, i, old, v);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        return old;
    }

    /** Stores the signed maximum of {@code a[i]} and {@code v}; returns the old value. CUDA: {@code atomicMax}. */
    public static long max(long[] a, int i, long v) {
        long old = (long) LONG.getVolatile(a, i);
        while (old < v) {
            long witness = (long) LONG.compareAndExchange(a, i, old, v);
            if (witness == old) {
                break;
            }
            old = witness;
        }
        return old;
    }

    /** Stores {@code a[i] & v}; returns the old value. CUDA: {@code atomicAnd}. */
    public static long and(long[] a, int i, long v) {
        return (long) LONG.getAndBitwiseAnd(a, i, v);
    }

    /** Stores {@code a[i] | v}; returns the old value. CUDA: {@code atomicOr}. */
    public static long or(long[] a, int i, long v) {
        return (long) LONG.getAndBitwiseOr(a, i, v);
    }

    /** Stores {@code a[i] ^ v}; returns the old value. CUDA: {@code atomicXor}. */
    public static long xor(long[] a, int i, long v) {
        return (long) LONG.getAndBitwiseXor(a, i, v);
    }

    /** As {@link #inc(int[], int, int)}, on a 64-bit counter. */
    public static long inc(long[] a, int i, long limit) {
        long old = (long) LONG.getVolatile(a, i);
        while (true) {
            long next = Long.compareUnsigned(old, limit) >= 0 ? 0 : old + 1;
            long witness = (long) LONG.compareAndExchange(a, i, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    /** As {@link #dec(int[], int, int)}, on a 64-bit counter. */
    public static long dec(long[] a, int i, long limit) {
        long old = (long) LONG.getVolatile(a, i);
        while (true) {
            long next = (old == 0 || Long.compareUnsigned(old, limit) > 0) ? limit : old - 1;
            long witness = (long) LONG.compareAndExchange(a, i, old, next);
            if (witness == old) {
                return old;
            }
            old = witness;
        }
    }

    // ---- float -------------------------------------------------------------------------------

    /** Adds {@code v} to {@code a[i]} (round to nearest); returns the old value. CUDA: {@code atomicAdd}. */
    public static float add(float[] a, int i, float v) {
        return (float) FLOAT.getAndAdd(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]}; returns the old value. CUDA: {@code atomicExch}. */
    public static float exchange(float[] a, int i, float v) {
        return (float) FLOAT.getAndSet(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]} if its bits equal {@code expected}'s; returns the old value. CUDA: {@code atomicCAS}. */
    public static float compareAndSwap(float[] a, int i, float expected, float v) {
        return (float) FLOAT.compareAndExchange(a, i, expected, v);
    }

    /** Stores {@link Math#min(float, float) min(a[i], v)}; returns the old value. CUDA: {@code atomicMin}. */
    public static float min(float[] a, int i, float v) {
        float old = (float) FLOAT.getVolatile(a, i);
        while (true) {
            float witness = (float) FLOAT.compareAndExchange(a, i, old, Math.min(old, v));
            if (Float.floatToRawIntBits(witness) == Float.floatToRawIntBits(old)) {
                return old;
            }
            old = witness;
        }
    }

    /** Stores {@link Math#max(float, float) max(a[i], v)}; returns the old value. CUDA: {@code atomicMax}. */
    public static float max(float[] a, int i, float v) {
        float old = (float) FLOAT.getVolatile(a, i);
        while (true) {
            float witness = (float) FLOAT.compareAndExchange(a, i, old, Math.max(old, v));
            if (Float.floatToRawIntBits(witness) == Float.floatToRawIntBits(old)) {
                return old;
            }
            old = witness;
        }
    }

    // ---- double ------------------------------------------------------------------------------

    /** Adds {@code v} to {@code a[i]} (round to nearest); returns the old value. CUDA: {@code atomicAdd}. */
    public static double add(double[] a, int i, double v) {
        return (double) DOUBLE.getAndAdd(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]}; returns the old value. CUDA: {@code atomicExch}. */
    public static double exchange(double[] a, int i, double v) {
        return (double) DOUBLE.getAndSet(a, i, v);
    }

    /** Stores {@code v} in {@code a[i]} if its bits equal {@code expected}'s; returns the old value. CUDA: {@code atomicCAS}. */
    public static double compareAndSwap(double[] a, int i, double expected, double v) {
        return (double) DOUBLE.compareAndExchange(a, i, expected, v);
    }

    /** Stores {@link Math#min(double, double) min(a[i], v)}; returns the old value. CUDA: {@code atomicMin}. */
    public static double min(double[] a, int i, double v) {
        double old = (double) DOUBLE.getVolatile(a, i);
        while (true) {
            double witness = (double) DOUBLE.compareAndExchange(a, i, old, Math.min(old, v));
            if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(old)) {
                return old;
            }
            old = witness;
        }
    }

    /** Stores {@link Math#max(double, double) max(a[i], v)}; returns the old value. CUDA: {@code atomicMax}. */
    public static double max(double[] a, int i, double v) {
        double old = (double) DOUBLE.getVolatile(a, i);
        while (true) {
            double witness = (double) DOUBLE.compareAndExchange(a, i, old, Math.max(old, v));
            if (Double.doubleToRawLongBits(witness) == Double.doubleToRawLongBits(old)) {
                return old;
            }
            old = witness;
        }
    }
}
