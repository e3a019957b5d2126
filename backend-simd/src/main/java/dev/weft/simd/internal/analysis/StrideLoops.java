package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Divergent loops whose exit test compares an affine value with a uniform bound: CUDA's grid-stride loop
 * {@code for (int i = globalIdX; i < n; i += blockDim.x * gridDim.x)} and its kin. In such a loop the threads
 * that stay in an iteration are decided by one scalar comparison: when the lane whose value is nearest the
 * bound passes the test, every lane does. The code generator then runs whole iterations with every thread of
 * the group active and no mask arithmetic, and leaves the last, partial iterations to the general masked loop.
 *
 * <p>Implementation notes. A loop qualifies when it is exactly a header and one body block: the header ends in
 * the test ({@code TEST} on ints, used by nothing else, one successor the body, the other outside the loop),
 * the body jumps straight back; the header's other nodes cannot fault or change memory (the fast path runs
 * the test before them, and a thread leaving mid-header would need masks); neither block holds a barrier, a
 * warp operation or a shared allocation. Loops with breaks or early returns have more blocks and keep the
 * general path. Lane {@code k} of an affine value {@code base + s*k} is computed in wrapping int arithmetic;
 * the generated test first checks that {@code base + s*(lanes-1)} does not overflow, so that the lanes' values
 * are exactly the mathematical progression, monotone in {@code k}, and the extreme lane decides for all.
 * {@code ==} never qualifies (every lane equal to the bound is impossible for a stride other than 0); for
 * {@code !=} the bound must lie outside the progression's range.
 */
public final class StrideLoops {

    /**
     * A qualifying loop: it runs another iteration for a thread exactly when {@code affine pred bound}.
     *
     * @param header the loop header, which holds the exit test
     * @param body the loop's other block, the latch
     * @param affine the affine operand of the test (stride {@code affine.stride}), defined outside the header's nodes
     * @param bound the uniform operand of the test, defined outside the header's nodes
     * @param pred the predicate under which a thread stays in the loop; never {@code EQ}
     */
    public record StrideLoop(Block header, Block body, Node affine, Node bound, Cond.Pred pred) {
    }

    private static final Set<Op> HEADER_OPS = EnumSet.of(Op.CONST, Op.PARAM, Op.SREG, Op.UNDEF, Op.ADD, Op.SUB,
            Op.MUL, Op.NEG, Op.SHL, Op.SHR, Op.USHR, Op.AND, Op.OR, Op.XOR, Op.CONV, Op.CMP, Op.TEST);
    private static final Set<Op> BODY_EXCLUDED = EnumSet.of(Op.WARP, Op.BARRIER, Op.SHARED, Op.PHI);

    /** The qualifying loops of the variant {@code u} and {@code plan} describe. */
    public final Map<Cfg.Loop, StrideLoop> loops = new IdentityHashMap<>();

    public StrideLoops(Graph g, Cfg cfg, Uniformity u, MaskPlan plan) {
        Map<Node, Integer> uses = g.useCounts();
        for (Cfg.Loop l : cfg.loops) {
            StrideLoop s = match(l, cfg, u, plan, uses);
            if (s != null) {
                loops.put(l, s);
            }
        }
    }

    private static StrideLoop match(Cfg.Loop l, Cfg cfg, Uniformity u, MaskPlan plan, Map<Node, Integer> uses) {
        Block h = l.header;
        if (l.body.size() != 2 || l.latches.size() != 1 || plan.run.get(h) != MaskPlan.Run.MASK) {
            return null;
        }
        Block body = l.latches.get(0);
        if (body == h || body.exit != Block.Exit.GOTO || body.succs.size() != 1 || body.succs.get(0) != h
                || plan.run.get(body) != MaskPlan.Run.MASK || plan.maskOf.get(body) != body
                || !body.phis.isEmpty() || plan.regionJoins.containsKey(body) || plan.regionJoins.containsKey(h)
                || body.preds.size() != 1 || body.preds.get(0) != h) {
            return null;
        }
        if (h.exit != Block.Exit.IF || h.succs.size() != 2 || l.contains(h.succs.get(0)) == l.contains(h.succs.get(1))) {
            return null;
        }
        Node c = h.cond;
        if (c == null || c.op != Op.TEST || c.block != h || uses.getOrDefault(c, 0) != 1
                || c.in(0).kind != Kind.INT || c.in(1).kind != Kind.INT) {
            return null;
        }
        for (Node x : h.nodes) {
            if (x != c && !HEADER_OPS.contains(x.op)) {
                return null;
            }
        }
        for (Node x : body.nodes) {
            if (BODY_EXCLUDED.contains(x.op)) {
                return null;
            }
        }
        Cond.Pred p = ((Cond) c.aux).pred();
        if (h.succs.get(0) != body) {
            p = p.negate();
        }
        Node a = c.in(0);
        Node b = c.in(1);
        if (u.shapeAt(a, h) != Shape.AFFINE) {
            Node t = a;
            a = b;
            b = t;
            p = p.swap();
        }
        if (u.shapeAt(a, h) != Shape.AFFINE || a.stride == 0 || u.shapeAt(b, h) != Shape.UNIFORM
                || p == Cond.Pred.EQ || definedInNodes(a, h) || definedInNodes(b, h)) {
            return null;
        }
        return new StrideLoop(h, body, a, b, p);
    }

    private static boolean definedInNodes(Node x, Block h) {
        // A constant or parameter is the same wherever the parser put it; the test reads it before the nodes.
        return x.op != Op.CONST && x.op != Op.PARAM && x.op != Op.SREG && h.nodes.contains(x);
    }
}
