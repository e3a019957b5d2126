package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.ThreadContext;
import dev.weft.runtime.CompileReport;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Global arrays of byte, short, char and boolean: their elements load as ints (sign-extended, zero-extended for
 * char, 0 or 1 for boolean) and store truncated, in every access shape (contiguous, strided, gathered, uniform,
 * divergent) and CTA shape, equal to the reference executor.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NarrowArraysTest {

    @AutoClose
    static final Differential d = new Differential();
    /** Not a multiple of 7, so that {@code (g * 7 + 3) % N} is a permutation: no two threads scatter to one element. */
    static final int N = 600;

    /** Every CTA shape the backend lays out differently: partial warps, 1 and 1024 threads, 2D and 3D. */
    static final List<Dim3[]> SHAPES = List.of(
            new Dim3[] {Dim3.of(10), Dim3.of(64)},
            new Dim3[] {Dim3.of(7), Dim3.of(100)},
            new Dim3[] {Dim3.of(19), Dim3.of(33)},
            new Dim3[] {Dim3.of(N), Dim3.of(1)},
            new Dim3[] {Dim3.of(1), Dim3.of(1024)},
            new Dim3[] {Dim3.of(3, 2), Dim3.of(16, 8)},
            new Dim3[] {Dim3.of(2, 2), Dim3.of(32, 5)},
            new Dim3[] {Dim3.of(2, 2, 2), Dim3.of(8, 4, 3)});

    /** The thread's index in the whole grid, CTA after CTA: contiguous along x in rows of a CTA. */
    static int linearId(ThreadContext t) {
        int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
        return cta * (t.blockDimX() * t.blockDimY() * t.blockDimZ()) + t.linearThreadIdx();
    }

    static int ctaId(ThreadContext t) {
        return t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
    }

    static byte[] bytes(long seed) {
        byte[] a = new byte[N];
        new Random(seed).nextBytes(a);
        byte[] special = {0, 1, -1, Byte.MAX_VALUE, Byte.MIN_VALUE, 100, -100, 64, -65};
        System.arraycopy(special, 0, a, 0, special.length);
        return a;
    }

    static short[] shorts(long seed) {
        Random r = new Random(seed);
        short[] a = new short[N];
        for (int i = 0; i < N; i++) {
            a[i] = (short) r.nextInt();
        }
        short[] special = {0, 1, -1, Short.MAX_VALUE, Short.MIN_VALUE, 255, -256, 0x4000, -0x4001};
        System.arraycopy(special, 0, a, 0, special.length);
        return a;
    }

    static char[] chars(long seed) {
        Random r = new Random(seed);
        char[] a = new char[N];
        for (int i = 0; i < N; i++) {
            a[i] = (char) r.nextInt();
        }
        char[] special = {0, 1, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 'A', 0x80, 0xFF};
        System.arraycopy(special, 0, a, 0, special.length);
        return a;
    }

    static boolean[] booleans(long seed) {
        Random r = new Random(seed);
        boolean[] a = new boolean[N];
        for (int i = 0; i < N; i++) {
            a[i] = r.nextBoolean();
        }
        return a;
    }

    // ---- one kernel per element type, each doing all of: --------------------------------------------------------
    // a contiguous load, a reversed (strided) and a computed (gathered) load, a uniform scalar load, loads and stores
    // under a divergent branch, a contiguous store of values that overflow the element type, a scatter, a store
    // every thread of a CTA makes to one element (the last thread wins), and the length.

    static Kernel byteKernel(Object[] a) {
        byte[] x = (byte[]) a[0];
        byte[] out = (byte[]) a[1];
        byte[] scattered = (byte[]) a[2];
        byte[] perCta = (byte[]) a[3];
        int[] wide = (int[]) a[4];
        int n = x.length;
        return t -> {
            int g = linearId(t);
            if (g >= n) {
                return;
            }
            int v = x[g];
            int r = x[n - 1 - g];
            int c = x[(g * 7 + 3) % n];
            int u = x[ctaId(t) % n];
            int w = 0;
            if (v < 0) {
                w = x[(g * 3) % n] + x[g];
                out[g] = (byte) (v * 3 + 300);
            } else {
                out[g] = (byte) (v - 70000);
            }
            wide[5 * g] = v;
            wide[5 * g + 1] = r;
            wide[5 * g + 2] = c;
            wide[5 * g + 3] = u + x.length;
            wide[5 * g + 4] = w;
            scattered[(g * 7 + 3) % n] = (byte) (v + r + c + 200);
            if (g % 3 != 1) {
                perCta[ctaId(t) % perCta.length] = (byte) (g * 37);
            }
        };
    }

    static Kernel shortKernel(Object[] a) {
        short[] x = (short[]) a[0];
        short[] out = (short[]) a[1];
        short[] scattered = (short[]) a[2];
        short[] perCta = (short[]) a[3];
        int[] wide = (int[]) a[4];
        int n = x.length;
        return t -> {
            int g = linearId(t);
            if (g >= n) {
                return;
            }
            int v = x[g];
            int r = x[n - 1 - g];
            int c = x[(g * 7 + 3) % n];
            int u = x[ctaId(t) % n];
            int w = 0;
            if (v < 0) {
                w = x[(g * 3) % n] + x[g];
                out[g] = (short) (v * 3 + 70000);
            } else {
                out[g] = (short) (v - 70000);
            }
            wide[5 * g] = v;
            wide[5 * g + 1] = r;
            wide[5 * g + 2] = c;
            wide[5 * g + 3] = u + x.length;
            wide[5 * g + 4] = w;
            scattered[(g * 7 + 3) % n] = (short) (v + r + c + 40000);
            if (g % 3 != 1) {
                perCta[ctaId(t) % perCta.length] = (short) (g * 3701);
            }
        };
    }

    static Kernel charKernel(Object[] a) {
        char[] x = (char[]) a[0];
        char[] out = (char[]) a[1];
        char[] scattered = (char[]) a[2];
        char[] perCta = (char[]) a[3];
        int[] wide = (int[]) a[4];
        int n = x.length;
        return t -> {
            int g = linearId(t);
            if (g >= n) {
                return;
            }
            int v = x[g];
            int r = x[n - 1 - g];
            int c = x[(g * 7 + 3) % n];
            int u = x[ctaId(t) % n];
            int w = 0;
            if (v > 0x7FFF) {
                w = x[(g * 3) % n] + x[g];
                out[g] = (char) (v * 3 + 70000);
            } else {
                out[g] = (char) (v - 70000);
            }
            wide[5 * g] = v;
            wide[5 * g + 1] = r;
            wide[5 * g + 2] = c;
            wide[5 * g + 3] = u + x.length;
            wide[5 * g + 4] = w;
            scattered[(g * 7 + 3) % n] = (char) (v + r + c - 1);
            if (g % 3 != 1) {
                perCta[ctaId(t) % perCta.length] = (char) (g * 3701);
            }
        };
    }

    static Kernel booleanKernel(Object[] a) {
        boolean[] x = (boolean[]) a[0];
        boolean[] out = (boolean[]) a[1];
        boolean[] scattered = (boolean[]) a[2];
        boolean[] perCta = (boolean[]) a[3];
        int[] wide = (int[]) a[4];
        int n = x.length;
        return t -> {
            int g = linearId(t);
            if (g >= n) {
                return;
            }
            boolean v = x[g];
            boolean r = x[n - 1 - g];
            boolean c = x[(g * 7 + 3) % n];
            boolean u = x[ctaId(t) % n];
            int w = 0;
            if (v) {
                w = (x[(g * 3) % n] ? 2 : 0) + (x[g] ? 1 : 0);
                out[g] = r ^ c;
            } else {
                out[g] = !u;
            }
            wide[5 * g] = v ? 1 : 0;
            wide[5 * g + 1] = r ? 1 : 0;
            wide[5 * g + 2] = c ? 1 : 0;
            wide[5 * g + 3] = (u ? 1 : 0) + x.length;
            wide[5 * g + 4] = w;
            scattered[(g * 7 + 3) % n] = v & !r | c;
            if (g % 3 != 1) {
                perCta[ctaId(t) % perCta.length] = g % 5 == 0;
            }
        };
    }

    private static void everyShape(Differential diff, Function<Object[], Kernel> make, Object x, Object out, Object scattered, Object perCta) {
        for (Dim3[] s : SHAPES) {
            diff.check(s[0], s[1], make, x, out, scattered, perCta, new int[5 * N]);
        }
    }

    @Test
    void byteArrays_everyAccessShape_matchesReference() {
        everyShape(d, NarrowArraysTest::byteKernel, bytes(1), bytes(2), new byte[N], new byte[N]);
    }

    @Test
    void shortArrays_everyAccessShape_matchesReference() {
        everyShape(d, NarrowArraysTest::shortKernel, shorts(3), shorts(4), new short[N], new short[N]);
    }

    @Test
    void charArrays_everyAccessShape_matchesReference() {
        everyShape(d, NarrowArraysTest::charKernel, chars(5), chars(6), new char[N], new char[N]);
    }

    @Test
    void booleanArrays_everyAccessShape_matchesReference() {
        everyShape(d, NarrowArraysTest::booleanKernel, booleans(7), booleans(8), new boolean[N], new boolean[N]);
    }

    @Test
    void narrowArrays_warpsOf8And16_matchReference() {
        for (int warp : new int[] {8, 16}) {
            try (Differential small = new Differential(warp)) {
                everyShape(small, NarrowArraysTest::byteKernel, bytes(11), bytes(12), new byte[N], new byte[N]);
                everyShape(small, NarrowArraysTest::shortKernel, shorts(13), shorts(14), new short[N], new short[N]);
                everyShape(small, NarrowArraysTest::charKernel, chars(15), chars(16), new char[N], new char[N]);
                everyShape(small, NarrowArraysTest::booleanKernel, booleans(17), booleans(18), new boolean[N], new boolean[N]);
            }
        }
    }

    @Test
    void listing_namesTheNarrowConversions() {
        CompileReport r = d.report(NarrowArraysTest::byteKernel, bytes(1), bytes(2), new byte[N], new byte[N], new int[5 * N]);
        assertTrue(r.compiled(), r::summary);
        assertTrue(r.listing().contains("bytes sign-extended to int"), r::listing);
        assertTrue(r.listing().contains("low 8 bits stored"), r::listing);
        CompileReport c = d.report(NarrowArraysTest::charKernel, chars(1), chars(2), new char[N], new char[N], new int[5 * N]);
        assertTrue(c.listing().contains("chars zero-extended to int"), c::listing);
        CompileReport z = d.report(NarrowArraysTest::booleanKernel, booleans(1), booleans(2), new boolean[N], new boolean[N], new int[5 * N]);
        assertTrue(z.listing().contains("booleans as 0 or 1"), z::listing);
        assertTrue(z.listing().contains("low bit stored"), z::listing);
    }
}
