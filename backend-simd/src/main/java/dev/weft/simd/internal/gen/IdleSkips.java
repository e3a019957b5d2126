package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Groups passed over at a barrier: a group whose threads would all sit the next phase out (a tree reduction's
 * {@code tid < stride} false in every lane) keeps its values in its rows and the next group runs
 * ({@code -Dweft.simd.skipIdleGroups=false} turns it off).
 */
final class IdleSkips {
    /** The method this code is part of. */
    private final MethodGen method;
    private final CodeBuilder cb;
    private final MaskPlan plan;
    private final Map<Node, Storage> storage;
    private final int[] spillArraySlots;
    private final Map<Block, List<int[]>> keptAt;

    IdleSkips(MethodGen method) {
        this.method = method;
        this.cb = method.cb;
        this.plan = method.plan;
        this.storage = method.storage;
        this.spillArraySlots = method.spillArraySlots;
        this.keptAt = method.keptAt;
    }
    private Label idleRunLabel;

    /**
     * The ways a group resumed after barrier block {@code bar} goes when all its threads sit the phase out, as a
     * tree: block {@code b} entered from {@code from}, every thread running it; after a uniform branch a way per
     * side ({@code next}, null for a side that leads to work); after a GOTO the one way on; at the end a
     * divergent branch whose side {@code idleOnTrue} leads to {@code target}: {@code bar}, another barrier block
     * that keeps the same locals, or an empty block that returns.
     */
    record IdleWay(Block from, Block b, IdleWay[] next, boolean idleOnTrue, Block target) {
    }

    /**
     * Whether a group resumed after {@code bar} can be passed over when its threads all go an idle way (see
     * {@link #idleSkip}), and those ways: from {@code bar} (every thread of the group: the entry's mask) through
     * blocks every thread runs (a flag) that compute only uniform scalars without faults, following uniform
     * branches, to a divergent branch on {@code threadIdx op uniform} (an affine special register: an order
     * test is monotone in the lane, an (in)equality decided by the lanes' range) one side of which is a barrier
     * block holding nothing but the barrier and keeping what {@code bar} keeps, or does nothing and returns.
     * Null where there is none.
     */
    IdleWay idleWay(Block bar) {
        if (method.gen.profiling != null || bar.exit != Block.Exit.GOTO || bar.succs.size() != 1 || !bar.phis.isEmpty()
                || bar.nodes.size() != 1 || plan.maskOf.get(bar) != method.g.entry()) {
            return null;
        }
        return idleWalk(bar, bar, bar.succs.getFirst(), new ArrayList<>());
    }

    private IdleWay idleWalk(Block bar, Block from, Block b, List<Block> seen) {
        if (b == bar || seen.size() > 8 || seen.contains(b) || plan.run.get(b) != Run.FLAG
                || plan.maskOf.get(b) != method.g.entry() || b.preds.indexOf(from) != b.preds.lastIndexOf(from)) {
            return null;
        }
        for (Node p : b.phis) {
            if (method.shapeAt(p, b) != Shape.UNIFORM || !(storage.get(p) instanceof Storage.Scalar)
                    || method.shapeAt(p.in(b.preds.indexOf(from)), from) != Shape.UNIFORM) {
                return null;
            }
        }
        boolean divergent = b.exit == Block.Exit.IF && method.shapeAt(b.cond, b) != Shape.UNIFORM;
        for (Node x : b.nodes) {
            if (!(divergent && x == b.cond) && !idleNode(x, b)) {
                return null;
            }
        }
        List<Block> path = new ArrayList<>(seen);
        path.add(b);
        if (b.exit == Block.Exit.GOTO) {
            IdleWay on = idleWalkOrArrive(bar, b, b.succs.getFirst(), path);
            return on == null ? null : new IdleWay(from, b, new IdleWay[] {on}, false, null);
        }
        if (b.exit != Block.Exit.IF || b.succs.get(0) == b.succs.get(1)) {
            return null;
        }
        if (!divergent) {
            IdleWay t = idleWalkOrArrive(bar, b, b.succs.get(0), path);
            IdleWay f = idleWalkOrArrive(bar, b, b.succs.get(1), path);
            return t == null && f == null ? null : new IdleWay(from, b, new IdleWay[] {t, f}, false, null);
        }
        if (!idleCondition(b)) {
            return null;
        }
        Cond.Pred p = ((Cond) b.cond.aux).pred();
        for (Block t : b.succs) {
            boolean onTrue = b.succs.get(0) == t;
            // (in)equality: only the side where no lane equals the bound can hold for a whole group
            boolean decidable = p != Cond.Pred.EQ && p != Cond.Pred.NE || (p == Cond.Pred.NE) == onTrue;
            if (decidable && (t == bar || idleReturn(t) || keptAt.containsKey(t) && t.exit == Block.Exit.GOTO
                    && t.phis.isEmpty() && t.nodes.size() == 1 && plan.maskOf.get(t) == method.g.entry()
                    && method.spillPlan.keptKey(t).equals(method.spillPlan.keptKey(bar)))) {
                return new IdleWay(from, b, null, onTrue, t);
            }
        }
        return null;
    }

    /**
     * {@link #idleWalk}, or where {@code b} is itself a barrier the group may wait at ({@code bar} again, another
     * whose kept set is {@code bar}'s), or an empty return, a way that arrives there with no lane test: the whole
     * group goes there by a plain jump or a uniform branch (scan: {@code if (warp == 0)}, the other warps straight
     * to the next barrier). Only with {@link CodeGen#UNIFORM_IDLE_WAYS}.
     */
    private IdleWay idleWalkOrArrive(Block bar, Block from, Block b, List<Block> seen) {
        if (CodeGen.UNIFORM_IDLE_WAYS && (b == bar || idleReturn(b) || keptAt.containsKey(b) && b.exit == Block.Exit.GOTO
                && b.phis.isEmpty() && b.nodes.size() == 1 && plan.maskOf.get(b) == method.g.entry()
                && method.spillPlan.keptKey(b).equals(method.spillPlan.keptKey(bar)))) {
            return new IdleWay(from, b, null, false, b);
        }
        return idleWalk(bar, from, b, seen);
    }

    /** An empty block that returns: threads going there are done. */
    private boolean idleReturn(Block t) {
        return plan.run.get(t) == Run.NONE && t.exit == Block.Exit.RETURN && t.nodes.isEmpty() && t.phis.isEmpty();
    }

    /** A node the idle way may compute: a uniform scalar operation that cannot fault. */
    private boolean idleNode(Node x, Block b) {
        if (method.shapeAt(x, b) != Shape.UNIFORM) {
            return false;
        }
        for (Node o : x.in) {
            if (method.shapeAt(o, b) != Shape.UNIFORM) {
                return false;
            }
        }
        return switch (x.op) {
            case CONST, PARAM, UNDEF -> true;
            case SREG -> method.isScalar(x);
            case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR, NEG, CONV, CMP, TEST -> x.kind == Kind.BOOL
                    || x.kind == Kind.INT || x.kind == Kind.LONG || x.kind == Kind.FLOAT || x.kind == Kind.DOUBLE;
            // (width + 1) / 2: an int division faults only by zero
            case DIV, REM -> x.kind == Kind.FLOAT || x.kind == Kind.DOUBLE
                    || (x.kind == Kind.INT || x.kind == Kind.LONG) && x.in(1).isConst() && ((Number) x.in(1).aux).longValue() != 0;
            default -> false;
        };
    }

    /** The divergent branch of {@code b} tests an int special register (affine) against a uniform int. */
    private boolean idleCondition(Block b) {
        Node c = b.cond;
        if (c.op != Op.TEST || c.block != b || method.inverted.contains(c) || c.in.size() != 2) {
            return false;
        }
        int ai = method.at(c.in(0), b) instanceof Storage.Affine ? 0 : 1;
        Node a = c.in(ai);
        Node k = c.in(1 - ai);
        return a.op == Op.SREG && a.kind == Kind.INT && method.at(a, b) instanceof Storage.Affine st
                && (long) Math.abs(st.stride()) * (method.n - 1) < (1 << 24) && k.kind == Kind.INT
                && method.shapeAt(k, b) == Shape.UNIFORM && (method.isScalar(k) || method.deferred.contains(k) && k.block == b && idleNode(k, b));
    }

    /**
     * A group that would sit this phase out is passed over: its kept scalars come from its row (its flags must be
     * those a resume expects), the uniform nodes and phis of the idle ways run on them, the final branch's test
     * runs on the group's first and last lane (an order test is monotone in the lane, so those two decide for
     * all; for an (in)equality the bound must lie outside their range; a partial group's missing lanes only make
     * this conservative), and if every lane goes the idle way the group ends the phase as it would have: the
     * scalars it changed go back to its row, and it waits at the barrier (another barrier: that one's stop and
     * flags) or has returned; then the next group starts. Anything else goes on to the group's ordinary
     * resume. Why: a tree reduction over a CTA of 256 threads resumed every group at each of its 8 levels and in
     * the phase after them, though 19 of those 144 resumes had a thread with work (restores, mask arithmetic and
     * spills: 31% of the reduction's time in session 6's profile).
     */
    void idleSkip(Block bar, IdleWay way) {
        Label ordinary = cb.newLabel();
        Set<Integer> flags = method.barriers.flagAndAbortSlots();
        Integer set = method.barriers.expectedFlag(bar);
        List<int[]> scalars = new ArrayList<>();
        for (int[] k : keptAt.get(bar)) {
            if (k.length != 2 || k[0] == MethodGen.SPILL_REF) {
                continue;
            }
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(method.columns.get(k[0]).get(SpillPlan.spillKey(k)));
            if (k[0] == MethodGen.SPILL_INT && flags.contains(k[1])) {
                cb.iaload();
                if (set != null && set == k[1]) {
                    cb.iconst_1();
                    cb.if_icmpne(ordinary);
                } else {
                    cb.ifne(ordinary);
                }
                continue;
            }
            TypeKind t = Barriers.spillTypeKind(k[0]);
            cb.arrayLoad(t);
            cb.storeLocal(t, k[1]);
            scalars.add(k);
        }
        List<Node> borrowed = new ArrayList<>();
        Block saved = method.cur;
        idleEmit(bar, way, new HashSet<>(), scalars, flags, ordinary, borrowed);
        cb.labelBinding(ordinary);
        for (Node x : borrowed) {
            storage.remove(x);
        }
        method.cur = saved;
    }

    /** One step of {@link #idleSkip}: block {@code w.b()}, then its ways on; every end jumps to the next group or {@code ordinary}. */
    private void idleEmit(Block bar, IdleWay w, Set<Integer> writtenBefore, List<int[]> scalars, Set<Integer> flags,
            Label ordinary, List<Node> borrowed) {
        Set<Integer> written = new HashSet<>(writtenBefore);
        Block b = w.b();
        if (w.next() == null && b == w.target()) {
            // (idleWalkOrArrive: the whole group arrives, no lane to test)
            idleArrive(bar, b, written, scalars, flags);
            return;
        }
        method.cur = b;
        int pi = b.preds.indexOf(w.from());
        for (Node p : b.phis) {
            method.base(p.in(pi), w.from());
        }
        for (Node p : b.phis.reversed()) {
            method.storeScalar(p);
            written.add(((Storage.Scalar) storage.get(p)).slot());
        }
        for (Node x : b.nodes) {
            if (x == b.cond && w.next() == null || x.op == Op.CONST || x.op == Op.PARAM || x.op == Op.UNDEF
                    || x.op == Op.SREG) {
                continue;
            }
            if (method.deferred.contains(x) && !borrowed.contains(x)) {
                // A fresh local: the pool's may hold values the ordinary resume still needs.
                storage.put(x, new Storage.Scalar(method.local(Vec.typeKind(x.kind)), x.kind));
                borrowed.add(x);
            }
            method.cur = b;
            if ((x.op == Op.DIV || x.op == Op.REM) && (x.kind == Kind.INT || x.kind == Kind.LONG)) {
                // (a constant divisor, not zero: no test, and no fault handler outside a block)
                method.scalar(x.in(0));
                method.scalar(x.in(1));
                method.arithmetic.scalarBinary(x.op, x.kind);
                method.storeScalar(x);
            } else {
                method.uniformNode(x);
            }
            written.add(((Storage.Scalar) storage.get(x)).slot());
        }
        IdleWay[] next = w.next();
        if (next != null && next.length == 1) {
            idleEmit(bar, next[0], written, scalars, flags, ordinary, borrowed);
            return;
        }
        if (next != null) {
            method.cur = b;
            method.scalar(b.cond);
            if (next[0] == null) {
                cb.ifne(ordinary);
            } else if (next[1] == null) {
                cb.ifeq(ordinary);
            } else {
                Label otherSide = cb.newLabel();
                cb.ifeq(otherSide);
                idleEmit(bar, next[0], written, scalars, flags, ordinary, borrowed);
                cb.labelBinding(otherSide);
                idleEmit(bar, next[1], written, scalars, flags, ordinary, borrowed);
                return;
            }
            idleEmit(bar, next[0] != null ? next[0] : next[1], written, scalars, flags, ordinary, borrowed);
            return;
        }
        method.cur = b;
        Node c = b.cond;
        int ai = method.at(c.in(0), b) instanceof Storage.Affine ? 0 : 1;
        Storage.Affine a = (Storage.Affine) method.at(c.in(ai), b);
        Cond.Pred pred = ((Cond) c.aux).pred();
        if (ai == 1) {
            pred = pred.swap();
        }
        int lo = method.local(TypeKind.INT);
        int span = a.stride() * (method.n - 1);
        method.pushStorageScalar(a.base());
        cb.istore(lo);
        // The last lane's value must not wrap, or the lanes' values would not be ordered.
        cb.iload(lo);
        cb.i2l();
        cb.loadConstant((long) span);
        cb.ladd();
        cb.iload(lo);
        cb.loadConstant(span);
        cb.iadd();
        cb.i2l();
        cb.lcmp();
        cb.ifne(ordinary);
        if (pred == Cond.Pred.EQ || pred == Cond.Pred.NE) {
            // No lane equals the bound: it lies below the smallest lane's value or above the largest's.
            Label outside = cb.newLabel();
            method.scalar(c.in(1 - ai));
            cb.iload(lo);
            if (span >= 0) {
                cb.if_icmplt(outside);
            } else {
                cb.loadConstant(span);
                cb.iadd();
                cb.if_icmplt(outside);
            }
            method.scalar(c.in(1 - ai));
            cb.iload(lo);
            if (span >= 0) {
                cb.loadConstant(span);
                cb.iadd();
            }
            cb.if_icmpgt(outside);
            cb.goto_(ordinary);
            cb.labelBinding(outside);
        } else {
            // Leave when the test's value at an end lane differs from the idle side's.
            Cond.Pred leave = w.idleOnTrue() ? pred.negate() : pred;
            for (int end = 0; end < 2; end++) {
                cb.iload(lo);
                if (end == 1) {
                    cb.loadConstant(span);
                    cb.iadd();
                }
                method.scalar(c.in(1 - ai));
                switch (leave) {
                    case LT -> cb.if_icmplt(ordinary);
                    case LE -> cb.if_icmple(ordinary);
                    case GT -> cb.if_icmpgt(ordinary);
                    case GE -> cb.if_icmpge(ordinary);
                    default -> throw new IllegalStateException(leave.toString());
                }
            }
        }
        idleArrive(bar, w.target(), written, scalars, flags);
    }

    /** The end of an idle way: the group waits at {@code t} (or has returned) as its ordinary run leaves it. */
    private void idleArrive(Block bar, Block t, Set<Integer> written, List<int[]> scalars, Set<Integer> flags) {
        if (idleReturn(t)) {
            // Every thread returns here: the group is done, as after its last block.
            cb.aload(method.stopArraySlot);
            cb.iload(method.groupIndexSlot);
            cb.iconst_0();
            cb.iastore();
            cb.goto_(idleEnd());
            return;
        }
        for (int[] k : scalars) {
            if (written.contains(k[1])) {
                TypeKind tk = Barriers.spillTypeKind(k[0]);
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(method.columns.get(k[0]).get(SpillPlan.spillKey(k)));
                cb.loadLocal(tk, k[1]);
                cb.arrayStore(tk);
            }
        }
        if (t != bar) {
            // Waits at t now: its stop, and the flags a resume after t expects (as t's spill would leave them).
            Integer tset = method.barriers.expectedFlag(t);
            for (int[] k : keptAt.get(t)) {
                if (k.length == 2 && k[0] == MethodGen.SPILL_INT && flags.contains(k[1])) {
                    cb.aload(spillArraySlots[MethodGen.SPILL_INT]);
                    cb.loadConstant(method.columns.get(MethodGen.SPILL_INT).get(SpillPlan.spillKey(k)));
                    cb.loadConstant(tset != null && tset == k[1] ? 1 : 0);
                    cb.iastore();
                }
            }
            cb.aload(method.stopArraySlot);
            cb.iload(method.groupIndexSlot);
            cb.loadConstant(CodeGen.barrierOf(t).id());
            cb.iastore();
        }
        cb.goto_(idleEnd());
    }

    /** Where a group passed over by {@link #idleSkip} goes: the next group, through {@link #idleRun} if any. */
    private Label idleEnd() {
        if (method.idleRunBar != null) {
            if (idleRunLabel == null) {
                idleRunLabel = cb.newLabel();
            }
            return idleRunLabel;
        }
        return method.nextGroup;
    }

    /**
     * After the group loop, a loop of its own over the groups that follow one {@link #idleSkip} passed over: the
     * next group's rows of the kept scalars, the same idle test, and on to the next while groups are idle; the
     * first that is not (or whose flags differ, or the end of the CTA) goes back to the group loop, whose resume
     * tests it again and runs it. Why: passed over in the group loop, an idle group still went round the whole
     * loop, whose values C2 keeps on the stack around it: about 100 instructions per group (perfasm; a tree
     * reduction of 256 threads passes over 124 groups per CTA), of which the test needs some 20.
     */
    void idleRun(Label group, Label exit) {
        if (idleRunLabel == null) {
            return;
        }
        cb.labelBinding(idleRunLabel);
        cb.iinc(method.groupIndexSlot, 1);
        method.stepRow();
        cb.iinc(method.baseSlot, method.n);
        cb.iload(method.baseSlot);
        cb.iload(method.threadsSlot);
        cb.if_icmpge(exit);
        // The group's scalar special registers, as groupPrologue sets them (an idle way may test them).
        if (method.sregs.get(SReg.LANE_ID) instanceof Storage.Affine a) {
            cb.iload(method.baseSlot);
            cb.loadConstant(method.warpSize - 1);
            cb.iand();
            cb.istore(((Storage.Scalar) a.base()).slot());
        }
        if (method.sregs.get(SReg.WARP_ID) instanceof Storage.Scalar sc) {
            cb.iload(method.baseSlot);
            cb.loadConstant(method.warpSize);
            cb.idiv();
            cb.istore(sc.slot());
        }
        Set<Integer> classes = new TreeSet<>(List.of(MethodGen.SPILL_INT));
        for (int[] k : keptAt.get(method.idleRunBar)) {
            if (k.length == 2 && k[0] != MethodGen.SPILL_REF) {
                classes.add(k[0]);
            }
        }
        for (int i : classes) {
            if (spillArraySlots[i] >= 0) {
                cb.aload(method.phasesSlot);
                cb.getfield(Vec.PHASES, MethodGen.SPILL_FIELDS[i], MethodGen.SPILL_ARRAYS[i].arrayType());
                cb.iload(method.groupIndexSlot);
                cb.aaload();
                cb.astore(spillArraySlots[i]);
            }
        }
        idleSkip(method.idleRunBar, method.idleRunWay);
        cb.goto_(group);
    }

}
