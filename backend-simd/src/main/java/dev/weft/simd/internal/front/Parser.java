package dev.weft.simd.internal.front;

import dev.weft.simd.internal.ir.Atomic;
import dev.weft.simd.internal.ir.Barrier;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Conv;
import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Site;
import dev.weft.simd.internal.ir.Warp;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.SourceFileAttribute;
import java.lang.classfile.instruction.ArrayLoadInstruction;
import java.lang.classfile.instruction.ArrayStoreInstruction;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.ConvertInstruction;
import java.lang.classfile.instruction.ExceptionCatch;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LineNumber;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.MonitorInstruction;
import java.lang.classfile.instruction.NewMultiArrayInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.classfile.instruction.NewPrimitiveArrayInstruction;
import java.lang.classfile.instruction.NewReferenceArrayInstruction;
import java.lang.classfile.instruction.NopInstruction;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.lang.classfile.instruction.TypeCheckInstruction;
import java.lang.reflect.AccessFlag;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a kernel's implementation method, and the static methods it calls, into SSA IR.
 *
 * <p>Implementation notes. Bytecode is cut into basic blocks at branch targets and after branches; blocks
 * are translated in reverse post-order, keeping the operand stack as IR values and turning every local slot
 * and stack depth at a block boundary into a variable. SSA is built on the fly with the algorithm of Braun
 * et al. ("Simple and Efficient Construction of Static Single Assignment Form", CC 2013): reads look up the
 * variable's definition in the block, or in its predecessors through (possibly incomplete) phis; a block is
 * sealed once all its predecessors are translated. Trivial phis are forwarded and removed at the end.
 * Variables are keyed by frame, slot and type category, so javac's reuse of a slot for a variable of another
 * type never merges the two. Static calls are inlined: the call's block jumps to the callee's first block,
 * the callee's returns jump to a continuation block that reads the return value.
 *
 * <p>Anything the SIMD backend does not compile is recorded as a reason (construct and source line);
 * translation continues so that a kernel's every unsupported construct is reported at once.
 */
public final class Parser {

    /** Loads the class file of a class by internal name, for reading and inlining. */
    public interface ClassSource {
        /** The parsed class, or null if its bytes cannot be found. */
        ClassModel load(String internalName);
    }

    /** The warp operations of ThreadContext: compiled as {@link Op#WARP}. */
    private static final Set<String> WARP_OPS = Set.of("ballot", "any", "all", "shfl", "shflUp", "shflDown", "shflXor");

    private static final int MAX_NODES = 20_000;
    private static final int RET_SLOT = -1_000_000;

    private final Graph g;
    private final ClassSource classes;
    private final LinkedHashSet<String> reasons = new LinkedHashSet<>();
    private final Map<String, Node> statics = new HashMap<>();
    private final Deque<String> callStack = new ArrayDeque<>();
    private final EnumMap<Kind, Node> undefs = new EnumMap<>(Kind.class);
    private int frames;
    /** Barrier call instructions by identity (class, method, instruction), numbered from 1. */
    private final Map<String, Integer> barrierSites = new HashMap<>();
    private int barrierNodes;
    private Block entry;

    // Braun et al.'s state.
    private record Var(int frame, int slot, char cat) {

        // Written out: the record's generated equals and hashCode link through an invokedynamic bootstrap on first
        // use, and run slowly until the JIT has compiled them; these are the hottest calls of a cold parse.
        @Override
        public boolean equals(Object o) {
            return o instanceof Var v && v.frame == frame && v.slot == slot && v.cat == cat;
        }

        @Override
        public int hashCode() {
            return (frame * 31 + slot) * 31 + cat;
        }
    }

    private final Map<Block, Map<Var, Node>> defs = new HashMap<>();
    private final Map<Block, Map<Var, Node>> incomplete = new HashMap<>();
    /**
     * Receivers of ThreadContext calls that were phis of a loop header not sealed yet (the context read in a
     * loop): their kind is known only once the loop is complete, so they are checked in {@link #finish()}.
     */
    private final Map<Node, String> pendingReceivers = new HashMap<>();
    private final Set<Block> sealed = new HashSet<>();

    private Parser(Graph g, ClassSource classes) {
        this.g = g;
        this.classes = classes;
    }

    /**
     * Parses a kernel.
     *
     * @param name the kernel's name, for listings
     * @param cls the class declaring the implementation method
     * @param method the implementation method: the captured values, then the ThreadContext
     * @param capturedNames names for the captured parameters
     * @param classes where to find the class files of called methods
     * @return the kernel as IR, static field reads appended to its parameters
     * @throws Decline listing every construct that cannot be compiled
     */
    public static Graph parse(String name, ClassModel cls, MethodModel method, List<String> capturedNames, ClassSource classes) {
        Graph g = new Graph(name);
        Parser p = new Parser(g, classes);
        p.parseKernel(cls, method, capturedNames);
        if (!p.reasons.isEmpty()) {
            throw new Decline(new ArrayList<>(p.reasons));
        }
        return g;
    }

    private void parseKernel(ClassModel cls, MethodModel method, List<String> capturedNames) {
        entry = g.newBlock();
        sealed.add(entry);
        String desc = method.methodTypeSymbol().descriptorString();
        List<String> ps = splitParams(desc);
        String file = sourceFile(cls);
        Site site = new Site(file, firstLine(method));
        if (!method.flags().has(AccessFlag.STATIC)) {
            reasons.add("kernel lambda uses its enclosing instance ('this') at " + site
                    + ": instance fields and methods are not compiled (runs on the reference executor)");
            return;
        }
        List<Node> args = new ArrayList<>();
        for (int i = 0; i < ps.size(); i++) {
            String p = ps.get(i);
            if (p.equals("Ldev/weft/ThreadContext;")) {
                Node ctx = g.node(Op.PARAM, Kind.CONTEXT, site, null);
                place(ctx, entry);
                args.add(ctx);
                continue;
            }
            Kind k = paramKind(p);
            String pname = i < capturedNames.size() ? capturedNames.get(i) : "p" + i;
            if (k == null) {
                reasons.add("captured value '" + pname + "' of type " + p + " at " + site
                        + ": only int, long, float, double (and boolean, byte, short, char) and arrays of these are compiled");
                args.add(undef(Kind.INT));
                continue;
            }
            Param param = new Param(g.params.size(), k, pname, null, null);
            g.params.add(param);
            Node n = g.node(Op.PARAM, k, site, param);
            place(n, entry);
            args.add(n);
        }
        if (!reasons.isEmpty()) {
            return;
        }
        translate(cls, method, args, entry, null);
        finish();
    }

    // ---- SSA construction ------------------------------------------------------------------

    private void write(Var v, Block b, Node value) {
        varsOf(defs, b).put(v, value);
    }

    /** {@code m}'s map for {@code b}, made if missing. */
    private static Map<Var, Node> varsOf(Map<Block, Map<Var, Node>> m, Block b) {
        Map<Var, Node> vars = m.get(b);
        if (vars == null) {
            vars = new HashMap<>();
            m.put(b, vars);
        }
        return vars;
    }

    private Node read(Var v, Block b) {
        Map<Var, Node> m = defs.get(b);
        if (m != null) {
            Node n = m.get(v);
            if (n != null) {
                return n.resolve();
            }
        }
        return readRecursive(v, b);
    }

    private Node readRecursive(Var v, Block b) {
        Node val;
        if (!sealed.contains(b)) {
            val = newPhi(v, b);
            varsOf(incomplete, b).put(v, val);
        } else if (b.preds.isEmpty()) {
            val = undef(kindOfCat(v.cat));
        } else if (b.preds.size() == 1) {
            val = read(v, b.preds.get(0));
        } else {
            val = newPhi(v, b);
            write(v, b, val);
            val = addPhiOperands(v, val);
        }
        write(v, b, val);
        return val;
    }

    private Node newPhi(Var v, Block b) {
        Node phi = g.node(Op.PHI, kindOfCat(v.cat), b.site, null);
        phi.block = b;
        b.phis.add(phi);
        return phi;
    }

    private Node addPhiOperands(Var v, Node phi) {
        for (Block p : phi.block.preds) {
            phi.in.add(read(v, p));
        }
        if (v.cat == 'A') {
            for (Node n : phi.in) {
                Node r = n.resolve();
                if (r.op != Op.UNDEF && r != phi) {
                    phi.kind = r.kind;
                    break;
                }
            }
        }
        return tryRemoveTrivial(phi);
    }

    private Node tryRemoveTrivial(Node phi) {
        Node same = null;
        for (Node op : phi.in) {
            Node r = op.resolve();
            if (r == same || r == phi) {
                continue;
            }
            if (same != null) {
                return phi;
            }
            same = r;
        }
        if (same == null) {
            same = undef(phi.kind);
        }
        phi.forward = same;
        phi.block.phis.remove(phi);
        return same;
    }

    private void seal(Block b) {
        Map<Var, Node> inc = incomplete.remove(b);
        sealed.add(b);
        if (inc != null) {
            for (Map.Entry<Var, Node> e : inc.entrySet()) {
                addPhiOperands(e.getKey(), e.getValue());
            }
        }
    }

    private Node undef(Kind k) {
        Node n = undefs.get(k);
        if (n == null) {
            n = g.node(Op.UNDEF, k, Site.UNKNOWN, null);
            n.block = entry;
            entry.nodes.add(0, n);
            undefs.put(k, n);
        }
        return n;
    }

    /** Removes phis that became trivial, resolves every operand, and drops unused pure nodes. */
    private void finish() {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : g.blocks) {
                for (Node phi : new ArrayList<>(b.phis)) {
                    Node before = phi.resolve();
                    if (before == phi && tryRemoveTrivial(phi) != phi) {
                        changed = true;
                    }
                }
            }
        }
        resolveOperands(g);
        for (Map.Entry<Node, String> e : pendingReceivers.entrySet()) {
            if (e.getKey().resolve().kind != Kind.CONTEXT) {
                reasons.add(e.getValue());
            }
        }
        removeUnreachable();
        deadCodeElimination();
        mergeChains();
        splitAtBarriers();
        validate();
    }

    /**
     * Ends a block at each barrier: the nodes after it move to a new block, which the barrier's block jumps to.
     * The code generator stops a group at the end of a barrier's block and resumes it there.
     */
    private void splitAtBarriers() {
        for (int bi = 0; bi < g.blocks.size(); bi++) {
            Block b = g.blocks.get(bi);
            for (int i = 0; i < b.nodes.size(); i++) {
                // Already split: the barrier ends the block, which jumps to a block entered only from it.
                if (b.nodes.get(i).op != Op.BARRIER || (i == b.nodes.size() - 1 && b.exit == Block.Exit.GOTO
                        && b.succs.get(0).preds.size() == 1 && b.succs.get(0) != entry)) {
                    continue;
                }
                Block c = g.newBlock();
                List<Node> tail = new ArrayList<>(b.nodes.subList(i + 1, b.nodes.size()));
                b.nodes.subList(i + 1, b.nodes.size()).clear();
                for (Node n : tail) {
                    n.block = c;
                }
                c.nodes.addAll(tail);
                c.exit = b.exit;
                c.cond = b.cond;
                c.keys = b.keys;
                c.site = b.site;
                c.succs.addAll(b.succs);
                for (Block t : b.succs) {
                    for (int j = 0; j < t.preds.size(); j++) {
                        if (t.preds.get(j) == b) {
                            t.preds.set(j, c);
                        }
                    }
                }
                b.succs.clear();
                b.succs.add(c);
                c.preds.add(b);
                b.exit = Block.Exit.GOTO;
                b.cond = null;
                b.keys = null;
                break;
            }
        }
    }

    /**
     * Merges a block into its predecessor where that is its only one and jumps only to it: javac's gotos,
     * labels that are no branch targets any more, and inlined calls leave such chains. Fewer blocks, fewer
     * masks and tests in the generated code.
     */
    private void mergeChains() {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : new ArrayList<>(g.blocks)) {
                if (!g.blocks.contains(b) || b.exit != Block.Exit.GOTO) {
                    continue;
                }
                Block s = b.succs.get(0);
                if (s == b || s == entry || s.preds.size() != 1 || !s.phis.isEmpty()) {
                    continue;
                }
                for (Node n : s.nodes) {
                    n.block = b;
                }
                b.nodes.addAll(s.nodes);
                b.exit = s.exit;
                b.cond = s.cond;
                b.keys = s.keys;
                b.site = s.site;
                b.succs.clear();
                b.succs.addAll(s.succs);
                for (Block t : s.succs) {
                    for (int i = 0; i < t.preds.size(); i++) {
                        if (t.preds.get(i) == s) {
                            t.preds.set(i, b);
                        }
                    }
                }
                g.blocks.remove(s);
                changed = true;
            }
        }
    }

    /** Array operations must see arrays of their element type; everything else is an unsupported construct. */
    private void validate() {
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                switch (n.op) {
                    case LOAD, STORE, LENGTH, ATOMIC -> {
                        Node a = n.in(0);
                        // A narrow array's loads give ints and its stores take them (its element kind); atomics
                        // exist only on arrays of the four.
                        Kind want = n.op == Op.STORE ? n.in(2).kind : n.op == Op.LENGTH ? null : n.kind;
                        if (!a.kind.isArray() || (want != null && a.kind.element() != want)
                                || (n.op == Op.ATOMIC && a.kind.isNarrowArray())) {
                            reasons.add("array access on a value of type " + a.kind.text() + " at " + n.site);
                        }
                    }
                    default -> {
                    }
                }
            }
        }
    }

    private void removeUnreachable() {
        Set<Block> seen = new HashSet<>();
        Deque<Block> work = new ArrayDeque<>();
        work.push(entry);
        seen.add(entry);
        while (!work.isEmpty()) {
            for (Block s : work.pop().succs) {
                if (seen.add(s)) {
                    work.push(s);
                }
            }
        }
        List<Block> dead = new ArrayList<>();
        for (Block b : g.blocks) {
            if (!seen.contains(b)) {
                dead.add(b);
            }
        }
        for (Block d : dead) {
            for (Block s : d.succs) {
                if (seen.contains(s)) {
                    int i;
                    while ((i = s.preds.indexOf(d)) >= 0) {
                        s.preds.remove(i);
                        for (Node phi : s.phis) {
                            phi.in.remove(i);
                        }
                    }
                }
            }
        }
        g.removeBlocks(dead);
        // Phis left with one distinct operand after removing dead predecessors.
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : g.blocks) {
                for (Node phi : new ArrayList<>(b.phis)) {
                    if (tryRemoveTrivial(phi) != phi) {
                        changed = true;
                    }
                }
            }
            resolveOperands(g);
        }
    }

    private void deadCodeElimination() {
        boolean changed = true;
        while (changed) {
            changed = false;
            Set<Node> used = new HashSet<>();
            for (Block b : g.blocks) {
                for (Node n : b.phis) {
                    used.addAll(n.in);
                }
                for (Node n : b.nodes) {
                    used.addAll(n.in);
                }
                if (b.cond != null) {
                    used.add(b.cond);
                }
            }
            for (Block b : g.blocks) {
                for (Iterator<Node> it = b.phis.iterator(); it.hasNext();) {
                    if (!used.contains(it.next())) {
                        it.remove();
                        changed = true;
                    }
                }
                for (Iterator<Node> it = b.nodes.iterator(); it.hasNext();) {
                    Node n = it.next();
                    if (!used.contains(n) && isPure(n) && n.op != Op.PARAM && n.op != Op.UNDEF) {
                        it.remove();
                        changed = true;
                    }
                }
            }
        }
    }

    /** Whether a node can be dropped when unused: no side effect and it cannot fault. */
    static boolean isPure(Node n) {
        return switch (n.op) {
            case STORE, LOAD, LENGTH, ATOMIC, WARP, SHARED, BARRIER -> false;
            case DIV, REM -> !(n.kind == Kind.INT || n.kind == Kind.LONG);
            default -> true;
        };
    }

    // ---- one method ------------------------------------------------------------------------

    /** A bytecode basic block. */
    private static final class BB {
        final int start;
        int end;
        final List<Integer> succs = new ArrayList<>();
        Block ir;
        int pending;
        List<Character> entryStack;
        boolean visited;

        BB(int start) {
            this.start = start;
        }
    }

    /** One method being translated: its instructions and where its returns go. */
    private final class Frame {
        final int id = frames++;
        final ClassModel cls;
        final MethodModel method;
        final String file;
        final List<Instruction> insns = new ArrayList<>();
        final List<Integer> lines = new ArrayList<>();
        final Map<Label, Integer> labels = new IdentityHashMap<>();
        final Block cont;
        char retCat;

        Frame(ClassModel cls, MethodModel method, Block cont) {
            this.cls = cls;
            this.method = method;
            this.file = sourceFile(cls);
            this.cont = cont;
        }

        Site site(int i) {
            return new Site(file, i < lines.size() ? lines.get(i) : -1);
        }
    }

    /**
     * Translates one method. {@code from} jumps to its first block; for an inlined method, its returns jump to
     * {@code cont}, which is sealed on return.
     */
    private int translate(ClassModel cls, MethodModel method, List<Node> args, Block from, Block cont) {
        Frame f = new Frame(cls, method, cont);
        String rdesc = method.methodTypeSymbol().returnType().descriptorString();
        f.retCat = rdesc.equals("V") ? 'V' : cat(rdesc);
        CodeModel code = method.code().orElse(null);
        if (code == null) {
            reasons.add("call to " + methodName(cls, method) + " at " + f.site(0) + ": it has no bytecode (native or abstract)");
            return f.id;
        }
        int line = -1;
        for (CodeElement e : code) {
            if (e instanceof LabelTarget lt) {
                f.labels.put(lt.label(), f.insns.size());
            } else if (e instanceof LineNumber ln) {
                line = ln.line();
            } else if (e instanceof ExceptionCatch) {
                reasons.add("try/catch in " + methodName(cls, method) + " at "
                        + new Site(f.file, line < 0 ? firstLine(method) : line) + ": exception handlers are not compiled");
            } else if (e instanceof Instruction i) {
                f.insns.add(i);
                f.lines.add(line);
            }
        }
        // Basic blocks.
        BitSet leaders = new BitSet();
        leaders.set(0);
        for (int i = 0; i < f.insns.size(); i++) {
            Instruction ins = f.insns.get(i);
            if (ins instanceof BranchInstruction br) {
                leaders.set(f.labels.get(br.target()));
                leaders.set(i + 1);
            } else if (ins instanceof TableSwitchInstruction ts) {
                leaders.set(f.labels.get(ts.defaultTarget()));
                for (SwitchCase c : ts.cases()) {
                    leaders.set(f.labels.get(c.target()));
                }
                leaders.set(i + 1);
            } else if (ins instanceof LookupSwitchInstruction ls) {
                leaders.set(f.labels.get(ls.defaultTarget()));
                for (SwitchCase c : ls.cases()) {
                    leaders.set(f.labels.get(c.target()));
                }
                leaders.set(i + 1);
            } else if (ins instanceof ReturnInstruction || ins instanceof ThrowInstruction) {
                leaders.set(i + 1);
            }
        }
        int n = f.insns.size();
        Map<Integer, BB> bbs = new HashMap<>();
        List<BB> list = new ArrayList<>();
        for (int i = leaders.nextSetBit(0); i >= 0 && i < n; i = leaders.nextSetBit(i + 1)) {
            BB bb = new BB(i);
            bbs.put(i, bb);
            list.add(bb);
        }
        for (int k = 0; k < list.size(); k++) {
            BB bb = list.get(k);
            bb.end = k + 1 < list.size() ? list.get(k + 1).start : n;
            Instruction last = f.insns.get(bb.end - 1);
            if (last instanceof BranchInstruction br) {
                bb.succs.add(f.labels.get(br.target()));
                if (br.opcode() != Opcode.GOTO && br.opcode() != Opcode.GOTO_W) {
                    bb.succs.add(bb.end);
                }
            } else if (last instanceof TableSwitchInstruction ts) {
                for (SwitchCase c : ts.cases()) {
                    bb.succs.add(f.labels.get(c.target()));
                }
                bb.succs.add(f.labels.get(ts.defaultTarget()));
            } else if (last instanceof LookupSwitchInstruction ls) {
                for (SwitchCase c : ls.cases()) {
                    bb.succs.add(f.labels.get(c.target()));
                }
                bb.succs.add(f.labels.get(ls.defaultTarget()));
            } else if (!(last instanceof ReturnInstruction) && !(last instanceof ThrowInstruction)) {
                bb.succs.add(bb.end);
            }
        }
        // Reachability and reverse post-order.
        List<BB> post = new ArrayList<>();
        Set<BB> seen = new HashSet<>();
        dfs(bbs.get(0), bbs, seen, post);
        for (BB bb : post) {
            bb.ir = g.newBlock();
            bb.ir.site = f.site(bb.start);
        }
        for (BB bb : post) {
            for (int s : bb.succs) {
                bbs.get(s).pending++;
            }
        }
        BB first = bbs.get(0);
        first.pending++;
        first.entryStack = List.of();
        // Arguments become the callee's locals, defined in the calling block.
        int slot = 0;
        List<String> ps = splitParams(method.methodTypeSymbol().descriptorString());
        for (int i = 0; i < ps.size(); i++) {
            char c = cat(ps.get(i));
            write(new Var(f.id, slot, c), from, args.get(i));
            slot += (c == 'J' || c == 'D') ? 2 : 1;
        }
        edge(from, first.ir);
        from.exit = Block.Exit.GOTO;
        arrive(first);
        for (int k = post.size() - 1; k >= 0; k--) {
            BB bb = post.get(k);
            translateBlock(f, bb, bbs);
        }
        if (cont != null) {
            seal(cont);
        }
        return f.id;
    }

    private void dfs(BB bb, Map<Integer, BB> bbs, Set<BB> seen, List<BB> post) {
        // Iterative, so deep methods do not overflow the stack.
        Deque<Object[]> stack = new ArrayDeque<>();
        seen.add(bb);
        stack.push(new Object[] {bb, 0});
        while (!stack.isEmpty()) {
            Object[] top = stack.peek();
            BB b = (BB) top[0];
            int i = (int) top[1];
            if (i < b.succs.size()) {
                top[1] = i + 1;
                BB s = bbs.get(b.succs.get(i));
                if (seen.add(s)) {
                    stack.push(new Object[] {s, 0});
                }
            } else {
                stack.pop();
                post.add(b);
            }
        }
    }

    private void edge(Block from, Block to) {
        from.succs.add(to);
        to.preds.add(from);
    }

    /** One more predecessor of {@code bb} is translated; seal it when it was the last. */
    private void arrive(BB bb) {
        if (--bb.pending == 0) {
            seal(bb.ir);
        }
    }

    private void translateBlock(Frame f, BB bb, Map<Integer, BB> bbs) {
        Block cur = bb.ir;
        List<Node> stack = new ArrayList<>();
        if (bb.entryStack == null) {
            // Only reachable through back edges with a non-empty stack: javac never does this.
            reasons.add("unsupported stack shape in " + methodName(f.cls, f.method) + " at " + f.site(bb.start));
            return;
        }
        for (int d = 0; d < bb.entryStack.size(); d++) {
            stack.add(read(new Var(f.id, -1 - d, bb.entryStack.get(d)), cur));
        }
        State st = new State(f, cur, stack);
        boolean ended = false;
        for (int i = bb.start; i < bb.end && !ended; i++) {
            st.index = i;
            ended = st.step(f.insns.get(i), bbs, bb);
            if (g.nodeCount() > MAX_NODES) {
                reasons.add("kernel " + g.name + " is too large to compile (over " + MAX_NODES + " IR nodes after inlining)");
                throw new Decline(new ArrayList<>(reasons));
            }
        }
        if (!ended) {
            // Fall through into the next block.
            st.jumpTo(bbs.get(bb.end), bb);
        }
    }

    /** Translation state inside one basic block. */
    private final class State {
        final Frame f;
        Block cur;
        final List<Node> stack;
        int index;

        State(Frame f, Block cur, List<Node> stack) {
            this.f = f;
            this.cur = cur;
            this.stack = stack;
        }

        Site site() {
            return f.site(index);
        }

        void push(Node n) {
            stack.add(n);
        }

        Node pop() {
            return stack.remove(stack.size() - 1);
        }

        Node emit(Op op, Kind k, Object aux, Node... ins) {
            Node n = g.node(op, k, site(), aux, ins);
            place(n, cur);
            return n;
        }

        Node constant(Kind k, Object value) {
            return emit(Op.CONST, k, value);
        }

        void unsupported(String what) {
            reasons.add(what + " at " + site());
        }

        /** Ends the block: writes the stack into variables for the successors, links edges. */
        void leave(BB bb, Map<Integer, BB> bbs) {
            List<Character> cats = new ArrayList<>();
            for (int d = 0; d < stack.size(); d++) {
                Node v = stack.get(d);
                char c = catOf(v.kind);
                cats.add(c);
                write(new Var(f.id, -1 - d, c), cur, v);
            }
            for (int s : bb.succs) {
                BB t = bbs.get(s);
                if (t.entryStack == null) {
                    t.entryStack = List.copyOf(cats);
                }
                edge(cur, t.ir);
            }
            for (int s : bb.succs) {
                arrive(bbs.get(s));
            }
        }

        void jumpTo(BB target, BB bb) {
            cur.exit = Block.Exit.GOTO;
            cur.site = site();
            leave(bb, Map.of(target.start, target));
        }

        /** Translates one instruction; true when it ended the block. */
        boolean step(Instruction ins, Map<Integer, BB> bbs, BB bb) {
            // An instanceof chain, not a pattern switch: each pattern switch spins a class on its first run, a cost
            // of every first compile in a JVM (see Compiler's implementation notes).
            if (ins instanceof NopInstruction) {
                return false;
            } else if (ins instanceof ConstantInstruction c) {
                constantInstruction(c);
            } else if (ins instanceof LoadInstruction l) {
                char c = cat(l.typeKind());
                push(read(new Var(f.id, l.slot(), c), cur));
            } else if (ins instanceof StoreInstruction s) {
                write(new Var(f.id, s.slot(), cat(s.typeKind())), cur, pop());
            } else if (ins instanceof IncrementInstruction inc) {
                Var v = new Var(f.id, inc.slot(), 'I');
                Node x = read(v, cur);
                write(v, cur, emit(Op.ADD, Kind.INT, null, x, constant(Kind.INT, inc.constant())));
            } else if (ins instanceof OperatorInstruction op) {
                operator(op);
            } else if (ins instanceof ConvertInstruction cv) {
                convert(cv);
            } else if (ins instanceof StackInstruction s) {
                stackOp(s);
            } else if (ins instanceof ArrayLoadInstruction al) {
                Node idx = pop();
                Node arr = pop();
                Kind k = elementKind(al.typeKind());
                if (k == null) {
                    unsupported(al.typeKind().upperBound().displayName() + "[] element load");
                    push(undef(Kind.INT));
                } else {
                    // The array's kind is checked after SSA construction (validate): a phi of a block not yet
                    // sealed has none yet.
                    push(emit(Op.LOAD, k, null, arr, idx));
                }
            } else if (ins instanceof ArrayStoreInstruction as) {
                Node val = pop();
                Node idx = pop();
                Node arr = pop();
                Kind k = elementKind(as.typeKind());
                if (k == null) {
                    unsupported(as.typeKind().upperBound().displayName() + "[] element store");
                } else {
                    emit(Op.STORE, Kind.VOID, null, arr, idx, val);
                }
            } else if (ins instanceof BranchInstruction br) {
                branch(br, bbs, bb);
                return true;
            } else if (ins instanceof TableSwitchInstruction ts) {
                switchOn(caseValues(ts.cases()), bbs, bb);
                return true;
            } else if (ins instanceof LookupSwitchInstruction ls) {
                switchOn(caseValues(ls.cases()), bbs, bb);
                return true;
            } else if (ins instanceof ReturnInstruction r) {
                ret(r, bb);
                return true;
            } else if (ins instanceof InvokeInstruction inv) {
                invoke(inv);
            } else if (ins instanceof FieldInstruction fi) {
                field(fi);
            } else if (ins instanceof ThrowInstruction) {
                unsupported("throw statement");
                cur.exit = Block.Exit.RETURN;
                return true;
            } else if (ins instanceof InvokeDynamicInstruction indy) {
                unsupported("invokedynamic (" + indy.name().stringValue() + ": string concatenation or lambda creation)");
                popArgs(indy.typeSymbol().descriptorString());
                pushResult(indy.typeSymbol().returnType().descriptorString());
            } else if (ins instanceof NewObjectInstruction no) {
                unsupported("object allocation (new " + no.className().asInternalName().replace('/', '.') + ")");
                push(undef(Kind.VOID));
            } else if (ins instanceof NewPrimitiveArrayInstruction na) {
                unsupported("array allocation (new " + na.typeKind().upperBound().displayName() + "[])");
                pop();
                push(undef(Kind.VOID));
            } else if (ins instanceof NewReferenceArrayInstruction na) {
                unsupported("array allocation (new " + na.componentType().asInternalName().replace('/', '.') + "[])");
                pop();
                push(undef(Kind.VOID));
            } else if (ins instanceof NewMultiArrayInstruction na) {
                unsupported("array allocation (multianewarray)");
                for (int k = 0; k < na.dimensions(); k++) {
                    pop();
                }
                push(undef(Kind.VOID));
            } else if (ins instanceof MonitorInstruction) {
                unsupported("synchronized block");
                pop();
            } else if (ins instanceof TypeCheckInstruction tc) {
                unsupported((tc.opcode() == Opcode.CHECKCAST ? "cast to " : "instanceof ")
                        + tc.type().asInternalName().replace('/', '.'));
                if (tc.opcode() == Opcode.INSTANCEOF) {
                    pop();
                    push(undef(Kind.INT));
                }
            } else {
                unsupported("bytecode " + ins.opcode().name().toLowerCase());
            }
            return false;
        }

        private static int[] caseValues(List<SwitchCase> cases) {
            int[] keys = new int[cases.size()];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = cases.get(i).caseValue();
            }
            return keys;
        }

        private void constantInstruction(ConstantInstruction c) {
            Object v = c.constantValue();
            if (v instanceof Integer i) {
                push(constant(Kind.INT, i));
            } else if (v instanceof Long l) {
                push(constant(Kind.LONG, l));
            } else if (v instanceof Float x) {
                push(constant(Kind.FLOAT, x));
            } else if (v instanceof Double d) {
                push(constant(Kind.DOUBLE, d));
            } else if (v == null) {
                unsupported("null constant");
                push(undef(Kind.VOID));
            } else {
                unsupported("constant of type " + v.getClass().getSimpleName() + " (" + v + ")");
                push(undef(Kind.VOID));
            }
        }

        private void operator(OperatorInstruction op) {
            Kind k = kindOf(op.typeKind());
            switch (op.opcode()) {
                case INEG, LNEG, FNEG, DNEG -> push(emit(Op.NEG, k, null, pop()));
                case ARRAYLENGTH -> push(emit(Op.LENGTH, Kind.INT, null, pop()));
                case LCMP, FCMPL, FCMPG, DCMPL, DCMPG -> {
                    Node b = pop();
                    Node a = pop();
                    boolean nanIsOne = op.opcode() == Opcode.FCMPG || op.opcode() == Opcode.DCMPG;
                    push(emit(Op.CMP, Kind.INT, nanIsOne, a, b));
                }
                default -> {
                    Node b = pop();
                    Node a = pop();
                    Op o = switch (op.opcode()) {
                        case IADD, LADD, FADD, DADD -> Op.ADD;
                        case ISUB, LSUB, FSUB, DSUB -> Op.SUB;
                        case IMUL, LMUL, FMUL, DMUL -> Op.MUL;
                        case IDIV, LDIV, FDIV, DDIV -> Op.DIV;
                        case IREM, LREM, FREM, DREM -> Op.REM;
                        case ISHL, LSHL -> Op.SHL;
                        case ISHR, LSHR -> Op.SHR;
                        case IUSHR, LUSHR -> Op.USHR;
                        case IAND, LAND -> Op.AND;
                        case IOR, LOR -> Op.OR;
                        case IXOR, LXOR -> Op.XOR;
                        default -> null;
                    };
                    if (o == null) {
                        unsupported("bytecode " + op.opcode().name().toLowerCase());
                        push(undef(k));
                    } else {
                        push(emit(o, k, null, a, b));
                    }
                }
            }
        }

        private void convert(ConvertInstruction cv) {
            Node x = pop();
            Conv c = switch (cv.toType()) {
                case BYTE -> Conv.I2B;
                case CHAR -> Conv.I2C;
                case SHORT -> Conv.I2S;
                default -> Conv.of(kindOf(cv.fromType()), kindOf(cv.toType()));
            };
            // (float) f((double) x) with a float form of f: compute in float.
            if (c == Conv.D2F && x.op == Op.CALL && x.block == cur && cur.nodes.get(cur.nodes.size() - 1) == x) {
                Fn ff = Intrinsics.floatForm((Fn) x.aux);
                if (ff != null && allFloatsWidened(x.in)) {
                    Node[] fargs = new Node[x.in.size()];
                    for (int i = 0; i < fargs.length; i++) {
                        fargs[i] = x.in(i).in(0);
                    }
                    cur.nodes.remove(x);
                    push(emit(Op.CALL, Kind.FLOAT, ff, fargs));
                    return;
                }
            }
            push(emit(Op.CONV, c.to, c, x));
        }

        private static boolean allFloatsWidened(List<Node> args) {
            for (Node a : args) {
                if (a.op != Op.CONV || a.aux != Conv.F2D) {
                    return false;
                }
            }
            return true;
        }

        private void stackOp(StackInstruction s) {
            switch (s.opcode()) {
                case POP -> pop();
                case POP2 -> {
                    if (!pop().kind.isWide()) {
                        pop();
                    }
                }
                case DUP -> {
                    Node a = pop();
                    push(a);
                    push(a);
                }
                case DUP_X1 -> {
                    Node a = pop();
                    Node b = pop();
                    push(a);
                    push(b);
                    push(a);
                }
                case DUP_X2 -> {
                    Node a = pop();
                    Node b = pop();
                    if (b.kind.isWide()) {
                        push(a);
                        push(b);
                        push(a);
                    } else {
                        Node c = pop();
                        push(a);
                        push(c);
                        push(b);
                        push(a);
                    }
                }
                case DUP2 -> {
                    Node a = pop();
                    if (a.kind.isWide()) {
                        push(a);
                        push(a);
                    } else {
                        Node b = pop();
                        push(b);
                        push(a);
                        push(b);
                        push(a);
                    }
                }
                case DUP2_X1 -> {
                    Node a = pop();
                    if (a.kind.isWide()) {
                        Node b = pop();
                        push(a);
                        push(b);
                        push(a);
                    } else {
                        Node b = pop();
                        Node c = pop();
                        push(b);
                        push(a);
                        push(c);
                        push(b);
                        push(a);
                    }
                }
                case DUP2_X2 -> {
                    Node a = pop();
                    if (a.kind.isWide()) {
                        Node b = pop();
                        if (b.kind.isWide()) {
                            push(a);
                            push(b);
                            push(a);
                        } else {
                            Node c = pop();
                            push(a);
                            push(c);
                            push(b);
                            push(a);
                        }
                    } else {
                        Node b = pop();
                        Node c = pop();
                        if (c.kind.isWide()) {
                            push(b);
                            push(a);
                            push(c);
                            push(b);
                            push(a);
                        } else {
                            Node d = pop();
                            push(b);
                            push(a);
                            push(d);
                            push(c);
                            push(b);
                            push(a);
                        }
                    }
                }
                case SWAP -> {
                    Node a = pop();
                    Node b = pop();
                    push(a);
                    push(b);
                }
                default -> unsupported("bytecode " + s.opcode().name().toLowerCase());
            }
        }

        private void branch(BranchInstruction br, Map<Integer, BB> bbs, BB bb) {
            Opcode o = br.opcode();
            if (o == Opcode.GOTO || o == Opcode.GOTO_W) {
                cur.exit = Block.Exit.GOTO;
                cur.site = site();
                leave(bb, bbs);
                return;
            }
            Node cond;
            switch (o) {
                case IFEQ, IFNE, IFLT, IFGE, IFGT, IFLE -> {
                    Node v = pop();
                    Cond.Pred p = pred(o);
                    if (v.op == Op.CMP && v.block == cur) {
                        Node a = v.in(0);
                        Node b = v.in(1);
                        boolean nanIsOne = (Boolean) v.aux;
                        boolean fp = a.kind == Kind.FLOAT || a.kind == Kind.DOUBLE;
                        boolean unordered = fp && holds(p, nanIsOne ? 1 : -1);
                        cond = emit(Op.TEST, Kind.BOOL, new Cond(p, unordered), a, b);
                    } else {
                        cond = emit(Op.TEST, Kind.BOOL, new Cond(p, false), v, constant(Kind.INT, 0));
                    }
                }
                case IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE -> {
                    Node b = pop();
                    Node a = pop();
                    cond = emit(Op.TEST, Kind.BOOL, new Cond(pred(o), false), a, b);
                }
                default -> {
                    unsupported("reference comparison (" + o.name().toLowerCase() + ")");
                    pop();
                    if (o == Opcode.IF_ACMPEQ || o == Opcode.IF_ACMPNE) {
                        pop();
                    }
                    cond = undef(Kind.BOOL);
                }
            }
            cur.exit = Block.Exit.IF;
            cur.cond = cond;
            cur.site = site();
            leave(bb, bbs);
        }

        private void switchOn(int[] keys, Map<Integer, BB> bbs, BB bb) {
            Node v = pop();
            cur.exit = Block.Exit.SWITCH;
            cur.cond = v;
            cur.keys = keys;
            cur.site = site();
            leave(bb, bbs);
        }

        private void ret(ReturnInstruction r, BB bb) {
            if (f.cont == null) {
                cur.exit = Block.Exit.RETURN;
                cur.site = site();
                return;
            }
            if (r.typeKind() != TypeKind.VOID) {
                write(new Var(f.id, RET_SLOT, f.retCat), cur, pop());
            }
            cur.exit = Block.Exit.GOTO;
            cur.site = site();
            edge(cur, f.cont);
        }

        private void field(FieldInstruction fi) {
            String owner = fi.owner().asInternalName();
            String name = fi.name().stringValue();
            String desc = fi.typeSymbol().descriptorString();
            if (fi.opcode() != Opcode.GETSTATIC) {
                unsupported((fi.opcode() == Opcode.PUTSTATIC || fi.opcode() == Opcode.PUTFIELD ? "write to field " : "read of field ")
                        + owner.replace('/', '.') + "." + name);
                if (fi.opcode() == Opcode.PUTFIELD) {
                    pop();
                    pop();
                } else if (fi.opcode() == Opcode.PUTSTATIC) {
                    pop();
                } else {
                    pop();
                    pushResult(desc);
                }
                return;
            }
            Kind k = paramKind(desc);
            if (k == null) {
                unsupported("read of static field " + owner.replace('/', '.') + "." + name + " of type " + desc);
                pushResult(desc);
                return;
            }
            String key = owner + "." + name;
            Node p = statics.get(key);
            if (p == null) {
                Param param = new Param(g.params.size(), k, owner.substring(owner.lastIndexOf('/') + 1) + "." + name,
                        owner.replace('/', '.'), name);
                g.params.add(param);
                p = g.node(Op.PARAM, k, site(), param);
                place(p, entry);
                statics.put(key, p);
            }
            push(p);
        }

        private void invoke(InvokeInstruction inv) {
            String owner = inv.owner().asInternalName();
            String name = inv.name().stringValue();
            String desc = inv.typeSymbol().descriptorString();
            if (owner.equals("dev/weft/ThreadContext")) {
                contextCall(name, desc);
                return;
            }
            if (inv.opcode() != Opcode.INVOKESTATIC) {
                unsupported("call to " + owner.replace('/', '.') + "." + name + " (only static methods and Math functions are compiled)");
                popArgs(desc);
                pop();
                pushResult(inv.typeSymbol().returnType().descriptorString());
                return;
            }
            if (owner.equals("dev/weft/Atomics")) {
                Node[] args = popArgs(desc);
                push(emit(Op.ATOMIC, Intrinsics.kindOf(desc.charAt(desc.indexOf(')') + 1)), new Atomic(name, desc), args));
                return;
            }
            Fn fn = Intrinsics.lookup(owner, name, desc);
            if (fn != null) {
                Node[] args = popArgs(desc);
                push(emit(Op.CALL, fn.result(), fn, args));
                return;
            }
            if (FloorOps.covers(owner, name, desc)) {
                inline(FloorOps.OWNER, name, desc);
                return;
            }
            if (owner.startsWith("java/") || owner.startsWith("javax/") || owner.startsWith("jdk/") || owner.startsWith("sun/")
                    || isWeftApi(owner)) {
                unsupported("call to " + owner.replace('/', '.') + "." + name + desc + ": not a function the SIMD backend knows");
                popArgs(desc);
                pushResult(inv.typeSymbol().returnType().descriptorString());
                return;
            }
            inline(owner, name, desc);
        }

        private void inline(String owner, String name, String desc) {
            String key = owner + "." + name + desc;
            Node[] args = popArgs(desc);
            String rdesc = desc.substring(desc.indexOf(')') + 1);
            if (callStack.contains(key)) {
                unsupported("recursive call to " + owner.replace('/', '.') + "." + name);
                pushResult(rdesc);
                return;
            }
            ClassModel cm = owner.equals(FloorOps.OWNER) ? FloorOps.model() : classes.load(owner);
            MethodModel mm = null;
            if (cm != null) {
                for (MethodModel m : cm.methods()) {
                    if (m.methodName().equalsString(name) && m.methodType().equalsString(desc)) {
                        mm = m;
                    }
                }
            }
            if (mm == null) {
                unsupported("call to " + owner.replace('/', '.') + "." + name + ": its class file cannot be read");
                pushResult(rdesc);
                return;
            }
            for (Node a : args) {
                if (a.kind == Kind.VOID && a.op == Op.UNDEF) {
                    pushResult(rdesc);
                    return;
                }
            }
            Block cont = g.newBlock();
            cont.site = site();
            callStack.push(key);
            int callee = translate(cm, mm, List.of(args), cur, cont);
            callStack.pop();
            cur = cont;
            if (!rdesc.equals("V")) {
                push(read(new Var(callee, RET_SLOT, cat(rdesc)), cont));
            }
        }

        private void contextCall(String name, String desc) {
            Node[] args = popArgs(desc);
            Node ctx = pop().resolve();
            if (ctx.op == Op.PHI && ctx.kind == Kind.VOID) {
                pendingReceivers.put(ctx, "ThreadContext call on an unknown receiver at " + site());
            } else if (ctx.kind != Kind.CONTEXT) {
                unsupported("ThreadContext call on an unknown receiver");
            }
            if (WARP_OPS.contains(name)) {
                warpOp(name, desc, args);
                return;
            }
            switch (name) {
                case "threadIdxX" -> push(sreg(SReg.TID_X));
                case "threadIdxY" -> push(sreg(SReg.TID_Y));
                case "threadIdxZ" -> push(sreg(SReg.TID_Z));
                case "blockIdxX" -> push(sreg(SReg.CTAID_X));
                case "blockIdxY" -> push(sreg(SReg.CTAID_Y));
                case "blockIdxZ" -> push(sreg(SReg.CTAID_Z));
                case "blockDimX" -> push(sreg(SReg.NTID_X));
                case "blockDimY" -> push(sreg(SReg.NTID_Y));
                case "blockDimZ" -> push(sreg(SReg.NTID_Z));
                case "gridDimX" -> push(sreg(SReg.NCTAID_X));
                case "gridDimY" -> push(sreg(SReg.NCTAID_Y));
                case "gridDimZ" -> push(sreg(SReg.NCTAID_Z));
                case "globalIdX" -> push(global(SReg.CTAID_X, SReg.NTID_X, SReg.TID_X));
                case "globalIdY" -> push(global(SReg.CTAID_Y, SReg.NTID_Y, SReg.TID_Y));
                case "globalIdZ" -> push(global(SReg.CTAID_Z, SReg.NTID_Z, SReg.TID_Z));
                case "linearThreadIdx" -> push(sreg(SReg.LINEAR_TID));
                case "laneId" -> push(sreg(SReg.LANE_ID));
                case "warpId" -> push(sreg(SReg.WARP_ID));
                case "warpSize" -> push(sreg(SReg.WARP_SIZE));
                case "sharedInts" -> push(emit(Op.SHARED, Kind.INT_ARRAY, null, args[0]));
                case "sharedLongs" -> push(emit(Op.SHARED, Kind.LONG_ARRAY, null, args[0]));
                case "sharedFloats" -> push(emit(Op.SHARED, Kind.FLOAT_ARRAY, null, args[0]));
                case "sharedDoubles" -> push(emit(Op.SHARED, Kind.DOUBLE_ARRAY, null, args[0]));
                case "syncThreads" -> emit(Op.BARRIER, Kind.VOID, barrier());
                default -> {
                    unsupported("ThreadContext." + name + "()");
                    pushResult(desc.substring(desc.indexOf(')') + 1));
                }
            }
        }

        /**
         * A vote or shuffle. The two-argument shuffles are the interface's default methods: their width is the
         * warp size. A shuffle width must be a compile-time constant (the compiler checks it against the warp
         * size when it knows that; an invalid one declines the kernel, whose reference run reports it).
         */
        private void warpOp(String name, String desc, Node[] args) {
            boolean isFloat = desc.startsWith("(F");
            Kind rk = Intrinsics.kindOf(desc.charAt(desc.indexOf(')') + 1));
            Warp w = new Warp(name, isFloat);
            Node[] ins = args;
            if (!w.isVote()) {
                ins = args.length == 3 ? args : new Node[] {args[0], args[1], sreg(SReg.WARP_SIZE)};
                Node width = ins[2].resolve();
                if (!(width.op == Op.CONST || (width.op == Op.SREG && width.aux == SReg.WARP_SIZE))) {
                    unsupported("warp shuffle " + name + " with a width that is not a constant");
                }
            }
            for (Node a : ins) {
                if (a.kind != Kind.INT && a.kind != Kind.FLOAT) {
                    unsupported("warp operation " + name + " on a value of type " + a.kind.text());
                }
            }
            push(emit(Op.WARP, rk, w, ins));
        }

        /** This call instruction's barrier: a new node number, the instruction's site number, its description. */
        private Barrier barrier() {
            String key = f.cls.thisClass().asInternalName() + "." + f.method.methodName().stringValue()
                    + f.method.methodType().stringValue() + "#" + index;
            Integer siteNumber = barrierSites.get(key);
            if (siteNumber == null) {
                siteNumber = barrierSites.size() + 1;
                barrierSites.put(key, siteNumber);
            }
            String owner = f.cls.thisClass().asInternalName();
            String simple = owner.substring(owner.lastIndexOf('/') + 1);
            simple = simple.substring(simple.lastIndexOf('$') + 1);
            Site s = site();
            String where = simple + "." + f.method.methodName().stringValue() + "(" + s.file() + ":" + s.line() + ")";
            return new Barrier(++barrierNodes, siteNumber, where);
        }

        private Node sreg(SReg r) {
            return emit(Op.SREG, Kind.INT, r);
        }

        private Node global(SReg ctaid, SReg ntid, SReg tid) {
            Node m = emit(Op.MUL, Kind.INT, null, sreg(ctaid), sreg(ntid));
            return emit(Op.ADD, Kind.INT, null, m, sreg(tid));
        }

        private Node[] popArgs(String desc) {
            List<String> ps = splitParams(desc);
            Node[] args = new Node[ps.size()];
            for (int i = ps.size() - 1; i >= 0; i--) {
                args[i] = pop();
            }
            return args;
        }

        private void pushResult(String rdesc) {
            if (rdesc.startsWith(")")) {
                rdesc = rdesc.substring(1);
            }
            if (rdesc.contains(")")) {
                rdesc = rdesc.substring(rdesc.indexOf(')') + 1);
            }
            if (!rdesc.equals("V")) {
                Kind k = paramKind(rdesc);
                push(undef(k == null ? Kind.VOID : k));
            }
        }
    }

    /** Weft's own classes, which kernels call only through the known functions: never inlined. */
    private static boolean isWeftApi(String owner) {
        return owner.startsWith("dev/weft/") && owner.indexOf('/', "dev/weft/".length()) < 0
                || owner.startsWith("dev/weft/runtime/") || owner.startsWith("dev/weft/internal/")
                || owner.startsWith("dev/weft/simd/internal/") || owner.startsWith("dev/weft/simd/sfu/");
    }

    private static boolean holds(Cond.Pred p, int cmp) {
        return switch (p) {
            case EQ -> cmp == 0;
            case NE -> cmp != 0;
            case LT -> cmp < 0;
            case GE -> cmp >= 0;
            case GT -> cmp > 0;
            case LE -> cmp <= 0;
        };
    }

    private static Cond.Pred pred(Opcode o) {
        return switch (o) {
            case IFEQ, IF_ICMPEQ -> Cond.Pred.EQ;
            case IFNE, IF_ICMPNE -> Cond.Pred.NE;
            case IFLT, IF_ICMPLT -> Cond.Pred.LT;
            case IFGE, IF_ICMPGE -> Cond.Pred.GE;
            case IFGT, IF_ICMPGT -> Cond.Pred.GT;
            case IFLE, IF_ICMPLE -> Cond.Pred.LE;
            default -> throw new IllegalArgumentException(o.toString());
        };
    }

    // ---- helpers ----------------------------------------------------------------------------

    private void place(Node n, Block b) {
        n.block = b;
        b.nodes.add(n);
    }

    static List<String> splitParams(String desc) {
        List<String> out = new ArrayList<>();
        int i = 1;
        while (desc.charAt(i) != ')') {
            int start = i;
            while (desc.charAt(i) == '[') {
                i++;
            }
            if (desc.charAt(i) == 'L') {
                i = desc.indexOf(';', i);
            }
            i++;
            out.add(desc.substring(start, i));
        }
        return out;
    }

    /** The kind of a parameter or field descriptor the compiler handles, or null. */
    static Kind paramKind(String d) {
        return switch (d) {
            case "I", "Z", "B", "S", "C" -> Kind.INT;
            case "J" -> Kind.LONG;
            case "F" -> Kind.FLOAT;
            case "D" -> Kind.DOUBLE;
            case "[I" -> Kind.INT_ARRAY;
            case "[J" -> Kind.LONG_ARRAY;
            case "[F" -> Kind.FLOAT_ARRAY;
            case "[D" -> Kind.DOUBLE_ARRAY;
            case "[B" -> Kind.BYTE_ARRAY;
            case "[S" -> Kind.SHORT_ARRAY;
            case "[C" -> Kind.CHAR_ARRAY;
            case "[Z" -> Kind.BOOLEAN_ARRAY;
            default -> null;
        };
    }

    private static char cat(String d) {
        return switch (d.charAt(0)) {
            case 'I', 'Z', 'B', 'S', 'C' -> 'I';
            case 'J' -> 'J';
            case 'F' -> 'F';
            case 'D' -> 'D';
            default -> 'A';
        };
    }

    private static char cat(TypeKind t) {
        return switch (t) {
            case INT, BOOLEAN, BYTE, SHORT, CHAR -> 'I';
            case LONG -> 'J';
            case FLOAT -> 'F';
            case DOUBLE -> 'D';
            default -> 'A';
        };
    }

    private static char catOf(Kind k) {
        return switch (k) {
            case INT, BOOL -> 'I';
            case LONG -> 'J';
            case FLOAT -> 'F';
            case DOUBLE -> 'D';
            default -> 'A';
        };
    }

    private static Kind kindOfCat(char c) {
        return switch (c) {
            case 'I' -> Kind.INT;
            case 'J' -> Kind.LONG;
            case 'F' -> Kind.FLOAT;
            case 'D' -> Kind.DOUBLE;
            default -> Kind.VOID;
        };
    }

    private static Kind kindOf(TypeKind t) {
        return switch (t) {
            case INT, BOOLEAN, BYTE, SHORT, CHAR -> Kind.INT;
            case LONG -> Kind.LONG;
            case FLOAT -> Kind.FLOAT;
            case DOUBLE -> Kind.DOUBLE;
            default -> Kind.VOID;
        };
    }

    /**
     * The kind of the values an array instruction of {@code t} loads or stores: narrow elements are ints, as on
     * the operand stack. ({@code baload} serves byte and boolean arrays alike: the array's own kind, from its
     * parameter, says which.)
     */
    private static Kind elementKind(TypeKind t) {
        return switch (t) {
            case INT, BYTE, SHORT, CHAR, BOOLEAN -> Kind.INT;
            case LONG -> Kind.LONG;
            case FLOAT -> Kind.FLOAT;
            case DOUBLE -> Kind.DOUBLE;
            default -> null;
        };
    }

    static String sourceFile(ClassModel cls) {
        Optional<SourceFileAttribute> a = cls.findAttribute(Attributes.sourceFile());
        return a.isPresent() ? a.get().sourceFile().stringValue() : cls.thisClass().asInternalName().replace('/', '.');
    }

    private static int firstLine(MethodModel m) {
        if (m.code().isPresent()) {
            for (CodeElement e : m.code().get()) {
                if (e instanceof LineNumber ln) {
                    return ln.line();
                }
            }
        }
        return -1;
    }

    private static String methodName(ClassModel cls, MethodModel m) {
        String c = cls.thisClass().asInternalName();
        return c.substring(c.lastIndexOf('/') + 1) + "." + m.methodName().stringValue();
    }

    /** Points every operand, phi input and branch condition at what it resolves to after phis were removed. */
    private static void resolveAll(List<Node> in) {
        for (int i = 0; i < in.size(); i++) {
            in.set(i, in.get(i).resolve());
        }
    }

    private static void resolveOperands(Graph g) {
        for (Block b : g.blocks) {
            for (Node n : b.phis) {
                resolveAll(n.in);
            }
            for (Node n : b.nodes) {
                resolveAll(n.in);
            }
            if (b.cond != null) {
                b.cond = b.cond.resolve();
            }
        }
    }
}
