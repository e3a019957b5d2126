package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Faults as the reference executor reports them: the first thread in linear order that faults is recorded and
 * removed from the masks with every thread after it, the threads before it go on, and the group's fault is thrown
 * when the group ends; uniform faults (a null array, an index or divisor bad in every lane) jump to one handler
 * per block.
 */
final class Faults {
    /** The method this code is part of. */
    private final MethodGen method;
    private final CodeBuilder cb;
    /** See {@link #allocationCauseSlot}; -1 until a block's shared allocations need it. */
    private int allocationCause = -1;

    Faults(MethodGen method) {
        this.method = method;
        this.cb = method.cb;
    }

    /** Throws the fault recorded in this group, if any. */
    void throwFault() {
        Label ok = cb.newLabel();
        cb.iload(method.faultLaneSlot);
        cb.iflt(ok);
        if (!method.yieldIds.isEmpty()) {
            // An earlier group paused in an interleaved loop may fault first: Phases decides (see Phases.fault).
            cb.aload(method.phasesSlot);
            cb.iload(method.groupIndexSlot);
        }
        cb.iload(method.baseSlot);
        cb.iload(method.faultLaneSlot);
        cb.iadd();
        cb.iload(method.bxSlot);
        cb.iload(method.bySlot);
        cb.aload(method.faultCauseSlot);
        cb.invokestatic(Vec.LANES, "fault", mt(Vec.KERNEL_FAULT, CD_int, CD_int, CD_int, Vec.THROWABLE));
        if (!method.yieldIds.isEmpty()) {
            cb.invokevirtual(Vec.PHASES, "fault", mt(CD_void, CD_int, Vec.KERNEL_FAULT));
            cb.return_();
        } else {
            cb.athrow();
        }
        cb.labelBinding(ok);
    }

    /**
     * Faults every active thread of the block shares, each handled once per block after its terminator. A
     * {@code SHARED_ALLOCATION} handler is an exception handler: its sites jump to it with the runtime's refusal.
     */
    enum Shared { NULL_ARRAY, OUT_OF_BOUNDS, DIVIDE_BY_ZERO, SHARED_ALLOCATION }

    /** The label of the current block's handler for a uniform fault; the handler is emitted at block end. */
    Label handler(Shared kind) {
        Label l = method.handlers.get(kind);
        if (l == null) {
            l = cb.newLabel();
            method.handlers.put(kind, l);
        }
        return l;
    }

    /**
     * The current block's shared fault handlers: every active thread faulted, the first one is recorded, and
     * nothing of the block is left to run. {@code OUT_OF_BOUNDS} reads the index and length its sites stored.
     */
    void emitHandlers() {
        for (Map.Entry<Shared, Label> e : method.handlers.entrySet()) {
            cb.labelBinding(e.getValue());
            if (e.getKey() == Shared.SHARED_ALLOCATION) {
                // not in faultCauseSlot yet: with no active thread an earlier fault's cause must stay
                cb.astore(allocationCauseSlot());
            }
            Label none = uniformFaultStart();
            switch (e.getKey()) {
                case NULL_ARRAY -> pushNpe("Cannot access an array element or length because the array is null");
                case OUT_OF_BOUNDS -> {
                    cb.iload(method.faultIndexSlot);
                    cb.iload(method.faultLengthSlot);
                    cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
                }
                case DIVIDE_BY_ZERO -> cb.invokestatic(Vec.LANES, "divideByZero", mt(ClassDesc.of("java.lang.ArithmeticException")));
                case SHARED_ALLOCATION -> cb.aload(allocationCauseSlot());
            }
            uniformFaultEnd(none);
            cb.goto_(method.endLabel.get(method.cur));
        }
        method.handlers.clear();
    }

    /** The local holding a refused shared allocation's exception, made on first use (kernels without one keep their slots). */
    private int allocationCauseSlot() {
        if (allocationCause < 0) {
            allocationCause = method.local(TypeKind.REFERENCE);
        }
        return allocationCause;
    }

    /** Jumps to the shared out-of-bounds handler with the index and the array's length. */
    void toOutOfBounds(Node idx, Node arr) {
        method.scalar(idx);
        cb.istore(method.faultIndexSlot);
        method.scalar(arr);
        cb.arraylength();
        cb.istore(method.faultLengthSlot);
        cb.goto_(handler(Shared.OUT_OF_BOUNDS));
    }

    /**
     * A fault of every active thread, its cause pushed between this and {@link #uniformFaultEnd} (not a callback: a
     * lambda spins a class on its first run, a cost of every first compile in a JVM; see Compiler's implementation
     * notes): records the first active thread with that cause and leaves the block. Returns the label that
     * {@code uniformFaultEnd} binds, where the code goes when no thread is active.
     */
    Label uniformFaultStart() {
        Label none = cb.newLabel();
        method.curBits();
        method.firstLane(none);
        return none;
    }

    /** Ends what {@link #uniformFaultStart} began, the cause pushed. */
    void uniformFaultEnd(Label none) {
        cb.astore(method.faultCauseSlot);
        kill(false);
        // Every thread running this block faulted: nothing of it is left to run.
        cb.goto_(method.endLabel.get(method.cur));
        cb.labelBinding(none);
    }

    /**
     * Records the fault of lane {@code kSlot} (cause in {@code faultCauseSlot}) and removes it and every later
     * lane from the masks of this block and of the regions enclosing it.
     */
    void kill() {
        kill(true);
    }

    /** As {@link #kill()}; {@code continues}: whether the block goes on (its derived masks must follow). */
    private void kill(boolean continues) {
        method.killEmitted = true;
        cb.iload(method.kSlot);
        cb.istore(method.faultLaneSlot);
        for (Block m : method.killSets.get(method.cur)) {
            int[] c = method.classSlots.get(m);
            for (int r = 0; r < method.regs32; r++) {
                cb.aload(c[r]);
                if (r == 0 && method.gen.compactMasks) {
                    cb.iload(method.kSlot);
                    cb.invokestatic(Vec.LANES, "keepBelow", mt(Vec.MASK, Vec.MASK, CD_int));
                } else {
                    cb.loadConstant(r);
                    cb.iload(method.kSlot);
                    cb.invokestatic(Vec.LANES, "keepBelow", mt(Vec.MASK, Vec.MASK, CD_int, CD_int));
                }
                cb.astore(c[r]);
            }
        }
        if (continues) {
            // Only the lane types the rest of the block still masks with.
            for (Map.Entry<Kind, int[]> e : method.derived.get(method.cur).entrySet()) {
                if (method.laterKinds.contains(e.getKey()) && !method.lazyLaneKinds(method.cur).contains(e.getKey())) {
                    method.deriveMasks(method.curMask(), e.getKey(), e.getValue());
                }
            }
        }
        // A uniform loop whose threads all faulted stops at its back edge.
        List<Integer> aborts = new ArrayList<>();
        Block m = method.plan.maskOf.get(method.cur);
        for (Cfg.Loop l = method.cfg.loopOf(method.cur); l != null; l = l.parent) {
            if (method.plan.run.get(l.header) != Run.FLAG || method.plan.maskOf.get(l.header) != m) {
                break;
            }
            aborts.add(method.abortSlot.get(l));
        }
        if (!aborts.isEmpty()) {
            Label alive = cb.newLabel();
            method.anyMask(method.curMask());
            cb.ifne(alive);
            for (int s : aborts) {
                cb.iconst_1();
                cb.istore(s);
            }
            cb.labelBinding(alive);
        }
    }

    /**
     * Jumps to the block's null-array handler if the array is null; no code when an earlier access of this
     * block already checked it: had it been null, every thread of the block would have faulted there.
     */
    void nullCheck(Node arr, Label unused) {
        if (method.nullChecked.add(arr)) {
            method.scalar(arr);
            cb.ifnull(handler(Shared.NULL_ARRAY));
        }
    }

    private void pushNpe(String what) {
        cb.loadConstant(what);
        cb.invokestatic(Vec.LANES, "nullArray", mt(ClassDesc.of("java.lang.NullPointerException"), CD_String));
    }
}
