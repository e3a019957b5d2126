package dev.weft.simd.internal.ir;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** A kernel as IR: blocks (the first is the entry), its parameters, and where it came from. */
public final class Graph {

    public final String name;
    public final List<Block> blocks = new ArrayList<>();
    public final List<Param> params = new ArrayList<>();
    private int nextNode;
    private int nextBlock;

    public Graph(String name) {
        this.name = name;
    }

    public Block entry() {
        return blocks.get(0);
    }

    public Block newBlock() {
        Block b = new Block(nextBlock++);
        blocks.add(b);
        return b;
    }

    /** A node not yet placed in a block. */
    public Node node(Op op, Kind kind, Site site, Object aux, Node... operands) {
        return new Node(nextNode++, op, kind, site, aux, operands);
    }

    public int nodeCount() {
        return nextNode;
    }

    /** Renumbers blocks in list order (after unreachable ones are removed). */
    public void removeBlocks(List<Block> dead) {
        blocks.removeAll(dead);
    }

    /** How many times each value is read: by phis, nodes and branch conditions. */
    public Map<Node, Integer> useCounts() {
        Map<Node, Integer> uses = new IdentityHashMap<>();
        for (Block b : blocks) {
            for (Node x : b.phis) {
                x.in.forEach(o -> uses.merge(o, 1, Integer::sum));
            }
            for (Node x : b.nodes) {
                x.in.forEach(o -> uses.merge(o, 1, Integer::sum));
            }
            if (b.cond != null) {
                uses.merge(b.cond, 1, Integer::sum);
            }
        }
        return uses;
    }
}
