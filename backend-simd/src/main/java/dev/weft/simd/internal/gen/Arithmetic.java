package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Conv;
import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Arithmetic, comparisons and conversions on uniform scalars and varying vectors, integer division with its
 * divide-by-zero faults, and {@code Math} and {@code Sfu} functions, as vector operators or once per lane.
 */
final class Arithmetic {
    /** The method this code is part of. */
    private final MethodGen method;
    private final int n;
    private final int regs32;
    private final CodeBuilder cb;

    Arithmetic(MethodGen method) {
        this.method = method;
        this.n = method.n;
        this.regs32 = method.regs32;
        this.cb = method.cb;
    }

    ClassDesc binaryType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Binary");
    }

    private ClassDesc unaryType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Unary");
    }

    private ClassDesc ternaryType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Ternary");
    }

    ClassDesc comparisonType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Comparison");
    }

    private ClassDesc conversionType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Conversion");
    }

    private ClassDesc testType() {
        return ClassDesc.of("jdk.incubator.vector.VectorOperators$Test");
    }

    void scalarBinary(Op op, Kind k) {
        TypeKind t = Vec.typeKind(k);
        switch (op) {
            case ADD -> arith(t, Opcode.IADD, Opcode.LADD, Opcode.FADD, Opcode.DADD);
            case SUB -> arith(t, Opcode.ISUB, Opcode.LSUB, Opcode.FSUB, Opcode.DSUB);
            case MUL -> arith(t, Opcode.IMUL, Opcode.LMUL, Opcode.FMUL, Opcode.DMUL);
            case DIV -> arith(t, Opcode.IDIV, Opcode.LDIV, Opcode.FDIV, Opcode.DDIV);
            case REM -> arith(t, Opcode.IREM, Opcode.LREM, Opcode.FREM, Opcode.DREM);
            case AND -> intOrLong(k, Opcode.IAND, Opcode.LAND);
            case OR -> intOrLong(k, Opcode.IOR, Opcode.LOR);
            case XOR -> intOrLong(k, Opcode.IXOR, Opcode.LXOR);
            case SHL -> intOrLong(k, Opcode.ISHL, Opcode.LSHL);
            case SHR -> intOrLong(k, Opcode.ISHR, Opcode.LSHR);
            case USHR -> intOrLong(k, Opcode.IUSHR, Opcode.LUSHR);
            default -> throw new IllegalStateException(op.toString());
        }
    }

    /** Bitwise and shift operators exist for int and long only (narrower kinds compute as int). */
    private void intOrLong(Kind k, Opcode i, Opcode l) {
        cb.with(OperatorInstruction.of(k == Kind.LONG ? l : i));
    }

    private void arith(TypeKind t, Opcode i, Opcode l, Opcode f, Opcode d) {
        Opcode o = switch (t) {
            case INT -> i;
            case LONG -> l;
            case FLOAT -> f;
            default -> d;
        };
        cb.with(OperatorInstruction.of(o));
    }

    void scalarConv(Conv c) {
        switch (c) {
            case I2L -> cb.i2l();
            case I2F -> cb.i2f();
            case I2D -> cb.i2d();
            case L2I -> cb.l2i();
            case L2F -> cb.l2f();
            case L2D -> cb.l2d();
            case F2I -> cb.f2i();
            case F2L -> cb.f2l();
            case F2D -> cb.f2d();
            case D2I -> cb.d2i();
            case D2L -> cb.d2l();
            case D2F -> cb.d2f();
            case I2B -> cb.i2b();
            case I2C -> cb.i2c();
            case I2S -> cb.i2s();
        }
    }

    void cmp(Kind k, boolean nanIsOne) {
        switch (k) {
            case LONG -> cb.lcmp();
            case FLOAT -> {
                if (nanIsOne) {
                    cb.fcmpg();
                } else {
                    cb.fcmpl();
                }
            }
            case DOUBLE -> {
                if (nanIsOne) {
                    cb.dcmpg();
                } else {
                    cb.dcmpl();
                }
            }
            default -> throw new IllegalStateException(k.toString());
        }
    }

    void binary(Kind k, String op, Node a, Node bb, int r) {
        boolean commutes = switch (op) {
            case "ADD", "MUL", "MIN", "MAX", "AND", "OR", "XOR" -> true;
            default -> false;
        };
        boolean aScalar = method.shapeAt(a, method.cur) == Shape.UNIFORM || perRegister(a, k);
        boolean bScalar = method.shapeAt(bb, method.cur) == Shape.UNIFORM || perRegister(bb, k);
        if (commutes && aScalar && !bScalar) {
            Node t = a;
            a = bb;
            bb = t;
        }
        method.vector(a, r, method.cur);
        String named = method.gen.compactMasks ? namedBinary(k, op) : null;
        if (named == null) {
            cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
        }
        ClassDesc operand;
        if (method.shapeAt(bb, method.cur) == Shape.UNIFORM && bb.kind == k || perRegister(bb, k)) {
            // The scalar form: no broadcast in the bytecode (C2 broadcasts once, hoisted).
            if (method.at(bb, method.cur) instanceof Storage.PerRegister p) {
                cb.loadLocal(Vec.typeKind(k), p.slots()[r]);
            } else {
                method.scalar(bb);
            }
            operand = Vec.scalar(k);
        } else {
            method.vector(bb, r, method.cur);
            operand = Vec.VECTOR;
        }
        if (named != null) {
            cb.invokevirtual(Vec.vector(k), named, mt(Vec.vector(k), operand));
        } else {
            cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), binaryType(), operand));
        }
    }

    /**
     * The Vector API's named method for {@code op} on {@code k} lanes ({@code add} for {@code lanewise(ADD, ...)}),
     * or null: compact code calls it, 3 bytes shorter without the operator's {@code getstatic}; the same inlined code.
     */
    private static String namedBinary(Kind k, String op) {
        return switch (op) {
            case "ADD", "SUB", "MUL", "DIV", "MIN", "MAX" -> op.toLowerCase(Locale.ROOT);
            case "AND", "OR" -> k == Kind.INT || k == Kind.LONG ? op.toLowerCase(Locale.ROOT) : null;
            default -> null;
        };
    }

    /** Whether operand {@code x} of a {@code k} operation is one scalar per register ({@link Storage.PerRegister}). */
    private boolean perRegister(Node x, Kind k) {
        return x.kind == k && method.at(x, method.cur) instanceof Storage.PerRegister;
    }

    void unary(Kind k, String op, Node a, int r) {
        method.vector(a, r, method.cur);
        cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
        cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), unaryType()));
    }

    void longShift(Node x) {
        String op = x.op == Op.SHL ? "LSHL" : x.op == Op.SHR ? "ASHR" : "LSHR";
        Node amount = x.in(1);
        boolean uniformAmount = method.shapeAt(amount, method.cur) == Shape.UNIFORM;
        for (int r = 0; r < method.regs64; r++) {
            method.vector(x.in(0), r, method.cur);
            cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
            if (uniformAmount) {
                method.scalar(amount);
                cb.i2l();
                cb.invokevirtual(Vec.LONG_VECTOR, "lanewise", mt(Vec.LONG_VECTOR, binaryType(), CD_long));
            } else {
                method.vector(amount, r / 2, method.cur);
                widen(Kind.INT, Kind.LONG, "I2L", r % 2);
                cb.invokevirtual(Vec.LONG_VECTOR, "lanewise", mt(Vec.LONG_VECTOR, binaryType(), Vec.VECTOR));
            }
            method.storeVector(x, r);
        }
    }

    /** Converts the 32-bit-lane vector on the stack to half {@code part} of it in 64-bit lanes. */
    private void widen(Kind from, Kind to, String conv, int part) {
        cb.getstatic(Vec.OPERATORS, conv, Vec.operatorType(conv));
        Vec.loadSpecies(cb, to);
        cb.loadConstant(part);
        cb.invokevirtual(Vec.VECTOR, "convertShape", mt(Vec.VECTOR, conversionType(), Vec.SPECIES, CD_int));
        cb.checkcast(Vec.vector(to));
    }

    void divide(Node x) {
        Kind k = x.kind;
        Node a = x.in(0);
        Node d = x.in(1);
        if (k == Kind.FLOAT || k == Kind.DOUBLE) {
            if (x.op == Op.DIV) {
                for (int r = 0; r < method.regs(k); r++) {
                    binary(k, "DIV", a, d, r);
                    method.storeVector(x, r);
                }
            } else {
                perLane(x, Vec.LANES, k == Kind.FLOAT ? "frem" : "drem",
                        k == Kind.FLOAT ? mt(CD_float, CD_float, CD_float) : mt(CD_double, CD_double, CD_double), false);
            }
            return;
        }
        // Integer division: a zero divisor in an active lane faults that lane.
        if (method.shapeAt(d, method.cur) == Shape.UNIFORM) {
            method.scalar(d);
            if (k == Kind.LONG) {
                cb.lconst_0();
                cb.lcmp();
            }
            cb.ifeq(method.faults.handler(Faults.Shared.DIVIDE_BY_ZERO));
        } else {
            Label ok = cb.newLabel();
            int[] zeroMask = new int[method.regs(k)];
            for (int r = 0; r < method.regs(k); r++) {
                zeroMask[r] = method.temp(TypeKind.REFERENCE);
                method.vector(d, r, method.cur);
                cb.getstatic(Vec.OPERATORS, "EQ", Vec.operatorType("EQ"));
                method.constant(method.zero(k), k);
                cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.scalar(k)));
                method.curMask(k, r);
                cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                cb.astore(zeroMask[r]);
            }
            method.bits(zeroMask, k);
            method.firstLane(ok);
            cb.invokestatic(Vec.LANES, "divideByZero", mt(ClassDesc.of("java.lang.ArithmeticException")));
            cb.astore(method.faultCauseSlot);
            method.faults.kill();
            cb.labelBinding(ok);
        }
        for (int r = 0; r < method.regs(k); r++) {
            method.vector(a, r, method.cur);
            // Inactive lanes divide by one.
            method.vector(d, r, method.cur);
            method.constant(k == Kind.LONG ? (Object) 1L : (Object) 1, k);
            method.curMask(k, r);
            cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
            cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.scalar(k), Vec.MASK));
            cb.invokestatic(Vec.LANES, x.op == Op.DIV ? "div" : "rem", mt(Vec.vector(k), Vec.vector(k), Vec.vector(k)));
            method.storeVector(x, r);
        }
    }

    void convert(Node x) {
        Conv c = (Conv) x.aux;
        Node a = x.in(0);
        switch (c) {
            case I2F, F2I, L2D, D2L -> {
                for (int r = 0; r < method.regs(c.to); r++) {
                    method.vector(a, r, method.cur);
                    cb.getstatic(Vec.OPERATORS, c.name(), Vec.operatorType(c.name()));
                    cb.iconst_0();
                    cb.invokevirtual(Vec.VECTOR, "convert", mt(Vec.VECTOR, conversionType(), CD_int));
                    cb.checkcast(Vec.vector(c.to));
                    method.storeVector(x, r);
                }
            }
            case I2L, I2D, F2L, F2D -> {
                for (int r = 0; r < method.regs64; r++) {
                    method.vector(a, r / 2, method.cur);
                    widen(c.from, c.to, c.name(), r % 2);
                    method.storeVector(x, r);
                }
            }
            case L2I, L2F, D2I, D2F -> {
                for (int r = 0; r < regs32; r++) {
                    for (int half = 0; half < 2; half++) {
                        method.vector(a, 2 * r + half, method.cur);
                        cb.getstatic(Vec.OPERATORS, c.name(), Vec.operatorType(c.name()));
                        Vec.loadSpecies(cb, c.to);
                        cb.loadConstant(-half);
                        cb.invokevirtual(Vec.VECTOR, "convertShape", mt(Vec.VECTOR, conversionType(), Vec.SPECIES, CD_int));
                        cb.checkcast(Vec.vector(c.to));
                        if (c.to == Kind.FLOAT) {
                            cb.invokevirtual(Vec.FLOAT_VECTOR, "reinterpretAsInts", mt(Vec.INT_VECTOR));
                        }
                    }
                    int tmp = method.temp(TypeKind.REFERENCE);
                    cb.astore(tmp);
                    cb.getstatic(Vec.OPERATORS, "OR", Vec.operatorType("OR"));
                    cb.aload(tmp);
                    cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), Vec.VECTOR));
                    if (c.to == Kind.FLOAT) {
                        cb.invokevirtual(Vec.INT_VECTOR, "reinterpretAsFloats", mt(Vec.FLOAT_VECTOR));
                    }
                    method.storeVector(x, r);
                }
            }
            case I2B, I2S -> {
                int sh = c == Conv.I2B ? 24 : 16;
                for (int r = 0; r < regs32; r++) {
                    method.vector(a, r, method.cur);
                    cb.getstatic(Vec.OPERATORS, "LSHL", Vec.operatorType("LSHL"));
                    cb.loadConstant(sh);
                    cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                    cb.getstatic(Vec.OPERATORS, "ASHR", Vec.operatorType("ASHR"));
                    cb.loadConstant(sh);
                    cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                    method.storeVector(x, r);
                }
            }
            case I2C -> {
                for (int r = 0; r < regs32; r++) {
                    method.vector(a, r, method.cur);
                    cb.getstatic(Vec.OPERATORS, "AND", Vec.operatorType("AND"));
                    cb.loadConstant(0xFFFF);
                    cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                    method.storeVector(x, r);
                }
            }
        }
    }

    void test(Node x) {
        Cond c = (Cond) x.aux;
        Node a = x.in(0);
        Node b = x.in(1);
        Kind k = a.kind == Kind.BOOL ? Kind.INT : a.kind;
        boolean fp = k == Kind.FLOAT || k == Kind.DOUBLE;
        Storage.Masks out = (Storage.Masks) method.storage.get(x);
        if (affineBound(x, c, a, b, out) || registerTest(c, a, b, out)) {
            return;
        }
        for (int r = 0; r < method.regs(k); r++) {
            boolean javaDefault = c.pred() == Cond.Pred.NE;
            if (method.inverted.contains(x)) {
                compare(k, c.pred().negate(), a, b, r);
            } else if (!fp || c.unordered() == javaDefault) {
                compare(k, c.pred(), a, b, r);
            } else if (c.unordered() && c.pred() != Cond.Pred.EQ) {
                // (a < b) or unordered == !(a >= b)
                compare(k, c.pred().negate(), a, b, r);
                cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
            } else if (c.unordered()) {
                compare(k, Cond.Pred.EQ, a, b, r);
                nanTest(k, a, r);
                cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
                nanTest(k, b, r);
                cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
            } else {
                // != but false for NaN
                compare(k, Cond.Pred.NE, a, b, r);
                nanTest(k, a, r);
                cb.invokevirtual(Vec.MASK, "andNot", mt(Vec.MASK, Vec.MASK));
                nanTest(k, b, r);
                cb.invokevirtual(Vec.MASK, "andNot", mt(Vec.MASK, Vec.MASK));
            }
            cb.astore(out.slots()[r]);
        }
    }

    /**
     * {@code base + lane < u} and kin (the bounds guard of almost every kernel) as
     * {@code indexInRange(0, u - base)} per register: a scalar test and a constant mask when the whole
     * register is in range, instead of building the index vector and comparing. The limit is computed in long
     * and clamped, so it is exact where the int subtraction would overflow. Where the lanes' own values wrap
     * ({@code base + lanes - 1} overflows: an induction variable running past Integer.MAX_VALUE) they are not
     * monotone in the lane, and a helper compares lane by lane (a call: 13 bytes a register, where the inline
     * compare took 28 and pushed a shared-memory scan over the JIT's limit).
     */
    private boolean affineBound(Node x, Cond c, Node a, Node b, Storage.Masks out) {
        Cond.Pred p = c.pred();
        if (a.kind != Kind.INT || p == Cond.Pred.EQ || p == Cond.Pred.NE) {
            return false;
        }
        Node aff = a;
        Node uni = b;
        if (method.shapeAt(a, method.cur) == Shape.UNIFORM && method.shapeAt(b, method.cur) == Shape.AFFINE) {
            aff = b;
            uni = a;
            p = p.swap();
        }
        if (method.shapeAt(aff, method.cur) != Shape.AFFINE || aff.stride != 1 || method.shapeAt(uni, method.cur) != Shape.UNIFORM) {
            return false;
        }
        // a < u: lanes below u - off; a <= u: below u - off + 1; > and >= are their negations.
        boolean negate = p == Cond.Pred.GT || p == Cond.Pred.GE;
        int extra = (p == Cond.Pred.LE || p == Cond.Pred.GT) ? 1 : 0;
        // A thread index (below 1024) never wraps within a group: no test, and no lane-by-lane path (bytes under
        // C2's limit: a block scan has six such compares).
        boolean wrapFree = aff.op == Op.SREG && switch ((SReg) aff.aux) {
            case TID_X, TID_Y, TID_Z, LINEAR_TID, LANE_ID -> true;
            default -> false;
        };
        Label wraps = cb.newLabel();
        if (!wrapFree) {
            method.base(aff, method.cur);
            cb.loadConstant(Integer.MAX_VALUE - (n - 1));
            cb.if_icmpgt(wraps);
        }
        int limit = method.temp(TypeKind.INT);
        int wide = method.temp(TypeKind.LONG);
        method.scalar(uni);
        cb.i2l();
        method.base(aff, method.cur);
        cb.i2l();
        cb.lsub();
        if (extra != 0) {
            cb.loadConstant((long) extra);
            cb.ladd();
        }
        // The whole group's test on the long limit; clamped to an int only for a partial group (saves C2's two
        // compare-and-moves per group where every group is whole).
        cb.dup2();
        cb.lstore(wide);
        cb.loadConstant((long) n);
        cb.lcmp();
        Label partial = cb.newLabel();
        Label done = cb.newLabel();
        cb.iflt(partial);
        // Every lane of the group is below the bound.
        method.pushMaskAll(!negate);
        for (int r = 0; r < regs32; r++) {
            if (r < regs32 - 1) {
                cb.dup();
            }
            cb.astore(out.slots()[r]);
        }
        cb.goto_(done);
        cb.labelBinding(partial);
        cb.lload(wide);
        cb.invokestatic(Vec.LANES, "clamp", mt(CD_int, CD_long));
        cb.istore(limit);
        for (int r = 0; r < regs32; r++) {
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.loadConstant(r * method.l32);
            cb.iload(limit);
            cb.invokeinterface(Vec.SPECIES, "indexInRange", mt(Vec.MASK, CD_int, CD_int));
            if (negate) {
                cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
            }
            cb.astore(out.slots()[r]);
        }
        if (wrapFree) {
            cb.labelBinding(done);
            return true;
        }
        cb.goto_(done);
        cb.labelBinding(wraps);
        for (int r = 0; r < regs32; r++) {
            method.base(aff, method.cur);
            cb.loadConstant(r);
            method.scalar(uni);
            cb.getstatic(Vec.OPERATORS, p.name(), Vec.operatorType(p.name()));
            cb.invokestatic(Vec.LANES, "affineCompare", mt(Vec.MASK, CD_int, CD_int, CD_int, comparisonType()));
            cb.astore(out.slots()[r]);
        }
        cb.labelBinding(done);
        return true;
    }

    /**
     * An int compare whose operands are uniform or contiguous within each register, one of them per register
     * ({@link Storage.PerRegister}, {@link Storage.RegisterAffine}: a group spanning CTA rows, where
     * {@code row < n} and {@code k0 + threadIdx.x < n} test threadIdx.y and .x): per register a scalar compare and
     * a constant mask, or {@code indexInRange} as {@link #affineBound} makes it, instead of broadcasts and vector
     * compares. False (nothing emitted) for any other compare.
     */
    private boolean registerTest(Cond c, Node a, Node b, Storage.Masks out) {
        if (a.kind != Kind.INT) {
            return false;
        }
        Storage sa = method.at(a, method.cur);
        Storage sb = method.at(b, method.cur);
        if (!(sa instanceof Storage.PerRegister || sa instanceof Storage.RegisterAffine
                || sb instanceof Storage.PerRegister || sb instanceof Storage.RegisterAffine)) {
            return false;
        }
        int fa = registerForm(sa);
        int fb = registerForm(sb);
        Cond.Pred p = c.pred();
        if (fa == 0 && fb == 0) {
            for (int r = 0; r < regs32; r++) {
                Label yes = cb.newLabel();
                Label done = cb.newLabel();
                method.reg = r;
                method.base(a, method.cur);
                method.base(b, method.cur);
                method.reg = -1;
                switch (p) {
                    case EQ -> cb.if_icmpeq(yes);
                    case NE -> cb.if_icmpne(yes);
                    case LT -> cb.if_icmplt(yes);
                    case GE -> cb.if_icmpge(yes);
                    case GT -> cb.if_icmpgt(yes);
                    case LE -> cb.if_icmple(yes);
                }
                method.pushMaskAll(false);
                cb.goto_(done);
                cb.labelBinding(yes);
                method.pushMaskAll(true);
                cb.labelBinding(done);
                cb.astore(out.slots()[r]);
            }
            return true;
        }
        if (fa + fb != 1 || p == Cond.Pred.EQ || p == Cond.Pred.NE) {
            return false;
        }
        Node aff = a;
        Node uni = b;
        if (fb == 1) {
            aff = b;
            uni = a;
            p = p.swap();
        }
        // aff < u: lanes below u - base; <=: below u - base + 1; > and >= are their negations (see affineBound)
        boolean negate = p == Cond.Pred.GT || p == Cond.Pred.GE;
        int extra = (p == Cond.Pred.LE || p == Cond.Pred.GT) ? 1 : 0;
        for (int r = 0; r < regs32; r++) {
            Label wraps = cb.newLabel();
            Label done = cb.newLabel();
            method.reg = r;
            method.base(aff, method.cur);
            cb.loadConstant(Integer.MAX_VALUE - (method.l32 - 1));
            cb.if_icmpgt(wraps);
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.iconst_0();
            method.base(uni, method.cur);
            cb.i2l();
            method.base(aff, method.cur);
            cb.i2l();
            cb.lsub();
            if (extra != 0) {
                cb.loadConstant((long) extra);
                cb.ladd();
            }
            cb.invokestatic(Vec.LANES, "clamp", mt(CD_int, CD_long));
            cb.invokeinterface(Vec.SPECIES, "indexInRange", mt(Vec.MASK, CD_int, CD_int));
            if (negate) {
                cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
            }
            cb.goto_(done);
            // the register's lanes wrap past Integer.MAX_VALUE: not monotone in the lane, compared lane by lane
            cb.labelBinding(wraps);
            method.base(aff, method.cur);
            cb.iconst_0();
            method.base(uni, method.cur);
            cb.getstatic(Vec.OPERATORS, p.name(), Vec.operatorType(p.name()));
            cb.invokestatic(Vec.LANES, "affineCompare", mt(Vec.MASK, CD_int, CD_int, CD_int, comparisonType()));
            cb.labelBinding(done);
            method.reg = -1;
            cb.astore(out.slots()[r]);
        }
        return true;
    }

    /** 0: one value per register (uniform or per register); 1: contiguous in each register (stride 1); else -1. */
    private static int registerForm(Storage s) {
        // an instanceof chain, not a pattern switch (see MethodGen#release)
        if (s instanceof Storage.Scalar || s instanceof Storage.Const || s instanceof Storage.PerRegister) {
            return 0;
        }
        if (s instanceof Storage.Affine af) {
            return af.stride() == 1 ? 1 : -1;
        }
        if (s instanceof Storage.RegisterAffine ra) {
            return ra.stride() == 1 ? 1 : -1;
        }
        return -1;
    }

    private void nanTest(Kind k, Node a, int r) {
        method.vector(a, r, method.cur);
        cb.getstatic(Vec.OPERATORS, "IS_NAN", Vec.operatorType("IS_NAN"));
        cb.invokevirtual(Vec.vector(k), "test", mt(Vec.MASK, testType()));
    }

    private void compare(Kind k, Cond.Pred p, Node a, Node b, int r) {
        method.vector(a, r, method.cur);
        String op = p.name();
        cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
        if (method.shapeAt(b, method.cur) == Shape.UNIFORM) {
            method.scalar(b);
            cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.scalar(k)));
        } else {
            method.vector(b, r, method.cur);
            cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.VECTOR));
        }
    }

    void call(Node x) {
        Fn fn = (Fn) x.aux;
        Kind k = x.kind;
        switch (fn.lowering()) {
            case UNARY -> {
                for (int r = 0; r < method.regs(k); r++) {
                    unary(k, fn.vectorOp(), x.in(0), r);
                    method.storeVector(x, r);
                }
            }
            case BINARY -> {
                for (int r = 0; r < method.regs(k); r++) {
                    binary(k, fn.vectorOp(), x.in(0), x.in(1), r);
                    method.storeVector(x, r);
                }
            }
            case FMA -> {
                for (int r = 0; r < method.regs(k); r++) {
                    method.vector(x.in(0), r, method.cur);
                    cb.getstatic(Vec.OPERATORS, "FMA", Vec.operatorType("FMA"));
                    method.vector(x.in(1), r, method.cur);
                    method.vector(x.in(2), r, method.cur);
                    cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), ternaryType(), Vec.VECTOR, Vec.VECTOR));
                    method.storeVector(x, r);
                }
            }
            case HELPER -> {
                String h = fn.helper();
                int dot = h.lastIndexOf('.');
                ClassDesc owner = ClassDesc.ofInternalName(h.substring(0, dot));
                ClassDesc[] ps = new ClassDesc[x.in.size()];
                for (int i = 0; i < ps.length; i++) {
                    ps[i] = Vec.vector(x.in(i).kind);
                }
                for (int r = 0; r < method.regs(k); r++) {
                    for (Node a : x.in) {
                        method.vector(a, r, method.cur);
                    }
                    cb.invokestatic(owner, h.substring(dot + 1), MethodTypeDesc.of(Vec.vector(k), ps));
                    method.storeVector(x, r);
                }
            }
            case PER_LANE -> perLane(x, ClassDesc.ofInternalName(fn.owner()), fn.name(), MethodTypeDesc.ofDescriptor(fn.descriptor()),
                    fn.viaDouble());
        }
    }

    /**
     * Calls a scalar function once per lane through the scratch arrays: arguments stored, a loop over the
     * group's lanes, results loaded. Exact, and slow; for functions without a vector form.
     */
    private void perLane(Node x, ClassDesc owner, String name, MethodTypeDesc type, boolean viaDouble) {
        Kind rk = x.kind;
        Map<Kind, Integer> used = new EnumMap<>(Kind.class);
        int[] offset = new int[x.in.size()];
        for (int i = 0; i < x.in.size(); i++) {
            Node a = x.in(i);
            Kind k = a.kind;
            int slotNo = used.getOrDefault(k, 0);
            used.put(k, slotNo + 1);
            offset[i] = slotNo * n;
            method.storeRegisters(a, k, method.scratch.get(k), offset[i]);
        }
        int resultOffset = 3 * n;
        int j = method.temp(TypeKind.INT);
        Label loop = cb.newLabel();
        Label end = cb.newLabel();
        cb.iconst_0();
        cb.istore(j);
        cb.labelBinding(loop);
        cb.iload(j);
        cb.loadConstant(n);
        cb.if_icmpge(end);
        cb.aload(method.scratch.get(rk));
        cb.iload(j);
        cb.loadConstant(resultOffset);
        cb.iadd();
        for (int i = 0; i < x.in.size(); i++) {
            Kind k = x.in(i).kind;
            cb.aload(method.scratch.get(k));
            cb.iload(j);
            if (offset[i] != 0) {
                cb.loadConstant(offset[i]);
                cb.iadd();
            }
            cb.arrayLoad(Vec.typeKind(k));
            if (viaDouble) {
                cb.f2d();
            }
        }
        cb.invokestatic(owner, name, type);
        if (viaDouble) {
            cb.d2f();
        }
        cb.arrayStore(Vec.typeKind(rk));
        cb.iinc(j, 1);
        cb.goto_(loop);
        cb.labelBinding(end);
        for (int r = 0; r < method.regs(rk); r++) {
            Vec.loadSpecies(cb, rk);
            cb.aload(method.scratch.get(rk));
            cb.loadConstant(resultOffset + r * method.lanes(rk));
            cb.invokestatic(Vec.vector(rk), "fromArray", mt(Vec.vector(rk), Vec.SPECIES, Vec.scalar(rk.arrayOf()), CD_int));
            method.storeVector(x, r);
        }
    }
}
