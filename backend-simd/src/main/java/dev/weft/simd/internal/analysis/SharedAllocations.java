package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Numbers the kernel's shared allocations: the runtime gives a thread's k-th allocation the CTA's k-th array
 * ({@code SharedMemory}), so compiled code, which allocates once per group, must know k at every allocation.
 *
 * <p>It does when the allocations lie on one chain of dominance outside every loop: a thread that reaches an
 * allocation has then made exactly the allocations that dominate it, once each. Allocations in a loop (the k-th
 * depends on the iteration) or on different paths (k depends on the path) are declined with their line.
 */
public final class SharedAllocations {

    private SharedAllocations() {
    }

    /** Sets each {@link Op#SHARED} node's ordinal; returns the reasons it cannot be known, empty if it can. */
    public static List<String> number(Graph g, Cfg cfg) {
        List<Node> all = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        for (Block b : cfg.order) {
            for (Node n : b.nodes) {
                if (n.op == Op.SHARED) {
                    all.add(n);
                    if (cfg.loopOf(b) != null) {
                        reasons.add("shared allocation (" + name(n) + ") at " + n.site + " inside a loop: which of the CTA's arrays"
                                + " it is depends on the iteration; not compiled (runs on the reference executor)");
                    }
                }
            }
        }
        all.sort(new Comparator<Node>() {
            @Override
            public int compare(Node x, Node y) {
                int c = Integer.compare(cfg.rpoIndex.get(x.block), cfg.rpoIndex.get(y.block));
                return c != 0 ? c : Integer.compare(x.block.nodes.indexOf(x), y.block.nodes.indexOf(y));
            }
        });
        for (int i = 1; i < all.size(); i++) {
            Node a = all.get(i - 1);
            Node b = all.get(i);
            if (!cfg.dominates(a.block, b.block)) {
                reasons.add("shared allocation (" + name(b) + ") at " + b.site + " on a path that the allocation at " + a.site
                        + " is not on: which of the CTA's arrays it is depends on the path; not compiled (runs on the reference executor)");
            }
        }
        for (int i = 0; i < all.size(); i++) {
            all.get(i).aux = i;
        }
        return List.copyOf(new LinkedHashSet<>(reasons));
    }

    /** Reasons for allocations whose length differs between the threads of a group under {@code u}. */
    public static List<String> varyingLengths(Graph g, Uniformity u) {
        List<String> reasons = new ArrayList<>();
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.SHARED && !u.shapeAt(n.in(0), b).equals(Node.Shape.UNIFORM)) {
                    reasons.add("shared allocation (" + name(n) + ") at " + n.site + " with a length that differs between threads:"
                            + " not compiled (runs on the reference executor, which reports it)");
                }
            }
        }
        return reasons;
    }

    private static String name(Node n) {
        return switch (n.kind) {
            case INT_ARRAY -> "sharedInts";
            case LONG_ARRAY -> "sharedLongs";
            case FLOAT_ARRAY -> "sharedFloats";
            default -> "sharedDoubles";
        };
    }
}
