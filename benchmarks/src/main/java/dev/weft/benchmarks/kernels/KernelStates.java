package dev.weft.benchmarks.kernels;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Each kernel benchmark's state built outside JMH, as JMH builds it (a new instance, {@code impl} set, then
 * the trial set-up): for {@link PairedBenchmark}, which runs two variants of one benchmark in one fork, and
 * for the test that runs every variant's set-up.
 */
public final class KernelStates {

    /** One variant of one kernel benchmark: the trial set-up, one benchmark invocation, the trial tear-down. */
    public interface State {
        /** The trial set-up: computes the result once and throws if it differs from the plain loop's. */
        void setUp();

        /** One invocation of the benchmark method, adding its work to {@code work}. */
        void invoke(Work work, Blackhole bh);

        /** The trial tear-down (closes the variant's device). */
        void tearDown();
    }

    private record Of(Runnable before, Invocation invocation, Runnable after) implements State {
        @Override
        public void setUp() {
            before.run();
        }

        @Override
        public void invoke(Work work, Blackhole bh) {
            invocation.run(work, bh);
        }

        @Override
        public void tearDown() {
            after.run();
        }
    }

    private interface Invocation {
        void run(Work work, Blackhole bh);
    }

    /** By {@link KernelsForReport}'s names: the benchmark class and a factory of its state per variant. */
    private static final Map<String, Entry> BENCHMARKS = new LinkedHashMap<>();

    private record Entry(Class<?> benchmark, Function<String, State> factory) {
    }

    static {
        BENCHMARKS.put("saxpy", new Entry(SaxpyBenchmark.class, impl -> {
            var b = new SaxpyBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::saxpy, b::tearDown);
        }));
        BENCHMARKS.put("reduction", new Entry(ReductionBenchmark.class, impl -> {
            var b = new ReductionBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::sum, b::tearDown);
        }));
        BENCHMARKS.put("mandelbrot", new Entry(MandelbrotBenchmark.class, impl -> {
            var b = new MandelbrotBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::mandelbrot, b::tearDown);
        }));
        BENCHMARKS.put("sgemm", new Entry(SgemmBenchmark.class, impl -> {
            var b = new SgemmBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::sgemm, b::tearDown);
        }));
        BENCHMARKS.put("sgemmRegisterBlocked", new Entry(SgemmRegisterBlockedBenchmark.class, impl -> {
            var b = new SgemmRegisterBlockedBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::sgemm, b::tearDown);
        }));
        BENCHMARKS.put("histogram", new Entry(HistogramBenchmark.class, impl -> {
            var b = new HistogramBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::histogram, b::tearDown);
        }));
        BENCHMARKS.put("blackScholes", new Entry(BlackScholesBenchmark.class, impl -> {
            var b = new BlackScholesBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::blackScholes, b::tearDown);
        }));
        BENCHMARKS.put("nbody", new Entry(NBodyBenchmark.class, impl -> {
            var b = new NBodyBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::nbody, b::tearDown);
        }));
        BENCHMARKS.put("transpose", new Entry(TransposeBenchmark.class, impl -> {
            var b = new TransposeBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::transpose, b::tearDown);
        }));
        BENCHMARKS.put("scan", new Entry(ScanBenchmark.class, impl -> {
            var b = new ScanBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::scan, b::tearDown);
        }));
        BENCHMARKS.put("stencil", new Entry(StencilBenchmark.class, impl -> {
            var b = new StencilBenchmark();
            b.impl = impl;
            return new Of(b::setUp, b::stencil, b::tearDown);
        }));
    }

    private KernelStates() {
    }

    /** The kernels that have a state, by {@link KernelsForReport}'s names. */
    public static Set<String> kernels() {
        return Collections.unmodifiableSet(BENCHMARKS.keySet());
    }

    /** A new state of {@code kernel}'s benchmark for variant {@code impl}, not yet set up. */
    public static State create(String kernel, String impl) {
        return entry(kernel).factory().apply(impl);
    }

    /** The JMH benchmark class of {@code kernel}, whose simple name heads its results. */
    public static Class<?> benchmark(String kernel) {
        return entry(kernel).benchmark();
    }

    private static Entry entry(String kernel) {
        Entry e = BENCHMARKS.get(kernel);
        if (e == null) {
            throw new IllegalArgumentException("kernel " + kernel + ": not one of " + BENCHMARKS.keySet());
        }
        return e;
    }
}
