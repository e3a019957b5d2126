package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Atomic;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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
    public final Map<Cfg.Loop, StrideLoop> loops = new HashMap<>();

    private static final Set<String> COMMUTATIVE = Set.of("add", "min", "max", "and", "or", "xor");

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

    /**
     * Whether the groups of a CTA may run the loop {@code s} iteration by iteration in turn (see CodeGen's
     * interleaved stride loops) rather than each its whole loop before the next: the order of the threads' memory
     * operations then changes, and only where that cannot change what any thread computes, nor memory's final
     * contents. The loop is not inside another loop (a group resumes at the loop's entry, which must not be a second
     * entry into an enclosing loop); its nodes store nothing, and their atomics are int or long {@code add},
     * {@code min}, {@code max}, {@code and}, {@code or}, {@code xor} whose old values nobody reads (their final
     * values do not depend on the order). The loop reads no memory (shared or global) that the code of its phase
     * writes (the code reachable from its header without crossing a barrier, both ways: what the other groups run
     * while a group is in the loop), and the memory its atomics update is neither read nor written by the rest of
     * the phase. An array not provably shared memory counts as both shared and global.
     */
    public static boolean interleavable(StrideLoop s, Cfg.Loop l, Graph g, Map<Node, Integer> uses) {
        if (l.depth != 1) {
            return false;
        }
        int loopReads = 0;
        int loopWrites = 0;
        for (Block b : List.of(s.header(), s.body())) {
            for (Node x : b.nodes) {
                switch (x.op) {
                    case STORE -> {
                        return false;
                    }
                    case ATOMIC -> {
                        Atomic a = (Atomic) x.aux;
                        String d = a.descriptor();
                        if (uses.getOrDefault(x, 0) != 0 || !COMMUTATIVE.contains(a.name())
                                || !(d.startsWith("([I") || d.startsWith("([J"))) {
                            return false;
                        }
                        loopWrites |= spaces(x.in(0));
                    }
                    case LOAD -> loopReads |= spaces(x.in(0));
                    default -> {
                    }
                }
            }
        }
        if ((loopReads & loopWrites) != 0) {
            return false;
        }
        for (Block b : phase(l, g)) {
            if (b == s.header() || b == s.body()) {
                continue;
            }
            for (Node x : b.nodes) {
                if (x.op == Op.BARRIER) {
                    break;
                }
                int sp = x.op == Op.LOAD || x.op == Op.STORE || x.op == Op.ATOMIC ? spaces(x.in(0)) : 0;
                boolean writes = x.op == Op.STORE || x.op == Op.ATOMIC;
                if ((writes && (sp & loopReads) != 0) || (sp & loopWrites) != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    private static final int SHARED_SPACE = 1;
    private static final int GLOBAL_SPACE = 2;

    /** The memory spaces an array operand may lie in. */
    private static int spaces(Node array) {
        return array.op == Op.SHARED ? SHARED_SPACE : array.op == Op.PARAM ? GLOBAL_SPACE : SHARED_SPACE | GLOBAL_SPACE;
    }

    /**
     * The blocks whose code may run while a group is in loop {@code l}: those reachable from its header, and those
     * from which it is reachable, without crossing a barrier. A block ending in a barrier is in the set when it
     * follows the header (its nodes before the barrier are in the phase), not when it precedes it.
     */
    private static Set<Block> phase(Cfg.Loop l, Graph g) {
        Set<Block> seen = new HashSet<>();
        ArrayDeque<Block> work = new ArrayDeque<>();
        work.add(l.header);
        seen.add(l.header);
        while (!work.isEmpty()) {
            Block b = work.poll();
            if (endsInBarrier(b)) {
                continue;
            }
            for (Block s : b.succs) {
                if (seen.add(s)) {
                    work.add(s);
                }
            }
        }
        work.add(l.header);
        Set<Block> back = new HashSet<>();
        back.add(l.header);
        while (!work.isEmpty()) {
            Block b = work.poll();
            for (Block p : b.preds) {
                if (!endsInBarrier(p) && back.add(p)) {
                    work.add(p);
                }
            }
        }
        seen.addAll(back);
        return seen;
    }

    private static boolean endsInBarrier(Block b) {
        return !b.nodes.isEmpty() && b.nodes.getLast().op == Op.BARRIER;
    }

    private static boolean definedInNodes(Node x, Block h) {
        // A constant or parameter is the same wherever the parser put it; the test reads it before the nodes.
        return x.op != Op.CONST && x.op != Op.PARAM && x.op != Op.SREG && h.nodes.contains(x);
    }
}
