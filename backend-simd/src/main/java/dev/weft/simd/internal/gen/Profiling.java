package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.runtime.LaunchProfile;
import dev.weft.runtime.spi.ProfiledProgram;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Site;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of a kernel's profiling variant: what {@link CodeGen} adds to the code when it generates that
 * variant (at the start of the code, at each block's entry, at each divergent branch), the static methods the
 * added code calls, and how the summed counters become a {@link LaunchProfile}'s figures.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>Counting blocks, not instructions. A block's warp instructions all run under the block's mask, so the
 * code counts, per block, the warps that entered it with at least one active thread and the active threads;
 * its instruction count (known when compiling, one per IR operation, see {@link #instructions}) multiplies
 * them when the counters are read. Per line the same, with the block's instructions of that line. So a block
 * costs one call (a few additions) however long it is.
 * <li>Warps, not groups. The profiling variant is compiled with groups of whole warps (a group of 32 threads
 * when the warp is 32, even where the ordinary code uses groups of 16 for register pressure), so that a
 * group's mask at a block is the mask its warp would have on a GPU. A group of several small warps (warps of
 * 8 threads, 16-lane registers) is split into its warps here, lane bits {@code [k * warpSize, (k+1) * warpSize)}.
 * <li>A group's mask as bits: register {@code r}'s {@code toLong()} shifted by {@code r * L32}; a group has at
 * most 64 threads.
 * <li>Counter layout: two longs per block that has instructions (warps entered, active threads), then two per
 * block ending in a branch (evaluations, splits); a branch the variant's analysis finds uniform is never
 * counted, and the figures list only branches reached.
 * <li>Rejected: an instruction-by-instruction count (larger code, the same figures); a count in the ordinary
 * code under a flag (not zero cost when off: it would be in every launch's code).
 * </ul>
 */
public final class Profiling {

    private static final ClassDesc SELF = ClassDesc.of(Profiling.class.getName());
    private static final ClassDesc LONGS = CD_long.arrayType();

    private final int warpSize;
    private final int group;
    private final Map<Block, Integer> blockSlot = new HashMap<>();
    private final Map<Block, Integer> branchSlot = new HashMap<>();
    private final List<Block> counted = new ArrayList<>();
    private final List<Block> branching = new ArrayList<>();
    private final int counterCount;

    /**
     * Counters for {@code g}'s blocks, compiled for warps of {@code warpSize} in groups of {@code group} threads.
     *
     * @throws IllegalArgumentException if a group is not whole warps
     */
    public Profiling(Graph g, int warpSize, int group) {
        if (group < warpSize || group % warpSize != 0 || group > 64) {
            throw new IllegalArgumentException("profiling needs groups of whole warps, at most 64 threads: " + group
                    + " threads, warps of " + warpSize);
        }
        this.warpSize = warpSize;
        this.group = group;
        int slot = 0;
        for (Block b : g.blocks) {
            if (instructions(b) > 0) {
                blockSlot.put(b, slot);
                counted.add(b);
                slot += 2;
            }
        }
        for (Block b : g.blocks) {
            if (b.exit == Block.Exit.IF || b.exit == Block.Exit.SWITCH) {
                branchSlot.put(b, slot);
                branching.add(b);
                slot += 2;
            }
        }
        this.counterCount = slot;
    }

    /** The length of a CTA's counter array. */
    public int counterCount() {
        return counterCount;
    }

    /**
     * The warp instructions of block {@code b}: its IR operations (constants, parameters and undefined values
     * are free, as immediates and registers are on a GPU; phis are not in {@code nodes}), and its branch.
     */
    static int instructions(Block b) {
        int n = 0;
        for (Node x : b.nodes) {
            if (free(x)) {
                continue;
            }
            n++;
        }
        return n + (b.exit == Block.Exit.IF || b.exit == Block.Exit.SWITCH ? 1 : 0);
    }

    private static boolean free(Node x) {
        return switch (x.op) {
            case CONST, PARAM, UNDEF, PHI -> true;
            default -> false;
        };
    }

    // ---- code the generator adds --------------------------------------------------------------------

    /** At the start of the variant's method: loads the CTA's counters into local {@code counters}. */
    void prologue(CodeBuilder cb, int ctaSlot, int counters) {
        cb.aload(ctaSlot);
        cb.invokevirtual(Vec.CTA, "counters", mt(LONGS));
        cb.astore(counters);
    }

    /** At the entry of block {@code b}, once its mask (int-lane registers {@code mask}) is set. */
    void blockEntry(CodeBuilder cb, int counters, Block b, int[] mask) {
        Integer slot = blockSlot.get(b);
        if (slot == null) {
            return;
        }
        cb.aload(counters);
        cb.loadConstant(slot);
        bits(cb, mask);
        cb.loadConstant(warpSize);
        cb.loadConstant(group);
        cb.invokestatic(SELF, "block", mt(CD_void, LONGS, CD_int, CD_long, CD_int, CD_int));
    }

    /**
     * At divergent branch {@code b}, before its edges: the threads in {@code active} (int-lane registers), of which
     * those in {@code taken} go to the first successor.
     */
    void branch(CodeBuilder cb, int counters, Block b, int[] active, int[] taken) {
        cb.aload(counters);
        cb.loadConstant(branchSlot.get(b));
        bits(cb, active);
        bits(cb, taken);
        cb.loadConstant(warpSize);
        cb.loadConstant(group);
        cb.invokestatic(SELF, "branch", mt(CD_void, LONGS, CD_int, CD_long, CD_long,
                CD_int, CD_int));
    }

    /**
     * At divergent switch {@code b}, before its edges: the threads in {@code active}, and those going to each
     * distinct target ({@code targets}, int-lane registers each).
     */
    void switchBranch(CodeBuilder cb, int counters, Block b, int[] active, List<int[]> targets) {
        cb.aload(counters);
        cb.loadConstant(branchSlot.get(b));
        bits(cb, active);
        cb.lconst_0();
        for (int[] t : targets) {
            bits(cb, active);
            bits(cb, t);
            cb.loadConstant(warpSize);
            cb.loadConstant(group);
            cb.invokestatic(SELF, "partialWarps", mt(CD_long, CD_long, CD_long, CD_int, CD_int));
            cb.lor();
        }
        cb.loadConstant(warpSize);
        cb.loadConstant(group);
        cb.invokestatic(SELF, "splits", mt(CD_void, LONGS, CD_int, CD_long, CD_long, CD_int, CD_int));
    }

    /** Pushes the lanes of int-lane mask registers {@code mask} as one long, lane k at bit k. */
    private static void bits(CodeBuilder cb, int[] mask) {
        for (int r = 0; r < mask.length; r++) {
            cb.aload(mask[r]);
            cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
            if (r > 0) {
                cb.loadConstant(r * Lanes.L32);
                cb.lshl();
                cb.lor();
            }
        }
    }

    // ---- called by the generated code ---------------------------------------------------------------

    /** A group entered the block counted at {@code c[slot]} with threads {@code bits}. */
    public static void block(long[] c, int slot, long bits, int warpSize, int group) {
        c[slot + 1] += Long.bitCount(bits);
        if (warpSize >= group) {
            c[slot] += bits != 0 ? 1 : 0;
            return;
        }
        long warp = (1L << warpSize) - 1;
        for (int w = 0; w < group; w += warpSize) {
            if (((bits >>> w) & warp) != 0) {
                c[slot]++;
            }
        }
    }

    /** A group reached the branch counted at {@code c[slot]} with threads {@code active}, of which {@code taken} go one way. */
    public static void branch(long[] c, int slot, long active, long taken, int warpSize, int group) {
        long warp = warpSize >= 64 ? -1L : (1L << warpSize) - 1;
        for (int w = 0; w < group; w += warpSize) {
            long a = (active >>> w) & warp;
            if (a != 0) {
                c[slot]++;
                long t = ((taken & active) >>> w) & warp;
                if (t != 0 && t != a) {
                    c[slot + 1]++;
                }
            }
        }
    }

    /**
     * The warps of a group in which some but not all of the threads {@code active} are in {@code taken}: bit
     * {@code k * warpSize} set for warp k.
     */
    public static long partialWarps(long active, long taken, int warpSize, int group) {
        long warp = warpSize >= 64 ? -1L : (1L << warpSize) - 1;
        long partial = 0;
        for (int w = 0; w < group; w += warpSize) {
            long a = (active >>> w) & warp;
            long t = (taken >>> w) & a;
            if (t != 0 && t != a) {
                partial |= 1L << w;
            }
        }
        return partial;
    }

    /** A group reached the branch counted at {@code c[slot]} with threads {@code active}; warps {@code split} split there. */
    public static void splits(long[] c, int slot, long active, long split, int warpSize, int group) {
        long warp = warpSize >= 64 ? -1L : (1L << warpSize) - 1;
        for (int w = 0; w < group; w += warpSize) {
            if (((active >>> w) & warp) != 0) {
                c[slot]++;
            }
        }
        c[slot + 1] += Long.bitCount(split);
    }

    // ---- reading the counters -----------------------------------------------------------------------

    /** The figures that the counters {@code totals}, summed over a launch's CTAs, stand for. */
    public ProfiledProgram.Counts decode(long[] totals) {
        long warpInstructions = 0;
        long threadInstructions = 0;
        Comparator<Site> order = Comparator.comparing(Site::file).thenComparingInt(Site::line);
        TreeMap<Site, long[]> perLine = new TreeMap<>(order);
        for (Block b : counted) {
            int slot = blockSlot.get(b);
            long warps = totals[slot];
            long threads = totals[slot + 1];
            warpInstructions += instructions(b) * warps;
            threadInstructions += instructions(b) * threads;
            if (warps == 0) {
                continue;
            }
            for (Node x : b.nodes) {
                if (!free(x)) {
                    add(perLine, x.site, warps, threads);
                }
            }
            if (b.exit == Block.Exit.IF || b.exit == Block.Exit.SWITCH) {
                add(perLine, b.site, warps, threads);
            }
        }
        List<LaunchProfile.Line> lines = new ArrayList<>();
        perLine.forEach((site, f) -> lines.add(new LaunchProfile.Line(site.toString(), f[0], f[1],
                f[0] == 0 ? 1 : (double) f[1] / ((double) f[0] * warpSize))));
        TreeMap<Site, long[]> perBranch = new TreeMap<>(order);
        for (Block b : branching) {
            int slot = branchSlot.get(b);
            if (totals[slot] > 0) {
                long[] f = perBranch.computeIfAbsent(b.site, k -> new long[2]);
                f[0] += totals[slot];
                f[1] += totals[slot + 1];
            }
        }
        List<LaunchProfile.Branch> branches = new ArrayList<>();
        perBranch.forEach((site, f) -> branches.add(new LaunchProfile.Branch(site.toString(), f[0], f[1])));
        return new ProfiledProgram.Counts(warpInstructions, threadInstructions, branches, lines);
    }

    private static void add(TreeMap<Site, long[]> perLine, Site site, long warps, long threads) {
        long[] f = perLine.computeIfAbsent(site, k -> new long[2]);
        f[0] += warps;
        f[1] += threads;
    }
}
