package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether the compiled code's warp operations see the lanes the reference executor's would.
 *
 * <p>The reference executor completes a warp operation once every live (not returned) thread of the warp
 * waits at one; the lanes waiting are the active ones. Compiled code runs a warp operation with the lanes of
 * its block's mask; the lanes that took the other side of a divergent branch wait at the join. The two agree
 * when those other lanes can only return without meeting another warp operation: then, in the reference,
 * they return first and the operation completes with exactly the lanes of the block's mask. So for every
 * divergent branch (ending at its immediate post-dominator), at most one side may contain warp operations, and
 * if one does, no warp operation may follow the join. Kernels that break the rule are declined: their reference
 * run either reports the divergence or depends on the threads' interleaving.
 *
 * <p>The join is where the sides meet on the paths that can still reach a warp operation or a barrier: lanes on the
 * other paths meet none again, as if they had returned. So {@code if (a && b) return;} (whose sides meet at the
 * statement after it only once the returning path is set aside) or a return nested in a divergent branch does not
 * hide the join from a warp operation after it (they had been declined: found by the fuzzer's session-15
 * constructs). The generated code runs each block once per pass over the blocks, after all of its forward
 * predecessors, with the lanes of both sides that reached it.
 */
public final class WarpSync {

    private WarpSync() {
    }

    /** Whether the graph has any warp operation. */
    public static boolean hasWarpOps(Graph g) {
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.WARP) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The reasons the warp operations cannot be compiled under this divergence analysis; empty if they can. */
    public static List<String> check(Graph g, Cfg cfg, Uniformity u) {
        Set<Block> withOps = new HashSet<>();
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.WARP) {
                    withOps.add(b);
                }
            }
        }
        Map<Block, Block> liveJoins = liveJoins(g, withOps);
        List<String> reasons = new ArrayList<>();
        for (Block d : g.blocks) {
            if (!u.isDivergent(d)) {
                continue;
            }
            Block join = liveJoins.containsKey(d) ? liveJoins.get(d) : cfg.ipdom.get(d);
            int sidesWithOps = 0;
            for (Block s : new HashSet<>(d.succs)) {
                if (reaches(s, join, withOps)) {
                    sidesWithOps++;
                }
            }
            if (sidesWithOps == 0) {
                continue;
            }
            if (sidesWithOps > 1 || (join != null && reaches(join, null, withOps))) {
                reasons.add("warp operation under the divergent branch at " + d.site
                        + ": threads of a warp could wait at different warp operations (runs on the reference executor, which checks it)");
            }
        }
        return reasons;
    }

    /**
     * For each block that can reach a warp operation or a barrier, its immediate post-dominator in the graph of those
     * blocks alone (null where the paths meet only at the exit); blocks that reach neither, and those that reach no
     * end of that graph, are absent.
     */
    private static Map<Block, Block> liveJoins(Graph g, Set<Block> withOps) {
        Set<Block> targets = new HashSet<>(withOps);
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.BARRIER) {
                    targets.add(b);
                }
            }
        }
        // The blocks that can reach a target: backwards from the targets.
        Set<Block> live = new HashSet<>(targets);
        Deque<Block> work = new ArrayDeque<>(targets);
        while (!work.isEmpty()) {
            for (Block p : work.pop().preds) {
                if (live.add(p)) {
                    work.push(p);
                }
            }
        }
        // Paths end at the live blocks with no live successor. A loop whose only exits lead to neither warp operations
        // nor barriers reaches none: its blocks with such an exit end paths too (as in the whole graph; which only
        // makes joins later, so more is declined, never less). Blocks that still reach no end keep the join of the
        // whole graph.
        List<Block> sinks = new ArrayList<>();
        for (Block b : g.blocks) {
            if (live.contains(b) && !hasSuccessorIn(b, live)) {
                sinks.add(b);
            }
        }
        Set<Block> defined = reachingBack(sinks, live);
        List<Block> ends = new ArrayList<>(sinks);
        for (Block b : g.blocks) {
            if (live.contains(b) && !defined.contains(b) && onCycle(b, live) && !allSuccessorsIn(b, live)) {
                ends.add(b);
            }
        }
        return Cfg.immediatePostDominators(live, ends);
    }

    private static boolean hasSuccessorIn(Block b, Set<Block> within) {
        for (Block s : b.succs) {
            if (within.contains(s)) {
                return true;
            }
        }
        return false;
    }

    private static boolean allSuccessorsIn(Block b, Set<Block> within) {
        for (Block s : b.succs) {
            if (!within.contains(s)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code b} lies on a cycle of blocks of {@code within} (a loop's block, not a branch to a return). */
    private static boolean onCycle(Block b, Set<Block> within) {
        Set<Block> seen = new HashSet<>();
        Deque<Block> work = new ArrayDeque<>();
        for (Block s : b.succs) {
            if (within.contains(s) && seen.add(s)) {
                work.push(s);
            }
        }
        while (!work.isEmpty()) {
            Block x = work.pop();
            if (x == b) {
                return true;
            }
            for (Block s : x.succs) {
                if (within.contains(s) && seen.add(s)) {
                    work.push(s);
                }
            }
        }
        return false;
    }

    /** {@code from} and the blocks of {@code within} that reach one of them. */
    private static Set<Block> reachingBack(java.util.Collection<Block> from, Set<Block> within) {
        Set<Block> seen = new HashSet<>(from);
        Deque<Block> work = new ArrayDeque<>(from);
        while (!work.isEmpty()) {
            for (Block p : work.pop().preds) {
                if (within.contains(p) && seen.add(p)) {
                    work.push(p);
                }
            }
        }
        return seen;
    }

    /** Whether a block of {@code targets} is reachable from {@code from} without passing {@code stop}. */
    private static boolean reaches(Block from, Block stop, Set<Block> targets) {
        if (from == stop) {
            return false;
        }
        Set<Block> seen = new HashSet<>();
        Deque<Block> work = new ArrayDeque<>();
        work.push(from);
        seen.add(from);
        while (!work.isEmpty()) {
            Block b = work.pop();
            if (targets.contains(b)) {
                return true;
            }
            for (Block s : b.succs) {
                if (s != stop && seen.add(s)) {
                    work.push(s);
                }
            }
        }
        return false;
    }
}
