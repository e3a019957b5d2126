package dev.weft.runtime.spi;

import dev.weft.runtime.LaunchProfile;
import java.util.List;

/**
 * The program of one profiled launch: a variant of the kernel compiled with counters. The runtime gives each
 * CTA a zeroed array of {@link #counterCount()} longs ({@link Cta#counters()}), which the program's code adds to
 * as its warps run; after the launch it sums the arrays of all CTAs and asks the program what they mean.
 */
public interface ProfiledProgram extends CtaProgram {

    /** The length of each CTA's counter array; the layout is the program's own. */
    int counterCount();

    /**
     * What the launch's counters say.
     *
     * @param totals the counters summed over every CTA that ran to completion
     * @return the warp and thread instructions, divergent branches and lines (see {@link LaunchProfile})
     */
    Counts decode(long[] totals);

    /**
     * Counted figures of a launch, as {@link LaunchProfile} defines them.
     *
     * @param warpInstructions warp instructions issued
     * @param threadInstructions active threads summed over them
     * @param branches the divergent branches reached, in source order
     * @param lines per source line, in source order
     */
    record Counts(long warpInstructions, long threadInstructions, List<LaunchProfile.Branch> branches,
            List<LaunchProfile.Line> lines) {

        /** Copies the lists. */
        public Counts {
            branches = List.copyOf(branches);
            lines = List.copyOf(lines);
        }
    }
}
