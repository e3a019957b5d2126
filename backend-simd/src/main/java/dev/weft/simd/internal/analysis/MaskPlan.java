package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the generated code knows which threads run a block, and whether a block runs at all.
 *
 * <p>Every block runs under a mask. Blocks share a mask where the same threads provably run them: a block
 * entered only along unconditional or uniform edges from blocks of one mask has that mask (its run is then
 * decided by a scalar flag, as ordinary branching would), and so does the join of a single-entry
 * single-exit region, whose threads are those that entered it (when it post-dominates its dominator, in the
 * same loop). Any other block has a mask of its own, the union of the masks its incoming edges carry, and
 * runs if any thread is in it. A loop whose header shares the mask of its preheader is a uniform loop: its
 * back edge is a plain jump.
 *
 * <p>Implementation notes. Computed in linear order with an optimistic assumption for loop headers (they
 * share their preheader's mask), which is withdrawn when a latch turns out to have another mask; withdrawal
 * is monotone, so the fixpoint terminates. A shared mask must still hold its value when the block runs: a
 * mask defined inside a loop is not shared across that loop's exits, since the loop reassigns it.
 */
public final class MaskPlan {

    /** How a block decides whether to run. */
    public enum Run {
        /** The entry block: always runs. */
        ENTRY,
        /** Shares a mask; runs when a flag was set by an incoming uniform edge. */
        FLAG,
        /** Shares its dominator's mask (a region join); runs when the dominator ran (flag set there). */
        REGION,
        /** Has a mask of its own: runs when any thread arrived. */
        MASK,
        /** Does nothing (an empty block that returns): never scheduled; edges to it carry nothing. */
        NONE
    }

    /** The kind of an edge, for mask propagation. */
    public enum EdgeKind { UNCONDITIONAL, UNIFORM, DIVERGENT }

    private final Cfg cfg;
    private final Uniformity u;
    /** The block whose mask a block runs under (itself for MASK and ENTRY). */
    public final Map<Block, Block> maskOf = new HashMap<>();
    public final Map<Block, Run> run = new HashMap<>();
    /** For a block: the REGION joins whose flag it sets when it starts. */
    public final Map<Block, List<Block>> regionJoins = new HashMap<>();

    public MaskPlan(Graph g, Cfg cfg, Uniformity u) {
        this.cfg = cfg;
        this.u = u;
        Set<Block> demoted = new HashSet<>();
        while (true) {
            maskOf.clear();
            run.clear();
            regionJoins.clear();
            for (Block b : cfg.order) {
                plan(b, demoted);
            }
            boolean changed = false;
            for (Cfg.Loop l : cfg.loops) {
                Block h = l.header;
                if (run.get(h) != Run.FLAG || demoted.contains(h)) {
                    continue;
                }
                for (Block latch : l.latches) {
                    if (edgeKind(latch, h) == EdgeKind.DIVERGENT || maskOf.get(latch) != maskOf.get(h)
                            || !maskValidAcross(latch, h, maskOf.get(h))) {
                        demoted.add(h);
                        changed = true;
                        break;
                    }
                }
            }
            if (!changed) {
                break;
            }
        }
    }

    private void plan(Block b, Set<Block> demoted) {
        if (b == cfg.graph.entry()) {
            maskOf.put(b, b);
            run.put(b, Run.ENTRY);
            return;
        }
        if (b.phis.isEmpty() && b.nodes.isEmpty() && b.exit == Block.Exit.RETURN) {
            maskOf.put(b, b);
            run.put(b, Run.NONE);
            return;
        }
        boolean header = cfg.loopOfHeader.containsKey(b);
        // Shared mask along uniform edges.
        if (!header || !demoted.contains(b)) {
            Block shared = null;
            boolean ok = true;
            for (Block p : b.preds) {
                if (header && cfg.isBackEdge(p, b)) {
                    continue;
                }
                Block m = maskOf.get(p);
                if (m == null || run.get(p) == Run.NONE || edgeKind(p, b) == EdgeKind.DIVERGENT
                        || (shared != null && shared != m) || !maskValidAcross(p, b, m)) {
                    ok = false;
                    break;
                }
                shared = m;
            }
            if (ok && shared != null) {
                maskOf.put(b, shared);
                run.put(b, Run.FLAG);
                return;
            }
        }
        if (!header) {
            // The nearest dominator at b's loop level: for the exit of a loop, the loop's preheader side, so
            // that a loop every thread leaves into b gives b the threads that entered it.
            Block d = cfg.idom.get(b);
            while (d != null && d != cfg.graph.entry() && cfg.loopOf(d) != cfg.loopOf(b)) {
                d = cfg.idom.get(d);
            }
            if (d != null && d != b && cfg.postDominates(b, d) && cfg.loopOf(b) == cfg.loopOf(d)
                    && maskOf.containsKey(d) && run.get(d) != Run.NONE) {
                maskOf.put(b, maskOf.get(d));
                run.put(b, Run.REGION);
                List<Block> joins = regionJoins.get(d);
                if (joins == null) {
                    joins = new ArrayList<>();
                    regionJoins.put(d, joins);
                }
                joins.add(b);
                return;
            }
        }
        maskOf.put(b, b);
        run.put(b, Run.MASK);
    }

    /**
     * Whether mask {@code m} still holds, when {@code to} runs, the value it had on the edge {@code from -> to}:
     * false when the edge leaves a loop inside which {@code m} is defined (the loop reassigns it).
     */
    private boolean maskValidAcross(Block from, Block to, Block m) {
        for (Cfg.Loop l = cfg.loopOf(from); l != null; l = l.parent) {
            if (!l.contains(to) && l.contains(m)) {
                return false;
            }
            if (l.header == to && l.contains(m) && m != to) {
                // A back edge: m is defined inside the loop, after the header; the header's mask cannot be it.
                return cfg.position.get(m) <= cfg.position.get(to);
            }
        }
        return true;
    }

    /** The kind of the edge {@code from -> to}. */
    public EdgeKind edgeKind(Block from, Block to) {
        if (from.exit == Block.Exit.GOTO || from.distinctSuccessors() == 1) {
            return EdgeKind.UNCONDITIONAL;
        }
        return u.isDivergent(from) ? EdgeKind.DIVERGENT : EdgeKind.UNIFORM;
    }

    /**
     * Whether the copy along edge {@code from -> to} (of the mask, for a MASK block, and of varying phi values)
     * may overwrite instead of merging: no other edge into {@code to} can have run since {@code to} last ran.
     */
    public boolean assignable(Block from, Block to) {
        Run r = run.get(to);
        if (r == Run.FLAG) {
            return true;
        }
        if (repeats(from, to)) {
            return false;
        }
        boolean back = cfg.isBackEdge(from, to);
        int pos = cfg.position.get(from);
        int count = 0;
        for (Block p : to.preds) {
            if (p == from) {
                count++;
                continue;
            }
            if (cfg.isBackEdge(p, to) == back && cfg.position.get(p) <= pos) {
                return false;
            }
        }
        return count == 1;
    }

    /** Whether the edge may run several times before {@code to} runs: it leaves a loop that does not contain {@code to}. */
    private boolean repeats(Block from, Block to) {
        for (Cfg.Loop l = cfg.loopOf(from); l != null; l = l.parent) {
            if (!l.contains(to)) {
                return true;
            }
            if (l.header == to) {
                return false;
            }
        }
        return false;
    }

    /** Whether the loop headed by {@code h} is uniform: its header shares the preheader's mask. */
    public boolean isUniformLoop(Block h) {
        return run.get(h) == Run.FLAG;
    }
}
