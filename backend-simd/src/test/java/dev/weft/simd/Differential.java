package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.KernelException;
import java.util.Arrays;
import java.util.function.Function;

/**
 * Runs a kernel on the reference executor and on the SIMD backend, each on its own copy of the data, and
 * checks that the SIMD backend compiled it and that every array ends bit for bit equal (or within a stated
 * ulp bound), or that both launches fail in the same thread with the same kind of exception.
 */
public final class Differential implements AutoCloseable {

    public final Device reference;
    public final Device simd;

    public Differential() {
        this(32);
    }

    public Differential(int warpSize) {
        reference = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE).withWarpSize(warpSize));
        simd = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.AUTO).withWarpSize(warpSize));
    }

    @Override
    public void close() {
        reference.close();
        simd.close();
    }

    /** Deep copies of the arrays in {@code data}. */
    public static Object[] copy(Object[] data) {
        Object[] c = new Object[data.length];
        for (int i = 0; i < data.length; i++) {
            c[i] = switch (data[i]) {
                case null -> null;
                case int[] a -> a.clone();
                case long[] a -> a.clone();
                case float[] a -> a.clone();
                case double[] a -> a.clone();
                case byte[] a -> a.clone();
                case short[] a -> a.clone();
                case char[] a -> a.clone();
                case boolean[] a -> a.clone();
                default -> data[i];
            };
        }
        return c;
    }

    /** The compile report of the kernel {@code make} builds, on the SIMD device. */
    public CompileReport report(Function<Object[], Kernel> make, Object... data) {
        return simd.compileReport(make.apply(copy(data)));
    }

    /**
     * The compile report of the kernel {@code make} builds for launches in CTAs of shape {@code block}, on the SIMD
     * device: compiled as such a launch compiles it.
     */
    public CompileReport report(Dim3 block, Function<Object[], Kernel> make, Object... data) {
        return simd.compileReport(make.apply(copy(data)), block);
    }

    /**
     * Compiles, waits for the background compile of the methods per resume point, then checks as {@link
     * #check(Dim3, Dim3, Function, Object...)}: so a kernel with barriers runs those methods, not its general ones.
     * A class of those methods that fails to load would leave the general ones in place with the same results, so
     * this also asserts that no background job has failed.
     */
    public Object[] checkOnResumeMethods(Dim3 grid, Dim3 block, Function<Object[], Kernel> make, Object... data)
            throws InterruptedException {
        report(block, make, data);
        awaitResumeMethods();
        return check(grid, block, make, data);
    }

    /**
     * Waits for the background compiles of the methods per resume point, and asserts that none has failed: a class
     * of those methods that does not load leaves the general methods in place, with the same results, so no
     * comparison of results would see it.
     */
    public static void awaitResumeMethods() throws InterruptedException {
        assertTrue(dev.weft.simd.internal.Background.awaitIdle(100_000), "the methods per resume point did not arrive");
        assertEquals(0, dev.weft.simd.internal.Background.internalErrors(),
                "background compiles that failed with an internal error (their warnings are in the log)");
    }

    /** Runs on both, asserts compiled and bit-for-bit equal results. Returns the SIMD copy of the data. */
    public Object[] check(Dim3 grid, Dim3 block, Function<Object[], Kernel> make, Object... data) {
        return check(0, grid, block, make, data);
    }

    /**
     * As {@link #check(Dim3, Dim3, Function, Object...)}, allowing floating point results to differ by up to
     * {@code ulps} units in the last place.
     */
    public Object[] check(int ulps, Dim3 grid, Dim3 block, Function<Object[], Kernel> make, Object... data) {
        return check(ulps, false, grid, block, make, data);
    }

    /**
     * As {@link #check(Dim3, Dim3, Function, Object...)}, except that any NaN matches any NaN. For kernels whose
     * arithmetic makes NaNs: Java leaves the sign and payload of such a NaN open, and HotSpot's own tiers differ
     * ({@code NaN + -NaN} has its sign bit set interpreted, clear once C2 compiles it), so the reference executor
     * does not fix them either.
     */
    public Object[] checkAnyNaN(Dim3 grid, Dim3 block, Function<Object[], Kernel> make, Object... data) {
        return check(0, true, grid, block, make, data);
    }

    private Object[] check(int ulps, boolean anyNaN, Dim3 grid, Dim3 block, Function<Object[], Kernel> make, Object... data) {
        Object[] ref = copy(data);
        Object[] vec = copy(data);
        Kernel rk = make.apply(ref);
        Kernel vk = make.apply(vec);
        CompileReport report = simd.compileReport(vk);
        assertTrue(report.compiled(), () -> "not compiled: " + report.summary());
        KernelException re = null;
        KernelException ve = null;
        try {
            reference.launch(grid, block, rk);
        } catch (KernelException e) {
            re = e;
        }
        try {
            simd.launch(grid, block, vk);
        } catch (KernelException e) {
            ve = e;
        }
        if (re != null || ve != null) {
            if (re == null) {
                throw new AssertionError("only the SIMD launch failed: " + ve.getMessage() + "\n" + report.listing(), ve);
            }
            if (ve == null) {
                throw new AssertionError("only the reference launch failed: " + re.getMessage() + "\n" + report.listing(), re);
            }
            assertEquals(re.blockIdx(), ve.blockIdx(), "failing CTA");
            String both = "reference " + re.getMessage() + " / simd " + ve.getMessage();
            assertEquals(re.threadIdx(), ve.threadIdx(), () -> "failing thread: " + both);
            assertNotNull(ve.getCause());
            assertEquals(re.getCause().getClass(), ve.getCause().getClass(), "exception type");
            if (re.getCause() instanceof ArrayIndexOutOfBoundsException || re.getCause() instanceof ArithmeticException) {
                assertEquals(re.getCause().getMessage(), ve.getCause().getMessage());
            }
            return vec;
        }
        for (int i = 0; i < data.length; i++) {
            int k = i;
            switch (ref[i]) {
                case null -> {
                }
                case int[] a -> assertArrayEquals(a, (int[]) vec[i], () -> "int[] argument " + k + "\n" + report.listing());
                case long[] a -> assertArrayEquals(a, (long[]) vec[i], () -> "long[] argument " + k + "\n" + report.listing());
                case byte[] a -> assertArrayEquals(a, (byte[]) vec[i], () -> "byte[] argument " + k + "\n" + report.listing());
                case short[] a -> assertArrayEquals(a, (short[]) vec[i], () -> "short[] argument " + k + "\n" + report.listing());
                case char[] a -> assertArrayEquals(a, (char[]) vec[i], () -> "char[] argument " + k + "\n" + report.listing());
                case boolean[] a -> assertArrayEquals(a, (boolean[]) vec[i], () -> "boolean[] argument " + k + "\n" + report.listing());
                case float[] a -> {
                    float[] b = (float[]) vec[i];
                    for (int j = 0; j < a.length; j++) {
                        int d = Math.abs(Float.floatToRawIntBits(a[j]) - Float.floatToRawIntBits(b[j]));
                        boolean same = Float.floatToRawIntBits(a[j]) == Float.floatToRawIntBits(b[j])
                                || (ulps > 0 && d <= ulps) || ((ulps > 0 || anyNaN) && Float.isNaN(a[j]) && Float.isNaN(b[j]));
                        if (!same) {
                            fail("float[] argument " + k + " differs at " + j + ": reference " + a[j] + " simd " + b[j]
                                    + " (" + d + " ulp)\n" + report.listing());
                        }
                    }
                }
                case double[] a -> {
                    double[] b = (double[]) vec[i];
                    for (int j = 0; j < a.length; j++) {
                        long d = Math.abs(Double.doubleToRawLongBits(a[j]) - Double.doubleToRawLongBits(b[j]));
                        boolean same = Double.doubleToRawLongBits(a[j]) == Double.doubleToRawLongBits(b[j])
                                || (ulps > 0 && d <= ulps) || ((ulps > 0 || anyNaN) && Double.isNaN(a[j]) && Double.isNaN(b[j]));
                        if (!same) {
                            fail("double[] argument " + k + " differs at " + j + ": reference " + a[j] + " simd " + b[j]
                                    + " (" + d + " ulp)\n" + report.listing());
                        }
                    }
                }
                default -> {
                }
            }
        }
        return vec;
    }

    /** Inputs for tests: a deterministic pseudo-random float array in [lo, hi). */
    public static float[] floats(int n, long seed, float lo, float hi) {
        java.util.Random r = new java.util.Random(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = lo + (hi - lo) * r.nextFloat();
        }
        return a;
    }

    public static double[] doubles(int n, long seed, double lo, double hi) {
        java.util.Random r = new java.util.Random(seed);
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = lo + (hi - lo) * r.nextDouble();
        }
        return a;
    }

    public static int[] ints(int n, long seed, int lo, int hi) {
        java.util.Random r = new java.util.Random(seed);
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = lo + r.nextInt(hi - lo);
        }
        return a;
    }

    public static long[] longs(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextLong();
        }
        return a;
    }

    @Override
    public String toString() {
        return "Differential" + Arrays.toString(new Object[] {reference, simd});
    }
}
