package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Warp;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which values are the same for every active thread of a warp (uniform: scalars), which are a uniform base
 * plus the lane times a constant (affine: contiguous loads and stores), and which differ (varying: vectors);
 * which branches diverge; which loops let threads leave at different iterations.
 *
 * <p>Implementation notes. A forward data-flow fixpoint over the lattice uniform &lt; affine &lt; varying,
 * plus the two control effects of divergence (after Karrenberg and Hack, "Whole-Function Vectorization",
 * and LLVM's sync dependence):
 * <ul>
 * <li>a phi where two disjoint paths from a divergent branch meet is varying even if its operands are
 * uniform, since different threads arrive along different paths. Join points are found by propagating a
 * label per successor in reverse post-order; a block reached by two labels is a join. A loop header reached
 * along back edges with two labels is one too;
 * <li>a loop that a divergent branch can leave is divergent: threads leave at different iterations, so a
 * value defined in it and used after it is varying at that use even if it was uniform inside (the loop
 * counter of a divergent loop is the classic case). The code generator keeps such a value in a "shadow"
 * vector written under the mask of the threads still running, and uses outside the loop read the shadow.
 * </ul>
 * The analysis runs once per CTA shape variant: in the row-aligned variant a warp lies within one x-row of
 * the CTA, so threadIdx.x is affine and threadIdx.y, threadIdx.z are uniform; in the general variant all
 * three are varying.
 */
public final class Uniformity {

    private final Graph g;
    private final Cfg cfg;
    private final boolean rowAligned;
    private final boolean groupWithinWarp;
    /** The largest group of threads the analysis serves (a power of two), or 0: see {@link #alignLog}. */
    private final int group;
    /** Known trailing zero bits of a uniform int, or of an affine int's value at lane 0 (see {@link #alignLog}). */
    private final Map<Node, Integer> alignment = new HashMap<>();
    /** Blocks whose phis are varying because divergent paths meet there. */
    public final Set<Block> joins = new HashSet<>();
    /** Loops that threads can leave at different iterations. */
    public final Set<Cfg.Loop> divergentLoops = new HashSet<>();
    private final Set<Block> divergentBranches = new HashSet<>();
    private final Map<Node, Block> defBlock = new HashMap<>();
    private final Map<Node, long[]> result = new HashMap<>();
    /** Nodes whose shape has been computed at least once: the others are still "no information" (bottom). */
    private final Set<Node> computed = new HashSet<>();

    /**
     * @param rowAligned whether a group of threads lies within one x-row of the CTA (threadIdx.y, .z uniform)
     * @param groupWithinWarp whether a group of threads lies within one warp (warpId uniform, laneId affine)
     */
    public Uniformity(Graph g, Cfg cfg, boolean rowAligned, boolean groupWithinWarp) {
        this(g, cfg, rowAligned, groupWithinWarp, 0);
    }

    /**
     * @param group the largest group of threads the analysis will serve (a power of two; 0 if unknown): a group
     *     starts at a multiple of its size, which makes {@code (base + lane) & mask} affine and
     *     {@code (base + lane) >> shift} uniform for masks and shifts that cover the group's lanes (the tile-load
     *     index arithmetic of shared-memory kernels). Valid for smaller groups too: with half the group, both the
     *     alignment and what the rules need halve.
     */
    public Uniformity(Graph g, Cfg cfg, boolean rowAligned, boolean groupWithinWarp, int group) {
        this.g = g;
        this.cfg = cfg;
        this.rowAligned = rowAligned;
        this.groupWithinWarp = groupWithinWarp;
        this.group = group > 0 && Integer.bitCount(group) == 1 ? group : 0;
        for (Block b : g.blocks) {
            for (Node n : b.phis) {
                defBlock.put(n, b);
            }
            for (Node n : b.nodes) {
                defBlock.put(n, b);
            }
        }
        run();
    }

    private void run() {
        for (Block b : g.blocks) {
            for (Node n : b.phis) {
                n.shape = Shape.UNIFORM;
                n.stride = 0;
            }
            for (Node n : b.nodes) {
                n.shape = Shape.UNIFORM;
                n.stride = 0;
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : cfg.rpo) {
                for (Node n : b.phis) {
                    changed |= update(n, phiShape(n, b));
                    changed |= computed.add(n);
                }
                for (Node n : b.nodes) {
                    changed |= update(n, nodeShape(n, b));
                    changed |= computed.add(n);
                }
            }
            for (Block b : cfg.rpo) {
                // The condition as the branch sees it: a switch on a counter of a divergent loop, read after the loop,
                // takes each thread's own exit value (an if's condition is a comparison made at the branch, which
                // nodeShape already judges so).
                if ((b.exit == Block.Exit.IF || b.exit == Block.Exit.SWITCH) && shapeAt(b.cond, b) != Shape.UNIFORM
                        && !divergentBranches.contains(b) && distinctSuccessors(b) > 1) {
                    divergentBranches.add(b);
                    syncDependence(b);
                    changed = true;
                }
            }
        }
        for (Block b : g.blocks) {
            for (Node n : b.phis) {
                result.put(n, new long[] {n.shape.ordinal(), n.stride});
            }
            for (Node n : b.nodes) {
                result.put(n, new long[] {n.shape.ordinal(), n.stride});
            }
        }
        for (Block b : g.blocks) {
            for (Node n : b.phis) {
                if (n.kind.isArray() && !n.isUniform()) {
                    throw new Decline("array reference chosen per thread at " + n.site
                            + ": every thread of a warp must use the same array (runs on the reference executor)");
                }
            }
        }
    }

    private static int distinctSuccessors(Block b) {
        return b.distinctSuccessors();
    }

    /** Raises {@code n} to {@code s} (with stride); true if it changed. Shapes only rise. */
    private boolean update(Node n, long packed) {
        Shape s = Shape.values()[(int) (packed >>> 32)];
        int stride = (int) packed;
        if (s.ordinal() < n.shape.ordinal()) {
            return false;
        }
        if (s == n.shape && (s != Shape.AFFINE || stride == n.stride)) {
            return false;
        }
        if (s == Shape.AFFINE && n.shape == Shape.AFFINE && stride != n.stride) {
            s = Shape.VARYING;
        }
        if (n.kind.isArray() && s != Shape.UNIFORM) {
            throw new Decline("array reference chosen per thread at " + n.site
                    + ": every thread of a warp must use the same array (runs on the reference executor)");
        }
        n.shape = s;
        n.stride = s == Shape.AFFINE ? stride : 0;
        return true;
    }

    private static long pack(Shape s, int stride) {
        if (s == Shape.AFFINE && stride == 0) {
            s = Shape.UNIFORM;
        }
        return ((long) s.ordinal() << 32) | (stride & 0xFFFFFFFFL);
    }

    private static final long UNIFORM = pack(Shape.UNIFORM, 0);
    private static final long VARYING = pack(Shape.VARYING, 0);

    /** The shape of operand {@code v} as seen from {@code useBlock}: varying if it crosses out of a divergent loop. */
    public Shape shapeAt(Node v, Block useBlock) {
        return crossesDivergentLoop(v, useBlock) ? Shape.VARYING : v.shape;
    }

    /** Whether a use of {@code v} in {@code useBlock} lies outside a divergent loop that contains v's definition. */
    public boolean crossesDivergentLoop(Node v, Block useBlock) {
        Block d = defBlock.get(v);
        if (d == null || d == useBlock) {
            return false;
        }
        if (v.op == Op.CONST || v.op == Op.PARAM || v.op == Op.UNDEF || v.op == Op.SREG) {
            return false; // the same at every iteration of every loop
        }
        for (Cfg.Loop l = cfg.loopOf(d); l != null; l = l.parent) {
            if (!l.contains(useBlock) && divergentLoops.contains(l)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where operand {@code i} of a phi of block {@code b} is used: at the end of the predecessor it comes from,
     * except on an edge that leaves a loop, where it is used outside the loop, at {@code b}. A value of a divergent
     * loop carried out by the exit edge to a phi is each thread's value of the iteration it left at, as any use
     * after the loop sees it ({@code if (u) { for (k = gid % 6; k > 0; k--) v -= v; } out = v}: v's phi after the
     * branch).
     */
    public Block phiUse(Block b, int i) {
        Block pred = b.preds.get(i);
        Cfg.Loop l = cfg.loopOf(pred);
        return l != null && !l.contains(b) ? b : pred;
    }

    private long operand(Node v, Block use) {
        Shape s = shapeAt(v, use);
        return pack(s, s == Shape.AFFINE ? v.stride : 0);
    }

    private long phiShape(Node phi, Block b) {
        if (joins.contains(b)) {
            return VARYING;
        }
        Shape s = null;
        int stride = 0;
        for (int i = 0; i < phi.in.size(); i++) {
            Node v = phi.in(i);
            if (v == phi || v.op == Op.UNDEF || (!computed.contains(v) && defBlock.containsKey(v)
                    && v.op != Op.CONST && v.op != Op.PARAM && v.op != Op.SREG)) {
                continue; // bottom: a back-edge value not reached yet
            }
            long p = operand(v, phiUse(b, i));
            Shape vs = Shape.values()[(int) (p >>> 32)];
            int vstride = (int) p;
            if (vs == Shape.VARYING) {
                return VARYING;
            }
            if (s == null) {
                s = vs;
                stride = vstride;
            } else if (s != vs || stride != vstride) {
                return VARYING;
            }
        }
        return s == null ? UNIFORM : pack(s, stride);
    }

    private long nodeShape(Node n, Block b) {
        switch (n.op) {
            case CONST, PARAM, UNDEF, LENGTH:
                return UNIFORM;
            case SREG:
                return sreg((SReg) n.aux);
            case STORE:
            case BARRIER:
                return UNIFORM;
            case SHARED:
                // The CTA's k-th array whatever the thread; a length that varies is declined by the compiler.
                return UNIFORM;
            case ATOMIC:
                // Threads updating one address each get a different old value, whatever the operands.
                return VARYING;
            case WARP:
                // A vote gives every lane of the warp one value; the compiler runs warp operations only with
                // a group of exactly one warp (see WarpSync), so that is one value per group.
                return ((Warp) n.aux).isVote() ? UNIFORM : VARYING;
            default:
                break;
        }
        Shape worst = Shape.UNIFORM;
        for (Node v : n.in) {
            Shape s = shapeAt(v, b);
            if (s.ordinal() > worst.ordinal()) {
                worst = s;
            }
        }
        if (worst == Shape.UNIFORM) {
            return UNIFORM;
        }
        if (worst == Shape.VARYING || n.kind != Kind.INT) {
            return VARYING;
        }
        // Affine arithmetic on ints.
        switch (n.op) {
            case ADD:
            case SUB: {
                int sa = strideAt(n.in(0), b);
                int sb = strideAt(n.in(1), b);
                int s = n.op == Op.ADD ? sa + sb : sa - sb;
                return smallStride(s) ? pack(Shape.AFFINE, s) : VARYING;
            }
            case NEG:
                return pack(Shape.AFFINE, -strideAt(n.in(0), b));
            case MUL: {
                Node a = n.in(0);
                Node c = n.in(1);
                if (a.isConst() && shapeAt(c, b) == Shape.AFFINE) {
                    Node t = a;
                    a = c;
                    c = t;
                }
                if (c.isConst() && shapeAt(a, b) == Shape.AFFINE) {
                    long s = (long) a.stride * c.intConst();
                    return smallStride(s) ? pack(Shape.AFFINE, (int) s) : VARYING;
                }
                return VARYING;
            }
            case SHL: {
                Node c = n.in(1);
                if (c.isConst() && shapeAt(c, b) == Shape.UNIFORM) {
                    long s = (long) n.in(0).stride << (c.intConst() & 31);
                    return smallStride(s) ? pack(Shape.AFFINE, (int) s) : VARYING;
                }
                return VARYING;
            }
            case AND: {
                // (base + lane) & mask with base a multiple of the group and the mask keeping every lane bit:
                // (base & mask) + lane, lane by lane.
                Node a = n.in(0);
                Node c = n.in(1);
                if (a.isConst()) {
                    Node t = a;
                    a = c;
                    c = t;
                }
                if (group > 0 && c.isConst() && strideAt(a, b) == 1 && alignLog(a) >= Integer.numberOfTrailingZeros(group)
                        && (c.intConst() & (group - 1)) == group - 1) {
                    return pack(Shape.AFFINE, 1);
                }
                return VARYING;
            }
            case SHR:
            case USHR: {
                // (base + lane) >> k with base a multiple of the group and 2^k a multiple of it: base >> k.
                Node c = n.in(1);
                if (group > 0 && c.isConst() && strideAt(n.in(0), b) == 1
                        && alignLog(n.in(0)) >= Integer.numberOfTrailingZeros(group)
                        && (c.intConst() & 31) >= Integer.numberOfTrailingZeros(group)) {
                    return UNIFORM;
                }
                return VARYING;
            }
            case LOAD:
            case CALL:
            case CONV:
            case TEST:
            case CMP:
            default:
                return VARYING;
        }
    }

    /**
     * Trailing zero bits known of int {@code v}'s value (uniform) or value at lane 0 (affine), from constants,
     * the group-aligned thread coordinates and the arithmetic that keeps them; 0 where unknown (phis included, so
     * this needs no fixpoint). threadIdx.x (row-aligned) and the linear thread id start each group at a multiple
     * of its size.
     */
    private int alignLog(Node v) {
        Integer known = alignment.get(v);
        if (known != null) {
            return known;
        }
        int r = 0;
        if (v.kind == Kind.INT) {
            switch (v.op) {
                case CONST -> r = v.intConst() == 0 ? 31 : Integer.numberOfTrailingZeros(v.intConst());
                case SREG -> r = v.aux == SReg.LINEAR_TID || (v.aux == SReg.TID_X && rowAligned)
                        ? Integer.numberOfTrailingZeros(group) : 0;
                case ADD, SUB -> r = Math.min(alignLog(v.in(0)), alignLog(v.in(1)));
                case NEG -> r = alignLog(v.in(0));
                case MUL -> r = Math.min(31, alignLog(v.in(0)) + alignLog(v.in(1)));
                case SHL -> r = v.in(1).isConst() ? Math.min(31, alignLog(v.in(0)) + (v.in(1).intConst() & 31)) : 0;
                case AND -> r = Math.max(alignLog(v.in(0)), alignLog(v.in(1)));
                default -> r = 0;
            }
        }
        alignment.put(v, r);
        return r;
    }

    private int strideAt(Node v, Block b) {
        return shapeAt(v, b) == Shape.AFFINE ? v.stride : 0;
    }

    private static boolean smallStride(long s) {
        return Math.abs(s) < (1 << 20);
    }

    private long sreg(SReg r) {
        return switch (r) {
            case TID_X -> rowAligned ? pack(Shape.AFFINE, 1) : VARYING;
            case TID_Y, TID_Z -> rowAligned ? UNIFORM : VARYING;
            case LINEAR_TID -> pack(Shape.AFFINE, 1);
            case LANE_ID -> groupWithinWarp ? pack(Shape.AFFINE, 1) : VARYING;
            case WARP_ID -> groupWithinWarp ? UNIFORM : VARYING;
            default -> UNIFORM;
        };
    }

    private static Set<Block> labelsAt(Map<Block, Set<Block>> labels, Block b) {
        Set<Block> s = labels.get(b);
        if (s == null) {
            s = new HashSet<>();
            labels.put(b, s);
        }
        return s;
    }

    /** Marks the join points of divergent branch {@code b}, and the loops it lets threads leave. */
    private void syncDependence(Block b) {
        Map<Block, Block> label = new HashMap<>();
        Map<Block, Set<Block>> backLabels = new HashMap<>();
        int start = cfg.rpoIndex.get(b);
        for (Block s : b.succs) {
            if (cfg.isBackEdge(b, s)) {
                labelsAt(backLabels, s).add(s);
                continue;
            }
            if (label.containsKey(s)) {
                continue;
            }
            label.put(s, s);
        }
        propagateLabels(label, backLabels, start + 1, null);
        for (Cfg.Loop l = cfg.loopOf(b); l != null; l = l.parent) {
            boolean leaves = false;
            for (Block y : label.keySet()) {
                if (!l.contains(y)) {
                    leaves = true;
                    break;
                }
            }
            if (leaves && divergentLoops.add(l)) {
                exitJoins(l);
            }
        }
    }

    /**
     * Marks the joins of divergent loop {@code l}'s exits. Threads leave it at different iterations and, where it
     * has several exit edges, along different ones: a block that two exit edges reach is a join even if no
     * divergent branch's paths meet there in one iteration (the labels of {@link #syncDependence} stop at the back
     * edge). {@code for (k..) { if (x < k) { r = 1; break; } }} merges the break's {@code r = 1} with the
     * counted exit's {@code r = 2} in a phi of two constants, which each thread takes from its own exit.
     */
    private void exitJoins(Cfg.Loop l) {
        Map<Block, Block> label = new HashMap<>();
        Map<Block, Set<Block>> backLabels = new HashMap<>();
        int start = Integer.MAX_VALUE;
        int exits = 0;
        for (Block x : l.body) {
            for (Block y : x.succs) {
                if (l.contains(y)) {
                    continue;
                }
                exits++;
                if (label.containsKey(y)) {
                    joins.add(y);
                }
                label.put(y, y);
                start = Math.min(start, cfg.rpoIndex.get(y));
            }
        }
        if (exits < 2) {
            return;
        }
        propagateLabels(label, backLabels, start, l);
    }

    /**
     * Hands each labelled block's label on along its edges, in reverse post-order from index {@code from}: a block
     * that two labels reach is a join and labels itself, and so is a loop header whose back edges bring two labels
     * ({@code backLabels}, which the caller may seed). Blocks of {@code skip} (may be null) hand nothing on.
     */
    private void propagateLabels(Map<Block, Block> label, Map<Block, Set<Block>> backLabels, int from, Cfg.Loop skip) {
        List<Block> rpo = cfg.rpo;
        for (int i = from; i < rpo.size(); i++) {
            Block x = rpo.get(i);
            Block lx = label.get(x);
            if (lx == null || skip != null && skip.contains(x)) {
                continue;
            }
            for (Block y : x.succs) {
                if (cfg.isBackEdge(x, y)) {
                    labelsAt(backLabels, y).add(lx);
                    continue;
                }
                Block ly = label.get(y);
                if (ly == null) {
                    label.put(y, lx);
                } else if (ly != lx) {
                    joins.add(y);
                    label.put(y, y);
                }
            }
        }
        for (Map.Entry<Block, Set<Block>> e : backLabels.entrySet()) {
            if (e.getValue().size() >= 2) {
                joins.add(e.getKey());
            }
        }
    }

    /**
     * Whether an analysis for an aligned group could differ from this one: some int and or right shift has an
     * operand of stride 1 here. (Any shape the alignment rules refine starts at such a node, whose operands they
     * do not refine.)
     */
    public boolean alignmentMatters() {
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.kind == Kind.INT && (n.op == Op.AND || n.op == Op.SHR || n.op == Op.USHR)) {
                    for (Node v : n.in) {
                        long[] r = result.get(v);
                        if (r != null && r[0] == Shape.AFFINE.ordinal() && r[1] == 1) {
                            return true;
                        }
                        if (r == null && v.op == Op.SREG && (v.aux == SReg.TID_X || v.aux == SReg.LINEAR_TID || v.aux == SReg.LANE_ID)) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /**
     * Writes this analysis's shapes into the nodes. The shapes live in the nodes, which the variants share;
     * each variant's code is generated right after its shapes are applied.
     */
    public void apply() {
        for (Map.Entry<Node, long[]> e : result.entrySet()) {
            e.getKey().shape = Shape.values()[(int) e.getValue()[0]];
            e.getKey().stride = (int) e.getValue()[1];
        }
    }

    /**
     * This analysis's shape of {@code v} as seen from {@code useBlock}, from its own results rather than the shapes
     * the nodes hold (those are the last applied analysis's): for an analysis kept beside the applied one, as the
     * per-register analysis of a variant whose groups span several CTA rows ({@code CodeGen.Layout.REGISTER_ROWS}).
     */
    public Shape resultShape(Node v, Block useBlock) {
        if (crossesDivergentLoop(v, useBlock)) {
            return Shape.VARYING;
        }
        long[] r = result.get(v);
        return r == null ? Shape.VARYING : Shape.values()[(int) r[0]];
    }

    /** This analysis's stride of an affine {@code v} (see {@link #resultShape}); 0 otherwise. */
    public int resultStride(Node v) {
        long[] r = result.get(v);
        return r == null ? 0 : (int) r[1];
    }

    /** Whether block {@code b} ends in a divergent branch. */
    public boolean isDivergent(Block b) {
        return divergentBranches.contains(b);
    }
}
