package dev.weft.benchmarks.kernels;

import dev.weft.Kernel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One instance of each benchmark kernel, small, so the report tool can ask a device which executor runs it
 * (the compile decision is per kernel class, not per size).
 */
public final class KernelsForReport {

    private KernelsForReport() {
    }

    /** The kernels by benchmark name. */
    public static Map<String, Kernel> kernels() {
        Map<String, Kernel> m = new LinkedHashMap<>();
        m.put("saxpy", SaxpyBenchmark.saxpyKernel(1, 1f, new float[1], new float[1]));
        m.put("mandelbrot", MandelbrotBenchmark.mandelbrotKernel(1, 1, 0f, 0f, 1f, 1f, 1, new int[1]));
        m.put("blackScholes", BlackScholesBenchmark.blackScholesKernel(1, 0f, 1f, new float[1], new float[1], new float[1],
                new float[1], new float[1]));
        m.put("nbody", NBodyBenchmark.nbodyKernel(1, 0f, 1f, new float[1], new float[1], new float[1], new float[1],
                new float[1], new float[1], new float[1]));
        return m;
    }
}
