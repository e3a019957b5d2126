package dev.weft.simd.internal.ir;

import java.util.ArrayList;
import java.util.List;

/** A basic block: phis, then ordinary nodes, then a terminator that names the successors. */
public final class Block {

    /** How a block ends. */
    public enum Exit {
        /** Continue at the single successor. */
        GOTO,
        /** Branch on {@link #cond}: successor 0 when true, 1 when false. */
        IF,
        /** Multi-way branch on the int {@link #cond}: successor i for {@link #keys}[i], the last one by default. */
        SWITCH,
        /** The thread returns from the kernel. */
        RETURN
    }

    public final int id;
    public final List<Node> phis = new ArrayList<>();
    public final List<Node> nodes = new ArrayList<>();
    public final List<Block> preds = new ArrayList<>();
    public final List<Block> succs = new ArrayList<>();
    public Exit exit = Exit.RETURN;
    public Node cond;
    public int[] keys;
    public Site site = Site.UNKNOWN;

    public Block(int id) {
        this.id = id;
    }

    /** How many different blocks {@link #succs} names (a branch may name one block twice). */
    public int distinctSuccessors() {
        int n = 0;
        for (int i = 0; i < succs.size(); i++) {
            if (succs.indexOf(succs.get(i)) == i) {
                n++;
            }
        }
        return n;
    }

    /** The id, for the reason given at {@link Node#hashCode()}; equality stays identity. */
    @Override
    public int hashCode() {
        return id;
    }

    @Override
    public String toString() {
        return "b" + id;
    }
}
