package dev.weft.runtime;

import java.util.List;

/**
 * What one profiled launch did, counted per warp as a GPU profiler counts it: CTAs, warps, warp instructions
 * issued and the threads active in each, and how often warps split at each divergent branch. Made by
 * {@link Device#profile(LaunchConfig, dev.weft.Kernel)} and {@link Stream#profile(LaunchConfig, dev.weft.Kernel)}.
 *
 * <h2>What is counted</h2>
 * A <em>warp instruction</em> is one operation of the kernel (after the compiler has read its bytecode into
 * SSA form: arithmetic, comparisons, conversions, loads, stores, calls, atomics, warp operations, and the
 * branch that ends a block; constants and the merges of values at joins are free) issued for one warp. A warp
 * issues it when at least one of its threads runs it; the active threads are those of the warp's mask there.
 * A uniform value, which the SIMD backend computes once as a scalar, still counts as issued for the warp with
 * its active threads: on a GPU every warp issues it, and so the efficiency is the GPU's, not the vector
 * unit's. {@link #threadInstructions()} sums the active threads over the warp instructions, so
 * <pre>warp execution efficiency = threadInstructions / (warpInstructions * warpSize)</pre>
 * 100% when every warp runs every instruction with all its threads; a branch that sends half of each warp's
 * threads one way runs its two sides at 50% each; a partial warp (a CTA of 40 threads has a second warp of 8)
 * runs at 8/32.
 *
 * <p>A <em>divergent branch</em> is a branch whose condition the compiler could not prove the same for all
 * threads of a warp. Each time a warp reaches it with at least one active thread is one {@linkplain
 * Branch#evaluations() evaluation}; when the warp's active threads do not all go the same way, it is a
 * {@linkplain Branch#splits() split} (both sides then run, each under its part of the mask).
 *
 * <h2>Executors</h2>
 * Only a compiled kernel is counted: a launch profiled with {@link #counted()} true ran a separately compiled
 * variant of the kernel with counters at each block and divergent branch (the kernel's ordinary code is not
 * changed by profiling, and costs nothing more). The reference executor runs each thread as ordinary Java,
 * with no warp issuing instructions: its profiles count CTAs and warps, and say why nothing else was
 * counted ({@link #notCountedReason()}); so does the profile of a kernel the backend declined.
 *
 * @param kernel the kernel's name, as in error messages
 * @param executor the executor that ran the launch: {@code "simd"} or {@code "reference"}
 * @param warpSize threads per warp on the device
 * @param ctas CTAs that ran to completion
 * @param warps warps of those CTAs: per CTA, its threads divided by the warp size, rounded up
 * @param counted whether warp instructions and branches were counted
 * @param notCountedReason why not, one line; empty when counted
 * @param warpInstructions warp instructions issued (0 when not counted). Nsight: {@code inst_executed}
 * @param threadInstructions active threads summed over the warp instructions issued (0 when not counted).
 *        Nsight: {@code thread_inst_executed}
 * @param branches the divergent branches that warps reached, per source line, in source order
 * @param lines warp and thread instructions per source line, in source order
 */
public record LaunchProfile(String kernel, String executor, int warpSize, long ctas, long warps, boolean counted,
        String notCountedReason, long warpInstructions, long threadInstructions, List<Branch> branches, List<Line> lines) {

    /** Copies the lists. */
    public LaunchProfile {
        branches = List.copyOf(branches);
        lines = List.copyOf(lines);
    }

    /**
     * The divergent branches of one source line (one, or their sums where a line has several, such as
     * {@code if (a < n && b[a] > 0)}).
     *
     * @param site its source file and line, e.g. {@code "Sample03_Divergence.java:42"}
     * @param evaluations times a warp reached it with at least one active thread
     * @param splits times the active threads of a warp went more than one way
     */
    public record Branch(String site, long evaluations, long splits) {

        /** The fraction of evaluations that split the warp, in [0, 1]; 0 when never reached. */
        public double splitRate() {
            return evaluations == 0 ? 0 : (double) splits / evaluations;
        }
    }

    /**
     * The instructions of one source line. Nsight Compute's source view shows the same per line.
     *
     * @param site its source file and line
     * @param warpInstructions warp instructions issued for the line's operations
     * @param threadInstructions active threads summed over them
     * @param warpExecutionEfficiency {@code threadInstructions / (warpInstructions * warpSize)}, or 1 when no
     *        instruction was issued
     */
    public record Line(String site, long warpInstructions, long threadInstructions, double warpExecutionEfficiency) {
    }

    /**
     * The average fraction of a warp's threads active in the instructions it issued, in (0, 1].
     * Nsight/nvprof: {@code warp_execution_efficiency} (which prints it as a percentage).
     *
     * @return {@code threadInstructions / (warpInstructions * warpSize)}, or 1 when no instruction was issued
     * @throws UnsupportedOperationException if the launch was not counted; the message says why
     */
    public double warpExecutionEfficiency() {
        requireCounted("warp execution efficiency");
        return warpInstructions == 0 ? 1 : (double) threadInstructions / ((double) warpInstructions * warpSize);
    }

    /**
     * The fraction of divergent-branch evaluations that did not split a warp, in [0, 1]; 1 when no warp
     * reached a divergent branch. nvprof's {@code branch_efficiency} is the same over every branch, uniform
     * ones included (which never split), so it reads higher than this figure for the same launch.
     *
     * @throws UnsupportedOperationException if the launch was not counted; the message says why
     */
    public double nonSplitRate() {
        requireCounted("branch split counts");
        long evaluations = 0;
        long splits = 0;
        for (Branch b : branches) {
            evaluations += b.evaluations();
            splits += b.splits();
        }
        return evaluations == 0 ? 1 : 1 - (double) splits / evaluations;
    }

    /** The divergent branch at {@code site} (a source line, e.g. {@code "Foo.java:12"}), or throws if none was reached there. */
    public Branch branchAt(String site) {
        for (Branch b : branches) {
            if (b.site().equals(site)) {
                return b;
            }
        }
        throw new IllegalArgumentException("site must be a divergent branch that warps reached; reached: "
                + branches.stream().map(Branch::site).toList() + ": " + site);
    }

    /** The instructions of source line {@code site} (e.g. {@code "Foo.java:12"}), or throws if none was issued there. */
    public Line lineAt(String site) {
        for (Line l : lines) {
            if (l.site().equals(site)) {
                return l;
            }
        }
        throw new IllegalArgumentException("site must be a source line that issued instructions; lines: "
                + lines.stream().map(Line::site).toList() + ": " + site);
    }

    private void requireCounted(String what) {
        if (!counted) {
            throw new UnsupportedOperationException(what + " was not counted for this launch: " + notCountedReason);
        }
    }

    /** A readable table: the launch's figures, then its divergent branches and its lines. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("profile of %s on the %s executor: %d CTAs, %d warps of %d threads%n",
                kernel, executor, ctas, warps, warpSize));
        if (!counted) {
            s.append("  warp instructions not counted: ").append(notCountedReason).append('\n');
            return s.toString();
        }
        s.append(String.format("  warp instructions issued     %,14d%n", warpInstructions));
        s.append(String.format("  thread instructions          %,14d   (%.1f active threads per warp instruction)%n",
                threadInstructions, warpInstructions == 0 ? 0.0 : (double) threadInstructions / warpInstructions));
        s.append(String.format("  warp execution efficiency    %13.1f%%%n", 100 * warpExecutionEfficiency()));
        if (branches.isEmpty()) {
            s.append("  no divergent branch reached\n");
        } else {
            s.append(String.format("  %-32s %14s %14s %8s%n", "divergent branch", "evaluations", "splits", "split"));
            for (Branch b : branches) {
                s.append(String.format("  %-32s %,14d %,14d %7.1f%%%n", b.site(), b.evaluations(), b.splits(), 100 * b.splitRate()));
            }
        }
        s.append(String.format("  %-32s %14s %14s %8s%n", "line", "warp instr.", "thread instr.", "effic."));
        for (Line l : lines) {
            s.append(String.format("  %-32s %,14d %,14d %7.1f%%%n", l.site(), l.warpInstructions(), l.threadInstructions(),
                    100 * l.warpExecutionEfficiency()));
        }
        return s.toString();
    }
}
