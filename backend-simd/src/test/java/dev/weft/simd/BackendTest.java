package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.ThreadContext;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.KernelException;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.SimdBackend;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The backend as the runtime sees it: service registration, caching, binding, reports, faults in 2D and 3D CTAs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BackendTest {

    @Test
    void serviceLoader_findsTheSimdBackend() {
        boolean found = false;
        for (var b : ServiceLoader.load(dev.weft.runtime.spi.KernelBackend.class)) {
            found |= b.name().equals("simd");
        }
        assertTrue(found);
    }

    static int[] out = new int[64];

    static void methodKernel(ThreadContext t) {
        out[t.threadIdxX()] = t.threadIdxX() * 3 + t.warpId();
    }

    @Test
    void methodReference_compilesAndRuns() {
        try (Device d = Device.create()) {
            Kernel k = BackendTest::methodKernel;
            assertTrue(d.compileReport(k).compiled(), () -> d.compileReport(k).summary());
            d.launch(Dim3.of(1), Dim3.of(64), k);
            assertEquals(3 * 40 + 1, out[40]);
        }
    }

    static Kernel scale(float[] x, float s) {
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                x[i] *= s;
            }
        };
    }

    @Test
    void secondLaunch_bindsNewCapturesAndCompilesNothing() {
        SimdBackend backend = new SimdBackend();
        DeviceShape shape = new DeviceShape(32, 48 * 1024);
        Kernel a = scale(new float[3], 2);
        Kernel b = scale(new float[5], 3);
        var ca = (Compilation.Compiled) backend.compile(a, shape);
        var cb = (Compilation.Compiled) backend.compile(b, shape);
        // One implementation method: one compilation, shared (the report is the same object's).
        assertSame(ca.kernel().report().listing(), cb.kernel().report().listing());
        try (Device d = Device.create()) {
            float[] x = {1, 2, 3};
            float[] y = {1, 1, 1, 1, 1};
            d.launch(Dim3.of(1), Dim3.of(32), scale(x, 2));
            d.launch(Dim3.of(1), Dim3.of(32), scale(y, 5));
            assertEquals(6f, x[2]);
            assertEquals(5f, y[4]);
        }
    }

    @Test
    void compileReport_showsExecutorNoReasonsAndTheWarpCode() {
        try (Device d = Device.create()) {
            CompileReport r = d.compileReport(scale(new float[1], 1));
            assertEquals("simd", r.executor());
            assertTrue(r.compiled());
            assertTrue(r.reasons().isEmpty());
            assertTrue(r.listing().contains("divergent branch"), r.listing());
            assertTrue(r.listing().contains("contiguous"), r.listing());
            assertEquals("compiled by simd", r.summary());
        }
    }

    static Kernel fault2d(int[] a) {
        return t -> a[t.threadIdxY() * 100 + t.threadIdxX()] = 1;
    }

    @Test
    void faultIn2dAnd3dCtas_reportsThreadCoordinates() {
        try (Device d = Device.create()) {
            KernelException e = assertThrows(KernelException.class, () -> d.launch(Dim3.of(1), Dim3.of(16, 8), fault2d(new int[505])));
            assertEquals(new Dim3(5, 5, 0), e.threadIdx().orElseThrow());
            int[] a = new int[20];
            KernelException e3 = assertThrows(KernelException.class, () -> d.launch(Dim3.of(1), Dim3.of(4, 2, 4), t -> {
                a[t.linearThreadIdx()] = t.threadIdxZ();
            }));
            assertEquals(new Dim3(0, 1, 2), e3.threadIdx().orElseThrow());
        }
    }

    @Test
    void capturedScalarsOfEveryPrimitiveType_bind() {
        boolean flag = true;
        byte b = -3;
        short s = 300;
        char c = 'A';
        long l = 1L << 40;
        double dd = 0.25;
        long[] res = new long[32];
        Kernel k = t -> res[t.threadIdxX()] = (flag ? 1 : 0) + b + s + c + l + (long) (dd * 8) + t.threadIdxX();
        try (Device d = Device.create()) {
            assertTrue(d.compileReport(k).compiled(), () -> d.compileReport(k).summary());
            d.launch(Dim3.of(1), Dim3.of(32), k);
        }
        assertEquals(1 - 3 + 300 + 65 + (1L << 40) + 2 + 7, res[7]);
    }
}
