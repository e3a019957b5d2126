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
        List<String> reasons = new ArrayList<>();
        for (Block d : g.blocks) {
            if (!u.isDivergent(d)) {
                continue;
            }
            Block join = cfg.ipdom.get(d);
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
