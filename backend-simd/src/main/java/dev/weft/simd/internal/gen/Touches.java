package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The touch pass of a phase: before its groups run, a method per resume point reads one element of every 64-byte line
 * that each group's counted loops will load contiguously from global arrays, so that the cache misses of all the
 * CTA's groups are in flight together instead of one group's at a time.
 *
 * <p>Why. A group runs its whole loop before the next group starts, and per loop step the generated code has some 55
 * instructions around each load (masks, range checks, the shared store), and between groups some 120 (restore,
 * flags, spills): the CPU's out-of-order window then holds one group's few loads, and their misses do not overlap
 * with the next group's. The tiled transpose's tile-loading phase spent 88% of its samples on the two loads of a row
 * (perf, Zen 4, 16-lane registers: one 128-byte row per group and step, 4 steps, 8 groups per CTA). The touch pass
 * issues the CTA's 32 rows' reads back to back, a few instructions each, so the misses overlap; the groups' own
 * loads then hit in the cache. There is no prefetch instruction in Java: the touches are loads whose values are
 * or-ed together and written to {@link Phases#touched}, so the JIT cannot drop them.
 *
 * <p>Which loops. A loop of the phase (reached from the resume point without crossing a barrier, holding no barrier)
 * with an int counter: a uniform phi stepped by a constant on its one back edge, the header's uniform test deciding
 * the exit. Its accesses: vector loads from a kernel parameter's array (a global array) at an index {@code base +
 * lane} whose base the prologue can compute for every group and step: arithmetic of constants, int parameters,
 * CTA-wide registers (blockIdx, blockDim, gridDim), the group's first thread's ids (in the variants where a group lies
 * within a row: threadIdx.x at lane 0, .y and .z uniform) and the counter. Shared arrays are not touched (they are the
 * SM's, in cache). At most {@link #MAX_STEPS} steps of each loop are touched per group: a longer loop's later lines
 * would evict the earlier ones before the groups read them.
 *
 * <p>Faults and meaning. A touch never faults and changes nothing the kernel can see: a null array or an index outside
 * the array skips the touch (the kernel's own access, if it runs, faults as before), and guards in the loop (a {@code
 * x < n} around the load) are not evaluated, so a touch may read a line no thread will: memory traffic, not
 * semantics. Kernels with no such loop get no code at all (their methods are as before, byte for byte).
 */
final class Touches {

    /**
     * Whether the methods per resume point touch their phase's loop loads first; {@code -Dweft.simd.touchPass=false}
     * turns it off, to compare. Measured (session 11, Zen 4, 2 shared cores; the transpose, PairedBenchmark weft over
     * the hand-written rate, median of 6 one-second iterations per fork, forks alternating): off 0.79, 0.79, 0.64,
     * 0.79, 0.74, 0.68, 0.77, 0.62, 0.77, 0.76, 0.73; on 0.89, 1.00, 1.03, 1.08, 1.09, 1.21, 1.00, 0.95, 1.66, 0.97,
     * 1.01, 1.61, 1.05, 1.02, 1.33. In the forks where the hand-written code ran at its usual rate (1.1-1.4 G elements
     * per second; it halves in some forks, with the machine's memory) off 0.64-0.79, on 0.89-1.05. The profile
     * (perf, one fork each): the load phase went from 1.21 to 1.02 of the write phase's samples, 74% of its samples now
     * on the touches (the misses, overlapped) and the rest in the groups' loop, whose loads hit. Tried, and removed in
     * session 20 (the code is in the repository's history): touching the loops' stores' lines too (the transpose's
     * write phase, alternating forks: with 1.33, 0.83, 0.90, 0.98, without 1.00, 0.95, 1.66, 0.97), and touching the
     * next CTA's lines after the CTA's own (own lines 1.01, 1.61, 1.05, 1.02, 1.33 against ahead 0.97, 1.01, 0.86,
     * 1.00, 1.35: a touch is a load, and a missing load stops retirement wherever it stands, so the next CTA's misses
     * wait as the CTA's own did, in one batch).
     */
    static final boolean TOUCH_PASS = !"false".equals(System.getProperty("weft.simd.touchPass"));

    /** The most steps of a loop touched per group and phase. */
    static final int MAX_STEPS = 8;

    /** Bytes of a cache line: one touch per line. */
    private static final int LINE_BYTES = 64;

    /**
     * A loop whose accesses a phase touches.
     *
     * @param loop the loop
     * @param counter its counter (a phi of its header)
     * @param init the counter's value on entry
     * @param step the counter's constant step
     * @param exitWhen the value of the header's test that leaves the loop
     * @param accesses the loads touched, one per array and index
     */
    record TouchLoop(Cfg.Loop loop, Node counter, Node init, int step, boolean exitWhen, List<Node> accesses) {
    }

    private Touches() {
    }

    /**
     * The touch loops of the phase that starts at {@code resumeAt} (0: the kernel's entry; else after the barrier node
     * of that number), under the shapes the current variant applied; empty when the pass is off.
     */
    static List<TouchLoop> ofPhase(Graph g, Cfg cfg, List<Block> barrierBlocks, int resumeAt) {
        List<TouchLoop> out = new ArrayList<>();
        if (!TOUCH_PASS) {
            return out;
        }
        Set<Block> barrierSet = new HashSet<>();
        barrierSet.addAll(barrierBlocks);
        ArrayDeque<Block> work = new ArrayDeque<>();
        if (resumeAt == 0) {
            work.add(g.entry());
        } else {
            for (Block b : barrierBlocks) {
                if (CodeGen.barrierOf(b).id() == resumeAt) {
                    work.addAll(b.succs);
                }
            }
        }
        Set<Block> reach = new HashSet<>();
        while (!work.isEmpty()) {
            Block b = work.pop();
            if (reach.add(b) && !barrierSet.contains(b)) {
                work.addAll(b.succs);
            }
        }
        for (Block h : cfg.order) {
            Cfg.Loop l = cfg.loopOfHeader.get(h);
            if (l != null && reach.contains(h)) {
                TouchLoop t = of(l, barrierSet);
                if (t != null) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /** Loop {@code l} as a touch loop, or null where it does not qualify (see the class comment). */
    static TouchLoop of(Cfg.Loop l, Set<Block> barrierBlocks) {
        Block h = l.header;
        for (Block b : l.body) {
            if (barrierBlocks.contains(b)) {
                return null;
            }
        }
        Node test = h.cond;
        if (h.exit != Block.Exit.IF || test == null || test.op != Op.TEST || !test.isUniform() || h.succs.size() != 2
                || test.in(0).kind != Kind.INT || test.in(1).kind != Kind.INT) {
            return null;
        }
        boolean thenLeaves = !l.contains(h.succs.get(0));
        if (thenLeaves == !l.contains(h.succs.get(1))) {
            return null;
        }
        for (Node phi : h.phis) {
            if (phi.kind != Kind.INT || !phi.isUniform() || phi.in.size() != 2) {
                continue;
            }
            int outside = l.contains(h.preds.get(0)) ? 1 : 0;
            if (l.contains(h.preds.get(outside)) || !l.contains(h.preds.get(1 - outside))) {
                continue;
            }
            Node init = phi.in(outside);
            Integer step = step(phi, phi.in(1 - outside));
            if (step == null || step == 0 || !evaluable(init, null, 0)
                    || !evaluable(test.in(0), phi, 0) || !evaluable(test.in(1), phi, 0)) {
                continue;
            }
            List<Node> accesses = new ArrayList<>();
            for (Block b : l.body) {
                for (Node x : b.nodes) {
                    if (x.op == Op.LOAD && x.isVarying() && x.in(0).op == Op.PARAM && x.in(0).kind.isArray()
                            && x.in(1).isAffine() && x.in(1).stride == 1 && evaluable(x.in(1), phi, 0)
                            && !listed(accesses, x)) {
                        accesses.add(x);
                    }
                }
            }
            if (!accesses.isEmpty()) {
                // In the linear order, so that the touches follow the loop's own order of reads.
                sortById(accesses);
                return new TouchLoop(l, phi, init, step, thenLeaves, List.copyOf(accesses));
            }
        }
        return null;
    }

    /** The constant step of {@code phi} when {@code next} (its value from the back edge) is {@code phi + c} or {@code phi - c}. */
    private static Integer step(Node phi, Node next) {
        if (next.in.size() != 2 || next.kind != Kind.INT) {
            return null;
        }
        Node a = next.in(0);
        Node b = next.in(1);
        if (next.op == Op.ADD && a == phi && b.isConst()) {
            return b.intConst();
        }
        if (next.op == Op.ADD && b == phi && a.isConst()) {
            return a.intConst();
        }
        if (next.op == Op.SUB && a == phi && b.isConst()) {
            return -b.intConst();
        }
        return null;
    }

    /**
     * Whether the prologue can compute int value {@code x} for any group and step, without a fault: see the class
     * comment; {@code counter} (may be null) is the loop's counter.
     */
    static boolean evaluable(Node x, Node counter, int depth) {
        if (x == counter) {
            return true;
        }
        if (depth > 16 || x.kind != Kind.INT) {
            return false;
        }
        return switch (x.op) {
            case CONST, PARAM -> true;
            case SREG -> switch ((SReg) x.aux) {
                case TID_X, LINEAR_TID, LANE_ID -> !x.isVarying();
                case TID_Y, TID_Z, WARP_ID -> x.isUniform();
                default -> ((SReg) x.aux).isCtaUniform();
            };
            case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> evaluable(x.in(0), counter, depth + 1)
                    && evaluable(x.in(1), counter, depth + 1);
            // a constant divisor other than 0: no fault (MIN_VALUE / -1 wraps, as in the group's code)
            case DIV, REM -> evaluable(x.in(0), counter, depth + 1) && x.in(1).isConst() && x.in(1).intConst() != 0;
            case NEG -> evaluable(x.in(0), counter, depth + 1);
            default -> false;
        };
    }

    /** The listing's words for a touch loop. */
    static String describe(TouchLoop t) {
        StringBuilder s = new StringBuilder("touch pass: in the methods per resume point, before the groups run the phase, one element per 64-byte line"
                + " of what each group's first " + MAX_STEPS + " steps will access in ");
        for (int i = 0; i < t.accesses().size(); i++) {
            Node x = t.accesses().get(i);
            s.append(i == 0 ? "" : ", ").append(x.in(0).name()).append('[').append(x.in(1).name()).append(']');
        }
        return s.append(" is read, for every group, so that the misses overlap (-Dweft.simd.touchPass=false)").toString();
    }

    // =====================================================================================================
    // The code, in a method per resume point: after the phase's prologue, before the loop over the groups.

    /** Emits the touch pass of {@code method}'s phase; nothing where it has no touch loop. */
    static void emit(MethodGen method, List<TouchLoop> loops) {
        if (loops.isEmpty()) {
            return;
        }
        new Emitter(method).emit(loops);
    }

    private static final class Emitter {
        private final MethodGen m;
        private final CodeBuilder cb;
        /** The group's first thread: linear id, and (row-aligned variant) x, y, z. */
        private int base;
        private int x0;
        private int y0;
        private int z0;
        private int counter;
        private Node counterNode;
        private int acc;
        /** The element a touch reads. */
        private int at;
        private int steps;
        private int index;
        private boolean rows;

        Emitter(MethodGen m) {
            this.m = m;
            this.cb = m.cb;
        }

        void emit(List<TouchLoop> loops) {
            rows = m.v.layout() == CodeGen.Layout.ROWS;
            acc = m.local(TypeKind.INT);
            base = m.local(TypeKind.INT);
            x0 = rows ? m.local(TypeKind.INT) : -1;
            y0 = rows ? m.local(TypeKind.INT) : -1;
            z0 = rows ? m.local(TypeKind.INT) : -1;
            counter = m.local(TypeKind.INT);
            steps = m.local(TypeKind.INT);
            index = m.local(TypeKind.INT);
            at = m.local(TypeKind.INT);
            cb.iconst_0();
            cb.istore(acc);
            groups(loops);
            cb.aload(m.phasesSlot);
            cb.dup();
            cb.getfield(Vec.PHASES, "touched", CD_int);
            cb.iload(acc);
            cb.ior();
            cb.putfield(Vec.PHASES, "touched", CD_int);
        }

        /** The touches of every group of the CTA. */
        private void groups(List<TouchLoop> loops) {
            for (int s : new int[] {base, x0, y0, z0}) {
                if (s >= 0) {
                    cb.iconst_0();
                    cb.istore(s);
                }
            }
            Label group = cb.newLabel();
            Label done = cb.newLabel();
            cb.labelBinding(group);
            cb.iload(base);
            cb.iload(m.threadsSlot);
            cb.if_icmpge(done);
            for (TouchLoop t : loops) {
                counterNode = t.counter();
                Label top = cb.newLabel();
                Label next = cb.newLabel();
                value(t.init());
                cb.istore(counter);
                cb.iconst_0();
                cb.istore(steps);
                cb.labelBinding(top);
                cb.iload(steps);
                cb.loadConstant(MAX_STEPS);
                cb.if_icmpge(next);
                exitTest(t.loop().header.cond, t.exitWhen(), next);
                for (Node x : t.accesses()) {
                    value(x.in(1));
                    cb.istore(index);
                    touchLines(x, index);
                }
                cb.iinc(counter, t.step());
                cb.iinc(steps, 1);
                cb.goto_(top);
                cb.labelBinding(next);
            }
            counterNode = null;
            if (rows) {
                // As the group loop steps: x by the group size, wrapping into y and z (a group lies within a row).
                Label stepped = cb.newLabel();
                cb.iinc(x0, m.n);
                cb.iload(x0);
                cb.iload(m.bxSlot);
                cb.if_icmplt(stepped);
                cb.iload(x0);
                cb.iload(m.bxSlot);
                cb.isub();
                cb.istore(x0);
                cb.iinc(y0, 1);
                cb.iload(y0);
                cb.iload(m.bySlot);
                cb.if_icmplt(stepped);
                cb.iconst_0();
                cb.istore(y0);
                cb.iinc(z0, 1);
                cb.labelBinding(stepped);
            }
            cb.iinc(base, m.n);
            cb.goto_(group);
            cb.labelBinding(done);
        }

        /** Jumps to {@code leave} when the header's test has the value that leaves the loop. */
        private void exitTest(Node test, boolean exitWhen, Label leave) {
            Cond c = (Cond) test.aux;
            Cond.Pred p = exitWhen ? c.pred() : c.pred().negate();
            value(test.in(0));
            value(test.in(1));
            switch (p) {
                case EQ -> cb.if_icmpeq(leave);
                case NE -> cb.if_icmpne(leave);
                case LT -> cb.if_icmplt(leave);
                case GE -> cb.if_icmpge(leave);
                case GT -> cb.if_icmpgt(leave);
                case LE -> cb.if_icmple(leave);
            }
        }

        /**
         * Reads one element per line of the group's {@code n} elements from {@code index} (its first lane's): every
         * {@code 64 / bytes} elements and the last, each only where the array holds it.
         */
        private void touchLines(Node x, int index) {
            Node arr = x.in(0);
            Kind ek = arr.kind.element();
            int perLine = LINE_BYTES / arr.kind.elementBytes();
            List<Integer> offsets = new ArrayList<>();
            for (int o = 0; o < m.n; o += perLine) {
                offsets.add(o);
            }
            if (offsets.getLast() != m.n - 1) {
                offsets.add(m.n - 1);
            }
            Label skip = cb.newLabel();
            m.scalar(arr);
            cb.ifnull(skip);
            for (int o : offsets) {
                Label past = cb.newLabel();
                cb.iload(index);
                cb.loadConstant(o);
                cb.iadd();
                cb.istore(at);
                cb.iload(at);
                cb.iflt(past);
                cb.iload(at);
                m.scalar(arr);
                cb.arraylength();
                cb.if_icmpge(past);
                m.scalar(arr);
                cb.iload(at);
                switch (ek) {
                    case INT -> cb.arrayLoad(Vec.elementTypeKind(arr.kind));
                    case LONG -> {
                        cb.laload();
                        cb.l2i();
                    }
                    case FLOAT -> {
                        cb.faload();
                        cb.invokestatic(ClassDesc.of("java.lang.Float"), "floatToRawIntBits", mt(CD_int, CD_float));
                    }
                    default -> {
                        cb.daload();
                        cb.invokestatic(ClassDesc.of("java.lang.Double"), "doubleToRawLongBits", mt(CD_long, CD_double));
                        cb.l2i();
                    }
                }
                cb.iload(acc);
                cb.ior();
                cb.istore(acc);
                cb.labelBinding(past);
            }
            cb.labelBinding(skip);
        }

        /** Pushes int value {@code x} ({@link #evaluable}) for the current group and step. */
        private void value(Node x) {
            if (x == counterNode) {
                cb.iload(counter);
                return;
            }
            switch (x.op) {
                case CONST, PARAM -> m.scalar(x);
                case SREG -> {
                    switch ((SReg) x.aux) {
                        case TID_X -> cb.iload(x0 >= 0 ? x0 : base);
                        case TID_Y -> {
                            if (y0 >= 0) {
                                cb.iload(y0);
                            } else {
                                cb.iconst_0();
                            }
                        }
                        case TID_Z -> {
                            if (z0 >= 0) {
                                cb.iload(z0);
                            } else {
                                cb.iconst_0();
                            }
                        }
                        case LINEAR_TID -> cb.iload(base);
                        case LANE_ID -> {
                            cb.iload(base);
                            cb.loadConstant(m.warpSize - 1);
                            cb.iand();
                        }
                        case WARP_ID -> {
                            cb.iload(base);
                            cb.loadConstant(m.warpSize);
                            cb.idiv();
                        }
                        default -> m.scalar(x);
                    }
                }
                case NEG -> {
                    value(x.in(0));
                    cb.ineg();
                }
                default -> {
                    value(x.in(0));
                    value(x.in(1));
                    m.arithmetic.scalarBinary(x.op, Kind.INT);
                }
            }
        }
    }

    /**
     * Whether {@code accesses} holds one of {@code x}'s array and index. (Loops, not streams or lambdas: this runs
     * on every barrier kernel's first compile, where each lambda costs class spinning.)
     */
    private static boolean listed(List<Node> accesses, Node x) {
        for (Node y : accesses) {
            if (y.in(0) == x.in(0) && y.in(1) == x.in(1)) {
                return true;
            }
        }
        return false;
    }

    /** Sorts by node id (an insertion sort: the lists are a few accesses long). */
    private static void sortById(List<Node> nodes) {
        for (int i = 1; i < nodes.size(); i++) {
            Node x = nodes.get(i);
            int j = i - 1;
            while (j >= 0 && nodes.get(j).id > x.id) {
                nodes.set(j + 1, nodes.get(j));
                j--;
            }
            nodes.set(j + 1, x);
        }
    }
}
