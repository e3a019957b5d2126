package dev.weft.simd.internal.gen;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.DiscontinuedInstruction;
import java.lang.classfile.instruction.ExceptionCatch;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.LookupSwitchInstruction;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.classfile.instruction.StackInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.classfile.instruction.TableSwitchInstruction;
import java.lang.classfile.instruction.ThrowInstruction;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Removes from generated methods what the JIT would drop anyway but what counts against its 8000-byte limit
 * ({@link CodeGen#HUGE_METHOD_LIMIT}): jumps through {@code goto}s and to where falling through leads, code no path
 * reaches (a method per resume point carries the kernel's whole code) and stores of values no later load reads (the
 * code generator initialises per group every vector and mask local that some path may read before writing, and most
 * are written first on every path). A dead store becomes a {@code pop}, which vanishes with the {@code dup} or the
 * push before it.
 *
 * <p>C2 builds its graph from the reachable code, in SSA form, and keeps in a deoptimisation's state only the
 * locals a later instruction reads: neither removal changes what it compiles.
 */
final class BytecodeTrim {

    private BytecodeTrim() {
    }

    /** The class with every method's code trimmed; {@code cf} the context that built it. */
    static byte[] trim(ClassFile cf, byte[] bytes) {
        return rewritten(cf, bytes, (mm, code) -> trimmed(code));
    }

    /**
     * The class with each method's code replaced by what {@code rewrite} makes of it, in order; a method for which it
     * returns null keeps its code. Also {@link HotLocals}'s.
     */
    static byte[] rewritten(ClassFile cf, byte[] bytes, BiFunction<MethodModel, CodeModel, List<CodeElement>> rewrite) {
        ClassModel cm = cf.parse(bytes);
        return cf.transformClass(cm, (clb, ce) -> {
            List<CodeElement> code = ce instanceof MethodModel mm && mm.code().isPresent() ? rewrite.apply(mm, mm.code().get()) : null;
            if (code == null) {
                clb.with(ce);
                return;
            }
            clb.transformMethod((MethodModel) ce, (mb, me) -> {
                if (me instanceof CodeModel) {
                    mb.withCode(cb -> code.forEach(cb::with));
                } else {
                    mb.with(me);
                }
            });
        });
    }

    /** The code's elements without the unreachable instructions and dead stores, in order. */
    private static List<CodeElement> trimmed(CodeModel code) {
        List<CodeElement> els = threaded(code.elementList());
        int n = els.size();
        Map<Label, Integer> at = new HashMap<>();
        List<ExceptionCatch> catches = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CodeElement e = els.get(i);
            if (e instanceof LabelTarget t) {
                at.put(t.label(), i);
            } else if (e instanceof ExceptionCatch c) {
                catches.add(c);
            } else if (e instanceof DiscontinuedInstruction) {
                return els; // jsr and ret: never generated; left alone
            }
        }
        // Exception handlers: an instruction in a protected range may continue at its handler.
        List<int[]> extra = new ArrayList<>();
        for (ExceptionCatch c : catches) {
            int from = at.get(c.tryStart());
            int to = at.get(c.tryEnd());
            int h = at.get(c.handler());
            for (int i = from; i < to; i++) {
                if (els.get(i) instanceof Instruction) {
                    extra.add(new int[] {i, h});
                }
            }
        }
        int[][] succ = new int[n][];
        for (int i = 0; i < n; i++) {
            succ[i] = successors(els, i, at);
        }
        for (int[] ih : extra) {
            int[] s = succ[ih[0]];
            int[] t = java.util.Arrays.copyOf(s, s.length + 1);
            t[s.length] = ih[1];
            succ[ih[0]] = t;
        }
        // Reachability from the entry.
        BitSet reached = new BitSet(n);
        ArrayDeque<Integer> work = new ArrayDeque<>();
        work.add(0);
        reached.set(0);
        while (!work.isEmpty()) {
            int i = work.poll();
            for (int s : succ[i]) {
                if (s < n && !reached.get(s)) {
                    reached.set(s);
                    work.add(s);
                }
            }
        }
        // Liveness of locals, backwards to a fixpoint over the reachable elements.
        BitSet[] liveIn = new BitSet[n + 1];
        for (int i = 0; i <= n; i++) {
            liveIn[i] = new BitSet();
        }
        List<List<Integer>> preds = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            preds.add(new ArrayList<>(2));
        }
        for (int i = 0; i < n; i++) {
            if (reached.get(i)) {
                for (int s : succ[i]) {
                    if (s < n) {
                        preds.get(s).add(i);
                    }
                }
            }
        }
        BitSet queued = new BitSet(n);
        for (int i = n - 1; i >= 0; i--) {
            if (reached.get(i)) {
                work.add(i);
                queued.set(i);
            }
        }
        while (!work.isEmpty()) {
            int i = work.poll();
            queued.clear(i);
            BitSet in = liveOut(succ[i], liveIn, n);
            CodeElement e = els.get(i);
            if (e instanceof StoreInstruction s) {
                in.clear(s.slot());
            } else if (e instanceof LoadInstruction l) {
                in.set(l.slot());
            } else if (e instanceof IncrementInstruction inc) {
                in.set(inc.slot());
            }
            if (!in.equals(liveIn[i])) {
                liveIn[i] = in;
                for (int p : preds.get(i)) {
                    if (!queued.get(p)) {
                        queued.set(p);
                        work.add(p);
                    }
                }
            }
        }
        List<CodeElement> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CodeElement e = els.get(i);
            if (e instanceof Instruction && !reached.get(i)) {
                continue;
            }
            if (e instanceof ExceptionCatch c && !reachesInstruction(els, reached, at.get(c.tryStart()), at.get(c.tryEnd()))) {
                continue; // nothing of its range is left, and the JVM refuses an empty range
            }
            if (e instanceof StoreInstruction s && !liveOut(succ[i], liveIn, n).get(s.slot())) {
                pop(out, s.typeKind().slotSize());
                continue;
            }
            out.add(e);
        }
        return out;
    }

    /**
     * The elements with every jump to a {@code goto} sent to that {@code goto}'s target, and without jumps to the
     * next instruction. The code generator emits both where blocks and fault paths end (a fault path's {@code goto}
     * to the shared exit, an arm's jump to a join that only jumps on): 3 bytes each, about 2% of a kernel over the
     * limit. A {@code goto} that only jumps reached becomes unreachable and goes with the rest.
     */
    private static List<CodeElement> threaded(List<CodeElement> els) {
        int n = els.size();
        Map<Label, Integer> at = new HashMap<>();
        for (int i = 0; i < n; i++) {
            if (els.get(i) instanceof LabelTarget t) {
                at.put(t.label(), i);
            }
        }
        List<CodeElement> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CodeElement e = els.get(i);
            if (e instanceof BranchInstruction b) {
                Label target = finalTarget(els, at, b.target());
                if (landing(els, at, i + 1) == nextInstruction(els, at.get(target))) {
                    // where falling through ends up too: a goto is nothing, a test only drops its operands
                    switch (b.opcode()) {
                        case GOTO, GOTO_W -> {
                        }
                        case IF_ICMPEQ, IF_ICMPNE, IF_ICMPLT, IF_ICMPGE, IF_ICMPGT, IF_ICMPLE, IF_ACMPEQ, IF_ACMPNE ->
                            out.add(StackInstruction.of(Opcode.POP2));
                        default -> out.add(StackInstruction.of(Opcode.POP));
                    }
                    continue;
                }
                if (target != b.target()) {
                    e = BranchInstruction.of(b.opcode(), target);
                }
            }
            out.add(e);
        }
        return out;
    }

    /** Where a jump to {@code l} ends up after the {@code goto}s it meets (at most a few; a cycle stops). */
    private static Label finalTarget(List<CodeElement> els, Map<Label, Integer> at, Label l) {
        Label t = l;
        for (int hops = 0; hops < 8; hops++) {
            Label g = gotoTarget(els, nextInstruction(els, at.get(t)));
            if (g == null || g == t) {
                break;
            }
            t = g;
        }
        return t;
    }

    /** The instruction that running on from element {@code from} reaches first, past the {@code goto}s it meets. */
    private static int landing(List<CodeElement> els, Map<Label, Integer> at, int from) {
        int i = nextInstruction(els, from);
        Label g = gotoTarget(els, i);
        return g == null ? i : nextInstruction(els, at.get(finalTarget(els, at, g)));
    }

    /** The target of the {@code goto} at element {@code i}, or null where there is none. */
    private static Label gotoTarget(List<CodeElement> els, int i) {
        return i < els.size() && els.get(i) instanceof BranchInstruction g
                && (g.opcode() == Opcode.GOTO || g.opcode() == Opcode.GOTO_W) ? g.target() : null;
    }

    /** The index of the first instruction at or after {@code from} (labels and other pseudo-elements skipped). */
    private static int nextInstruction(List<CodeElement> els, int from) {
        int i = from;
        while (i < els.size() && !(els.get(i) instanceof Instruction)) {
            i++;
        }
        return i;
    }

    private static boolean reachesInstruction(List<CodeElement> els, BitSet reached, int from, int to) {
        for (int i = reached.nextSetBit(from); i >= 0 && i < to; i = reached.nextSetBit(i + 1)) {
            if (els.get(i) instanceof Instruction) {
                return true;
            }
        }
        return false;
    }

    /** Drops a value of {@code size} slots from the stack: with the instruction that pushed it where that is plain. */
    private static void pop(List<CodeElement> out, int size) {
        CodeElement last = out.isEmpty() ? null : out.get(out.size() - 1);
        if (last instanceof Instruction ins) {
            Opcode dup = size == 1 ? Opcode.DUP : Opcode.DUP2;
            boolean push = last instanceof LoadInstruction l && l.typeKind().slotSize() == size
                    || last instanceof ConstantInstruction c && c.typeKind().slotSize() == size;
            if (ins.opcode() == dup || push) {
                out.remove(out.size() - 1);
                return;
            }
        }
        out.add(StackInstruction.of(size == 1 ? Opcode.POP : Opcode.POP2));
    }

    private static BitSet liveOut(int[] succ, BitSet[] liveIn, int n) {
        BitSet out = new BitSet();
        for (int s : succ) {
            if (s < n) {
                out.or(liveIn[s]);
            }
        }
        return out;
    }

    private static int[] successors(List<CodeElement> els, int i, Map<Label, Integer> at) {
        CodeElement e = els.get(i);
        if (e instanceof BranchInstruction b) {
            int t = at.get(b.target());
            boolean always = b.opcode() == Opcode.GOTO || b.opcode() == Opcode.GOTO_W;
            return always ? new int[] {t} : new int[] {i + 1, t};
        }
        if (e instanceof TableSwitchInstruction ts) {
            return cases(ts.defaultTarget(), ts.cases(), at);
        }
        if (e instanceof LookupSwitchInstruction ls) {
            return cases(ls.defaultTarget(), ls.cases(), at);
        }
        if (e instanceof ReturnInstruction || e instanceof ThrowInstruction) {
            return new int[0];
        }
        return new int[] {i + 1};
    }

    private static int[] cases(Label dflt, List<SwitchCase> cases, Map<Label, Integer> at) {
        int[] s = new int[cases.size() + 1];
        s[0] = at.get(dflt);
        for (int k = 0; k < cases.size(); k++) {
            s[k + 1] = at.get(cases.get(k).target());
        }
        return s;
    }
}
