package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.ir.Atomic;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link dev.weft.Atomics} calls: one update per active thread, in lane order, so that lanes of a warp that update
 * the same address are serialised and no update is lost.
 */
final class AtomicOps {
    /** The method this code is part of. */
    private final MethodGen method;
    private final int n;
    private final CodeBuilder cb;
    private final EnumMap<Kind, Integer> scratch;
    /** Per atomic asked about: the load its index is read again from, or null ({@link #rereadSource}). */
    private final Map<Node, Node> sources = new HashMap<>();

    AtomicOps(MethodGen method) {
        this.method = method;
        this.n = method.n;
        this.cb = method.cb;
        this.scratch = method.scratch;
    }

    /**
     * An {@link dev.weft.Atomics} call: the scalar method once per active thread, in lane order. Threads of a
     * warp on one address are so serialised and none of their updates is lost; the order is the reference
     * executor's for a thread's first atomic (it runs each thread on until it blocks, so a thread doing
     * several atomics on an address others update sees another, equally valid, interleaving). An active
     * thread whose index is outside the array faults; the threads before it in lane order do their update,
     * those after it do not (they leave with it, as after any fault).
     *
     * <p>In a grid-stride fast path's iteration with no thread faulted yet ({@link MethodGen#fastIteration}), every lane
     * is active: one unsigned vector compare per register tests all indices at once, and the updates run over
     * lanes 0 to n-1 with no mask bits ({@link #unmaskedAtomic}). Anything else, an index out of bounds
     * included, takes the masked path ({@link #maskedAtomic}), which finds the faulting thread exactly. Where
     * nothing reads the old values, they are neither collected nor reloaded as vectors.
     * Measured (HistogramBenchmark, one JMH run each, 2 busy cores, settled): weft/vectorApi 0.125 before, 0.148
     * after; the per-element code is now a load of the index and an {@code inc} in memory. perfasm then puts 48%
     * of all samples on the stall after the group's two loads of {@code data}: a group runs its whole
     * grid-stride loop before the next group starts, so it reads 64 bytes every 64 KiB (the grid's stride), a
     * pattern the hardware prefetchers do not follow; that, not the atomics, is the histogram's main cost now.
     */
    void atomic(Node x) {
        method.faults.nullCheck(x.in(0), null);
        boolean used = method.resultUsed(x);
        if (!method.fastIteration) {
            maskedAtomic(x, used);
            return;
        }
        Label masked = cb.newLabel();
        Label done = cb.newLabel();
        // A thread that faulted (in an earlier node of this iteration) has left the masks: one scalar test.
        cb.iload(method.faultLaneSlot);
        cb.ifge(masked);
        unmaskedAtomic(x, used, masked);
        cb.goto_(done);
        cb.labelBinding(masked);
        maskedAtomic(x, used);
        cb.labelBinding(done);
    }

    /**
     * The atomic with every lane of the group active: jumps to {@code outside}, having done nothing, when any
     * index is outside the array; else runs the updates for lanes 0 to n-1. When nothing reads the old values
     * and every operand is uniform (a histogram's {@code add(bins, v, 1)}), the updates are unrolled, each
     * lane's index read from its register with {@code lane(j)}; otherwise the indices (and varying operands)
     * are stored to the scratch arrays once and a loop runs the updates.
     *
     * <p>Why registers there: indices stored as one vector and read back as ints miss store-to-load forwarding
     * on this AMD machine for every lane but a register's first (a narrow load at an offset inside a wide store
     * waits until the store reaches the cache). perfasm, HistogramBenchmark: 82% of the samples in the stride
     * loop, ~46% of them on the index loads after each {@code inc [bins + idx*4]}; per launch of 2^22 elements
     * (scratch main, 2 busy cores, settled) about 10.5 ms before, 4.6 ms after. Only there: unrolling every
     * atomic with its operands and old values took a kernel with three used atomics (AtomicsTest's
     * gridStrideOldValues) past the JIT's 8000-byte limit, which costs it its fast paths. On the AVX-512 Zen 4
     * machine the opposite holds, and there the loop runs instead ({@link CodeGen#UNROLLED_ATOMIC_LANES}).
     */
    private void unmaskedAtomic(Node x, boolean used, Label outside) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        Node source = rereadSource(x);
        boolean unrolled = source == null && !used && n <= CodeGen.UNROLLED_ATOMIC_LANES;
        for (int i = 2; i < x.in.size(); i++) {
            unrolled &= method.isScalarAt(x.in(i), method.cur);
        }
        int[] idxRegs = new int[method.regs32];
        for (int r = 0; r < method.regs32; r++) {
            if (CodeGen.MERGED_ATOMIC_CHECK && r > 0) {
                cb.getstatic(Vec.OPERATORS, "UMAX", Vec.operatorType("UMAX"));
            }
            // unsigned: a negative index is above any length
            method.vector(idx, r, method.cur);
            if (unrolled) {
                idxRegs[r] = method.temp(TypeKind.REFERENCE);
                cb.dup();
                cb.astore(idxRegs[r]);
            }
            if (CodeGen.MERGED_ATOMIC_CHECK) {
                if (r > 0) {
                    cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, method.arithmetic.binaryType(), Vec.VECTOR));
                }
                if (r < method.regs32 - 1) {
                    continue;
                }
            }
            cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
            method.scalar(arr);
            cb.arraylength();
            cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, method.arithmetic.comparisonType(), CD_int));
            cb.invokevirtual(Vec.MASK, "anyTrue", mt(CD_boolean));
            cb.ifne(outside);
        }
        if (unrolled) {
            for (int j = 0; j < n; j++) {
                update(x, false, j, idxRegs, null);
            }
            return;
        }
        if (source == null) {
            method.storeRegisters(idx, Kind.INT, scratch.get(Kind.INT), 0);
        }
        storeOperands(x);
        int j = method.temp(TypeKind.INT);
        Label loop = cb.newLabel();
        Label end = cb.newLabel();
        cb.iconst_0();
        cb.istore(j);
        cb.labelBinding(loop);
        cb.iload(j);
        cb.loadConstant(n);
        cb.if_icmpge(end);
        update(x, used, j, null, source);
        cb.iinc(j, 1);
        cb.goto_(loop);
        cb.labelBinding(end);
        loadResults(x, used);
    }

    /**
     * The load the grid-stride fast path reads atomic {@code x}'s indices again from ({@link #contiguousSource}), or
     * null. Decided once, when {@link MethodGen#nodes} plans the locals of x's block, before its values have
     * storage: the re-read uses the load's index and array after their last use in the IR, so they stay live up to
     * the atomic (given back after the load, the index's local went to the next value that took one, the loop over
     * the lanes, and the threads counted other elements).
     */
    Node rereadSource(Node x) {
        if (!CodeGen.REREAD_ATOMIC_INDICES) {
            return null;
        }
        if (!sources.containsKey(x)) {
            sources.put(x, contiguousSource(x));
        }
        return sources.get(x);
    }

    /**
     * The load the atomic's indices come from, where each thread's index can be read again as a scalar from the
     * same element: a contiguous load of an int array, in the same block with no write to a global array between,
     * from a global array that the atomic cannot write (its own array is a CTA's shared one, which no global array
     * is, or of another kind). Else null. Why: on the AVX-512 Zen 4 machine both other ways to get a lane's index into a
     * scalar register stall, {@code lane(j)} and a narrow load from a wide store to scratch (store-to-load
     * forwarding), while a load of the source element, which the vector load has just brought into the cache, does
     * not. Contiguous in the group's analysis: lane j's element is then the index's base + j. An index contiguous
     * only within each register (register rows, {@link Storage.RegisterAffine}: a base per register) is varying
     * there, and read from the indices' registers as any other.
     */
    private Node contiguousSource(Node x) {
        Node idx = x.in(1);
        if (idx.op != Op.LOAD || idx.kind != Kind.INT || !method.isScalar(idx.in(0)) || idx.in(0).op == Op.SHARED
                || !method.memoryOps.contiguous(idx.in(1))) {
            return null;
        }
        if (x.in(0).op != Op.SHARED && x.kind == Kind.INT) {
            return null;
        }
        Block b = method.cur;
        int from = b.nodes.indexOf(idx);
        int to = b.nodes.indexOf(x);
        if (from < 0 || to < from) {
            return null;
        }
        for (int k = from + 1; k < to; k++) {
            Node w = b.nodes.get(k);
            boolean writesShared = (w.op == Op.STORE || w.op == Op.ATOMIC) && w.in(0).op == Op.SHARED;
            if (!writesShared && (w.op == Op.STORE || w.op == Op.ATOMIC || w.op == Op.BARRIER || w.op == Op.CALL
                    || w.op == Op.WARP)) {
                return null;
            }
        }
        return idx;
    }

    /**
     * The atomic under the current mask: the indices checked with one vector compare per register (the first
     * active lane outside the array faults, see {@link Faults#kill()}), then the update per active lane in lane
     * order. The indices of inactive lanes are stored too but never read: only active lanes are visited.
     */
    private void maskedAtomic(Node x, boolean used) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        int map = scratch.get(Kind.INT);
        for (int r = 0; r < method.regs32; r++) {
            method.vector(idx, r, method.cur);
            cb.dup();
            cb.aload(map);
            cb.loadConstant(r * method.l32);
            cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
            cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
            method.scalar(arr);
            cb.arraylength();
            cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, method.arithmetic.comparisonType(), CD_int));
            method.curMask(Kind.INT, r);
            cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
            cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
            if (r > 0) {
                cb.loadConstant(r * method.l32);
                cb.lshl();
                cb.lor();
            }
        }
        method.memoryOps.faultAtFirstOutside(map, arr);
        storeOperands(x);
        int left = method.temp(TypeKind.LONG);
        int j = method.temp(TypeKind.INT);
        Label loop = cb.newLabel();
        Label end = cb.newLabel();
        method.curBits();
        cb.lstore(left);
        cb.labelBinding(loop);
        cb.lload(left);
        cb.lconst_0();
        cb.lcmp();
        cb.ifeq(end);
        cb.lload(left);
        cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
        cb.istore(j);
        update(x, used, j, null, null);
        cb.lload(left);
        cb.lload(left);
        cb.lconst_1();
        cb.lsub();
        cb.land();
        cb.lstore(left);
        cb.goto_(loop);
        cb.labelBinding(end);
        loadResults(x, used);
    }

    /** Stores the atomic's varying operands to the scratch array; a uniform one (a histogram's 1) stays scalar. */
    private void storeOperands(Node x) {
        Kind k = x.kind;
        int s = scratch.get(k);
        for (int i = 2; i < x.in.size(); i++) {
            if (!method.isScalarAt(x.in(i), method.cur)) {
                method.storeRegisters(x.in(i), k, s, (i - 1) * n);
            }
        }
    }

    /**
     * One thread's update: the {@code Atomics} method (or its {@link SharedAtomics} twin for a CTA's shared array),
     * its old value stored to the scratch array when read. An add on a shared array whose old value nobody reads is
     * a plain {@code a[i] += v} in place: one load and one store, independent of whether C2 still inlines small
     * calls in a large kernel method.
     *
     * <p>Unrolled ({@code idxRegs} not null), the thread is lane {@code lane}, a constant, and its index that lane of
     * the index registers (its operands are uniform); else its lane is in local {@code lane}, its varying operands
     * in the scratch arrays, and its index there too or, with {@code source} ({@link #contiguousSource}), read
     * again from the element that load read for it.
     */
    private void update(Node x, boolean used, int lane, int[] idxRegs, Node source) {
        Node arr = x.in(0);
        Kind k = x.kind;
        Atomic a = (Atomic) x.aux;
        int s = scratch.get(k);
        TypeKind tk = Vec.typeKind(k);
        boolean inPlace = !used && arr.op == Op.SHARED && a.name().equals("add");
        if (used) {
            cb.aload(s);
            pushLane(lane, idxRegs);
            cb.loadConstant(3 * n);
            cb.iadd();
        }
        method.scalar(arr);
        if (idxRegs != null) {
            cb.aload(idxRegs[lane / method.l32]);
            cb.loadConstant(lane % method.l32);
            cb.invokevirtual(Vec.INT_VECTOR, "lane", mt(CD_int, CD_int));
        } else if (source != null) {
            method.scalar(source.in(0));
            method.base(source.in(1), method.cur);
            cb.iload(lane);
            cb.iadd();
            cb.arrayLoad(Vec.elementTypeKind(source.in(0).kind));
        } else {
            cb.aload(scratch.get(Kind.INT));
            cb.iload(lane);
            cb.iaload();
        }
        if (inPlace) {
            cb.dup2();
            cb.arrayLoad(tk);
        }
        for (int i = 2; i < x.in.size(); i++) {
            if (method.isScalarAt(x.in(i), method.cur)) {
                method.scalar(x.in(i));
                continue;
            }
            if (idxRegs != null) {
                throw new IllegalStateException("varying operand in an unrolled atomic");
            }
            cb.aload(s);
            cb.iload(lane);
            cb.loadConstant((i - 1) * n);
            cb.iadd();
            cb.arrayLoad(tk);
        }
        if (inPlace) {
            switch (tk) {
                case INT -> cb.iadd();
                case LONG -> cb.ladd();
                case FLOAT -> cb.fadd();
                case DOUBLE -> cb.dadd();
                default -> throw new IllegalStateException("atomic add of " + k);
            }
            cb.arrayStore(tk);
            return;
        }
        // the CTA's shared arrays are this worker's alone while the CTA runs: plain read-modify-writes suffice
        ClassDesc atomics = arr.op == Op.SHARED ? Vec.SHARED_ATOMICS : ClassDesc.of("dev.weft.Atomics");
        cb.invokestatic(atomics, a.name(), MethodTypeDesc.ofDescriptor(a.descriptor()));
        if (used) {
            cb.arrayStore(tk);
        } else if (tk.slotSize() == 2) {
            cb.pop2();
        } else {
            cb.pop();
        }
    }

    /** Pushes the lane of {@link #update}: the constant where unrolled, else the local's value. */
    private void pushLane(int lane, int[] idxRegs) {
        if (idxRegs != null) {
            cb.loadConstant(lane);
        } else {
            cb.iload(lane);
        }
    }

    /** The old values, when read, from the scratch array into the atomic's registers. */
    private void loadResults(Node x, boolean used) {
        if (!used) {
            return;
        }
        Kind k = x.kind;
        int s = scratch.get(k);
        for (int r = 0; r < method.regs(k); r++) {
            Vec.loadSpecies(cb, k);
            cb.aload(s);
            cb.loadConstant(3 * n + r * method.lanes(k));
            cb.invokestatic(Vec.vector(k), "fromArray", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k.arrayOf()), CD_int));
            method.storeVector(x, r);
        }
    }
}
