package dev.weft.simd.internal.front;

import dev.weft.simd.internal.analysis.Pressure;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Splits a loop that carries many independent accumulators into consecutive loops that each carry some of them,
 * right after parsing, before any analysis sees the loop. The register-blocked sgemm's FMA loop carries 16
 * accumulators, each its own chain of FMAs: with the 4 B vectors and a broadcast A value it reads per iteration, 21
 * vectors per register of a group, more than AVX2's 16, so C2 moved accumulators to and from the stack at every
 * iteration (about 10 reloads and 7 stores per 16 FMAs). Two loops of 8 accumulators each keep 13 live.
 *
 * <p>Meaning: exactly the original loop's, bit for bit, for every thread. A loop qualifies only if its body has no
 * side effect (no store, atomic, warp operation, barrier or shared allocation), its exit test depends only on
 * "control" phis (the counter) whose updates read no other phi, and no value of it but its header's phis is read
 * after it. Each accumulator (a "data" phi) keeps its own chain of operations, in the same order and on the same
 * operands: the loops only run the chains one group after another rather than side by side, and each recomputes the
 * counter and the loads it needs (no store runs in between, so they read the same values). The first loop also runs
 * every node that can fault (loads, integer division, exact arithmetic), in the original order, so a thread faults
 * where and as it did before; the later ones run only what their accumulators need.
 *
 * <p>Only loops of two blocks (a header with the phis and the exit test, a body that jumps back to it) and more than
 * {@link #THRESHOLD} phi units of independent accumulators (a long or double counts two) are split, into loops of at
 * most {@link #UNITS} units (whole groups of phis that read each other); nothing else changes.
 *
 * <p>Both limits scale with the register file: AVX-512's 32 vector registers hold the sgemm's 21 vectors per register
 * of a group, so there its 16 accumulators stay in one loop. Split there too (limits 12 and 8 until session 25), each
 * loop loaded the four B vectors again, and on the 2-core Ice Lake the loads, not the FMAs, bound the loop (a 512-bit
 * load that crosses a cache line takes about two cycles there). Paired against the hand-written code, alternating
 * runs of six iterations, medians: split 0.35, 0.35, 0.36 against whole 0.45, 0.48, 0.47
 * ({@code -Dweft.simd.loopFission=false}), then this rule 0.49, 0.40 against the old 0.37, 0.37. The group stays
 * 16 threads, one register, either way.
 */
public final class LoopFission {

    /** Data phi units (a long or double: two) a loop must carry to be split: 12 with 16 registers, 24 with 32. */
    static final int THRESHOLD = 12 * Pressure.REGISTERS / 16;
    /**
     * The most data phi units each loop after the split carries (where its groups allow): 8 with 16 registers, 16 with
     * 32; {@code -Dweft.simd.fissionUnits=N} sets it, to compare.
     */
    static final int UNITS = Math.max(1, Integer.getInteger("weft.simd.fissionUnits", 8 * Pressure.REGISTERS / 16));

    private LoopFission() {
    }

    /** Whether a loop carrying {@code units} independent data phi units is split on this machine (for tests). */
    public static boolean splits(int units) {
        return units > THRESHOLD;
    }

    /** Splits every qualifying loop of the graph; returns how many. */
    public static int split(Graph g) {
        int split = 0;
        for (Block h : new ArrayList<>(g.blocks)) {
            if (split(g, h)) {
                split++;
            }
        }
        return split;
    }

    private static boolean split(Graph g, Block h) {
        if (h.exit != Block.Exit.IF || h.preds.size() != 2 || h.phis.isEmpty() || h.succs.size() != 2) {
            return false;
        }
        int bodyIdx = -1;
        for (int i = 0; i < 2; i++) {
            Block s = h.succs.get(i);
            if (s != h && s.exit == Block.Exit.GOTO && s.succs.size() == 1 && s.succs.get(0) == h && s.preds.size() == 1
                    && s.preds.get(0) == h && s.phis.isEmpty()) {
                bodyIdx = i;
            }
        }
        if (bodyIdx < 0) {
            return false;
        }
        Block body = h.succs.get(bodyIdx);
        Block exit = h.succs.get(1 - bodyIdx);
        if (exit == body || exit == h || h.succs.get(0) == h.succs.get(1)) {
            return false;
        }
        int latch = h.preds.indexOf(body);
        int entry = 1 - latch;
        if (latch < 0 || h.preds.get(entry) == body) {
            return false;
        }
        Set<Node> inLoop = new HashSet<>();
        inLoop.addAll(h.phis);
        inLoop.addAll(h.nodes);
        inLoop.addAll(body.nodes);
        for (Block b : List.of(h, body)) {
            for (Node x : b.nodes) {
                if (!pure(x)) {
                    return false;
                }
            }
        }
        Set<Node> innerNodes = new HashSet<>();
        innerNodes.addAll(h.nodes);
        innerNodes.addAll(body.nodes);
        // Control: the phis the exit test reads, closed under their updates.
        Set<Node> control = phisRead(List.of(h.cond), h, inLoop);
        for (boolean grew = true; grew; ) {
            grew = false;
            for (Node p : new ArrayList<>(control)) {
                grew |= control.addAll(phisRead(List.of(p.in(latch)), h, inLoop));
            }
        }
        List<Node> data = new ArrayList<>();
        for (Node p : h.phis) {
            if (!control.contains(p)) {
                data.add(p);
            }
        }
        // (A phi the control updates read is control too: every loop recomputes it, the same way.)
        int units = 0;
        for (Node p : data) {
            units += p.kind.isWide() ? 2 : 1;
        }
        if (units <= THRESHOLD) {
            return false;
        }
        // Groups of data phis whose updates read each other.
        Map<Node, Node> parent = new HashMap<>();
        for (Node p : data) {
            parent.put(p, p);
        }
        for (Node p : data) {
            for (Node q : phisRead(List.of(p.in(latch)), h, inLoop)) {
                if (!control.contains(q)) {
                    parent.put(root(parent, q), root(parent, p));
                }
            }
        }
        Map<Node, List<Node>> groups = new java.util.LinkedHashMap<>();
        for (Node p : data) {
            groups.computeIfAbsent(root(parent, p), k -> new ArrayList<>()).add(p);
        }
        if (groups.size() < 2) {
            return false;
        }
        // Chunks of whole groups, in phi order, of at most UNITS units each (a larger group is a chunk of its own),
        // balanced: as many chunks as UNITS needs, each about the same size.
        int chunksWanted = (units + UNITS - 1) / UNITS;
        int perChunk = (units + chunksWanted - 1) / chunksWanted;
        List<List<Node>> chunks = new ArrayList<>();
        List<Node> cur = new ArrayList<>();
        int curUnits = 0;
        for (List<Node> grp : groups.values()) {
            int u = 0;
            for (Node p : grp) {
                u += p.kind.isWide() ? 2 : 1;
            }
            if (!cur.isEmpty() && curUnits + u > perChunk) {
                chunks.add(cur);
                cur = new ArrayList<>();
                curUnits = 0;
            }
            cur.addAll(grp);
            curUnits += u;
        }
        chunks.add(cur);
        if (chunks.size() < 2) {
            return false;
        }
        // The nodes each loop runs: the exit test, the control updates, its accumulators' updates; the first also
        // every node that can fault. None may read another loop's accumulators.
        List<Set<Node>> needed = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            List<Node> roots = new ArrayList<>();
            roots.add(h.cond);
            for (Node p : control) {
                roots.add(p.in(latch));
            }
            for (Node p : chunks.get(c)) {
                roots.add(p.in(latch));
            }
            if (c == 0) {
                for (Node x : innerNodes) {
                    if (faults(x)) {
                        roots.add(x);
                    }
                }
            }
            Set<Node> need = closure(roots, inLoop);
            for (Node x : need) {
                if (x.op == Op.PHI && x.block == h && !control.contains(x) && !chunks.get(c).contains(x)) {
                    return false;
                }
            }
            needed.add(need);
        }
        // Values of the loop read after it: only the header's phis.
        Map<Node, Integer> chunkOf = new HashMap<>();
        for (int c = 0; c < chunks.size(); c++) {
            for (Node p : chunks.get(c)) {
                chunkOf.put(p, c);
            }
        }
        for (Block b : g.blocks) {
            if (b == h || b == body) {
                continue;
            }
            for (Node x : b.phis) {
                for (Node o : x.in) {
                    if (innerNodes.contains(o)) {
                        return false;
                    }
                }
            }
            for (Node x : b.nodes) {
                for (Node o : x.in) {
                    if (innerNodes.contains(o)) {
                        return false;
                    }
                }
            }
            if (b.cond != null && innerNodes.contains(b.cond)) {
                return false;
            }
        }
        // Build loops 2.. as copies; the original header and body become loop 1.
        Block prevHeader = h;
        List<Node> replaced = new ArrayList<>();
        Map<Node, Node> replacement = new HashMap<>();
        for (int c = 1; c < chunks.size(); c++) {
            Block hc = g.newBlock();
            Block bc = g.newBlock();
            hc.site = h.site;
            bc.site = body.site;
            Map<Node, Node> copy = new HashMap<>();
            for (Node p : h.phis) {
                if (control.contains(p) || chunks.get(c).contains(p)) {
                    Node q = g.node(Op.PHI, p.kind, p.site, p.aux);
                    q.block = hc;
                    copy.put(p, q);
                    hc.phis.add(q);
                }
            }
            for (Node x : h.nodes) {
                if (needed.get(c).contains(x)) {
                    hc.nodes.add(clone(g, x, hc, copy));
                }
            }
            for (Node x : body.nodes) {
                if (needed.get(c).contains(x)) {
                    bc.nodes.add(clone(g, x, bc, copy));
                }
            }
            // Phi operands: entry (from the previous loop's header) first, back edge second.
            for (Node p : h.phis) {
                Node q = copy.get(p);
                if (q != null) {
                    q.in.add(p.in(entry));
                    q.in.add(copy.getOrDefault(p.in(latch), p.in(latch)));
                }
            }
            hc.cond = copy.getOrDefault(h.cond, h.cond);
            hc.exit = Block.Exit.IF;
            bc.exit = Block.Exit.GOTO;
            hc.preds.add(prevHeader);
            hc.preds.add(bc);
            bc.preds.add(hc);
            bc.succs.add(hc);
            hc.succs.add(null);
            hc.succs.add(null);
            hc.succs.set(bodyIdx, bc);
            hc.succs.set(1 - bodyIdx, exit);
            prevHeader.succs.set(1 - bodyIdx, hc);
            for (Node p : chunks.get(c)) {
                replacement.put(p, copy.get(p));
                replaced.add(p);
            }
            prevHeader = hc;
        }
        exit.preds.set(exit.preds.indexOf(h), prevHeader);
        // Loop 1 keeps its chunk and what it needs.
        h.phis.removeIf(p -> !control.contains(p) && !chunks.get(0).contains(p));
        h.nodes.removeIf(x -> !needed.get(0).contains(x));
        body.nodes.removeIf(x -> !needed.get(0).contains(x));
        // Reads of the later chunks' accumulators after the loops.
        for (Block b : g.blocks) {
            if (b == h || b == body) {
                continue;
            }
            for (Node x : b.phis) {
                x.in.replaceAll(o -> replacement.getOrDefault(o, o));
            }
            for (Node x : b.nodes) {
                x.in.replaceAll(o -> replacement.getOrDefault(o, o));
            }
            if (b.cond != null) {
                b.cond = replacement.getOrDefault(b.cond, b.cond);
            }
        }
        return true;
    }

    /** A copy of {@code x} in block {@code b}, its loop operands replaced by their copies. */
    private static Node clone(Graph g, Node x, Block b, Map<Node, Node> copy) {
        Node[] in = new Node[x.in.size()];
        for (int i = 0; i < in.length; i++) {
            in[i] = copy.getOrDefault(x.in(i), x.in(i));
        }
        Node y = g.node(x.op, x.kind, x.site, x.aux, in);
        y.block = b;
        copy.put(x, y);
        return y;
    }

    /** Whether {@code x} has no effect but its value (it may still fault), and may be copied. */
    private static boolean pure(Node x) {
        return switch (x.op) {
            // (A parameter is read once per launch: not one to copy.)
            case STORE, ATOMIC, WARP, SHARED, BARRIER, PHI, PARAM -> false;
            default -> true;
        };
    }

    /** Whether {@code x} can throw: array accesses, integer division, exact arithmetic and other faulting calls. */
    private static boolean faults(Node x) {
        return switch (x.op) {
            case LOAD, LENGTH -> true;
            case DIV, REM -> x.kind == Kind.INT || x.kind == Kind.LONG;
            case CALL -> !(x.aux instanceof Fn f) || f.lowering() == Fn.Lowering.PER_LANE || f.name().contains("Exact")
                    || f.name().contains("Div") || f.name().contains("Mod");
            default -> false;
        };
    }

    /** The phis of header {@code h} that {@code roots} read through nodes of the loop. */
    private static Set<Node> phisRead(List<Node> roots, Block h, Set<Node> inLoop) {
        Set<Node> out = new HashSet<>();
        for (Node x : closure(roots, inLoop)) {
            if (x.op == Op.PHI && x.block == h) {
                out.add(x);
            }
        }
        return out;
    }

    /** {@code roots} and the loop's nodes and phis they read, transitively (stopping at phis). */
    private static Set<Node> closure(List<Node> roots, Set<Node> inLoop) {
        Set<Node> seen = new HashSet<>();
        List<Node> work = new ArrayList<>();
        for (Node r : roots) {
            if (inLoop.contains(r) && seen.add(r)) {
                work.add(r);
            }
        }
        while (!work.isEmpty()) {
            Node x = work.remove(work.size() - 1);
            if (x.op == Op.PHI) {
                continue;
            }
            for (Node o : x.in) {
                if (inLoop.contains(o) && seen.add(o)) {
                    work.add(o);
                }
            }
        }
        return seen;
    }

    private static Node root(Map<Node, Node> parent, Node p) {
        while (parent.get(p) != p) {
            p = parent.get(p);
        }
        return p;
    }

}
