package dev.weft.simd.internal.ir;

import java.util.ArrayList;
import java.util.List;

/**
 * One SSA value (or a store, of kind VOID): an operation, its operands and where it comes from. Phis list
 * their operands in the order of their block's predecessors.
 */
public final class Node {

    /** What the uniformity analysis found a value to be. */
    public enum Shape {
        /** The same for every active thread of a warp: a scalar. */
        UNIFORM,
        /** {@code base + stride * lane} with a uniform base and constant stride (ints only). */
        AFFINE,
        /** Anything else: a vector (or a mask, for conditions). */
        VARYING
    }

    public final int id;
    public final Op op;
    public Kind kind;
    public final List<Node> in = new ArrayList<>(3);
    public Block block;
    public final Site site;
    public Object aux;
    /** Set when this node (a trivial phi) was replaced during SSA construction; see {@link #resolve()}. */
    public Node forward;

    // Filled by the analyses.
    public Shape shape = Shape.UNIFORM;
    public int stride;

    public Node(int id, Op op, Kind kind, Site site, Object aux, Node... operands) {
        this.id = id;
        this.op = op;
        this.kind = kind;
        this.site = site;
        this.aux = aux;
        this.in.addAll(List.of(operands));
    }

    /** This node, or what replaced it. */
    public Node resolve() {
        Node n = this;
        while (n.forward != null) {
            n = n.forward;
        }
        return n;
    }

    public Node in(int i) {
        return in.get(i);
    }

    public boolean isConst() {
        return op == Op.CONST;
    }

    /** The constant as an int; only for INT/BOOL constants. */
    public int intConst() {
        return ((Number) aux).intValue();
    }

    public boolean isUniform() {
        return shape == Shape.UNIFORM;
    }

    public boolean isVarying() {
        return shape == Shape.VARYING;
    }

    public boolean isAffine() {
        return shape == Shape.AFFINE;
    }

    /** A short name for listings: {@code u3}, {@code a3}, {@code v3}. */
    public String name() {
        return switch (shape) {
            case UNIFORM -> "u" + id;
            case AFFINE -> "a" + id;
            case VARYING -> (kind == Kind.BOOL ? "m" : "v") + id;
        };
    }

    /**
     * The id, so that hash sets and maps of nodes iterate in the same order in every JVM: with the identity
     * hash they iterated in a different order per run, and the compiler's choices that follow such an order
     * (spill slots, store order, sometimes which values are spilled) made different class files for the same
     * kernel. Equality stays identity.
     */
    @Override
    public int hashCode() {
        return id;
    }

    @Override
    public String toString() {
        return name() + ":" + op + (aux != null ? "[" + aux + "]" : "") + in.stream().map(n -> n.name()).toList();
    }
}
