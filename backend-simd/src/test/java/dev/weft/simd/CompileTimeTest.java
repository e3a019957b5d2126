package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Measures first-launch compile time (reported, not asserted: the machine is shared): each kernel's
 * {@code compileReport} compiles it; the listing's first line carries the time the pipeline took.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CompileTimeTest {

    @Test
    void compileTimes_reported() {
        Map<String, Kernel> kernels = new LinkedHashMap<>();
        kernels.put("saxpy", SaxpyTest.saxpy(new Object[] {new float[4], new float[4]}));
        kernels.put("mandelbrot", ControlFlowTest.mandelbrot(new Object[] {null, null, null, new int[4]}));
        kernels.put("black-scholes", MathTest.blackScholes(new Object[] {new float[4], new float[4], new float[4], new float[4], new float[4]}));
        kernels.put("matmul", IndexingTest.matmul(new Object[] {new float[4], new float[4], new float[4]}));
        kernels.put("stencil3d", IndexingTest.volume(new Object[] {new double[4], new double[4]}));
        kernels.put("switches", ControlFlowTest.switches(new Object[] {null, null, new int[4], new int[4]}));
        kernels.put("conversions", TypesTest.conversions(new Object[] {new float[4], new double[4], new int[4], new long[4],
            new int[4], new long[4], new float[4], new double[4]}));
        try (Device device = Device.create()) {
            StringBuilder table = new StringBuilder("first-launch compile time (ms), warm JVM:\n");
            for (Map.Entry<String, Kernel> e : kernels.entrySet()) {
                long t0 = System.nanoTime();
                CompileReport r = device.compileReport(e.getValue());
                double ms = (System.nanoTime() - t0) / 1e6;
                assertTrue(r.compiled(), r::summary);
                String first = r.listing().lines().findFirst().orElse("");
                table.append(String.format("  %-14s %6.1f ms end to end; %s%n", e.getKey(), ms, first));
            }
            System.out.print(table);
        }
    }
}
