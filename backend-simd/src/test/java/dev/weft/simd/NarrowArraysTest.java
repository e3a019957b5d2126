package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.ThreadContext;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.KernelException;
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

    // ---- faults: an active thread out of bounds fails the launch in the reference's thread; inactive lanes never ----

    static Kernel readPastEnd(Object[] a) {
        byte[] x = (byte[]) a[0];
        short[] y = (short[]) a[1];
        return t -> {
            int i = t.globalIdX();
            y[i] = (short) (x[i] * 2);
        };
    }

    static Kernel writePastEnd(Object[] a) {
        int[] x = (int[]) a[0];
        char[] y = (char[]) a[1];
        return t -> {
            int i = t.globalIdX();
            y[i] = (char) x[i];
        };
    }

    @Test
    void contiguousAccessPastTheEnd_failsInTheFirstFaultingThread() {
        // 70 elements: thread 70 of CTA 1 (threadIdx 6) is the first to fault
        d.check(Dim3.of(2), Dim3.of(64), NarrowArraysTest::readPastEnd, new byte[70], new short[200]);
        d.check(Dim3.of(2), Dim3.of(64), NarrowArraysTest::writePastEnd, new int[200], new char[70]);
        d.check(Dim3.of(3), Dim3.of(33), NarrowArraysTest::writePastEnd, new int[200], new char[70]);
        KernelException e = assertThrows(KernelException.class,
                () -> d.simd.launch(Dim3.of(2), Dim3.of(64), readPastEnd(new Object[] {new byte[70], new short[200]})));
        assertEquals(new Dim3(1, 0, 0), e.blockIdx());
        assertEquals(new Dim3(6, 0, 0), e.threadIdx().orElseThrow());
        assertTrue(e.getCause() instanceof ArrayIndexOutOfBoundsException);
        assertEquals("Index 70 out of bounds for length 70", e.getCause().getMessage());
    }

    static Kernel gathered(Object[] a) {
        int[] idx = (int[]) a[0];
        boolean[] x = (boolean[]) a[1];
        int[] y = (int[]) a[2];
        return t -> {
            int i = t.globalIdX();
            if (i < idx.length) {
                y[i] = x[idx[i]] ? 1 : 2;
            }
        };
    }

    static Kernel scattered(Object[] a) {
        int[] idx = (int[]) a[0];
        short[] y = (short[]) a[1];
        return t -> {
            int i = t.globalIdX();
            if (i < idx.length) {
                y[idx[i]] = (short) (i * 1000);
            }
        };
    }

    @Test
    void gatherAndScatterOutOfBoundsInOneLane_faultThatThread() {
        int[] idx = Differential.ints(300, 3, 0, 100);
        idx[150] = 100;
        idx[155] = -1;
        d.check(Dim3.of(3), Dim3.of(128), NarrowArraysTest::gathered, idx, booleans(1), new int[300]);
        d.check(Dim3.of(3), Dim3.of(128), NarrowArraysTest::scattered, idx, new short[100]);
        int[] idx2 = Differential.ints(300, 3, 0, 100);
        idx2[61] = -5;
        d.check(Dim3.of(3), Dim3.of(128), NarrowArraysTest::gathered, idx2, booleans(2), new int[300]);
        d.check(Dim3.of(3), Dim3.of(128), NarrowArraysTest::scattered, idx2, new short[100]);
    }

    static Kernel uniformIndex(Object[] a) {
        char[] x = (char[]) a[0];
        char[] y = (char[]) a[1];
        int k = 12;
        return t -> {
            if (t.threadIdxX() >= 5) {
                y[t.globalIdX()] = x[k];
            }
        };
    }

    static Kernel uniformStoreIndex(Object[] a) {
        byte[] y = (byte[]) a[0];
        int k = 12;
        return t -> {
            if (t.threadIdxX() >= 5) {
                y[k] = (byte) t.threadIdxX();
            }
        };
    }

    @Test
    void uniformIndexOutOfBounds_faultsFirstActiveThread() {
        d.check(Dim3.of(1), Dim3.of(40), NarrowArraysTest::uniformIndex, new char[10], new char[40]);
        d.check(Dim3.of(1), Dim3.of(40), NarrowArraysTest::uniformStoreIndex, (Object) new byte[10]);
    }

    static Kernel guarded(Object[] a) {
        byte[] x = (byte[]) a[0];
        byte[] y = (byte[]) a[1];
        boolean[] z = (boolean[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = (byte) (x[i] + 1);
            }
            if (i * 3 < n) {
                z[i * 3] = x[i * 3] < 0;
            }
        };
    }

    @Test
    void inactiveLanesOutOfBounds_neverFault() {
        d.check(Dim3.of(4), Dim3.of(50), NarrowArraysTest::guarded, bytes(3), new byte[N], new boolean[N]);
    }

    static Kernel nullArray(Object[] a) {
        short[] y = (short[]) a[1];
        short[] nothing = (short[]) a[0];
        return t -> {
            int i = t.globalIdX();
            if (i > 40) {
                y[i] = nothing[i];
            }
        };
    }

    @Test
    void nullNarrowArray_failsFirstThreadReachingIt() {
        d.check(Dim3.of(2), Dim3.of(32), NarrowArraysTest::nullArray, null, new short[64]);
    }

    // ---- in kernels with shared memory and barriers, atomics, helpers and static fields ----------------------------

    /** A byte image transposed through a shared tile, 32 x 32 tiles in CTAs of 32 x 8 (the tile loads get a touch pass). */
    static Kernel transposeBytes(Object[] a) {
        int n = (Integer) a[0];
        byte[] in = (byte[]) a[1];
        byte[] out = (byte[]) a[2];
        return t -> {
            int[] tile = t.sharedInts(32 * 33);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int x = t.blockIdxX() * 32 + tx;
            int y = t.blockIdxY() * 32 + ty;
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    tile[(ty + j) * 33 + tx] = in[(y + j) * n + x];
                }
            }
            t.syncThreads();
            x = t.blockIdxY() * 32 + tx;
            y = t.blockIdxX() * 32 + ty;
            for (int j = 0; j < 32; j += 8) {
                if (x < n && y + j < n) {
                    out[(y + j) * n + x] = (byte) tile[tx * 33 + ty + j];
                }
            }
        };
    }

    @Test
    void transposeOfBytes_throughSharedTile_touchedAndOnResumeMethods() throws InterruptedException {
        for (int n : new int[] {64, 45}) {
            byte[] in = new byte[n * n];
            new Random(n).nextBytes(in);
            CompileReport r = d.report(NarrowArraysTest::transposeBytes, n, in, new byte[n * n]);
            assertTrue(r.compiled(), r::summary);
            assertTrue(r.listing().contains("touch pass:"), r::listing);
            int tiles = (n + 31) / 32;
            d.check(Dim3.of(tiles, tiles), Dim3.of(32, 8), NarrowArraysTest::transposeBytes, n, in, new byte[n * n]);
            d.checkOnResumeMethods(Dim3.of(tiles, tiles), Dim3.of(32, 8), NarrowArraysTest::transposeBytes, n, in, new byte[n * n]);
        }
    }

    /**
     * A 3 x 3 box blur of an unsigned 8-bit image in 16 x 16 tiles with a one-pixel halo read from the image: with
     * 16-lane registers the group of 32 spans two rows (register rows), the image reads contiguous in each register.
     */
    static Kernel blur(Object[] a) {
        int w = (Integer) a[0];
        int h = (Integer) a[1];
        byte[] img = (byte[]) a[2];
        byte[] out = (byte[]) a[3];
        return t -> {
            int[] tile = t.sharedInts(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int x = t.blockIdxX() * 16 + tx;
            int y = t.blockIdxY() * 16 + ty;
            int v = x < w && y < h ? img[y * w + x] & 0xFF : 0;
            tile[ty * 16 + tx] = v;
            t.syncThreads();
            if (x < w && y < h) {
                int s = 0;
                for (int dy = -1; dy <= 1; dy++) {
                    for (int dx = -1; dx <= 1; dx++) {
                        int px = tx + dx;
                        int py = ty + dy;
                        if (px >= 0 && px < 16 && py >= 0 && py < 16) {
                            s += tile[py * 16 + px];
                        } else if (x + dx >= 0 && x + dx < w && y + dy >= 0 && y + dy < h) {
                            s += img[(y + dy) * w + x + dx] & 0xFF;
                        }
                    }
                }
                out[y * w + x] = (byte) (s / 9);
            }
        };
    }

    @Test
    void blurOfUnsignedBytes_16x16Tiles_registerRows() throws InterruptedException {
        for (int[] wh : new int[][] {{64, 32}, {50, 37}}) {
            byte[] img = new byte[wh[0] * wh[1]];
            new Random(wh[0]).nextBytes(img);
            Dim3 grid = Dim3.of((wh[0] + 15) / 16, (wh[1] + 15) / 16);
            d.check(grid, Dim3.of(16, 16), NarrowArraysTest::blur, wh[0], wh[1], img, new byte[img.length]);
            d.checkOnResumeMethods(grid, Dim3.of(16, 16), NarrowArraysTest::blur, wh[0], wh[1], img, new byte[img.length]);
        }
    }

    /** A sum of shorts by a grid-stride loop, then a tree reduction in shared memory per CTA. */
    static Kernel sumShorts(Object[] a) {
        short[] x = (short[]) a[0];
        long[] sums = (long[]) a[1];
        int n = x.length;
        return t -> {
            long[] part = t.sharedLongs(t.blockDimX());
            long s = 0;
            for (int i = t.globalIdX(); i < n; i += t.blockDimX() * t.gridDimX()) {
                s += x[i];
            }
            part[t.threadIdxX()] = s;
            t.syncThreads();
            for (int k = t.blockDimX() / 2; k > 0; k /= 2) {
                if (t.threadIdxX() < k) {
                    part[t.threadIdxX()] += part[t.threadIdxX() + k];
                }
                t.syncThreads();
            }
            if (t.threadIdxX() == 0) {
                sums[t.blockIdxX()] = part[0];
            }
        };
    }

    @Test
    void gridStrideSumOfShorts_sharedReduction() throws InterruptedException {
        short[] x = new short[10_000];
        Random r = new Random(9);
        for (int i = 0; i < x.length; i++) {
            x[i] = (short) r.nextInt();
        }
        d.check(Dim3.of(5), Dim3.of(256), NarrowArraysTest::sumShorts, x, new long[5]);
        d.check(Dim3.of(3), Dim3.of(64), NarrowArraysTest::sumShorts, x, new long[3]);
        d.checkOnResumeMethods(Dim3.of(4), Dim3.of(128), NarrowArraysTest::sumShorts, x, new long[4]);
    }

    /** A histogram of byte values (0 to 127) by global atomics whose index is the loaded byte itself. */
    static Kernel histogram(Object[] a) {
        byte[] x = (byte[]) a[0];
        int[] hist = (int[]) a[1];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                dev.weft.Atomics.add(hist, x[i], 1);
            }
        };
    }

    @Test
    void histogramIndexedByLoadedBytes_matchesReference() {
        byte[] x = new byte[3000];
        Random r = new Random(10);
        for (int i = 0; i < x.length; i++) {
            x[i] = (byte) r.nextInt(128);
        }
        d.check(Dim3.of(12), Dim3.of(256), NarrowArraysTest::histogram, x, new int[128]);
        d.check(Dim3.of(100), Dim3.of(31), NarrowArraysTest::histogram, x, new int[128]);
        // a negative byte is an index out of bounds in the thread that loaded it
        x[700] = -3;
        d.check(Dim3.of(12), Dim3.of(256), NarrowArraysTest::histogram, x, new int[128]);
    }

    static final char[] VOWELS = "aeiouAEIOU".toCharArray();

    /** Whether {@code c} is in {@code set}: a helper taking a char array, inlined. */
    static boolean contains(char[] set, int c) {
        for (int k = 0; k < set.length; k++) {
            if (set[k] == c) {
                return true;
            }
        }
        return false;
    }

    /** Text: marks the vowels of a char array (read from a static field) in a boolean array and upper-cases letters. */
    static Kernel text(Object[] a) {
        char[] s = (char[]) a[0];
        boolean[] vowel = (boolean[]) a[1];
        char[] upper = (char[]) a[2];
        int n = s.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                char c = s[i];
                vowel[i] = contains(VOWELS, c);
                upper[i] = c >= 'a' && c <= 'z' ? (char) (c - 32) : c;
            }
        };
    }

    @Test
    void textOverChars_staticCharArrayAndHelper_matchesReference() {
        char[] s = ("The quick brown fox jumps over the lazy dog; \u00e9t\u00e9 \uffff\u8000 " + "x".repeat(200)).toCharArray();
        d.check(Dim3.of((s.length + 63) / 64), Dim3.of(64), NarrowArraysTest::text, s, new boolean[s.length], new char[s.length]);
        d.check(Dim3.of(3), Dim3.of(100), NarrowArraysTest::text, s, new boolean[s.length], new char[s.length]);
    }

    @Test
    void profiledLaunch_ofNarrowKernel_compiledCountedAndEqual() {
        // The profiling variant is generated code of its own (counters around the same loads and stores).
        Object[] simd = {bytes(21), new byte[N], new boolean[N]};
        Object[] ref = Differential.copy(simd);
        dev.weft.runtime.LaunchProfile p = d.simd.profile(Dim3.of(4), Dim3.of(50), guarded(simd));
        assertEquals("simd", p.executor(), p::toString);
        assertTrue(p.counted(), p::toString);
        d.reference.launch(Dim3.of(4), Dim3.of(50), guarded(ref));
        assertArrayEquals((byte[]) ref[1], (byte[]) simd[1]);
        assertArrayEquals((boolean[]) ref[2], (boolean[]) simd[2]);
    }
}
