package dev.weft.simd.internal.gen;

/**
 * {@link dev.weft.Atomics} for shared arrays in compiled code: the same methods, names, descriptors and results,
 * as plain reads and writes. Generated code calls these in place of {@code Atomics} when the array is the CTA's
 * shared memory ({@code sharedInts(n)} and the like), once per active thread in lane order as before.
 *
 * <p>Implementation notes. A compiled CTA runs from its first phase to its last inside one
 * {@code CtaProgram.runCta} call on one SM worker thread, and its shared arrays belong to that CTA alone (the
 * runtime hands them to no other CTA while it runs), so no other thread can touch them meanwhile: a locked
 * read-modify-write buys nothing there. Each method is the corresponding {@code Atomics} method run by a single
 * thread: float and double compare-and-swap compare raw bits, as {@code VarHandle.compareAndExchange} does; min and
 * max of floats store {@code Math.min}/{@code Math.max} of the old value and the operand, as the CAS loop does.
 * Measured here (AVX2, 2 busy cores, CPU time per launch), the histogram benchmark's kernel (one shared-array
 * {@code Atomics.add} per element) went from about 30 to about 24 ms per launch of 2^22 elements.
 */
public final class SharedAtomics {

    private SharedAtomics() {
    }

    public static int add(int[] a, int i, int v) {
        int old = a[i];
        a[i] = old + v;
        return old;
    }

    public static int exchange(int[] a, int i, int v) {
        int old = a[i];
        a[i] = v;
        return old;
    }

    public static int compareAndSwap(int[] a, int i, int expected, int v) {
        int old = a[i];
        if (old == expected) {
            a[i] = v;
        }
        return old;
    }

    public static int min(int[] a, int i, int v) {
        int old = a[i];
        if (old > v) {
            a[i] = v;
        }
        return old;
    }

    public static int max(int[] a, int i, int v) {
        int old = a[i];
        if (old < v) {
            a[i] = v;
        }
        return old;
    }

    public static int and(int[] a, int i, int v) {
        int old = a[i];
        a[i] = old & v;
        return old;
    }

    public static int or(int[] a, int i, int v) {
        int old = a[i];
        a[i] = old | v;
        return old;
    }

    public static int xor(int[] a, int i, int v) {
        int old = a[i];
        a[i] = old ^ v;
        return old;
    }

    public static int inc(int[] a, int i, int limit) {
        int old = a[i];
        a[i] = Integer.compareUnsigned(old, limit) >= 0 ? 0 : old + 1;
        return old;
    }

    public static int dec(int[] a, int i, int limit) {
        int old = a[i];
        a[i] = (old == 0 || Integer.compareUnsigned(old, limit) > 0) ? limit : old - 1;
        return old;
    }

    public static long add(long[] a, int i, long v) {
        long old = a[i];
        a[i] = old + v;
        return old;
    }

    public static long exchange(long[] a, int i, long v) {
        long old = a[i];
        a[i] = v;
        return old;
    }

    public static long compareAndSwap(long[] a, int i, long expected, long v) {
        long old = a[i];
        if (old == expected) {
            a[i] = v;
        }
        return old;
    }

    public static long min(long[] a, int i, long v) {
        long old = a[i];
        if (old > v) {
            a[i] = v;
        }
        return old;
    }

    public static long max(long[] a, int i, long v) {
        long old = a[i];
        if (old < v) {
            a[i] = v;
        }
        return old;
    }

    public static long and(long[] a, int i, long v) {
        long old = a[i];
        a[i] = old & v;
        return old;
    }

    public static long or(long[] a, int i, long v) {
        long old = a[i];
        a[i] = old | v;
        return old;
    }

    public static long xor(long[] a, int i, long v) {
        long old = a[i];
        a[i] = old ^ v;
        return old;
    }

    public static long inc(long[] a, int i, long limit) {
        long old = a[i];
        a[i] = Long.compareUnsigned(old, limit) >= 0 ? 0 : old + 1;
        return old;
    }

    public static long dec(long[] a, int i, long limit) {
        long old = a[i];
        a[i] = (old == 0 || Long.compareUnsigned(old, limit) > 0) ? limit : old - 1;
        return old;
    }

    public static float add(float[] a, int i, float v) {
        float old = a[i];
        a[i] = old + v;
        return old;
    }

    public static float exchange(float[] a, int i, float v) {
        float old = a[i];
        a[i] = v;
        return old;
    }

    public static float compareAndSwap(float[] a, int i, float expected, float v) {
        float old = a[i];
        if (Float.floatToRawIntBits(old) == Float.floatToRawIntBits(expected)) {
            a[i] = v;
        }
        return old;
    }

    public static float min(float[] a, int i, float v) {
        float old = a[i];
        a[i] = Math.min(old, v);
        return old;
    }

    public static float max(float[] a, int i, float v) {
        float old = a[i];
        a[i] = Math.max(old, v);
        return old;
    }

    public static double add(double[] a, int i, double v) {
        double old = a[i];
        a[i] = old + v;
        return old;
    }

    public static double exchange(double[] a, int i, double v) {
        double old = a[i];
        a[i] = v;
        return old;
    }

    public static double compareAndSwap(double[] a, int i, double expected, double v) {
        double old = a[i];
        if (Double.doubleToRawLongBits(old) == Double.doubleToRawLongBits(expected)) {
            a[i] = v;
        }
        return old;
    }

    public static double min(double[] a, int i, double v) {
        double old = a[i];
        a[i] = Math.min(old, v);
        return old;
    }

    public static double max(double[] a, int i, double v) {
        double old = a[i];
        a[i] = Math.max(old, v);
        return old;
    }
}
