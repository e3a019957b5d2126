package dev.weft.benchmarks.kernels;

import dev.weft.Dim3;
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

    /** The CTA shape each benchmark launches its kernel in, by benchmark name (a launch compiles for its shape). */
    public static Map<String, Dim3> blocks() {
        Map<String, Dim3> m = new LinkedHashMap<>();
        m.put("saxpy", Dim3.of(SaxpyBenchmark.BLOCK));
        m.put("reduction", Dim3.of(ReductionBenchmark.BLOCK));
        m.put("mandelbrot", Dim3.of(MandelbrotBenchmark.BLOCK_X, MandelbrotBenchmark.BLOCK_Y));
        m.put("sgemm", Dim3.of(SgemmBenchmark.TILE, SgemmBenchmark.TILE));
        m.put("sgemmRegisterBlocked", Dim3.of(SgemmRegisterBlockedBenchmark.THREADS_X, SgemmRegisterBlockedBenchmark.THREADS_Y));
        m.put("histogram", Dim3.of(HistogramBenchmark.BLOCK));
        m.put("blackScholes", Dim3.of(BlackScholesBenchmark.BLOCK));
        m.put("nbody", Dim3.of(NBodyBenchmark.BLOCK));
        m.put("transpose", Dim3.of(TransposeBenchmark.TILE, TransposeBenchmark.BLOCK_ROWS));
        m.put("scan", Dim3.of(ScanBenchmark.BLOCK));
        m.put("stencil", Dim3.of(StencilBenchmark.BLOCK_X, StencilBenchmark.BLOCK_Y));
        return m;
    }
}
