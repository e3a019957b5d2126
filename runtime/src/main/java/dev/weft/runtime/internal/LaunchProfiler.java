package dev.weft.runtime.internal;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.LaunchProfile;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.ProfiledProgram;
import java.util.List;

/**
 * The counting side of one profiled launch: picks the program (the kernel's profiling variant, or its ordinary
 * program when the executor does not count), gives each CTA its counters and sums them as CTAs finish.
 *
 * <p>Implementation notes. Each CTA gets a fresh array and the sum is taken under this object's lock once per
 * CTA, so the generated code adds to an array no other SM touches; a lock per CTA is cheap next to a CTA's
 * work, and a profiled launch is not a timed one. CTAs and warps are counted here, for every executor: they
 * need nothing from the program.
 */
public final class LaunchProfiler {

    private final String kernel;
    private final String executor;
    private final int warpSize;
    private final CtaProgram program;
    private final ProfiledProgram counting;
    private final String notCounted;
    private final long[] totals;
    private long ctas;
    private long warps;

    private LaunchProfiler(String kernel, String executor, int warpSize, CtaProgram program, ProfiledProgram counting,
            String notCounted) {
        this.kernel = kernel;
        this.executor = executor;
        this.warpSize = warpSize;
        this.program = program;
        this.counting = counting;
        this.notCounted = notCounted;
        this.totals = new long[counting == null ? 0 : counting.counterCount()];
    }

    /**
     * A profiler for one launch of {@code kernel} in CTAs of shape {@code block}, with the executor {@code selector}
     * chooses, on warps of {@code warpSize}.
     */
    public static LaunchProfiler of(Kernel kernel, KernelSelector selector, Dim3 block, int warpSize) {
        String name = KernelNames.of(kernel);
        CompiledKernel compiled = selector.select(kernel);
        String executor = compiled.executor();
        ProfiledProgram counting;
        try {
            counting = compiled.bindProfiled(kernel);
        } catch (UnsupportedOperationException e) {
            return new LaunchProfiler(name, executor, warpSize, selector.bind(kernel, block), null, e.getMessage());
        }
        return new LaunchProfiler(name, executor, warpSize, counting, counting, "");
    }

    /** The program the launch runs. */
    public CtaProgram program() {
        return program;
    }

    /** Runs one CTA of the launch with its own counters, and adds them to the launch's when it completes. */
    void run(Cta cta) {
        long[] counters = counting == null ? null : new long[totals.length];
        cta.useCounters(counters);
        try {
            program.runCta(cta);
        } finally {
            cta.useCounters(null);
        }
        long ctaWarps = (cta.threadCount() + warpSize - 1) / warpSize;
        synchronized (this) {
            ctas++;
            warps += ctaWarps;
            if (counters != null) {
                for (int i = 0; i < counters.length; i++) {
                    totals[i] += counters[i];
                }
            }
        }
    }

    /** The profile; call after the launch has completed. */
    public synchronized LaunchProfile result() {
        if (counting == null) {
            return new LaunchProfile(kernel, executor, warpSize, ctas, warps, false, notCounted, 0, 0, List.of(), List.of());
        }
        ProfiledProgram.Counts c = counting.decode(totals.clone());
        return new LaunchProfile(kernel, executor, warpSize, ctas, warps, true, "", c.warpInstructions(),
                c.threadInstructions(), c.branches(), c.lines());
    }
}
