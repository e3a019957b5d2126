package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.front.WarpScans;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Warp;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.SwitchCase;
import java.util.ArrayList;
import java.util.List;

/**
 * Warp votes and shuffles over a group that is exactly one warp: votes as mask bits, shuffles whose lane argument
 * is uniform as register permutations, the others through the scratch arrays, and the folded warp scan.
 */
final class WarpOps {
    /** The method this code is part of. */
    private final MethodGen method;
    private final int warpSize;
    private final CodeBuilder cb;

    WarpOps(MethodGen method) {
        this.method = method;
        this.warpSize = method.warpSize;
        this.cb = method.cb;
    }

    /**
     * A warp operation; the group is exactly one warp (the compiler makes it so), lane {@code j} of the group
     * is lane {@code j} of the warp, and the lanes of the current mask are those the reference executor
     * would find waiting ({@link dev.weft.simd.internal.analysis.WarpSync} proves it). A vote is one scalar
     * for the warp; a shuffle goes through the scratch arrays, the source lanes computed by
     * {@link dev.weft.internal.WarpLanes} as in the reference.
     */
    void warp(Node x) {
        Warp w = (Warp) x.aux;
        if (w.isVote()) {
            // predicate.compare(NE, 0).and(active).toLong() per register, inline: the Vector API's methods are
            // force-inlined, whereas a helper taking a vector and a mask is not inlined once the kernel's method
            // passes C2's DesiredMethodLimit (8000 bytes with what it inlined), and then boxes both per call.
            for (int r = 0; r < method.regs32; r++) {
                method.vector(x.in(0), r, method.cur);
                cb.getstatic(Vec.OPERATORS, "NE", Vec.operatorType("NE"));
                cb.iconst_0();
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
            switch (w.name()) {
                case "ballot" -> cb.l2i();
                case "any" -> cb.invokestatic(Vec.LANES, "anyVote", mt(CD_int, CD_long));
                default -> {
                    activeBits();
                    cb.invokestatic(Vec.LANES, "allVote", mt(CD_int, CD_long, CD_long));
                }
            }
            method.storeScalar(x);
            return;
        }
        if (w.name().equals(WarpScans.SCAN_ADD)) {
            warpScanAdd(x);
            return;
        }
        Kind k = x.kind;
        int s = method.scratch.get(k);
        int args = method.scratch.get(Kind.INT);
        if (method.shapeAt(x.in(1), method.cur) == Shape.UNIFORM && staticWidth(x) > 0) {
            permuteShuffle(x, w, k);
            return;
        }
        method.storeRegisters(x.in(0), k, s, 0);
        method.storeRegisters(x.in(1), Kind.INT, args, method.n);
        cb.aload(s);
        cb.aload(args);
        cb.loadConstant(method.n);
        activeBits();
        cb.loadConstant(w.mode());
        method.scalar(x.in(2));
        cb.loadConstant(warpSize);
        cb.invokestatic(Vec.LANES, "shuffle", mt(CD_void, Vec.scalar(k.arrayOf()), CD_int.arrayType(), CD_int, CD_long, CD_int, CD_int, CD_int));
        for (int r = 0; r < method.regs(k); r++) {
            Vec.loadSpecies(cb, k);
            cb.aload(s);
            cb.loadConstant(3 * method.n + r * method.lanes(k));
            cb.invokestatic(Vec.vector(k), "fromArray", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k.arrayOf()), CD_int));
            method.storeVector(x, r);
        }
    }

    /**
     * A folded warp scan ({@link WarpScans}): where the active lanes are a prefix of the warp, each register
     * scanned in place ({@code Lanes.SCAN_STEPS} rearranges and masked adds with constant shuffles and masks),
     * then the last lane of the register before it, already a running total, broadcast and added; inactive lanes
     * keep their value. Any other mask runs the loop lane by lane in scratch ({@code Lanes.scanAddLanes}), which
     * the reference's rule for inactive sources needs.
     */
    private void warpScanAdd(Node x) {
        int active = method.temp(TypeKind.LONG);
        activeBits();
        cb.lstore(active);
        Label lanes = cb.newLabel();
        Label done = cb.newLabel();
        // a prefix [0, k): adding one clears its bits
        cb.lload(active);
        cb.lload(active);
        cb.lconst_1();
        cb.ladd();
        cb.land();
        cb.lconst_0();
        cb.lcmp();
        cb.ifne(lanes);
        int t = method.temp(TypeKind.REFERENCE);
        for (int r = 0; r < method.regs32; r++) {
            method.vector(x.in(0), r, method.cur);
            for (int step = 0; step < Lanes.SCAN_STEPS; step++) {
                cb.dup();
                cb.getstatic(Vec.PERMUTES, "SCAN_UP_" + step, Vec.SHUFFLE);
                cb.invokevirtual(Vec.INT_VECTOR, "rearrange", mt(Vec.INT_VECTOR, Vec.SHUFFLE));
                cb.getstatic(Vec.PERMUTES, "SCAN_ABOVE_" + step, Vec.MASK);
                cb.invokevirtual(Vec.INT_VECTOR, "add", mt(Vec.INT_VECTOR, Vec.VECTOR, Vec.MASK));
            }
            if (r > 0) {
                // t: the register before, scanned and carried; its last lane is the sum of every lane below
                cb.aload(t);
                cb.getstatic(Vec.PERMUTES, "SCAN_LAST", Vec.SHUFFLE);
                cb.invokevirtual(Vec.INT_VECTOR, "rearrange", mt(Vec.INT_VECTOR, Vec.SHUFFLE));
                cb.invokevirtual(Vec.INT_VECTOR, "add", mt(Vec.INT_VECTOR, Vec.VECTOR));
            }
            cb.astore(t);
            method.vector(x.in(0), r, method.cur);
            cb.aload(t);
            method.curMask(Kind.INT, r);
            cb.invokevirtual(Vec.INT_VECTOR, "blend", mt(Vec.INT_VECTOR, Vec.VECTOR, Vec.MASK));
            method.storeVector(x, r);
        }
        cb.goto_(done);
        cb.labelBinding(lanes);
        int s = method.scratch.get(Kind.INT);
        method.storeRegisters(x.in(0), Kind.INT, s, 0);
        cb.aload(s);
        cb.lload(active);
        cb.loadConstant(warpSize);
        cb.invokestatic(Vec.LANES, "scanAddLanes", mt(CD_void, CD_int.arrayType(), CD_long, CD_int));
        for (int r = 0; r < method.regs32; r++) {
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.aload(s);
            cb.loadConstant(r * method.l32);
            cb.invokestatic(Vec.INT_VECTOR, "fromArray", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int.arrayType(), CD_int));
            method.storeVector(x, r);
        }
        cb.labelBinding(done);
    }

    /** The shuffle's width if the code generator knows it (a constant or the warp size), else 0. */
    private int staticWidth(Node x) {
        Node wd = x.in(2).resolve();
        if (wd.op == Op.CONST && wd.aux instanceof Number c && c.intValue() > 0 && Integer.bitCount(c.intValue()) == 1
                && c.intValue() <= warpSize) {
            return c.intValue();
        }
        return wd.op == Op.SREG && wd.aux == SReg.WARP_SIZE ? warpSize : 0;
    }

    /**
     * A shuffle whose lane argument is the same in every lane, as register permutations: every source register
     * rearranged once with a shuffle from {@link Lanes}' tables (the lane part of the movement), each destination
     * register then picked from those (the register part: a switch on it unless the argument is a constant) and
     * blended over the lane's own value where {@code Lanes.take*} says the source lane is in range and active.
     *
     * <p>Up and down are rotations of the whole warp by {@code e} lanes (down by {@code -delta}): register
     * {@code r} takes lanes {@code [m, L)} of rotated register {@code r - q} and lanes {@code [0, m)} of
     * {@code r - q - 1} ({@code e = qL + m}), joined before the switch so that its cases only move registers
     * (less bytecode: scan's kernel sits near the JIT's 8000-byte limit); lanes a rotation wraps around are
     * never taken. Xor reads rotated
     * register {@code r ^ q}; idx broadcasts lane {@code j} of each segment, from register
     * {@code (r & -(width/L)) | q} when a segment spans registers.
     *
     * <p>Replaced a store of the warp to scratch, unaligned loads back (store-forwarding stalls) and a scalar
     * loop over the 32 lanes per shuffle for the take mask.
     */
    private void permuteShuffle(Node x, Warp w, Kind k) {
        int width = staticWidth(x);
        int lanes = method.lanes(k);
        int regs = method.regs(k);
        int lg = Integer.numberOfTrailingZeros(lanes);
        int mode = w.mode();
        boolean f = k == Kind.FLOAT;
        Node arg = x.in(1);
        Integer known = method.storage.get(arg) instanceof Storage.Const c ? ((Number) c.value()).intValue() : null;
        // the lane selector j and register selector q (see above), ints computed from the argument
        int j;
        int q;
        int cases;
        switch (mode) {
            case 1, 2 -> cases = regs;
            case 3 -> cases = regs;
            default -> cases = Math.max(1, width / lanes);
        }
        if (known != null) {
            int a = known;
            int sel = switch (mode) {
                case 1 -> a & (warpSize - 1);
                case 2 -> -a & (warpSize - 1);
                case 3 -> a & (warpSize - 1);
                default -> a & (width - 1);
            };
            j = sel & (lanes - 1);
            q = sel >>> lg;
        } else {
            q = method.temp(TypeKind.INT);
            j = method.temp(TypeKind.INT);
            method.scalar(arg);
            if (mode == 2) {
                cb.ineg();
            }
            cb.loadConstant(mode == 0 ? width - 1 : warpSize - 1);
            cb.iand();
            cb.dup();
            cb.loadConstant(lanes - 1);
            cb.iand();
            cb.istore(j);
            cb.loadConstant(lg);
            cb.iushr();
            cb.istore(q);
        }
        // take: the lanes that read their source lane's value (Lanes.take*; inline but for xor, see activeBits)
        int take = method.temp(TypeKind.LONG);
        int active = method.temp(TypeKind.LONG);
        activeBits();
        cb.lstore(active);
        long ones = width == 64 ? -1L : (1L << width) - 1;
        long starts = (warpSize == 64 ? -1L : (1L << warpSize) - 1) / ones;
        switch (mode) {
            case 1, 2 -> {
                // up: (active << d) & active & starts * (ones & -1L << d); down: >>> and starts * (ones >>> d)
                int d = method.temp(TypeKind.INT);
                method.scalar(arg);
                cb.loadConstant(warpSize - 1);
                cb.iand();
                cb.istore(d);
                cb.lload(active);
                cb.iload(d);
                if (mode == 1) {
                    cb.lshl();
                } else {
                    cb.lushr();
                }
                cb.lload(active);
                cb.land();
                cb.loadConstant(starts);
                if (mode == 1) {
                    cb.loadConstant(-1L);
                    cb.iload(d);
                    cb.lshl();
                    cb.loadConstant(ones);
                    cb.land();
                } else {
                    cb.loadConstant(ones);
                    cb.iload(d);
                    cb.lushr();
                }
                cb.lmul();
                cb.land();
            }
            case 0 -> {
                // ((active >>> (arg & width - 1)) & starts) * ones & active
                cb.lload(active);
                method.scalar(arg);
                cb.loadConstant(width - 1);
                cb.iand();
                cb.lushr();
                cb.loadConstant(starts);
                cb.land();
                cb.loadConstant(ones);
                cb.lmul();
                cb.lload(active);
                cb.land();
            }
            default -> {
                // a scalar call even where C2 does not inline it: longs and ints only, nothing boxed
                cb.lload(active);
                method.scalar(arg);
                cb.loadConstant(width);
                cb.loadConstant(warpSize);
                cb.invokestatic(Vec.LANES, "takeXor", mt(CD_long, CD_long, CD_int, CD_int, CD_int));
            }
        }
        cb.lstore(take);
        // the lane movement: every source register rearranged once
        boolean identity = known != null && j == 0 && (mode != 0 || width == 1);
        int[] moved = new int[regs];
        if (!identity) {
            int sh = method.temp(TypeKind.REFERENCE);
            String table = switch (mode) {
                case 0 -> f ? "IDX_F" : "IDX_I";
                case 1, 2 -> f ? "ROTATE_F" : "ROTATE_I";
                default -> f ? "XOR_F" : "XOR_I";
            };
            cb.getstatic(Vec.PERMUTES, table, mode == 0 ? Vec.SHUFFLE.arrayType(2) : Vec.SHUFFLE.arrayType());
            if (mode == 0) {
                cb.loadConstant(Math.min(Integer.numberOfTrailingZeros(width), lg));
                cb.aaload();
            }
            pushInt(known, j);
            cb.aaload();
            cb.astore(sh);
            for (int r = 0; r < regs; r++) {
                moved[r] = method.temp(TypeKind.REFERENCE);
                method.vector(x.in(0), r, method.cur);
                cb.aload(sh);
                cb.invokevirtual(Vec.vector(k), "rearrange", mt(Vec.vector(k), Vec.SHUFFLE));
                cb.astore(moved[r]);
            }
        }
        if ((mode == 1 || mode == 2) && !(known != null && j == 0)) {
            // the lanes [0, m) a rotation wraps around come from the register before: joined register s is
            // rotated s above lane m, rotated s - 1 below it; the register part then only picks registers
            int from = method.temp(TypeKind.REFERENCE);
            cb.getstatic(Vec.PERMUTES, f ? "FROM_F" : "FROM_I", Vec.MASK.arrayType());
            pushInt(known, j);
            cb.aaload();
            cb.astore(from);
            int[] joined = new int[regs];
            for (int r = 0; r < regs; r++) {
                joined[r] = method.temp(TypeKind.REFERENCE);
                cb.aload(moved[Math.floorMod(r - 1, regs)]);
                cb.aload(moved[r]);
                cb.aload(from);
                cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.VECTOR, Vec.MASK));
                cb.astore(joined[r]);
            }
            moved = joined;
        }
        // the register movement, into x's registers
        Label join = cb.newLabel();
        if (known != null || cases == 1) {
            pickRegisters(x, k, mode, width, known != null ? q : 0, moved, identity);
        } else {
            Label[] arms = new Label[cases];
            List<SwitchCase> sc = new ArrayList<>();
            for (int c = 0; c < cases; c++) {
                arms[c] = cb.newLabel();
                sc.add(SwitchCase.of(c, arms[c]));
            }
            cb.iload(q);
            cb.tableswitch(0, cases - 1, arms[0], sc);
            for (int c = 0; c < cases; c++) {
                cb.labelBinding(arms[c]);
                pickRegisters(x, k, mode, width, c, moved, identity);
                cb.goto_(join);
            }
        }
        cb.labelBinding(join);
        int[] out = ((Storage.Vectors) method.storage.get(x)).slots();
        for (int r = 0; r < regs; r++) {
            method.vector(x.in(0), r, method.cur);
            cb.aload(out[r]);
            Vec.loadSpecies(cb, k);
            cb.lload(take);
            if (r > 0) {
                cb.loadConstant(r * lanes);
                cb.lushr();
            }
            cb.invokestatic(Vec.MASK, "fromLong", mt(Vec.MASK, Vec.SPECIES, CD_long));
            cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.VECTOR, Vec.MASK));
            method.storeVector(x, r);
        }
    }

    /**
     * The current mask's lanes as bits, inline ({@code toLong} per register): {@link MethodGen#curBits()} calls
     * {@code Lanes.bits}, which C2 stops inlining once a kernel's method nears DesiredMethodLimit, and then
     * boxes every mask it passes.
     */
    void activeBits() {
        method.inlineBits(method.curMask(), method.l32);
    }

    /** A constant, or the int local holding it. */
    private void pushInt(Integer known, int valueOrSlot) {
        if (known != null) {
            cb.loadConstant(valueOrSlot);
        } else {
            cb.iload(valueOrSlot);
        }
    }

    /** {@link #permuteShuffle}'s register movement for register selector {@code q}. */
    private void pickRegisters(Node x, Kind k, int mode, int width, int q, int[] moved, boolean identity) {
        int regs = method.regs(k);
        for (int r = 0; r < regs; r++) {
            int src = switch (mode) {
                case 1, 2 -> Math.floorMod(r - q, regs);
                case 3 -> r ^ q;
                default -> width > method.lanes(k) ? (r & -(width / method.lanes(k))) | q : r;
            };
            pushMoved(x, src, moved, identity);
            method.storeVector(x, r);
        }
    }

    private void pushMoved(Node x, int r, int[] moved, boolean identity) {
        if (identity) {
            method.vector(x.in(0), r, method.cur);
        } else {
            cb.aload(moved[r]);
        }
    }
}
