package dev.weft.benchmarks.kernels;

import dev.weft.Kernel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One instance of each benchmark kernel, small, so the report tool can ask a device which executor runs it
 * (the compile decision is per kernel, not per size), and so the benchmarks can
 * choose a problem size by it ({@link Devices#fullProblem}).
 */
public final class KernelsForReport {

    private KernelsForReport() {
    }

    /** The kernels by benchmark name. */
    public static Map<String, Kernel> kernels() {
        Map<String, Kernel> m = new LinkedHashMap<>();
        m.put("saxpy", SaxpyBenchmark.saxpyKernel(1, 1f, new float[1], new float[1]));
        m.put("reduction", ReductionBenchmark.reductionKernel(1, new float[1], new float[1]));
        m.put("mandelbrot", MandelbrotBenchmark.mandelbrotKernel(1, 1, 0f, 0f, 1f, 1f, 1, new int[1]));
        m.put("sgemm", SgemmBenchmark.sgemmKernel(1, new float[1], new float[1], new float[1]));
        m.put("sgemmRegisterBlocked", SgemmRegisterBlockedBenchmark.sgemmKernel(1, new float[1], new float[1], new float[1]));
        m.put("histogram", HistogramBenchmark.histogramKernel(1, new int[1], new int[HistogramBenchmark.BINS]));
        m.put("blackScholes", BlackScholesBenchmark.blackScholesKernel(1, 0f, 1f, new float[1], new float[1], new float[1],
                new float[1], new float[1]));
        m.put("nbody", NBodyBenchmark.nbodyKernel(1, 0f, 1f, new float[1], new float[1], new float[1], new float[1],
                new float[1], new float[1], new float[1]));
        m.put("transpose", TransposeBenchmark.transposeKernel(1, new float[1], new float[1]));
        m.put("scan", ScanBenchmark.scanKernel(1, new int[1], new int[1], new int[1]));
        m.put("stencil", StencilBenchmark.stencilKernel(1, 1, 1f, 1f, new float[1], new float[1]));
        return m;
    }
}
