package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The control-flow facts the later passes need: reverse post-order, dominators, post-dominators, natural
 * loops, and the linear order in which the generated code lays blocks out.
 *
 * <p>Implementation notes. Dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple,
 * Fast Dominance Algorithm"). A retreating edge whose target does not dominate its source makes the graph
 * irreducible: javac never produces one, and the kernel is declined. The linear order is a reverse
 * post-order in which every loop's blocks are contiguous: the masked code runs blocks in this order, and
 * jumps back to a loop's header only from the end of the loop's range, so every block runs after all of its
 * forward predecessors in the same pass.
 */
public final class Cfg {

    /** A natural loop: a header and its body (header included). */
    public static final class Loop {
        public final Block header;
        public final Set<Block> body = new HashSet<>();
        public final List<Block> latches = new ArrayList<>();
        public Loop parent;
        public int depth;
        /** The loop's last block in the linear order: where the jump back to the header goes. */
        public Block last;

        Loop(Block header) {
            this.header = header;
        }

        public boolean contains(Block b) {
            return body.contains(b);
        }

        /** The header's id, for the reason given at {@link dev.weft.simd.internal.ir.Node#hashCode()}; equality stays identity. */
        @Override
        public int hashCode() {
            return header.id;
        }

        @Override
        public String toString() {
            return "loop@" + header;
        }
    }

    public final Graph graph;
    public final List<Block> rpo = new ArrayList<>();
    public final Map<Block, Integer> rpoIndex = new HashMap<>();
    public final Map<Block, Block> idom = new HashMap<>();
    public final Map<Block, Block> ipdom = new HashMap<>();
    public final List<Loop> loops = new ArrayList<>();
    public final Map<Block, Loop> innermost = new HashMap<>();
    public final Map<Block, Loop> loopOfHeader = new HashMap<>();
    /** The linear order of the generated code. */
    public final List<Block> order = new ArrayList<>();
    public final Map<Block, Integer> position = new HashMap<>();

    public Cfg(Graph graph) {
        this.graph = graph;
        computeRpo();
        computeDominators();
        computeLoops();
        computeOrder();
        computePostDominators();
    }

    private void computeRpo() {
        List<Block> post = new ArrayList<>();
        Set<Block> seen = new HashSet<>();
        Deque<Object[]> stack = new ArrayDeque<>();
        Block entry = graph.entry();
        seen.add(entry);
        stack.push(new Object[] {entry, 0});
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            Block b = (Block) top[0];
            int i = (int) top[1];
            if (i < b.succs.size()) {
                top[1] = i + 1;
                Block s = b.succs.get(i);
                if (seen.add(s)) {
                    stack.push(new Object[] {s, 0});
                }
            } else {
                stack.pop();
                post.add(b);
            }
        }
        for (int i = post.size() - 1; i >= 0; i--) {
            rpoIndex.put(post.get(i), rpo.size());
            rpo.add(post.get(i));
        }
    }

    private void computeDominators() {
        Block entry = graph.entry();
        idom.put(entry, entry);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : rpo) {
                if (b == entry) {
                    continue;
                }
                Block nd = null;
                for (Block p : b.preds) {
                    if (idom.containsKey(p)) {
                        nd = nd == null ? p : intersect(p, nd, idom, rpoIndex);
                    }
                }
                if (nd != null && idom.get(b) != nd) {
                    idom.put(b, nd);
                    changed = true;
                }
            }
        }
    }

    private static Block intersect(Block a, Block b, Map<Block, Block> dom, Map<Block, Integer> index) {
        while (a != b) {
            while (index.get(a) > index.get(b)) {
                a = dom.get(a);
            }
            while (index.get(b) > index.get(a)) {
                b = dom.get(b);
            }
        }
        return a;
    }

    /** Whether {@code a} dominates {@code b}. */
    public boolean dominates(Block a, Block b) {
        Block x = b;
        while (true) {
            if (x == a) {
                return true;
            }
            Block d = idom.get(x);
            if (d == null || d == x) {
                return false;
            }
            x = d;
        }
    }

    private void computeLoops() {
        for (Block b : rpo) {
            for (Block s : b.succs) {
                if (rpoIndex.get(s) <= rpoIndex.get(b)) {
                    if (!dominates(s, b)) {
                        throw new Decline("irreducible control flow at " + s.site + ": only structured loops are compiled");
                    }
                    Loop l = loopOfHeader.get(s);
                    if (l == null) {
                        l = new Loop(s);
                        loops.add(l);
                        loopOfHeader.put(s, l);
                    }
                    if (!l.latches.contains(b)) {
                        l.latches.add(b);
                    }
                    // Natural loop body: everything that reaches the latch without passing the header.
                    l.body.add(s);
                    Deque<Block> work = new ArrayDeque<>();
                    if (l.body.add(b)) {
                        work.push(b);
                    }
                    while (!work.isEmpty()) {
                        for (Block p : work.pop().preds) {
                            if (l.body.add(p)) {
                                work.push(p);
                            }
                        }
                    }
                }
            }
        }
        // Nesting: the parent is the smallest other loop containing the header.
        for (Loop l : loops) {
            for (Loop o : loops) {
                if (o != l && o.body.contains(l.header) && o.body.size() > l.body.size()
                        && (l.parent == null || o.body.size() < l.parent.body.size())) {
                    l.parent = o;
                }
            }
        }
        for (Loop l : loops) {
            int d = 0;
            for (Loop p = l; p != null; p = p.parent) {
                d++;
            }
            l.depth = d;
        }
        for (Block b : rpo) {
            Loop best = null;
            for (Loop l : loops) {
                if (l.body.contains(b) && (best == null || l.body.size() < best.body.size())) {
                    best = l;
                }
            }
            if (best != null) {
                innermost.put(b, best);
            }
        }
    }

    /** The innermost loop containing {@code b}, or null. */
    public Loop loopOf(Block b) {
        return innermost.get(b);
    }

    /** Whether {@code b} is inside loop {@code l} (at any depth). */
    public static boolean inLoop(Block b, Loop l) {
        return l != null && l.body.contains(b);
    }

    private void computeOrder() {
        Set<Block> done = new HashSet<>();
        emit(null, done);
        for (int i = 0; i < order.size(); i++) {
            position.put(order.get(i), i);
        }
        for (Loop l : loops) {
            Block last = l.header;
            for (Block b : l.body) {
                if (position.get(b) > position.get(last)) {
                    last = b;
                }
            }
            l.last = last;
        }
    }

    /** Emits the blocks of {@code loop} (the whole graph when null) in RPO, each child loop contiguously. */
    private void emit(Loop loop, Set<Block> done) {
        for (Block b : rpo) {
            if (done.contains(b) || (loop != null && !loop.body.contains(b))) {
                continue;
            }
            Loop in = innermost.get(b);
            if (in == loop) {
                done.add(b);
                order.add(b);
                continue;
            }
            // b lies in a loop nested in this one: emit that child loop as a whole.
            Loop child = in;
            while (child.parent != loop) {
                child = child.parent;
            }
            emit(child, done);
        }
    }

    private void computePostDominators() {
        // Every returning block ends a path; blocks that cannot reach one (endless loops) get no post-dominator.
        List<Block> exits = new ArrayList<>();
        for (Block b : rpo) {
            if (b.succs.isEmpty()) {
                exits.add(b);
            }
        }
        Map<Block, Block> pdom = immediatePostDominators(new HashSet<>(rpo), exits);
        for (Map.Entry<Block, Block> e : pdom.entrySet()) {
            if (e.getValue() != null) {
                ipdom.put(e.getKey(), e.getValue());
            }
        }
    }

    /**
     * Immediate post-dominators in the graph of {@code blocks} alone (edges leaving it ignored), where the paths end
     * at {@code ends}: each block that reaches an end maps to its immediate post-dominator, or to null where its
     * paths meet only after the ends; blocks that reach no end are absent. Cooper, Harvey and Kennedy's iteration
     * on the reverse graph, with a virtual exit after every end.
     */
    public static Map<Block, Block> immediatePostDominators(Set<Block> blocks, Collection<Block> ends) {
        Block virtualExit = new Block(-1);
        Set<Block> endSet = new HashSet<>(ends);
        // Post-order of the reverse graph from the virtual exit.
        List<Block> post = new ArrayList<>();
        Set<Block> seen = new HashSet<>();
        Deque<Object[]> stack = new ArrayDeque<>();
        seen.add(virtualExit);
        stack.push(new Object[] {virtualExit, 0});
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            Block b = (Block) top[0];
            int i = (int) top[1];
            List<Block> ss = b == virtualExit ? List.copyOf(ends) : b.preds;
            if (i < ss.size()) {
                top[1] = i + 1;
                Block s = ss.get(i);
                if (blocks.contains(s) && seen.add(s)) {
                    stack.push(new Object[] {s, 0});
                }
            } else {
                stack.pop();
                post.add(b);
            }
        }
        List<Block> rrpo = new ArrayList<>();
        Map<Block, Integer> index = new HashMap<>();
        for (int i = post.size() - 1; i >= 0; i--) {
            index.put(post.get(i), rrpo.size());
            rrpo.add(post.get(i));
        }
        Map<Block, Block> pdom = new HashMap<>();
        pdom.put(virtualExit, virtualExit);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : rrpo) {
                if (b == virtualExit) {
                    continue;
                }
                Block nd = endSet.contains(b) ? virtualExit : null;
                for (Block p : b.succs) {
                    if (blocks.contains(p) && pdom.containsKey(p)) {
                        nd = nd == null ? p : intersect(p, nd, pdom, index);
                    }
                }
                if (nd != null && pdom.get(b) != nd) {
                    pdom.put(b, nd);
                    changed = true;
                }
            }
        }
        Map<Block, Block> out = new HashMap<>();
        for (Map.Entry<Block, Block> e : pdom.entrySet()) {
            if (e.getKey() != virtualExit) {
                out.put(e.getKey(), e.getValue() == virtualExit ? null : e.getValue());
            }
        }
        return out;
    }

    /** Whether {@code a} post-dominates {@code b}: every path from {@code b} to a return passes {@code a}. */
    public boolean postDominates(Block a, Block b) {
        Block x = b;
        while (x != null) {
            if (x == a) {
                return true;
            }
            Block d = ipdom.get(x);
            if (d == x) {
                return false;
            }
            x = d;
        }
        return false;
    }

    /** Whether the edge {@code from -> to} goes back to a loop header. */
    public boolean isBackEdge(Block from, Block to) {
        Loop l = loopOfHeader.get(to);
        return l != null && l.body.contains(from);
    }
}
