package dev.weft.simd.internal.ir;

import java.util.ArrayList;
import java.util.HashMap;
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
        Map<Node, Integer> uses = new HashMap<>();
        for (Block b : blocks) {
            for (Node x : b.phis) {
                for (Node o : x.in) {
                    count(uses, o);
                }
            }
            for (Node x : b.nodes) {
                for (Node o : x.in) {
                    count(uses, o);
                }
            }
            if (b.cond != null) {
                count(uses, b.cond);
            }
        }
        return uses;
    }

    private static void count(Map<Node, Integer> uses, Node o) {
        Integer n = uses.get(o);
        uses.put(o, n == null ? 1 : n + 1);
    }
}
