package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;

import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Grid-stride loops ({@code for (i = globalIdX; i < n; i += blockDim.x * gridDim.x)}): the fast path that runs whole
 * iterations without mask arithmetic while every thread of the group stays in the loop, and, in kernels with
 * barriers, the pauses that interleave the loop across the CTA's groups.
 */
final class StrideLoopCode {
    /** The method this code is part of. */
    private final MethodGen method;
    private final CodeBuilder cb;
    private final Map<Block, int[]> classSlots;
    private final Map<Block, Label> endLabel;
    private final Set<Node> nullChecked;

    StrideLoopCode(MethodGen method) {
        this.method = method;
        this.cb = method.cb;
        this.classSlots = method.classSlots;
        this.endLabel = method.endLabel;
        this.nullChecked = method.nullChecked;
    }

    /** Per interleaved loop header: the local counting down the fast iterations left before the group pauses. */
    private final Map<Block, Integer> yieldCount = new HashMap<>();

    /**
     * The grid-stride fast path of a divergent loop, emitted before its header. While every thread of the group
     * is in the loop and one scalar test (the extreme lane against the bound) says every lane stays, an
     * iteration runs the header's other nodes and the body with full masks: no mask arithmetic, no blends of
     * the loop's values, no shadows (nobody leaves). When the test fails, the general masked loop takes over
     * at its header with every thread still in it and the loop's values as they are, so it runs the last,
     * partial iterations exactly as it would have. A thread faulting in the body leaves the fast path: the
     * masks it changed, and the back edge's copies, are those the general path would have made.
     */
    void fastStrideLoop(StrideLoops.StrideLoop sl) {
        Block h = sl.header();
        Block body = sl.body();
        Label general = cb.newLabel();
        Label top = cb.newLabel();
        Label fault = cb.newLabel();
        Integer yield = method.yieldIds.get(h);
        Label pause = cb.newLabel();
        if (yield != null) {
            cb.labelBinding(method.yieldResumeLabel(h));
            if (roundRobin(sl)) {
                roundRobinLoop(sl);
            }
        }
        int[] acc = method.accSlots.get(h);
        for (int r = 0; r < method.regs32; r++) {
            cb.aload(acc[r]);
            cb.invokevirtual(Vec.MASK, "allTrue", mt(CD_boolean));
            cb.ifeq(general);
        }
        wholeGroupMasks(h, body);
        Label hEnd = endLabel.get(h);
        Label bEnd = endLabel.get(body);
        endLabel.put(h, fault);
        endLabel.put(body, fault);
        int count = yield != null ? interleavedCount(h) : -1;
        cb.labelBinding(top);
        fastIteration(sl, general, count, pause, general);
        cb.goto_(top);
        if (!method.handlers.isEmpty()) {
            method.faults.emitHandlers();
        }
        if (yield != null) {
            interleavedPause(pause, yield, acc);
        }
        endLabel.put(h, hEnd);
        endLabel.put(body, bEnd);
        // Every thread of the body faulted: none goes on.
        cb.labelBinding(fault);
        method.noneInto(acc);
        cb.labelBinding(general);
        method.cur = h;
        nullChecked.clear();
    }

    /**
     * The fast iterations before an interleaved loop's group pauses, in a new local: {@link CodeGen#interleaveIterations},
     * or never when the CTA is one group (there is no other group to give the core's loads to).
     */
    private int interleavedCount(Block h) {
        Integer count = yieldCount.get(h);
        if (count == null) {
            count = method.local(TypeKind.INT);
            yieldCount.put(h, count);
        }
        Label one = cb.newLabel();
        Label set = cb.newLabel();
        cb.iload(method.threadsSlot);
        cb.loadConstant(method.n);
        cb.if_icmple(one);
        cb.loadConstant(CodeGen.interleaveIterations(method.n));
        cb.goto_(set);
        cb.labelBinding(one);
        cb.loadConstant(Integer.MAX_VALUE);
        cb.labelBinding(set);
        cb.istore(count);
        return count;
    }

    /**
     * An interleaved stride loop's pause. On a GPU the warps of a CTA advance through a grid-stride loop
     * together, so the CTA reads blockDim contiguous elements per iteration; a group that ran its whole loop
     * before the next group started read one or two cache lines every gridDim*blockDim elements instead, a
     * pattern the hardware prefetchers do not follow, and each group's sweep missed the cache anew (perfasm,
     * histogram: 48% of the samples on the instruction after the loads). So in a kernel with barriers, a group
     * in a grid-stride fast path pauses every {@link CodeGen#interleaveIterations} iterations as at a barrier (its
     * values to its rows, stop {@code Phases.YIELD + k}), and the CTA's phases go round the groups until none
     * is paused (see Phases#next); a resumed group re-enters the fast path. Each thread's own operations stay
     * in program order (a float sum adds in the same order), and {@link StrideLoops#interleavable} admits only
     * loops whose reordering across threads nobody can observe.
     * {@code -Dweft.simd.interleave=false} turns it off.
     */
    private void interleavedPause(Label pause, int k, int[] acc) {
        cb.labelBinding(pause);
        cb.aload(method.stopArraySlot);
        cb.iload(method.groupIndexSlot);
        cb.loadConstant(Phases.YIELD + k);
        cb.iastore();
        // The loop's mask is all lanes here (the fast path runs only so). Kept as the one static mask, not the
        // computed one, C2 boxes fewer masks on the way to the spill: measured (reduction benchmark, 2^22 floats,
        // warm) 1.64 MB allocated per pair of launches before, 1.48 MB after. C2 still boxes the two masks of the
        // histogram's pause where this jump meets the barrier's spill (perfasm); a copy of the spill code of its
        // own for the pause removed that, but ran slower (session 8, paired histogram, two runs each, 5
        // iterations: 0.41-0.71 of the hand-written rate, medians 0.48 and 0.45, against 0.48-0.67 shared, medians
        // 0.61 and 0.63), so the pause keeps the shared copy.
        for (int sl : acc) {
            cb.getstatic(Vec.LANES, "ALL_TRUE", Vec.MASK);
            cb.astore(sl);
        }
        method.barriers.spillKept(method.barrierBlocks.getFirst());
    }

    /**
     * Whether this method runs the interleaved stride loop {@code sl} round-robin ({@link #roundRobinLoop}): it is
     * the method of that loop's pause (every group it runs resumes there), each value the loop carries round its
     * back edge is a scalar local (an affine index's base, a uniform counter) kept in the spill rows, and every
     * value its nodes read from outside it is the same in every group of the CTA (built from constants,
     * parameters, shared arrays and the CTA's coordinates), so that one copy of the body serves every group with
     * only the carried scalars swapped in. The loop is small ({@link CodeGen#ROUND_ROBIN_NODES}): the pause's method
     * carries its body once more.
     */
    boolean roundRobin(StrideLoops.StrideLoop sl) {
        Block h = sl.header();
        Integer k = method.yieldIds.get(h);
        if (!CodeGen.ROUND_ROBIN || k == null || method.resumeAt != Phases.YIELD + k
                || h.nodes.size() + sl.body().nodes.size() > CodeGen.ROUND_ROBIN_NODES) {
            return false;
        }
        Set<Node> inLoop = new HashSet<>();
        inLoop.addAll(h.phis);
        inLoop.addAll(h.nodes);
        inLoop.addAll(sl.body().nodes);
        for (Node p : h.phis) {
            if (roundRobinColumns(p) == null) {
                return false;
            }
        }
        for (Block b : List.of(h, sl.body())) {
            for (Node x : b.nodes) {
                if (x.op == Op.SREG && !((SReg) x.aux).isCtaUniform()) {
                    return false;
                }
                for (Node o : x.in) {
                    if (!inLoop.contains(o) && !ctaUniform(o, 0)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** Whether {@code x}, defined outside the loop, has one value in every group of the CTA. */
    private static boolean ctaUniform(Node x, int depth) {
        if (depth > 16) {
            return false;
        }
        return switch (x.op) {
            case CONST, PARAM, SHARED, UNDEF -> true;
            case SREG -> ((SReg) x.aux).isCtaUniform();
            case ADD, SUB, MUL, DIV, REM, NEG, SHL, SHR, USHR, AND, OR, XOR, CONV, CMP, LENGTH -> {
                for (Node o : x.in) {
                    if (!ctaUniform(o, depth + 1)) {
                        yield false;
                    }
                }
                yield true;
            }
            default -> false;
        };
    }

    /**
     * For a phi of a round-robin loop's header: {@code {spill class, local, column}} of the local it lives in, as the
     * pause keeps it; null when it is not kept so. Scalars only (an affine index's base, a uniform value): a loop
     * that carries a varying value (the reduction's per-thread sum) pauses without the round-robin. Carrying such
     * vectors too, each group's from its spill row and back, was measured no faster on the reduction (session 9,
     * PairedBenchmark, medians of 6 iterations: with 0.25 and 0.24 of the hand-written rate, without 0.26 and
     * 0.29) and removed in session 20.
     */
    private int[] roundRobinColumns(Node phi) {
        Storage st = method.storage.get(phi);
        if (st instanceof Storage.Affine a) {
            st = a.base();
        }
        if (!(st instanceof Storage.Scalar sc) || sc.kind() == Kind.BOOL) {
            return null;
        }
        int[] found = null;
        for (int[] k : method.keptAt.get(method.barrierBlocks.getFirst())) {
            if (k[1] == sc.slot() && k[0] != MethodGen.SPILL_REF && k.length == 2) {
                found = new int[] {k[0], k[1], method.columns.get(k[0]).get(SpillPlan.spillKey(k))};
            }
        }
        return found;
    }

    /** Loads (or with {@code store}, stores) carried local {@code c} (see {@link #roundRobinColumns}) of group {@code g}'s row. */
    private void roundRobinCarry(int[] c, int rows, int g, boolean store) {
        TypeKind t = Barriers.spillTypeKind(c[0]);
        cb.aload(rows);
        cb.iload(g);
        cb.aaload();
        cb.loadConstant(c[2]);
        if (store) {
            cb.loadLocal(t, c[1]);
            cb.arrayStore(t);
        } else {
            cb.arrayLoad(t);
            cb.storeLocal(t, c[1]);
        }
    }

    /**
     * An interleaved stride loop run round-robin, in its pause's method: the first paused group runs, for the
     * whole CTA, one fast iteration of every paused group in turn (group order), round after round, until every
     * group's scalar test fails; each group's carried scalars come from its spill row and go back to it after its
     * iteration, nothing else is spilled or restored (see {@link #roundRobin}). Then the groups go on as before:
     * each resumes from its row, its fast path's test fails at once, and the general path runs its last, partial
     * iteration. Why: a pause (spill, stop, Phases' rounds, the next group's restore) cost some 50 ns, so groups
     * ran 16 iterations between pauses (see {@link CodeGen#INTERLEAVE_ITERATIONS}), and the CTA then read memory in 16
     * places at once rather than in order, as a GPU's warps do.
     *
     * <p>Faults: a group whose iteration faults (any lane) ends the round-robin with its row as before that
     * iteration and the masks as before it; the pauses then take over, and the group runs that iteration again
     * in its own fast path (its reads are of memory nobody writes in the phase, see StrideLoops.interleavable, so
     * it faults again, in the same lane), which reports it as it always did. The iteration's atomics by the lanes
     * below the faulting one then happen twice: the launch fails, and what memory holds after a failed launch is
     * not defined. Cancellation is checked after every round.
     */
    private void roundRobinLoop(StrideLoops.StrideLoop sl) {
        Block h = sl.header();
        Block body = sl.body();
        Label skip = cb.newLabel();
        cb.iload(method.roundRobinDoneSlot);
        cb.ifne(skip);
        cb.iconst_1();
        cb.istore(method.roundRobinDoneSlot);
        List<int[]> carried = new ArrayList<>();
        for (Node p : h.phis) {
            carried.add(roundRobinColumns(p));
        }
        // Every group's rows, per spill class the phis use.
        int[] rows = {-1, -1, -1, -1, -1};
        for (int[] c : carried) {
            if (rows[c[0]] < 0) {
                rows[c[0]] = method.local(TypeKind.REFERENCE);
                cb.aload(method.phasesSlot);
                cb.getfield(Vec.PHASES, MethodGen.SPILL_FIELDS[c[0]], MethodGen.SPILL_ARRAYS[c[0]].arrayType());
                cb.astore(rows[c[0]]);
            }
        }
        int groups = method.local(TypeKind.INT);
        cb.iload(method.threadsSlot);
        cb.loadConstant(method.n - 1);
        cb.iadd();
        cb.loadConstant(method.n);
        cb.idiv();
        cb.istore(groups);
        // Per group: 0 while it takes part (paused here, its test not yet failed).
        int active = method.local(TypeKind.REFERENCE);
        cb.aload(method.phasesSlot);
        cb.iload(groups);
        cb.invokevirtual(Vec.PHASES, "roundRobinGroups", mt(CD_int.arrayType(), CD_int));
        cb.astore(active);
        int g2 = method.local(TypeKind.INT);
        Label initTop = cb.newLabel();
        Label initEnd = cb.newLabel();
        cb.iconst_0();
        cb.istore(g2);
        cb.labelBinding(initTop);
        cb.iload(g2);
        cb.iload(groups);
        cb.if_icmpge(initEnd);
        cb.aload(active);
        cb.iload(g2);
        cb.aload(method.stopArraySlot);
        cb.iload(g2);
        cb.iaload();
        cb.loadConstant(method.resumeAt);
        cb.isub(); // 0 where paused here
        cb.iastore();
        cb.iinc(g2, 1);
        cb.goto_(initTop);
        cb.labelBinding(initEnd);
        // The masks a fault in the body may change (the blocks' own and the enclosing regions'), to put back.
        Set<Integer> maskSlots = new java.util.TreeSet<>();
        for (int sl2 : method.accSlots.get(h)) {
            maskSlots.add(sl2); // the back edge hands the body's mask, a faulting lane gone, to the header
        }
        for (Block b : List.of(h, body)) {
            for (Block m : method.killSets.getOrDefault(b, Set.of())) {
                for (int sl2 : classSlots.get(m)) {
                    maskSlots.add(sl2);
                }
            }
        }
        Map<Integer, Integer> saved = new LinkedHashMap<>();
        for (int m : maskSlots) {
            int t = method.local(TypeKind.REFERENCE);
            saved.put(m, t);
            cb.aload(m);
            cb.astore(t);
        }
        wholeGroupMasks(h, body);
        Label hEnd = endLabel.get(h);
        Label bEnd = endLabel.get(body);
        Label fault = cb.newLabel();
        Label end = cb.newLabel();
        endLabel.put(h, fault);
        endLabel.put(body, fault);
        int progressed = method.local(TypeKind.INT);
        int turn = method.local(TypeKind.INT);
        Label round = cb.newLabel();
        Label groupTop = cb.newLabel();
        Label roundEnd = cb.newLabel();
        Label leave = cb.newLabel();
        Label nextG = cb.newLabel();
        cb.labelBinding(round);
        cb.iconst_0();
        cb.istore(progressed);
        cb.iconst_0();
        cb.istore(g2);
        cb.labelBinding(groupTop);
        cb.iload(g2);
        cb.iload(groups);
        cb.if_icmpge(roundEnd);
        cb.aload(active);
        cb.iload(g2);
        cb.iaload();
        cb.ifne(nextG);
        for (int[] c : carried) {
            roundRobinCarry(c, rows[c[0]], g2, false);
        }
        cb.loadConstant(CodeGen.ROUND_ROBIN_ITERATIONS);
        cb.istore(turn);
        Label iteration = cb.newLabel();
        cb.labelBinding(iteration);
        fastIteration(sl, leave, -1, null, fault);
        for (int[] c : carried) {
            roundRobinCarry(c, rows[c[0]], g2, true);
        }
        cb.iconst_1();
        cb.istore(progressed);
        cb.iinc(turn, -1);
        cb.iload(turn);
        cb.ifgt(iteration);
        cb.goto_(nextG);
        if (!method.handlers.isEmpty()) {
            method.faults.emitHandlers();
        }
        cb.labelBinding(leave);
        cb.aload(active);
        cb.iload(g2);
        cb.iconst_1();
        cb.iastore();
        cb.labelBinding(nextG);
        cb.iinc(g2, 1);
        cb.goto_(groupTop);
        cb.labelBinding(roundEnd);
        cb.iload(progressed);
        cb.ifeq(end);
        cb.aload(method.ctaSlot);
        cb.invokevirtual(Vec.CTA, "cancelled", mt(CD_boolean));
        cb.ifne(end);
        cb.goto_(round);
        // A group's iteration faulted: its row stays as before it, the masks and the fault record as before.
        cb.labelBinding(fault);
        cb.iconst_m1();
        cb.istore(method.faultLaneSlot);
        cb.aconst_null();
        cb.astore(method.faultCauseSlot);
        for (Map.Entry<Integer, Integer> e : saved.entrySet()) {
            cb.aload(e.getValue());
            cb.astore(e.getKey());
        }
        cb.labelBinding(end);
        endLabel.put(h, hEnd);
        endLabel.put(body, bEnd);
        // This group's carried values back from its row (every group's row is up to date).
        for (int[] c : carried) {
            roundRobinCarry(c, rows[c[0]], method.groupIndexSlot, false);
        }
        method.releaseTemps();
        cb.labelBinding(skip);
        method.cur = h;
        nullChecked.clear();
    }

    /**
     * The header's and the body's masks all-true, and their derived masks with them: on the fast path every thread
     * of the group runs the iteration.
     */
    private void wholeGroupMasks(Block h, Block body) {
        int[] hc = classSlots.get(h);
        int[] bc = classSlots.get(body);
        int[] both = java.util.Arrays.copyOf(hc, hc.length + bc.length);
        System.arraycopy(bc, 0, both, hc.length, bc.length);
        method.allTrueInto(both);
        method.cur = h;
        method.materializeDerived(h);
        method.cur = body;
        method.materializeDerived(body);
    }

    /**
     * One iteration of a fast path (the group whole, its masks all-true): to {@code exit} unless every lane passes
     * the loop's test, then {@code afterTest} (null: nothing), the header's and the body's nodes and the back edge's
     * copies; to {@code faulted} if a thread faulted in it.
     */
    private void fastIteration(StrideLoops.StrideLoop sl, Label exit, int pauseCount, Label pause, Label faulted) {
        Block h = sl.header();
        Block body = sl.body();
        method.killEmitted = false;
        method.cur = h;
        nullChecked.clear();
        strideTest(sl, exit);
        if (pauseCount >= 0) {
            // An interleaved loop: the group pauses once it has run its iterations of this turn.
            cb.iinc(pauseCount, -1);
            cb.iload(pauseCount);
            cb.iflt(pause);
        }
        method.nodes(h, true);
        if (!method.handlers.isEmpty()) {
            Label on = cb.newLabel();
            cb.goto_(on);
            method.faults.emitHandlers();
            cb.labelBinding(on);
        }
        method.cur = body;
        nullChecked.clear();
        method.nodes(body, true);
        method.edge(body, h, classSlots.get(body).clone(), null);
        method.releaseTemps();
        if (method.killEmitted) {
            // A thread has faulted (here or before the loop): its lane left the masks, so hand over. A scalar
            // test: the masks' allTrue on every iteration cost two vector tests C2 cannot hoist.
            cb.iload(method.faultLaneSlot);
            cb.ifge(faulted);
        }
    }

    /**
     * Jumps to {@code exit} unless every lane of the group passes the loop's test. Lane k's value is
     * {@code base + s*k} in wrapping int arithmetic; when {@code base + s*(lanes-1)} does not overflow no lane's
     * value does, they are monotone in k, and the lane nearest the bound decides for all.
     */
    private void strideTest(StrideLoops.StrideLoop sl, Label exit) {
        Block h = sl.header();
        Node a = sl.affine();
        Node bound = sl.bound();
        long c = (long) a.stride * (method.n - 1);
        method.base(a, h);
        if (c > 0) {
            cb.loadConstant((int) (Integer.MAX_VALUE - c));
            cb.if_icmpgt(exit);
        } else {
            cb.loadConstant((int) (Integer.MIN_VALUE - c));
            cb.if_icmplt(exit);
        }
        switch (sl.pred()) {
            case LT -> {
                laneExtreme(a, h, c, true);
                method.base(bound, h);
                cb.if_icmpge(exit);
            }
            case LE -> {
                laneExtreme(a, h, c, true);
                method.base(bound, h);
                cb.if_icmpgt(exit);
            }
            case GT -> {
                laneExtreme(a, h, c, false);
                method.base(bound, h);
                cb.if_icmple(exit);
            }
            case GE -> {
                laneExtreme(a, h, c, false);
                method.base(bound, h);
                cb.if_icmplt(exit);
            }
            case NE -> {
                // Every lane differs from the bound when the bound lies outside [min, max].
                Label ok = cb.newLabel();
                method.base(bound, h);
                laneExtreme(a, h, c, false);
                cb.if_icmplt(ok);
                method.base(bound, h);
                laneExtreme(a, h, c, true);
                cb.if_icmple(exit);
                cb.labelBinding(ok);
            }
            case EQ -> throw new IllegalStateException("== never has a grid-stride fast path");
        }
    }

    /**
     * Pushes the group's largest ({@code max}) or smallest lane value of affine {@code a}: its base, plus {@code c}
     * (the last lane's offset) where that lane is the one.
     */
    private void laneExtreme(Node a, Block h, long c, boolean max) {
        method.base(a, h);
        if (max ? c > 0 : c < 0) {
            cb.loadConstant((int) c);
            cb.iadd();
        }
    }
}
