package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.EnumMap;

/**
 * Loads and stores of global and shared arrays: contiguous vector accesses at affine indexes, strided gathers from
 * constant maps, gathers and scatters for the rest, and shared allocations. Every access is range-checked against
 * the current mask: the first active thread out of bounds faults, an inactive lane never does.
 *
 * <p>Arrays of byte, short, char and boolean (global only: the API has no narrow shared arrays) hold int values in
 * the kernel, as the JVM's operand stack does, so only their accesses differ: a vector access goes through a byte or
 * short vector with as many lanes as an int register ({@link Lanes.Narrow}: 16 lanes are a 128-bit byte or 256-bit
 * short vector with 512-bit registers), widened with {@code convertShape} after a load ({@code B2I}, {@code S2I},
 * {@code ZERO_EXTEND_S2I} for char, and {@code fromBooleanArray}'s 0 or 1) and narrowed before a store ({@code I2B},
 * {@code I2S}; {@code intoBooleanArray} keeps the low bit, as {@code bastore} does into a boolean array). The range
 * checks, faults and masks are the int paths' own, the masks cast to the narrow species (the same lane count).
 * Scatters go lane by lane in lane order ({@link Lanes#scatter(byte[], int[], int[], int, long)}): no machine
 * scatters bytes or shorts, and the loop keeps the last lane's store where lanes collide. Uniform accesses are
 * {@code baload}, {@code saload}, {@code caload} and their stores.
 */
final class MemoryOps {
    /** The method this code is part of. */
    private final MethodGen method;
    private final int l32;
    private final int n;
    private final int regs32;
    private final CodeBuilder cb;
    private final EnumMap<Kind, Integer> scratch;

    MemoryOps(MethodGen method) {
        this.method = method;
        this.l32 = method.l32;
        this.n = method.n;
        this.regs32 = method.regs32;
        this.cb = method.cb;
        this.scratch = method.scratch;
    }

    /** The {@code SharedMemory} method that makes a shared array of {@code kind}. */
    static String sharedMethod(Kind kind) {
        return switch (kind) {
            case INT_ARRAY -> "ints";
            case LONG_ARRAY -> "longs";
            case FLOAT_ARRAY -> "floats";
            default -> "doubles";
        };
    }

    /**
     * A shared allocation: the CTA's k-th array, once per group (every thread of the group would get the same
     * array). An allocation the runtime refuses (over the limit, or not the array another thread got) faults
     * the first active thread, which is the thread that makes it first in the reference executor. The refusal is
     * caught by the block's one handler for it ({@link Faults.Shared#SHARED_ALLOCATION}): a kernel's allocations
     * come together at its start, and a handler each took some 40 bytes of the method's 8000.
     */
    void sharedAllocation(Node x) {
        Label start = cb.newLabel();
        Label end = cb.newLabel();
        String factory = sharedMethod(x.kind);
        cb.labelBinding(start);
        cb.aload(method.ctaSlot);
        cb.invokevirtual(Vec.CTA, "sharedMemory", mt(Vec.SHARED_MEMORY));
        cb.loadConstant((Integer) x.aux);
        method.scalar(x.in(0));
        cb.invokevirtual(Vec.SHARED_MEMORY, factory, mt(Vec.scalar(x.kind), CD_int, CD_int));
        cb.labelBinding(end);
        method.storeScalar(x);
        cb.exceptionCatch(start, end, method.faults.handler(Faults.Shared.SHARED_ALLOCATION),
                ClassDesc.of("java.lang.IllegalArgumentException"));
    }

    void uniformLoad(Node x) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        Label ok = cb.newLabel();
        method.faults.nullCheck(arr, null);
        ifInBounds(idx, arr, ok);
        method.faults.toOutOfBounds(idx, arr);
        cb.labelBinding(ok);
        loadElement(x);
    }

    /**
     * Jumps to {@code ok} where scalar {@code idx} lies inside {@code arr}: one unsigned comparison, as negative
     * indices are above any length.
     */
    private void ifInBounds(Node idx, Node arr, Label ok) {
        method.scalar(idx);
        method.scalar(arr);
        cb.arraylength();
        cb.invokestatic(ClassDesc.of("java.lang.Integer"), "compareUnsigned", mt(CD_int, CD_int, CD_int));
        cb.iflt(ok);
    }

    /** Scalar load {@code x} of its array's element at its scalar index, into x's local. */
    private void loadElement(Node x) {
        method.scalar(x.in(0));
        method.scalar(x.in(1));
        cb.arrayLoad(Vec.elementTypeKind(x.in(0).kind));
        method.storeScalar(x);
    }

    /**
     * Register {@code r} of a load at an index uniform in each register ({@link Storage.PerRegister}): one scalar
     * load for the register's threads. Inside the array it loads whether or not the register has an active thread
     * (a read faults nothing, and inactive lanes never use the value), so the common path tests no mask; outside
     * it, the register's first active thread faults (the registers before it have read theirs), and a register
     * with none reads 0.
     */
    void registerLoad(Node x, int r) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        Label ok = cb.newLabel();
        Label skip = cb.newLabel();
        Label done = cb.newLabel();
        method.faults.nullCheck(arr, null);
        ifInBounds(idx, arr, ok);
        method.curMask(Kind.INT, r);
        cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
        cb.dup2();
        cb.lstore(method.bitsSlot);
        cb.lconst_0();
        cb.lcmp();
        cb.ifeq(skip);
        cb.lload(method.bitsSlot);
        cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
        cb.loadConstant(r * l32);
        cb.iadd();
        cb.istore(method.kSlot);
        method.scalar(idx);
        method.scalar(arr);
        cb.arraylength();
        cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
        cb.astore(method.faultCauseSlot);
        method.faults.kill();
        cb.goto_(skip);
        cb.labelBinding(ok);
        loadElement(x);
        cb.goto_(done);
        cb.labelBinding(skip);
        method.constant(method.zero(x.kind), x.kind);
        method.storeScalar(x);
        cb.labelBinding(done);
    }

    /** The index of a contiguous access per register ({@link Storage.RegisterAffine}, stride 1), or null. */
    private Storage.RegisterAffine registerContiguous(Node idx) {
        return method.at(idx, method.cur) instanceof Storage.RegisterAffine ra && ra.stride() == 1 ? ra : null;
    }

    /** Pushes register {@code q}'s first index (of {@code ek}'s registers) of a {@link #registerContiguous} index. */
    private void registerBase(Storage.RegisterAffine ra, int q, Kind ek) {
        int lane = q * method.lanes(ek);
        cb.iload(ra.slots()[lane / l32]);
        if (lane % l32 != 0) {
            cb.loadConstant(lane % l32);
            cb.iadd();
        }
    }

    /**
     * Jumps to {@code slow} unless register {@code q}'s indices {@code [base, base + lanes)} lie inside the array;
     * pushes nothing.
     */
    private void registerRangeCheck(Storage.RegisterAffine ra, int q, Kind ek, Node arr, Label slow) {
        registerBase(ra, q, ek);
        cb.iflt(slow);
        registerBase(ra, q, ek);
        method.scalar(arr);
        cb.arraylength();
        cb.loadConstant(method.lanes(ek));
        cb.isub();
        cb.if_icmpgt(slow);
    }

    /** For register {@code q} near an array's end: faults its first active lane outside it, if any. */
    private void registerFaults(Storage.RegisterAffine ra, int q, Kind ek, Node arr) {
        Label ok = cb.newLabel();
        registerBase(ra, q, ek);
        method.scalar(arr);
        cb.arraylength();
        method.curMask(ek, q);
        cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
        cb.invokestatic(Vec.LANES, "firstOutside", mt(CD_int, CD_int, CD_int, CD_long));
        cb.dup();
        cb.istore(method.kSlot);
        cb.iflt(ok);
        registerBase(ra, q, ek);
        cb.iload(method.kSlot);
        cb.iadd();
        method.scalar(arr);
        cb.arraylength();
        cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
        cb.astore(method.faultCauseSlot);
        cb.iload(method.kSlot);
        cb.loadConstant(q * method.lanes(ek));
        cb.iadd();
        cb.istore(method.kSlot);
        method.faults.kill();
        cb.labelBinding(ok);
    }

    /**
     * A load at an index contiguous within each register (threadIdx.x in a group spanning rows): per register, an
     * unmasked vector load where its lanes' indices are all inside the array (inactive lanes read elements that
     * exist, never used), else its faults and a masked load.
     */
    private void registerContiguousLoad(Node x, Storage.RegisterAffine ra) {
        Node arr = x.in(0);
        Kind ek = x.kind;
        for (int q = 0; q < method.regs(ek); q++) {
            Label slow = cb.newLabel();
            Label next = cb.newLabel();
            registerRangeCheck(ra, q, ek, arr, slow);
            species(arr, ek);
            method.scalar(arr);
            registerBase(ra, q, ek);
            fromArray(arr, ek, Access.PLAIN);
            method.storeVector(x, q);
            cb.goto_(next);
            cb.labelBinding(slow);
            registerFaults(ra, q, ek, arr);
            species(arr, ek);
            method.scalar(arr);
            registerBase(ra, q, ek);
            mask(arr, ek, q);
            fromArray(arr, ek, Access.MASKED);
            method.storeVector(x, q);
            cb.labelBinding(next);
        }
    }

    /**
     * A store at an index contiguous within each register: as {@link #registerContiguousLoad}, masked unless the
     * register is whole.
     */
    private void registerContiguousStore(Node arr, Node val, Kind ek, Storage.RegisterAffine ra) {
        for (int q = 0; q < method.regs(ek); q++) {
            Label slow = cb.newLabel();
            Label masked = cb.newLabel();
            Label next = cb.newLabel();
            registerRangeCheck(ra, q, ek, arr, slow);
            method.curMask(ek, q);
            cb.invokevirtual(Vec.MASK, "allTrue", mt(CD_boolean));
            cb.ifeq(masked);
            method.vector(val, q, method.cur);
            narrowed(arr);
            method.scalar(arr);
            registerBase(ra, q, ek);
            intoArray(arr, ek, Access.PLAIN);
            cb.goto_(next);
            cb.labelBinding(slow);
            registerFaults(ra, q, ek, arr);
            cb.labelBinding(masked);
            if (narrowLaneByLane(arr)) {
                // register q's values and lanes: its lane j at base + j
                vectorToScratch(val, q, 0);
                method.scalar(arr);
                registerBase(ra, q, ek);
                cb.aload(scratch.get(Kind.INT));
                cb.loadConstant(2 * n);
                method.curMask(ek, q);
                cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
                cb.invokestatic(Vec.LANES, "storeLanes", mt(CD_void, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int, CD_long));
            } else {
                method.vector(val, q, method.cur);
                narrowed(arr);
                method.scalar(arr);
                registerBase(ra, q, ek);
                mask(arr, ek, q);
                intoArray(arr, ek, Access.MASKED);
            }
            cb.labelBinding(next);
        }
    }

    boolean contiguous(Node idx) {
        return method.shapeAt(idx, method.cur) == Shape.AFFINE && idx.stride == 1;
    }

    void load(Node x) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        Kind ek = x.kind;
        Label done = cb.newLabel();
        method.faults.nullCheck(arr, null);
        Storage.RegisterAffine ra = registerContiguous(idx);
        if (ra != null) {
            registerContiguousLoad(x, ra);
        } else if (contiguous(idx)) {
            Label slow = cb.newLabel();
            fastRangeCheck(idx, arr, slow);
            for (int r = 0; r < method.regs(ek); r++) {
                species(arr, ek);
                method.scalar(arr);
                registerOffset(idx, r, ek);
                fromArray(arr, ek, Access.PLAIN);
                method.storeVector(x, r);
            }
            cb.goto_(done);
            cb.labelBinding(slow);
            contiguousFaults(idx, arr);
            for (int r = 0; r < method.regs(ek); r++) {
                species(arr, ek);
                method.scalar(arr);
                registerOffset(idx, r, ek);
                mask(arr, ek, r);
                fromArray(arr, ek, Access.MASKED);
                method.storeVector(x, r);
            }
            cb.goto_(done);
        } else {
            if (stridedGather(idx)) {
                Label slow = cb.newLabel();
                stridedRangeCheck(idx, arr, slow);
                for (int r = 0; r < method.regs(ek); r++) {
                    species(arr, ek);
                    method.scalar(arr);
                    registerOffset(idx, r, ek);
                    cb.getstatic(Vec.LANES, "STRIDED", CD_int.arrayType().arrayType());
                    cb.loadConstant(idx.stride + Lanes.MAX_GATHER_STRIDE);
                    cb.aaload();
                    cb.iconst_0();
                    fromArray(arr, ek, Access.MAPPED);
                    method.storeVector(x, r);
                }
                cb.goto_(done);
                cb.labelBinding(slow);
            }
            gatherIndices(idx, arr);
            Label empty = cb.newLabel();
            method.scalar(arr);
            cb.arraylength();
            cb.ifeq(empty);
            int map = scratch.get(Kind.INT);
            for (int r = 0; r < method.regs(ek); r++) {
                species(arr, ek);
                method.scalar(arr);
                cb.iconst_0();
                cb.aload(map);
                cb.loadConstant(r * method.lanes(ek));
                fromArray(arr, ek, Access.MAPPED);
                method.storeVector(x, r);
            }
            cb.goto_(done);
            cb.labelBinding(empty);
            zeroVectors(x);
            cb.goto_(done);
        }
        cb.labelBinding(done);
    }

    private void zeroVectors(Node x) {
        for (int r = 0; r < method.regs(x.kind); r++) {
            Integer zero = method.zeroSlots.get(x.kind);
            if (zero != null) {
                cb.aload(zero);
            } else {
                Vec.loadSpecies(cb, x.kind);
                cb.invokestatic(Vec.vector(x.kind), "zero", mt(Vec.vector(x.kind), Vec.SPECIES));
            }
            method.storeVector(x, r);
        }
    }

    /** Whether a load at {@code idx} is a gather at {@code base + stride * lane} with a map in {@link Lanes#STRIDED}. */
    private boolean stridedGather(Node idx) {
        return method.shapeAt(idx, method.cur) == Shape.AFFINE && idx.stride != 1 && idx.stride != 0
                && Math.abs(idx.stride) <= Lanes.MAX_GATHER_STRIDE;
    }

    /**
     * Jumps to {@code slow} unless the indices {@code base + stride * lane} of every lane of the group, active or
     * not, lie inside the array: then no thread faults, and the inactive lanes read elements that exist (their
     * values are never used, as with the unmasked gather of {@link #gatherIndices}). Int arithmetic cannot
     * overflow here: {@code |stride| * (n - 1)} is small and the array length not negative.
     */
    private void stridedRangeCheck(Node idx, Node arr, Label slow) {
        int span = Math.abs(idx.stride) * (n - 1);
        if (idx.stride > 0) {
            // 0 <= base and base + span < length
            method.base(idx, method.cur);
            cb.iflt(slow);
            method.base(idx, method.cur);
            method.scalar(arr);
            cb.arraylength();
            cb.loadConstant(span);
            cb.isub();
            cb.if_icmpge(slow);
        } else {
            // 0 <= base - span and base < length
            method.base(idx, method.cur);
            cb.loadConstant(span);
            cb.if_icmplt(slow);
            method.base(idx, method.cur);
            method.scalar(arr);
            cb.arraylength();
            cb.if_icmpge(slow);
        }
    }

    /** Jumps to {@code slow} unless {@code [base, base + n)} lies inside the array. */
    private void fastRangeCheck(Node idx, Node arr, Label slow) {
        method.base(idx, method.cur);
        cb.iflt(slow);
        method.base(idx, method.cur);
        method.scalar(arr);
        cb.arraylength();
        cb.loadConstant(n);
        cb.isub();
        cb.if_icmpgt(slow);
    }

    /** For a contiguous access near an array's end: faults the first active lane outside it, if any. */
    private void contiguousFaults(Node idx, Node arr) {
        Label ok = cb.newLabel();
        method.base(idx, method.cur);
        method.scalar(arr);
        cb.arraylength();
        method.curBits();
        cb.invokestatic(Vec.LANES, "firstOutside", mt(CD_int, CD_int, CD_int, CD_long));
        cb.dup();
        cb.istore(method.kSlot);
        cb.iflt(ok);
        method.base(idx, method.cur);
        cb.iload(method.kSlot);
        cb.iadd();
        method.scalar(arr);
        cb.arraylength();
        cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
        cb.astore(method.faultCauseSlot);
        method.faults.kill();
        cb.labelBinding(ok);
    }

    /**
     * With the lane bits of the indexes outside {@code arr} on the stack (lane {@code i} of the group at bit
     * {@code i}; {@code map} holds the group's indexes): if any, the first such lane faults as the reference's
     * thread would, and it and the lanes after it leave the masks ({@link Faults#kill}).
     */
    void faultAtFirstOutside(int map, Node arr) {
        Label ok = cb.newLabel();
        method.firstLane(ok);
        cb.aload(map);
        cb.iload(method.kSlot);
        cb.iaload();
        method.scalar(arr);
        cb.arraylength();
        cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
        cb.astore(method.faultCauseSlot);
        method.faults.kill();
        cb.labelBinding(ok);
    }

    /**
     * Puts the index vector into the int scratch array, faults the first active lane out of bounds, then
     * replaces the indices of inactive lanes by 0 so that an unmasked gather reads only valid elements.
     * The vector work is emitted inline, not as calls to Lanes helpers: the generated methods are near C2's
     * inlining budget, so such a call is not inlined and its vector and mask arguments are boxed, per group
     * and register (77 MB per launch of the register-blocked sgemm, whose tile loads are gathers).
     */
    private void gatherIndices(Node idx, Node arr) {
        int map = scratch.get(Kind.INT);
        if (method.gen.compactGathers) {
            compactGatherIndices(idx, arr, map);
            return;
        }
        method.gen.inlineGathers = true;
        for (int r = 0; r < regs32; r++) {
            method.vector(idx, r, method.cur);
            cb.aload(map);
            cb.loadConstant(r * l32);
            cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
            // unsigned: a negative index is above any length
            method.vector(idx, r, method.cur);
            cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
            method.scalar(arr);
            cb.arraylength();
            cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, method.arithmetic.comparisonType(), CD_int));
            method.curMask(Kind.INT, r);
            cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
            cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
            if (r > 0) {
                cb.loadConstant(r * l32);
                cb.lshl();
                cb.lor();
            }
        }
        faultAtFirstOutside(map, arr);
        for (int r = 0; r < regs32; r++) {
            method.vector(idx, r, method.cur);
            cb.iconst_0();
            method.curMask(Kind.INT, r);
            cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
            cb.invokevirtual(Vec.INT_VECTOR, "blend", mt(Vec.INT_VECTOR, CD_int, Vec.MASK));
            cb.aload(map);
            cb.loadConstant(r * l32);
            cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
        }
    }

    /** {@link #gatherIndices} as calls to Lanes helpers ({@link CodeGen#withCompactGathers}). */
    private void compactGatherIndices(Node idx, Node arr, int map) {
        // An affine index is passed as its base and stride, not built as a vector (9 bytes less per register and use).
        int stride = affineStride(idx);
        MethodTypeDesc outside = stride == 0
                ? mt(CD_long, Vec.INT_VECTOR, Vec.MASK, CD_int, CD_int.arrayType(), CD_int)
                : mt(CD_long, CD_int, CD_int, Vec.MASK, CD_int, CD_int.arrayType(), CD_int);
        MethodTypeDesc inside = stride == 0
                ? mt(CD_void, Vec.INT_VECTOR, Vec.MASK, CD_int.arrayType(), CD_int)
                : mt(CD_void, CD_int, CD_int, Vec.MASK, CD_int.arrayType(), CD_int);
        for (int r = 0; r < regs32; r++) {
            compactIndex(idx, r, stride);
            method.curMask(Kind.INT, r);
            method.scalar(arr);
            cb.arraylength();
            cb.aload(map);
            cb.loadConstant(r * l32);
            cb.invokestatic(Vec.LANES, "outside", outside);
            if (r > 0) {
                cb.loadConstant(r * l32);
                cb.lshl();
                cb.lor();
            }
        }
        faultAtFirstOutside(map, arr);
        for (int r = 0; r < regs32; r++) {
            compactIndex(idx, r, stride);
            method.curMask(Kind.INT, r);
            cb.aload(map);
            cb.loadConstant(r * l32);
            cb.invokestatic(Vec.LANES, "inside", inside);
        }
    }

    /** The stride of an index kept as a base and a stride (affine, or affine in each register), else 0. */
    private int affineStride(Node idx) {
        Storage st = method.at(idx, method.cur);
        if (st instanceof Storage.Affine a) {
            return a.stride();
        }
        if (st instanceof Storage.RegisterAffine ra) {
            return ra.stride();
        }
        return 0;
    }

    /** Pushes register {@code r} of the index: its base and stride where {@code stride != 0}, else the vector. */
    private void compactIndex(Node idx, int r, int stride) {
        if (stride == 0) {
            method.vector(idx, r, method.cur);
            return;
        }
        int outer = method.reg;
        method.reg = r;
        method.base(idx, method.cur);
        method.reg = outer;
        cb.loadConstant(stride);
    }

    /** Pushes the last active thread's lane in the group, {@code 63 - nlz(bits)} ({@link MethodGen#bitsSlot}, not 0). */
    private void lastActiveThread() {
        cb.bipush(63);
        cb.lload(method.bitsSlot);
        cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfLeadingZeros", mt(CD_int, CD_long));
        cb.isub();
    }

    /**
     * Pushes the last active thread's lane of {@code val} ({@link #lastActiveThread}): a branch per register but the
     * last picks the register, {@code lane} the lane (see {@link CodeGen#LANE_IN_REGISTER}).
     */
    private void lastActiveLane(Node val, Kind ek) {
        int lanes = method.lanes(ek);
        int regs = method.regs(ek);
        int last = method.temp(TypeKind.INT);
        lastActiveThread();
        cb.istore(last);
        Label picked = cb.newLabel();
        for (int r = 0; r < regs; r++) {
            Label later = cb.newLabel();
            if (r < regs - 1) {
                cb.iload(last);
                cb.loadConstant((r + 1) * lanes);
                cb.if_icmpge(later);
            }
            method.vector(val, r, method.cur);
            cb.iload(last);
            cb.loadConstant(lanes - 1);
            cb.iand();
            cb.invokevirtual(Vec.vector(ek), "lane", mt(Vec.scalar(ek), CD_int));
            if (r < regs - 1) {
                cb.goto_(picked);
                cb.labelBinding(later);
            }
        }
        cb.labelBinding(picked);
    }

    void store(Node x) {
        Node arr = x.in(0);
        Node idx = x.in(1);
        Node val = x.in(2);
        Kind ek = val.kind;
        Shape is = method.shapeAt(idx, method.cur);
        Label done = cb.newLabel();
        method.faults.nullCheck(arr, null);
        Storage.RegisterAffine ra = registerContiguous(idx);
        if (ra != null) {
            registerContiguousStore(arr, val, ek, ra);
        } else if (is == Shape.UNIFORM) {
            // Every active thread writes the same element: the last one in linear order wins.
            Label oob = cb.newLabel();
            method.scalar(idx);
            cb.iflt(oob);
            method.scalar(idx);
            method.scalar(arr);
            cb.arraylength();
            cb.if_icmpge(oob);
            // inline: with Lanes.bits not inlined (a method near C2's limit) the masks passed were boxed
            method.warpOps.activeBits();
            cb.dup2();
            cb.lstore(method.bitsSlot);
            cb.lconst_0();
            cb.lcmp();
            cb.ifeq(done);
            method.scalar(arr);
            method.scalar(idx);
            if (method.shapeAt(val, method.cur) == Shape.UNIFORM) {
                method.scalar(val);
            } else if (CodeGen.LANE_IN_REGISTER) {
                lastActiveLane(val, ek);
            } else {
                int s = scratch.get(ek);
                for (int r = 0; r < method.regs(ek); r++) {
                    method.vector(val, r, method.cur);
                    cb.aload(s);
                    cb.loadConstant(r * method.lanes(ek));
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(ek.arrayOf()), CD_int));
                }
                cb.aload(s);
                lastActiveThread();
                cb.arrayLoad(Vec.typeKind(ek));
            }
            cb.arrayStore(Vec.elementTypeKind(arr.kind));
            cb.goto_(done);
            cb.labelBinding(oob);
            method.faults.toOutOfBounds(idx, arr);
        } else if (contiguous(idx)) {
            Label slow = cb.newLabel();
            fastRangeCheck(idx, arr, slow);
            // One test for the group, not one per register: every thread active (the common case) stores
            // unmasked; otherwise every register masked. Where C2 cannot fold the masks (a kernel whose groups
            // at the grid's edge are partial, as the stencil's) each test is a mask-to-bits move and a branch.
            Label masked = cb.newLabel();
            allActive(ek);
            cb.ifeq(masked);
            for (int r = 0; r < method.regs(ek); r++) {
                method.vector(val, r, method.cur);
                narrowed(arr);
                method.scalar(arr);
                registerOffset(idx, r, ek);
                intoArray(arr, ek, Access.PLAIN);
            }
            cb.goto_(done);
            cb.labelBinding(masked);
            maskedContiguousStore(idx, arr, val, ek);
            cb.goto_(done);
            cb.labelBinding(slow);
            contiguousFaults(idx, arr);
            maskedContiguousStore(idx, arr, val, ek);
            cb.goto_(done);
        } else {
            if ((!method.gen.compactGathers || method.gen.keepStridedStores) && is == Shape.AFFINE && CodeGen.stridedStoreApplies(arr, idx.stride, ek)) {
                stridedStore(idx, arr, val, ek, done);
            } else if (is == Shape.AFFINE && CodeGen.stridedStoreApplies(arr, idx.stride, ek)) {
                method.gen.skippedStridedStores = true;
            }
            gatherIndices(idx, arr);
            int map = scratch.get(Kind.INT);
            // A narrow array's scatter goes lane by lane in any case: no machine scatters bytes or shorts.
            if (Lanes.NATIVE_SCATTER && !arr.kind.isNarrowArray()) {
                for (int r = 0; r < method.regs(ek); r++) {
                    method.vector(val, r, method.cur);
                    method.scalar(arr);
                    cb.iconst_0();
                    cb.aload(map);
                    cb.loadConstant(r * method.lanes(ek));
                    method.curMask(ek, r);
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int, Vec.MASK));
                }
            } else {
                // Values go after the index map (both may be int arrays).
                int s = scratch.get(ek);
                for (int r = 0; r < method.regs(ek); r++) {
                    method.vector(val, r, method.cur);
                    cb.aload(s);
                    cb.loadConstant(2 * n + r * method.lanes(ek));
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(ek.arrayOf()), CD_int));
                }
                method.scalar(arr);
                cb.aload(map);
                cb.aload(s);
                cb.loadConstant(2 * n);
                method.curBits();
                cb.invokestatic(Vec.LANES, "scatter", mt(CD_void, Vec.scalar(arr.kind), CD_int.arrayType(), Vec.scalar(ek.arrayOf()), CD_int, CD_long));
            }
            cb.goto_(done);
        }
        cb.labelBinding(done);
    }

    /** A contiguous store at {@code base + lane} under the current masks, register by register. */
    private void maskedContiguousStore(Node idx, Node arr, Node val, Kind ek) {
        if (narrowLaneByLane(arr)) {
            int regs = method.regs(ek);
            for (int r = 0; r < regs; r++) {
                vectorToScratch(val, r, r * method.lanes(ek));
            }
            method.scalar(arr);
            method.base(idx, method.cur);
            cb.aload(scratch.get(Kind.INT));
            cb.loadConstant(2 * n);
            method.curBits();
            cb.invokestatic(Vec.LANES, "storeLanes", mt(CD_void, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int, CD_long));
            return;
        }
        for (int r = 0; r < method.regs(ek); r++) {
            method.vector(val, r, method.cur);
            narrowed(arr);
            method.scalar(arr);
            registerOffset(idx, r, ek);
            mask(arr, ek, r);
            intoArray(arr, ek, Access.MASKED);
        }
    }

    /**
     * Whether a masked store into {@code arr} goes lane by lane ({@link Lanes#storeLanes(byte[], int, int[], int, long)}):
     * a narrow array where the machine has no masked store of bytes and shorts (AVX2; AVX-512 has one). Measured here
     * (Zen 4 with {@code -XX:UseAVX=2}, 2^20 threads, half of them storing into a boolean array): the Vector API's
     * masked store 2.8 ms a launch against 0.5 for the int array's.
     */
    private static boolean narrowLaneByLane(Node arr) {
        return arr.kind.isNarrowArray() && !Lanes.NATIVE_NARROW_MASKED_STORE;
    }

    /** Register {@code r} of int values {@code val} into the int scratch array, {@code at} past the index map's {@code 2n}. */
    private void vectorToScratch(Node val, int r, int at) {
        method.vector(val, r, method.cur);
        cb.aload(scratch.get(Kind.INT));
        cb.loadConstant(2 * n + at);
        cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
    }

    /** Pushes whether every thread of the group is active: the registers' masks and-ed, then {@code allTrue}. */
    private void allActive(Kind ek) {
        if (method.lazyLaneKinds(method.cur).contains(ek) && method.regs(ek) == regs32) {
            // The same lanes as the int-lane masks: no cast to test.
            ek = Kind.INT;
        }
        method.curMask(ek, 0);
        for (int r = 1; r < method.regs(ek); r++) {
            method.curMask(ek, r);
            cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
        }
        cb.invokevirtual(Vec.MASK, "allTrue", mt(CD_boolean));
    }

    /**
     * A store at {@code base + stride * lane} (constant stride, not 0 or 1), every lane active and inside the
     * array: one scalar store per lane, in lane order, from the values in the scratch array; then jumps to
     * {@code done}. Otherwise falls through to the general scatter, which finds faults and
     * honours the masks. The lanes' indices are distinct (stride not 0), so their order does not matter.
     * Why: without a native scatter (AVX2) the general one stores the values and indices into scratch arrays
     * and loops over the mask's bits; in the register-blocked sgemm, whose A tile is stored transposed (stride
     * 64), that loop took about 14% of all samples (perfasm). Only into shared arrays (tiles; about 60 bytes a
     * store, which pushed kernels with many strided stores to global arrays over the JIT's limit), and not
     * once the compiler retries a kernel too large with compact gathers ({@link CodeGen#withCompactGathers}). Strides up to {@link CodeGen#MAX_STORE_STRIDE}: the
     * range check's {@code |stride| * (n - 1)} stays far from overflow.
     */
    private void stridedStore(Node idx, Node arr, Node val, Kind ek, Label done) {
        Label general = cb.newLabel();
        stridedRangeCheck(idx, arr, general);
        allActive(ek);
        cb.ifeq(general);
        // The values through the SM's scratch array, then a counted loop of scalar stores (C2 unrolls it): a
        // store per lane unrolled in bytecode made fuzzed and test kernels too large for the JIT (8000 bytes).
        int s = scratch.get(ek);
        for (int r = 0; r < method.regs(ek); r++) {
            method.vector(val, r, method.cur);
            cb.aload(s);
            cb.loadConstant(r * method.lanes(ek));
            cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(ek.arrayOf()), CD_int));
        }
        int i = method.temp(TypeKind.INT);
        Label loop = cb.newLabel();
        cb.iconst_0();
        cb.istore(i);
        cb.labelBinding(loop);
        method.scalar(arr);
        method.base(idx, method.cur);
        cb.iload(i);
        cb.loadConstant(idx.stride);
        cb.imul();
        cb.iadd();
        cb.aload(s);
        cb.iload(i);
        cb.arrayLoad(Vec.typeKind(ek));
        cb.arrayStore(Vec.typeKind(ek));
        cb.iinc(i, 1);
        cb.iload(i);
        cb.loadConstant(n);
        cb.if_icmplt(loop);
        cb.goto_(done);
        cb.labelBinding(general);
    }

    /** Pushes the index of register {@code r}'s first lane of the affine {@code idx}: base + r * lanes * stride. */
    private void registerOffset(Node idx, int r, Kind ek) {
        method.base(idx, method.cur);
        if (r > 0) {
            cb.loadConstant(r * method.lanes(ek) * idx.stride);
            cb.iadd();
        }
    }
    // ---- the vector loads and stores of any array: a narrow array's lanes widen to int and back ----------------

    /** What a vector load or store takes after its species (loads), array and offset. */
    private enum Access {
        /** Nothing more. */
        PLAIN,
        /** The mask. */
        MASKED,
        /** An index map and the offset into it (a gather or a scatter). */
        MAPPED
    }

    /** Pushes the species a load from {@code arr} reads with: for a narrow array, its 8- or 16-bit lanes ({@link Lanes.Narrow}). */
    private void species(Node arr, Kind ek) {
        if (arr.kind.isNarrowArray()) {
            cb.getstatic(Vec.LANES_NARROW, narrowSpecies(arr.kind), Vec.SPECIES);
        } else {
            Vec.loadSpecies(cb, ek);
        }
    }

    /** Pushes register {@code r}'s mask of {@code ek}'s lanes, cast to a narrow array's lanes (the same count). */
    private void mask(Node arr, Kind ek, int r) {
        method.curMask(ek, r);
        if (arr.kind.isNarrowArray()) {
            cb.getstatic(Vec.LANES_NARROW, narrowSpecies(arr.kind), Vec.SPECIES);
            cb.invokevirtual(Vec.MASK, "cast", mt(Vec.MASK, Vec.SPECIES));
        }
    }

    /**
     * The vector load of {@code arr}'s elements, its arguments on the stack ({@link #species} first); a narrow
     * array's lanes then widen to int, sign-extended (byte, short), zero-extended (char) or as 0 and 1 (boolean).
     */
    private void fromArray(Node arr, Kind ek, Access a) {
        if (!arr.kind.isNarrowArray()) {
            cb.invokestatic(Vec.vector(ek), "fromArray", mt(Vec.vector(ek), access(a, Vec.SPECIES, Vec.scalar(arr.kind), CD_int)));
            return;
        }
        ClassDesc vt = narrowVector(arr.kind);
        String load = switch (arr.kind) {
            case CHAR_ARRAY -> "fromCharArray";
            case BOOLEAN_ARRAY -> "fromBooleanArray";
            default -> "fromArray";
        };
        cb.invokestatic(vt, load, mt(vt, access(a, Vec.SPECIES, Vec.scalar(arr.kind), CD_int)));
        String widen = switch (arr.kind) {
            case SHORT_ARRAY -> "S2I";
            case CHAR_ARRAY -> "ZERO_EXTEND_S2I";
            default -> "B2I";
        };
        convertShape(widen, Vec.LANES, "IS");
        cb.checkcast(Vec.INT_VECTOR);
    }

    /** With an int vector on the stack, for a narrow array: its lanes' low 8 or 16 bits, as the array's vector. */
    private void narrowed(Node arr) {
        if (arr.kind.isNarrowArray()) {
            convertShape(arr.kind.elementBytes() == 1 ? "I2B" : "I2S", Vec.LANES_NARROW, narrowSpecies(arr.kind));
            cb.checkcast(narrowVector(arr.kind));
        }
    }

    /**
     * The vector store into {@code arr}, its arguments on the stack (the vector {@link #narrowed} first). A boolean
     * array stores each lane's low bit ({@code intoBooleanArray}), as {@code bastore} does.
     */
    private void intoArray(Node arr, Kind ek, Access a) {
        ClassDesc vt = arr.kind.isNarrowArray() ? narrowVector(arr.kind) : Vec.vector(ek);
        String store = switch (arr.kind) {
            case CHAR_ARRAY -> "intoCharArray";
            case BOOLEAN_ARRAY -> "intoBooleanArray";
            default -> "intoArray";
        };
        cb.invokevirtual(vt, store, mt(CD_void, access(a, Vec.scalar(arr.kind), CD_int)));
    }

    /** {@code convertShape(VectorOperators.op, owner.species, 0)} on the vector on the stack: same lane count, so part 0. */
    private void convertShape(String op, ClassDesc owner, String species) {
        cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
        cb.getstatic(owner, species, Vec.SPECIES);
        cb.iconst_0();
        cb.invokevirtual(Vec.VECTOR, "convertShape", mt(Vec.VECTOR, Vec.operatorType(op), Vec.SPECIES, CD_int));
    }

    /** {@code first} followed by what access {@code a} takes. */
    private static ClassDesc[] access(Access a, ClassDesc... first) {
        ClassDesc[] more = switch (a) {
            case PLAIN -> new ClassDesc[0];
            case MASKED -> new ClassDesc[] {Vec.MASK};
            case MAPPED -> new ClassDesc[] {CD_int.arrayType(), CD_int};
        };
        ClassDesc[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    /** The field of {@link Lanes.Narrow} holding a narrow array's species. */
    private static String narrowSpecies(Kind arr) {
        return arr.elementBytes() == 1 ? "BS" : "SS";
    }

    /** The vector class of a narrow array's lanes. */
    private static ClassDesc narrowVector(Kind arr) {
        return arr.elementBytes() == 1 ? Vec.BYTE_VECTOR : Vec.SHORT_VECTOR;
    }
}
