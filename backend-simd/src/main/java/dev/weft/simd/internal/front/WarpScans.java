package dev.weft.simd.internal.front;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Warp;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Folds the CUDA warp inclusive scan, the loop
 * {@snippet :
 * for (int d = 1; d < t.warpSize(); d <<= 1) {
 *     int below = t.shflUp(v, d);          // width warpSize
 *     if (t.laneId() >= d) {
 *         v += below;
 *     }
 * }
 * }
 * into one {@link Op#WARP} node {@link #SCAN_ADD}{@code (v)}, right after parsing, before any analysis sees the
 * loop. The code generator then scans each register in place and carries the totals across the warp's registers
 * (about a dozen vector instructions per register), where the loop costs five register-permuting shuffles with
 * run-time shift tables, lane masks from bits and masked adds (scan: 40% of the kernel's time in this loop).
 *
 * <p>Meaning: exactly the loop's result on the reference executor, for every active mask. Where the warp's active
 * lanes are a prefix {@code [0, k)} (every full warp, and the last, partial warp of a CTA) no shuffle reads an
 * inactive lane, so each active lane gets the sum of the lanes up to its own (int addition wraps: any order gives
 * the same bits). For other masks an inactive source gives the reader its own value ({@code v += v}), and the
 * generated code runs the loop lane by lane instead ({@code Lanes.scanAddLanes}). Inactive lanes keep their value.
 *
 * <p>Implementation notes: only the exact shape is folded (int add, {@code d} from the constant 1 doubling, the
 * bound and the shuffle width both the warp size, the condition on {@code laneId}), and only when nothing but
 * {@code v} is read after the loop; anything else stays a loop, compiled as before. Pure nodes the parser puts in
 * the loop ({@code warpSize}, {@code laneId}, constants) may be there and are dropped with it.
 */
public final class WarpScans {

    /** The {@link Warp} name of a folded scan: operand (the value), result the inclusive sum over the lanes. */
    public static final String SCAN_ADD = "scanAdd";

    private WarpScans() {
    }

    /** Folds every warp-scan loop of the graph; returns how many. */
    public static int fold(Graph g, int warpSize) {
        int folded = 0;
        for (Block h : new ArrayList<>(g.blocks)) {
            if (g.blocks.contains(h) && fold(g, h, warpSize)) {
                folded++;
            }
        }
        return folded;
    }

    /** Folds the loop headed by {@code h} if it is the scan; false (graph untouched) if not. */
    private static boolean fold(Graph g, Block h, int warpSize) {
        if (h.preds.size() != 2 || h.phis.size() != 2 || h.exit != Block.Exit.IF || h.succs.size() != 2
                || h.cond == null || h.cond.resolve().op != Op.TEST) {
            return false;
        }
        // the header's test: d >= bound leaves, d < bound stays (either operand order)
        Node test = h.cond.resolve();
        for (Node n : h.nodes) {
            if (n != test && !isPure(n)) {
                return false;
            }
        }
        Cond.Pred p = ((Cond) test.aux).pred();
        Node d = test.in(0).resolve();
        Node bound = test.in(1).resolve();
        if (!isPhiOf(d, h)) {
            Node t = d;
            d = bound;
            bound = t;
            p = p.swap();
        }
        if (!isPhiOf(d, h) || !isWarpSize(bound, warpSize) || (p != Cond.Pred.GE && p != Cond.Pred.LT)) {
            return false;
        }
        Block exit = h.succs.get(p == Cond.Pred.GE ? 0 : 1);
        Block body = h.succs.get(p == Cond.Pred.GE ? 1 : 0);
        Node v = h.phis.get(0).resolve() == d ? h.phis.get(1) : h.phis.get(0);
        if (v.kind != Kind.INT || d.kind != Kind.INT || body == exit || body.preds.size() != 1) {
            return false;
        }
        // body: x = shflUp(v, d, warpSize); branch on laneId < d (skip) or laneId >= d (add)
        Node x = null;
        Node cond = null;
        for (Node n : body.nodes) {
            if (n.op == Op.WARP && n.aux instanceof Warp w && w.name().equals("shflUp") && !w.isFloat() && x == null
                    && n.in(0).resolve() == v && n.in(1).resolve() == d && isWarpSize(n.in(2).resolve(), warpSize)) {
                x = n;
            } else if (body.cond != null && n == body.cond.resolve()) {
                cond = n;
            } else if (!isPure(n)) {
                return false;
            }
        }
        if (x == null || cond == null || cond.op != Op.TEST || body.exit != Block.Exit.IF || body.succs.size() != 2) {
            return false;
        }
        Cond.Pred q = ((Cond) cond.aux).pred();
        Node lane = cond.in(0).resolve();
        Node qd = cond.in(1).resolve();
        if (qd.op == Op.SREG) {
            Node t = lane;
            lane = qd;
            qd = t;
            q = q.swap();
        }
        if (!(lane.op == Op.SREG && lane.aux == SReg.LANE_ID) || qd != d || (q != Cond.Pred.LT && q != Cond.Pred.GE)) {
            return false;
        }
        Block add = body.succs.get(q == Cond.Pred.GE ? 0 : 1);
        Block skip = body.succs.get(q == Cond.Pred.GE ? 1 : 0);
        // add: s = v + x, then the join
        if (add.preds.size() != 1 || add.exit != Block.Exit.GOTO || add.succs.size() != 1 || !add.phis.isEmpty()) {
            return false;
        }
        Block join = add.succs.get(0);
        Node s = null;
        for (Node n : add.nodes) {
            if (n.op == Op.ADD && n.kind == Kind.INT && s == null && ((n.in(0).resolve() == v && n.in(1).resolve() == x)
                    || (n.in(0).resolve() == x && n.in(1).resolve() == v))) {
                s = n;
            } else if (!isPure(n)) {
                return false;
            }
        }
        // skip: straight to the join, or through a block with nothing in it
        List<Block> loop = new ArrayList<>(List.of(h, body, add));
        Block skipEdge = body;
        if (skip != join) {
            if (skip.preds.size() != 1 || skip.exit != Block.Exit.GOTO || skip.succs.size() != 1 || skip.succs.get(0) != join
                    || !skip.phis.isEmpty() || !allPure(skip.nodes)) {
                return false;
            }
            skipEdge = skip;
            loop.add(skip);
        }
        // join: v' = phi(v, s), d' = d << 1, back to the header
        if (s == null || join.preds.size() != 2 || join.phis.size() != 1 || join.exit != Block.Exit.GOTO
                || join.succs.size() != 1 || join.succs.get(0) != h || loop.contains(join)) {
            return false;
        }
        loop.add(join);
        Node vNext = join.phis.get(0);
        if (vNext.in(join.preds.indexOf(skipEdge)).resolve() != v || vNext.in(join.preds.indexOf(add)).resolve() != s) {
            return false;
        }
        Node dNext = null;
        for (Node n : join.nodes) {
            if (dNext == null && isDoubled(n, d)) {
                dNext = n;
            } else if (!isPure(n)) {
                return false;
            }
        }
        int back = h.preds.indexOf(join);
        if (dNext == null || back < 0) {
            return false;
        }
        int entry = 1 - back;
        Node d0 = d.in(entry).resolve();
        if (d.in(back).resolve() != dNext || !isInt(d0, 1) || v.in(back).resolve() != vNext) {
            return false;
        }
        // nothing of the loop but v read after it
        Set<Node> inside = new HashSet<>();
        for (Block b : loop) {
            inside.addAll(b.phis);
            inside.addAll(b.nodes);
        }
        for (Block b : g.blocks) {
            if (loop.contains(b)) {
                continue;
            }
            for (Node n : uses(b)) {
                for (Node o : n.in) {
                    Node r = o.resolve();
                    if (r != v && inside.contains(r)) {
                        return false;
                    }
                }
            }
            if (b.cond != null && b.cond.resolve() != v && inside.contains(b.cond.resolve())) {
                return false;
            }
        }
        // the header becomes scanAdd(v0) and goes straight to the exit; the other blocks go
        Block pre = h.preds.get(entry);
        Node scan = g.node(Op.WARP, Kind.INT, x.site, new Warp(SCAN_ADD, false), v.in(entry));
        scan.block = h;
        h.phis.clear();
        h.nodes.clear();
        h.nodes.add(scan);
        h.cond = null;
        h.exit = Block.Exit.GOTO;
        h.succs.clear();
        h.succs.add(exit);
        h.preds.clear();
        h.preds.add(pre);
        loop.remove(h);
        g.removeBlocks(loop);
        for (Block b : g.blocks) {
            for (Node n : uses(b)) {
                for (int i = 0; i < n.in.size(); i++) {
                    if (n.in(i).resolve() == v) {
                        n.in.set(i, scan);
                    }
                }
            }
            if (b.cond != null && b.cond.resolve() == v) {
                b.cond = scan;
            }
        }
        return true;
    }

    private static List<Node> uses(Block b) {
        List<Node> all = new ArrayList<>(b.phis);
        all.addAll(b.nodes);
        return all;
    }

    private static boolean isPhiOf(Node n, Block h) {
        return n.op == Op.PHI && h.phis.contains(n);
    }

    /** {@code warpSize}, or the constant equal to it. */
    private static boolean isWarpSize(Node n, int warpSize) {
        return (n.op == Op.SREG && n.aux == SReg.WARP_SIZE)
                || (n.op == Op.CONST && n.aux instanceof Integer c && c == warpSize);
    }

    /** {@code d << 1}, {@code d * 2}, {@code 2 * d} or {@code d + d}. */
    private static boolean isDoubled(Node n, Node d) {
        if (n.kind != Kind.INT || n.in.size() != 2) {
            return false;
        }
        Node a = n.in(0).resolve();
        Node b = n.in(1).resolve();
        return switch (n.op) {
            case SHL -> a == d && isInt(b, 1);
            case MUL -> (a == d && isInt(b, 2)) || (b == d && isInt(a, 2));
            case ADD -> a == d && b == d;
            default -> false;
        };
    }

    private static boolean isInt(Node n, int value) {
        return n.op == Op.CONST && n.aux instanceof Integer c && c == value;
    }

    /** A node the fold may drop with the loop: no effect, no fault. */
    private static boolean isPure(Node n) {
        return n.op == Op.CONST || n.op == Op.SREG;
    }

    private static boolean allPure(List<Node> nodes) {
        for (Node n : nodes) {
            if (!isPure(n)) {
                return false;
            }
        }
        return true;
    }
}
