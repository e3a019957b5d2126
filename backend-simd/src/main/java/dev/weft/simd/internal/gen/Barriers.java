package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.ir.Barrier;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The code at a phased kernel's barriers: a phase's CTA prologue, a group's resume after the barrier it stopped at
 * (its kept values back from its rows, its flags known), and at the next barrier the spills of what it keeps, as
 * {@link SpillPlan} decided.
 */
final class Barriers {
    /** The method this code is part of. */
    private final MethodGen method;
    private final List<Block> barrierBlocks;
    private final CodeBuilder cb;
    private final Map<Node, Storage> storage;
    private final Map<Block, Label> endLabel;
    private final int[] spillArraySlots;
    private final List<Map<Long, Integer>> columns;
    private final Map<Block, List<int[]>> keptAt;
    private final int resumeAt;

    Barriers(MethodGen method) {
        this.method = method;
        this.barrierBlocks = method.barrierBlocks;
        this.cb = method.cb;
        this.storage = method.storage;
        this.endLabel = method.endLabel;
        this.spillArraySlots = method.spillArraySlots;
        this.columns = method.columns;
        this.keptAt = method.keptAt;
        this.resumeAt = method.resumeAt;
    }
    private final Map<List<Long>, Label[]> keptSetLabels = new HashMap<>();
    private final Set<List<Long>> spillEmitted = new HashSet<>();

    /** In a resume point's method: the kept locals no block of its phase writes (see {@link SpillPlan#unchangedSinceRestore}). */
    private Set<Long> unchanged;

    /** See {@link #hoistedShared()}. */
    private Map<Integer, Node> hoistedShared;

    /** CTA prologue of a phase: room for the spills, and the arrays in locals. */
    void phasePrologue() {
        cb.aload(method.phasesSlot);
        cb.iload(method.threadsSlot);
        cb.loadConstant(method.n);
        cb.loadConstant(method.spillStride);
        cb.invokevirtual(Vec.PHASES, "reserve", mt(CD_void, CD_int, CD_int, CD_int));
        cb.aload(method.phasesSlot);
        cb.getfield(Vec.PHASES, "stop", CD_int.arrayType());
        cb.astore(method.stopArraySlot);
        cb.aload(method.phasesSlot);
        cb.getfield(Vec.PHASES, "lanes", CD_long.arrayType());
        cb.astore(method.lanesArraySlot);
        cb.iconst_0();
        cb.istore(method.groupIndexSlot);
        for (Map.Entry<Integer, Node> e : hoistedShared().entrySet()) {
            // Made by every group in the first phase: this returns that array (see SharedMemory#find).
            Node x = e.getValue();
            cb.aload(method.ctaSlot);
            cb.invokevirtual(Vec.CTA, "sharedMemory", mt(Vec.SHARED_MEMORY));
            cb.loadConstant((Integer) x.aux);
            method.scalar(x.in(0)); // a constant length (see hoistedShared)
            cb.invokevirtual(Vec.SHARED_MEMORY, MemoryOps.sharedMethod(x.kind), mt(Vec.scalar(x.kind), CD_int, CD_int));
            cb.astore(e.getKey());
        }
    }

    /**
     * In a resume point's method (one barrier, every group resumed after it): the locals of the shared arrays kept
     * across barriers that the phase prologue fetches once (slot to allocation), so that a group neither restores
     * them from its row (an array load, a type check) nor has them cleared at its start, and C2 sees arrays
     * invariant in the group loop. Only allocations of the entry block with a constant length: every group made
     * them before its first barrier, so asking the CTA's shared memory again returns the same arrays and cannot
     * fail. Why: in the tiled sgemm's phase that loads the tiles, the two tiles' arrays came back per group from
     * the reference row, each with a type check, and their lengths were loaded again for every vector store.
     */
    Map<Integer, Node> hoistedShared() {
        if (hoistedShared == null) {
            hoistedShared = new LinkedHashMap<>();
            if (!CodeGen.SHARED_ONCE_PER_PHASE || resumeAt <= 0 || resumeAt >= Phases.YIELD) {
                return hoistedShared;
            }
            Set<Integer> keptRefs = new HashSet<>();
            for (List<int[]> kept : keptAt.values()) {
                for (int[] k : kept) {
                    if (k.length == 2 && k[0] == MethodGen.SPILL_REF) {
                        keptRefs.add(k[1]);
                    }
                }
            }
            for (Node x : method.g.entry().nodes) {
                if (x.op == Op.SHARED && storage.get(x.in(0)) instanceof Storage.Const
                        && storage.get(x) instanceof Storage.Scalar sc && keptRefs.contains(sc.slot())) {
                    hoistedShared.put(sc.slot(), x);
                }
            }
        }
        return hoistedShared;
    }

    /**
     * Group prologue of a phase: if the group stopped at a barrier, its values back and a jump to the
     * barrier's end. The flags and pending masks it did not keep are clear, as at the start of a group: every
     * group leaves them so (see {@link #clearKept}).
     */
    void resumeGroup(Label fresh) {
        // This group's rows of the spill arrays.
        for (int i = 0; i < 5; i++) {
            if (spillArraySlots[i] >= 0 && rowUnused(i)) {
                // (null: no code of this method reads the local; a mistake here would fail loudly)
                cb.aconst_null();
                cb.astore(spillArraySlots[i]);
            } else if (spillArraySlots[i] >= 0) {
                cb.aload(method.phasesSlot);
                cb.getfield(Vec.PHASES, MethodGen.SPILL_FIELDS[i], MethodGen.SPILL_ARRAYS[i].arrayType());
                cb.iload(method.groupIndexSlot);
                cb.aaload();
                cb.astore(spillArraySlots[i]);
            }
        }
        if (resumeAt == 0) {
            return;
        }
        if (resumeAt >= Phases.YIELD) {
            // The groups paused in this interleaved loop resume in it; the others sit the phase out.
            Block h = null;
            for (Map.Entry<Block, Integer> e : method.yieldIds.entrySet()) {
                h = e.getValue() == resumeAt - Phases.YIELD ? e.getKey() : h;
            }
            if (h == null) {
                cb.goto_(method.nextGroup); // (no such loop in this variant: never called)
                return;
            }
            cb.aload(method.stopArraySlot);
            cb.iload(method.groupIndexSlot);
            cb.iaload();
            cb.loadConstant(resumeAt);
            cb.if_icmpne(method.nextGroup);
            restoreKept(barrierBlocks.getFirst());
            cb.goto_(method.yieldResumeLabel(h));
            return;
        }
        if (resumeAt > 0) {
            for (Block b : barrierBlocks) {
                if (CodeGen.barrierOf(b).id() == resumeAt) {
                    IdleSkips.IdleWay idle = method.gen.skipIdleGroups ? method.idleSkips.idleWay(b) : null;
                    if (idle != null) {
                        if (CodeGen.IDLE_RUNS && method.gen.profiling == null) {
                            method.idleRunBar = b;
                            method.idleRunWay = idle;
                        }
                        method.idleSkips.idleSkip(b, idle);
                    }
                    restoreKept(b);
                    expectFlags(b);
                    cb.goto_(endLabel.get(b));
                    return;
                }
            }
            throw new IllegalStateException("no barrier node " + resumeAt);
        }
        cb.aload(method.stopArraySlot);
        cb.iload(method.groupIndexSlot);
        cb.iaload();
        if (!method.yieldIds.isEmpty()) {
            resumeInterleaved(fresh);
            return;
        }
        if (method.keptSets.size() == 1) {
            cb.ifeq(fresh);
        } else {
            List<SwitchCase> cases = new ArrayList<>();
            for (Block b : barrierBlocks) {
                cases.add(SwitchCase.of(CodeGen.barrierOf(b).id(), keptSetLabels(b)[1]));
            }
            cb.lookupswitch(fresh, cases);
        }
        for (List<Block> set : method.keptSets.values()) {
            Block b = set.getFirst();
            cb.labelBinding(keptSetLabels(b)[1]);
            restoreKept(b);
            if (set.size() == 1) {
                cb.goto_(endLabel.get(b));
            } else {
                cb.aload(method.stopArraySlot);
                cb.iload(method.groupIndexSlot);
                cb.iaload();
                List<SwitchCase> ends = new ArrayList<>();
                for (Block m : set) {
                    ends.add(SwitchCase.of(CodeGen.barrierOf(m).id(), endLabel.get(m)));
                }
                cb.lookupswitch(endLabel.get(b), ends);
            }
        }
    }

    /**
     * In a resume point's method: whether no code of it touches the group's spill row of class {@code cls} (see
     * {@link PhaseTrims#UNUSED_ROWS}): the resumed barrier restores nothing of that class (a shared array fetched
     * once per phase is not restored), no barrier spills anything of it ({@link SpillPlan#unchangedSinceRestore} leaves out
     * what the phase never writes), and no group can be passed over as idle (that path reads and writes rows).
     */
    private boolean rowUnused(int cls) {
        if (!PhaseTrims.UNUSED_ROWS || resumeAt <= 0 || resumeAt >= Phases.YIELD) {
            return false;
        }
        Block from = null;
        for (Block b : barrierBlocks) {
            if (CodeGen.barrierOf(b).id() == resumeAt) {
                from = b;
            }
        }
        if (from == null || method.gen.skipIdleGroups && method.idleSkips.idleWay(from) != null) {
            return false;
        }
        for (int[] k : keptAt.get(from)) {
            if (k[0] == cls && !(cls == MethodGen.SPILL_REF && hoistedShared().containsKey(k[1]))) {
                return false;
            }
        }
        if (unchanged == null) {
            unchanged = method.spillPlan.unchangedSinceRestore();
        }
        for (Block b : barrierBlocks) {
            for (int[] k : keptAt.get(b)) {
                if (k[0] == cls && !unchanged.contains(SpillPlan.spillKey(k))) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The general method's resume of a group in a kernel with interleaved stride loops (stop value on the
     * stack): a waiting group sits the phase out, a paused one resumes at its loop's fast path, the others as
     * after a barrier. Every barrier and pause keeps the same set (see {@link MethodGen#allocate}).
     */
    private void resumeInterleaved(Label fresh) {
        Block first = barrierBlocks.getFirst();
        Label restore = keptSetLabels(first)[1];
        List<SwitchCase> cases = new ArrayList<>();
        List<SwitchCase> ends = new ArrayList<>();
        cases.add(SwitchCase.of(Phases.WAIT, method.nextGroup));
        for (Block b : barrierBlocks) {
            cases.add(SwitchCase.of(CodeGen.barrierOf(b).id(), restore));
            ends.add(SwitchCase.of(CodeGen.barrierOf(b).id(), endLabel.get(b)));
        }
        for (Map.Entry<Block, Integer> e : method.yieldIds.entrySet()) {
            cases.add(SwitchCase.of(Phases.YIELD + e.getValue(), restore));
            ends.add(SwitchCase.of(Phases.YIELD + e.getValue(), method.yieldResumeLabel(e.getKey())));
        }
        cb.lookupswitch(fresh, cases);
        cb.labelBinding(restore);
        restoreKept(first);
        cb.aload(method.stopArraySlot);
        cb.iload(method.groupIndexSlot);
        cb.iaload();
        cb.lookupswitch(endLabel.get(first), ends);
    }

    /** The locals of the blocks' run flags and the loops' abort flags. */
    Set<Integer> flagAndAbortSlots() {
        Set<Integer> flags = new HashSet<>(method.flagSlot.values());
        flags.addAll(method.abortSlot.values());
        return flags;
    }

    /**
     * The flag a group resumed after barrier block {@code b} has set: its successor's, where {@code b} ends with a
     * plain jump to a flag-run block; null where every flag is clear.
     */
    Integer expectedFlag(Block b) {
        if (b.exit == Block.Exit.GOTO && b.succs.size() == 1 && method.flagSlot.containsKey(b.succs.getFirst())
                && method.plan.run.get(b.succs.getFirst()) == Run.FLAG) {
            return method.flagSlot.get(b.succs.getFirst());
        }
        return null;
    }

    /**
     * In a resume point's method: the kept flags and loop aborts as constants, so that C2 sees which blocks
     * run (the code is flag-driven: with flags from memory every block and loop would stay reachable, and the
     * barriers' loop a cycle again). Expected after a barrier that ends its block with a plain jump: the
     * successor's flag set, every other clear. A group whose flags differ (a barrier inside a region, say)
     * goes with the rest of the phase to the general method, which resumes each group where it stopped.
     */
    private void expectFlags(Block b) {
        Set<Integer> flags = flagAndAbortSlots();
        Integer set = expectedFlag(b);
        Label general = cb.newLabel();
        List<Integer> checked = new ArrayList<>();
        for (int[] k : keptAt.get(b)) {
            if (k.length == 2 && k[0] == MethodGen.SPILL_INT && flags.contains(k[1])) {
                cb.iload(k[1]);
                if (set != null && set == k[1]) {
                    cb.iconst_1();
                    cb.if_icmpne(general);
                } else {
                    cb.ifne(general);
                }
                checked.add(k[1]);
            }
        }
        for (int sl : checked) {
            cb.loadConstant(set != null && set == sl ? 1 : 0);
            cb.istore(sl);
        }
        Label resume = cb.newLabel();
        cb.goto_(resume);
        cb.labelBinding(general);
        cb.invokestatic(Vec.PHASES, "unexpectedResume", mt(CD_void));
        int slot = 0;
        for (Param p : method.g.params) {
            cb.loadLocal(Vec.typeKind(p.kind()), slot);
            slot += Vec.typeKind(p.kind()).slotSize();
        }
        cb.aload(method.ctaSlot);
        cb.iload(method.bxSlot);
        cb.iload(method.bySlot);
        cb.iload(method.bzSlot);
        cb.aload(method.phasesSlot);
        cb.iload(method.groupIndexSlot);
        cb.invokestatic(method.gen.className, method.v.method(), method.gen.variantType);
        cb.return_();
        cb.labelBinding(resume);
    }

    /** The element type of a spill class's rows. */
    static TypeKind spillTypeKind(int spillClass) {
        return switch (spillClass) {
            case MethodGen.SPILL_INT -> TypeKind.INT;
            case MethodGen.SPILL_LONG -> TypeKind.LONG;
            case MethodGen.SPILL_FLOAT -> TypeKind.FLOAT;
            case MethodGen.SPILL_DOUBLE -> TypeKind.DOUBLE;
            default -> TypeKind.REFERENCE;
        };
    }

    /** The values kept across the barrier at the end of {@code b}, back from this group's rows. */
    private void restoreKept(Block b) {
        for (int[] k : keptAt.get(b)) {
            if (k[0] == MethodGen.SPILL_REF && hoistedShared().containsKey(k[1])) {
                continue;
            }
            if (k.length > 2) {
                restoreVector(k);
                continue;
            }
            TypeKind t = spillTypeKind(k[0]);
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)));
            cb.arrayLoad(t);
            if (k[0] == MethodGen.SPILL_REF) {
                cb.checkcast(spillType(k[1]));
            }
            cb.storeLocal(t, k[1]);
        }
        method.releaseTemps();
    }

    private Label[] keptSetLabels(Block b) {
        List<Long> key = method.spillPlan.keptKey(b);
        Label[] labels = keptSetLabels.get(key);
        if (labels == null) {
            labels = new Label[] {cb.newLabel(), cb.newLabel()};
            keptSetLabels.put(key, labels);
        }
        return labels;
    }

    /**
     * Whether kept vector {@code k} is stored and loaded inline ({@code intoArray}, {@code fromArray}) in a row of
     * its own element type: float vectors always (their row), int vectors unless {@link CodeGen#withSpillCalls}.
     */
    boolean inlineSpill(int[] k) {
        return k[0] == MethodGen.SPILL_FLOAT || (!method.gen.spillCalls && k[3] == Kind.INT.ordinal());
    }

    private void restoreVector(int[] k) {
        Kind kind = Kind.values()[k[3]];
        if (inlineSpill(k)) {
            Vec.loadSpecies(cb, kind);
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)));
            cb.invokestatic(Vec.vector(kind), "fromArray", mt(Vec.vector(kind), Vec.SPECIES, Vec.scalar(kind).arrayType(), CD_int));
            cb.astore(k[1]);
            return;
        }
        ClassDesc vt = Vec.vector(kind);
        String restore = switch (kind) {
            case LONG -> "restoreLongs";
            case DOUBLE -> "restoreDoubles";
            default -> "restoreInts";
        };
        cb.aload(spillArraySlots[k[0]]);
        cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)) / k[2]);
        cb.invokestatic(Vec.LANES, restore, mt(vt, MethodGen.SPILL_ARRAYS[k[0]], CD_int));
        cb.astore(k[1]);
    }

    private void spillVector(int[] k) {
        Kind kind = Kind.values()[k[3]];
        ClassDesc vt = Vec.vector(kind);
        if (inlineSpill(k)) {
            cb.aload(k[1]);
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)));
            cb.invokevirtual(vt, "intoArray", mt(CD_void, Vec.scalar(kind).arrayType(), CD_int));
            return;
        }
        cb.aload(k[1]);
        cb.aload(spillArraySlots[k[0]]);
        cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)) / k[2]);
        cb.invokestatic(Vec.LANES, "spill", mt(CD_void, vt, MethodGen.SPILL_ARRAYS[k[0]], CD_int));
    }

    /** The static type of reference local {@code slot}, for the checkcast after a spill. */
    private ClassDesc spillType(int slot) {
        ClassDesc t = method.refTypes.get(slot);
        return t != null ? t : CD_Object;
    }

    /**
     * The end of a barrier's block: a fault recorded in this group fails the CTA now (as the reference
     * executor fails it in this round); a group whose threads are not all here stops for good (the CTA
     * fails after the phase, unless a later group faults first, as in the reference); otherwise the values
     * live across the barrier go to the group's row, and the group stops until every group is here.
     */
    void barrier(Block b) {
        Barrier bar = CodeGen.barrierOf(b);
        if (method.plan.maskOf.get(b) != method.g.entry()) {
            // (Else the shared spill code checks for a fault.)
            method.faults.throwFault();
            // Not provably every thread of the group: count them.
            Label all = cb.newLabel();
            int[] m = method.curMask();
            for (int r = 0; r < method.regs32; r++) {
                cb.aload(m[r]);
                cb.invokevirtual(Vec.MASK, "trueCount", mt(CD_int));
                if (r > 0) {
                    cb.iadd();
                }
            }
            cb.iload(method.threadsSlot);
            cb.iload(method.baseSlot);
            cb.isub();
            cb.loadConstant(method.n);
            cb.invokestatic(ClassDesc.of("java.lang.Math"), "min", mt(CD_int, CD_int, CD_int));
            cb.if_icmpeq(all);
            cb.aload(method.stopArraySlot);
            cb.iload(method.groupIndexSlot);
            cb.loadConstant(-bar.id());
            cb.iastore();
            cb.aload(method.lanesArraySlot);
            cb.iload(method.groupIndexSlot);
            method.curBits();
            cb.lastore();
            clearKept(b);
            cb.goto_(method.nextGroup);
            cb.labelBinding(all);
        }
        cb.aload(method.stopArraySlot);
        cb.iload(method.groupIndexSlot);
        cb.loadConstant(bar.id());
        cb.iastore();
        spillKept(b);
    }

    /**
     * The group's values kept across the barrier at the end of {@code b} (or a pause, see
     * {@link StrideLoopCode#interleavedPause}) to its rows, then the next group: the code is shared by the barriers (and
     * pauses) that keep the same set, emitted at the first and jumped to from the others.
     */
    void spillKept(Block b) {
        Label shared = keptSetLabels(b)[0];
        if (!spillEmitted.add(method.spillPlan.keptKey(b))) {
            cb.goto_(shared);
            return;
        }
        cb.labelBinding(shared);
        method.faults.throwFault();
        List<int[]> keptHere = new ArrayList<>(keptAt.get(b));
        if (unchanged == null) {
            unchanged = method.spillPlan.unchangedSinceRestore();
        }
        for (Iterator<int[]> it = keptHere.iterator(); it.hasNext();) {
            if (unchanged.contains(SpillPlan.spillKey(it.next()))) {
                it.remove();
            }
        }
        for (int i = 0; i < keptHere.size(); i++) {
            int[] k = keptHere.get(i);
            if (k.length > 2) {
                int[] next = i + 1 < keptHere.size() ? keptHere.get(i + 1) : null;
                if (!inlineSpill(k) && next != null && next.length > 2 && next[3] == k[3] && k[0] == MethodGen.SPILL_INT && next[0] == MethodGen.SPILL_INT
                        && columns.get(MethodGen.SPILL_INT).get(SpillPlan.spillKey(next)) == columns.get(MethodGen.SPILL_INT).get(SpillPlan.spillKey(k)) + k[2]) {
                    // The two registers of one value, side by side: one call (bytes under C2's limit).
                    ClassDesc vt = Vec.vector(Kind.values()[k[3]]);
                    cb.aload(k[1]);
                    cb.aload(next[1]);
                    cb.aload(spillArraySlots[k[0]]);
                    cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)) / k[2]);
                    cb.invokestatic(Vec.LANES, "spill", mt(CD_void, vt, vt, MethodGen.SPILL_ARRAYS[k[0]], CD_int));
                    i++;
                    continue;
                }
                spillVector(k);
                continue;
            }
            TypeKind t = spillTypeKind(k[0]);
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(columns.get(k[0]).get(SpillPlan.spillKey(k)));
            cb.loadLocal(t, k[1]);
            cb.arrayStore(t);
        }
        method.releaseTemps();
        clearKept(b);
        cb.goto_(method.nextGroup);
    }

    /**
     * Clears the flags and pending masks kept across the barrier at the end of {@code b}: the next group
     * starts, or resumes, with them clear, as a group that returns leaves them (every block clears its own when
     * it runs). The others are clear already: not yet touched, or cleared by their block.
     */
    private void clearKept(Block b) {
        Set<Integer> flags = new HashSet<>(method.flagSlot.values());
        Set<Integer> accs = new HashSet<>();
        for (int[] a : method.accSlots.values()) {
            for (int sl : a) {
                accs.add(sl);
            }
        }
        boolean none = false;
        for (int[] k : keptAt.get(b)) {
            if (k[0] == MethodGen.SPILL_INT && flags.contains(k[1])) {
                cb.iconst_0();
                cb.istore(k[1]);
            } else if (k[0] == MethodGen.SPILL_REF && accs.contains(k[1])) {
                if (!none) {
                    method.pushMaskAll(false);
                    none = true;
                }
                cb.dup();
                cb.astore(k[1]);
            }
        }
        if (none) {
            cb.pop();
        }
    }
}
