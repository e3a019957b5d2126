package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.ThreadContext;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.SimdBackend;
import dev.weft.simd.internal.gen.CodeGen;
import dev.weft.simd.internal.gen.Lanes;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kernels whose general variant (threadIdx.x, .y and .z varying per lane) is too large for the JIT in some group sizes
 * or all, while the variants of 1D CTAs and of groups within a row fit: a launch compiles the variant of its CTA shape
 * ({@code Compiler.Menu}), so such a kernel runs compiled in the shapes whose variant fits, and a launch in another
 * shape runs on the reference executor. Each kernel reads weights at indices computed from threadIdx.y: scalar loads
 * where threadIdx.y is uniform in a group (1D CTAs, groups within a row), gathers in the general variant, two to
 * three times the code. Method sizes depend on the registers per group, not on their width: each size named below
 * holds for 8- and 16-lane registers alike.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OversizedVariantTest {

    @AutoClose
    static final Differential d = new Differential();

    private static final int N = 300;

    static float mix(float s, float[] w, int j) {
        return s * 0.75f + w[j & 63];
    }

    static float mix4(float s, float[] w, int j) {
        return mix(mix(mix(mix(s, w, j), w, j + 1), w, j + 2), w, j + 3);
    }

    static float mix16(float s, float[] w, int j) {
        return mix4(mix4(mix4(mix4(s, w, j), w, j + 4), w, j + 8), w, j + 12);
    }

    /**
     * 32 weights (the calls are inlined): the general variant's method is over the JIT's limit in groups of two
     * registers or more (some 9400 bytes before it is fitted), under it in groups of one (some 6100); the others take
     * some 2500.
     */
    static void mixRow32(ThreadContext t, float[] in, float[] w, float[] out) {
        int y = t.threadIdxY();
        int i = (t.blockIdxX() * t.blockDimY() + y) * t.blockDimX() + t.threadIdxX();
        float s = mix16(mix16(0f, w, y * 5), w, y * 5 + 16);
        if (i < out.length) {
            out[i] = s + in[i];
        }
    }

    /**
     * 96 weights: the general variant's method is over the limit even in groups of one register, even with its most
     * used locals in the one-byte slots (HotLocals; some 10800 bytes).
     */
    static void mixRow96(ThreadContext t, float[] in, float[] w, float[] out) {
        int y = t.threadIdxY();
        int i = (t.blockIdxX() * t.blockDimY() + y) * t.blockDimX() + t.threadIdxX();
        float s = mix16(mix16(mix16(mix16(0f, w, y * 5), w, y * 5 + 16), w, y * 5 + 32), w, y * 5 + 48);
        s = mix16(mix16(s, w, y * 5 + 64), w, y * 5 + 80);
        if (i < out.length) {
            out[i] = s + in[i];
        }
    }

    static Kernel mixes32(Object[] a) {
        float[] in = (float[]) a[0];
        float[] w = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> mixRow32(t, in, w, out);
    }

    static Kernel mixes96(Object[] a) {
        float[] in = (float[]) a[0];
        float[] w = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> mixRow96(t, in, w, out);
    }

    /** {@link #mixes96} at another lambda site: a kernel with compilations of its own. */
    static Kernel mixes96Again(Object[] a) {
        float[] in = (float[]) a[0];
        float[] w = (float[]) a[1];
        float[] out = (float[]) a[2];
        return t -> mixRow96(t, in, w, out);
    }

    private static Object[] data() {
        return new Object[] {Differential.floats(N, 1, -1, 1), Differential.floats(64, 2, -1, 1), new float[N]};
    }

    /** A 1D grid of CTAs of shape {@code block} that covers the {@link #N} outputs. */
    private static Dim3 grid(Dim3 block) {
        int threads = block.x() * block.y() * block.z();
        return Dim3.of((N + threads - 1) / threads);
    }

    private static void check(Dim3 block, java.util.function.Function<Object[], Kernel> make) {
        d.check(grid(block), block, make, data());
    }

    @Test
    void report_whereTheClassWithEveryVariantIsTooLarge_listsTheShapesCompiled_andWhyOthersMayNotCompile() {
        // Launches' compiles first: a report first compiles every variant, and where that class is too large in every
        // group size, the kernel runs on the reference executor in every shape.
        assertEquals("simd", d.report(Dim3.of(64), OversizedVariantTest::mixes96, data()).executor());
        assertEquals("simd", d.report(Dim3.of(32, 2), OversizedVariantTest::mixes96, data()).executor());
        CompileReport r = d.report(OversizedVariantTest::mixes96, data());
        assertEquals("simd", r.executor());
        assertTrue(r.compiled());
        assertEquals(1, r.reasons().size(), r.reasons()::toString);
        String why = r.reasons().get(0);
        assertTrue(why.matches("kernel OversizedVariantTest\\.lambda\\$mixes96\\$[\\w$]+ is too large for the JIT: \\d+ bytes of"
                + " generated code per warp \\(limit " + CodeGen.HUGE_METHOD_LIMIT + "\\) even with " + Lanes.L32
                + " threads per group \\(runs on the reference executor\\)"), why);
        // the listings of the two classes the launches compiled, and the reason
        String listing = r.listing();
        assertTrue(listing.contains("threads, in a 1D CTA"), listing);
        assertTrue(listing.contains("when a group lies within one row of the CTA"), listing);
        assertFalse(listing.contains("any other CTA shape"), listing);
        assertTrue(listing.endsWith("\nCTA shapes that run no variant above may not compile: " + why), listing);
        // 4 x 4 runs the general variant: on the reference executor
        CompileReport general = d.report(Dim3.of(4, 4), OversizedVariantTest::mixes96, data());
        assertEquals("reference", general.executor());
        assertFalse(general.compiled());
        assertEquals(List.of("simd compiles this kernel for other CTA shapes, not for blockDim " + Dim3.of(4, 4)), general.reasons());
        check(Dim3.of(64), OversizedVariantTest::mixes96);
        check(Dim3.of(32, 2), OversizedVariantTest::mixes96);
        check(Dim3.of(4, 4), OversizedVariantTest::mixes96);
    }

    @Test
    void bind_withoutBlockDim_ofAKernelCompiledOnlyForSomeShapes_refused() {
        SimdBackend backend = new SimdBackend();
        DeviceShape shape = new DeviceShape(32, 48 * 1024);
        Object[] a = data();
        float[] in = (float[]) a[0];
        float[] w = (float[]) a[1];
        float[] out = (float[]) a[2];
        Kernel k = t -> mixRow96(t, in, w, out);
        Compilation c = backend.compile(k, shape, Dim3.of(64));
        assertTrue(c instanceof Compilation.Compiled, c::toString);
        CompiledKernel compiled = ((Compilation.Compiled) c).kernel();
        assertNotNull(compiled.bind(k, Dim3.of(64)));
        assertNull(compiled.bind(k, Dim3.of(4, 4)), "the general variant is too large: no program for 4 x 4 CTAs");
        // the runtime binds with the launch's blockDim; without it, every shape would need the general variant
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> compiled.bind(k));
        assertEquals("simd backend: compiled this kernel only for some CTA shapes; bind it with the launch's blockDim", e.getMessage());
        // a compile for every shape declines, saying why
        Compilation whole = backend.compile(k, shape);
        assertTrue(whole instanceof Compilation.Declined, whole::toString);
        String why = String.join("; ", ((Compilation.Declined) whole).reasons());
        assertTrue(why.contains("is too large for the JIT"), why);
    }

    @Test
    void launch_inAShapeThatTheClassOfItsVariantDoesNotServe_compilesAClassOfItsOwn() {
        // Groups of 32 threads (the menu's: 1D CTAs compile in them) give 16 x 2 the general variant, too large there;
        // it compiles in groups of 16, where the row-aligned variant serves it.
        String line = d.report(Dim3.of(64), OversizedVariantTest::mixes32, data()).listing();
        assertTrue(line.contains("a group of 32 threads"), line);
        String rows = d.report(Dim3.of(16, 2), OversizedVariantTest::mixes32, data()).listing();
        assertTrue(rows.contains("a group of 16 threads"), rows);
        assertTrue(rows.contains("when a group lies within one row of the CTA"), rows);
        assertFalse(rows.contains("any other CTA shape"), rows);
        // 4 x 4 runs the general variant too, in the menu's groups: that class does not serve it, so 4 x 4 compiles a
        // class of its own, the general variant alone, in the groups where it fits
        CompileReport general = d.report(Dim3.of(4, 4), OversizedVariantTest::mixes32, data());
        assertEquals("simd", general.executor(), general::summary);
        String listing = general.listing();
        assertTrue(listing.contains("any other CTA shape"), listing);
        assertFalse(listing.contains("when a group lies within one row of the CTA"), listing);
        assertTrue(listing.contains("for CTAs of blockDim 4 x 4 x 1"), listing);
        assertTrue(listing.contains("a group of " + Lanes.L32 + " threads"), listing);
        check(Dim3.of(16, 2), OversizedVariantTest::mixes32);
        check(Dim3.of(4, 4), OversizedVariantTest::mixes32);
        // 48 x 2: the class of 16 x 2 serves it; 8 x 4 and 12 x 3 compile their own
        check(Dim3.of(48, 2), OversizedVariantTest::mixes32);
        check(Dim3.of(8, 4), OversizedVariantTest::mixes32);
        check(Dim3.of(12, 3), OversizedVariantTest::mixes32);
        check(Dim3.of(64), OversizedVariantTest::mixes32);
    }

    @Test
    void launch_afterAShapeCompiledInASmallerGroup_compilesAShapeThatItsVariantServesInAnother() {
        // In the menu's groups (32 threads) 16 x 2 and 8 x 2 run the general variant, too large there and in groups of
        // 16. 16 x 2 compiles in groups of 16, where the row-aligned variant serves it, but not 8 x 2: with 8-lane
        // registers 8 x 2 compiles in groups of 8, as it does when launched first, though the class with every variant
        // is too large. With 16-lane registers groups of 16 are the smallest: 8 x 2 runs on the reference executor.
        assertEquals("simd", d.report(Dim3.of(16, 2), OversizedVariantTest::mixes96Again, data()).executor());
        CompileReport r = d.report(Dim3.of(8, 2), OversizedVariantTest::mixes96Again, data());
        assertEquals(Lanes.L32 <= 8 ? "simd" : "reference", r.executor(), r::summary);
        check(Dim3.of(8, 2), OversizedVariantTest::mixes96Again);
        check(Dim3.of(24, 2), OversizedVariantTest::mixes96Again);
        check(Dim3.of(16, 2), OversizedVariantTest::mixes96Again);
    }
}
