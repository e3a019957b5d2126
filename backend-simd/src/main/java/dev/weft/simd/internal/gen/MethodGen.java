package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Conv;
import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Warp;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The code of one variant method ({@link CodeGen}): the loop over a CTA's groups of threads and, per group, the kernel's
 * blocks in linear order under their masks. It owns the method's locals (vectors, masks, scalars, the pool of
 * temporaries) and the masked code's state; the code of each kind of operation is in its parts: {@link Arithmetic},
 * {@link MemoryOps}, {@link AtomicOps}, {@link WarpOps}, {@link StrideLoopCode}, and for kernels with barriers
 * {@link SpillPlan}, {@link Barriers} and {@link IdleSkips}. One instance per generated method, on one thread.
 */
final class MethodGen {
    /** The generator, and the parts of it every method reads. */
    final CodeGen gen;
    final Graph g;
    final Cfg cfg;
    final int warpSize;
    final int l32;
    final int l64;
    final List<Block> barrierBlocks;
    final Map<String, Map<Block, List<String>>> keptAcross;
    /** The code of each kind of operation (see the class comment). */
    final SpillPlan spillPlan;
    final Barriers barriers;
    final IdleSkips idleSkips;
    final StrideLoopCode strideLoopCode;
    final Arithmetic arithmetic;
    final MemoryOps memoryOps;
    final AtomicOps atomicOps;
    final Faults faults;
    final WarpOps warpOps;

    /** This variant's threads per group and registers: they shadow the generator's defaults. */
    final int n;
    final int regs32;
    final int regs64;
    final CodeBuilder cb;
    final CodeGen.Variant v;
    private final Uniformity u;
    final MaskPlan plan;
    private int nextSlot;
    private final List<int[]> vectorInits = new ArrayList<>();
    private final List<Kind> vectorInitKinds = new ArrayList<>();
    private final List<int[]> maskInits = new ArrayList<>();

    /**
     * Locals set once before the group loop ({@link #hoistConstants}): the int-lane masks none and all, and per
     * lane kind the zero vector and the "none" derived mask; -1 or absent where the method needs none.
     */
    private int noneSlot = -1;
    private int allSlot = -1;
    final EnumMap<Kind, Integer> zeroSlots = new EnumMap<>(Kind.class);
    private final EnumMap<Kind, Integer> noneDerivedSlots = new EnumMap<>(Kind.class);
    private final List<Integer> intInits = new ArrayList<>();
    private final List<Integer> longInits = new ArrayList<>();
    private final List<Integer> floatInits = new ArrayList<>();
    private final List<Integer> doubleInits = new ArrayList<>();
    final Map<Node, Storage> storage = new HashMap<>();
    final Map<Node, Storage.Vectors> shadow = new HashMap<>();
    final Map<Block, int[]> classSlots = new HashMap<>();
    final Map<Block, int[]> accSlots = new HashMap<>();
    final Map<Block, Integer> flagSlot = new HashMap<>();
    final Map<Cfg.Loop, Integer> abortSlot = new HashMap<>();
    final Map<Block, Set<Block>> killSets = new HashMap<>();
    final Map<Block, EnumMap<Kind, int[]>> derived = new HashMap<>();

    /** Per block: the lane kinds whose masks it makes where used ({@link #lazyLaneKinds}). */
    private final Map<Block, EnumSet<Kind>> lazyLaneKinds = new HashMap<>();
    final Map<Block, Label> endLabel = new HashMap<>();
    private final Map<Cfg.Loop, Label> topLabel = new HashMap<>();
    private final Map<Cfg.Loop, Label> afterLabel = new HashMap<>();
    final EnumMap<SReg, Storage> sregs = new EnumMap<>(SReg.class);
    final EnumMap<Kind, Integer> scratch = new EnumMap<>(Kind.class);
    final int ctaSlot;
    final int bxSlot;
    final int bySlot;
    final int bzSlot;

    /** With barriers: the {@link Phases} parameter, and locals for its arrays and this group's index. */
    int phasesSlot = -1;

    /** Without barriers: the CTAs of the grid row still to run, this one included (see runCtaRow). */
    private int ctaCountSlot = -1;

    /** With barriers: the first group the method runs (the general method, called for the rest of a phase). */
    private int fromGroupSlot = -1;
    int stopArraySlot;
    int lanesArraySlot;
    final int[] spillArraySlots = new int[5];
    int groupIndexSlot;
    int spillStride;

    /** Spill rows: per storage class (int, long, float, double, reference), {@link SpillPlan#spillKey} to first column. */
    final List<Map<Long, Integer>> columns = new ArrayList<>();

    /** Per barrier block, the locals of the values live across it (type class, slot). */
    final Map<Block, List<int[]>> keptAt = new HashMap<>();

    /**
     * Barriers that keep the same locals (typically the two of a loop's body) share their spill and their
     * restore code: per set of kept locals, its barriers in number order and its two labels.
     */
    final Map<List<Long>, List<Block>> keptSets = new LinkedHashMap<>();
    Label nextGroup;

    /** See {@link IdleSkips#idleRun}: the barrier and idle way of the resume method's idle skip, and the loop's label. */
    Block idleRunBar;
    IdleSkips.IdleWay idleRunWay;
    private final List<Integer> refInits = new ArrayList<>();

    /** The static types of spilled reference locals. */
    final Map<Integer, ClassDesc> refTypes = new HashMap<>();
    int threadsSlot;
    int baseSlot;
    int faultLaneSlot;
    int faultCauseSlot;
    int kSlot;
    int bitsSlot;
    int faultIndexSlot;
    int faultLengthSlot;
    int[] rowSlots;
    /** {@link CodeGen.Layout#REGISTER_ROWS}: each register's (x, y, z) of its first thread, {@code [axis][register]}. */
    int[][] registerRows;
    /**
     * The register whose scalars {@link #scalar}, {@link #base}, {@link #storeScalar} and {@link #storeBase} read
     * and write while a value of {@link #perRegister} is emitted, one register at a time; -1 otherwise.
     */
    int reg = -1;
    /**
     * {@link CodeGen.Layout#REGISTER_ROWS}: the values the group's analysis calls varying that are uniform (or affine)
     * within each register and kept as one scalar (or base) per register, with their shape in a register.
     */
    private final Map<Node, Shape> perRegister = new HashMap<>();
    Block cur;

    /** The local holding the CTA's profiling counters, in the profiling variant. */
    private int profilingCounters = -1;
    final Set<Node> nullChecked = new HashSet<>();

    /** Values used only in their own block: locals from the pool at definition, released after the last use. */
    final Set<Node> deferred = new HashSet<>();

    /**
     * Varying float conditions "a < b or NaN" (javac's fcmpg/ifge and kin) used only by their block's branch:
     * computed as the ordered "a >= b", saving a mask negation, with the branch's targets swapped.
     */
    final Set<Node> inverted = new HashSet<>();

    /** Lane types whose masks the current node and the rest of the block use. */
    EnumSet<Kind> laterKinds = EnumSet.noneOf(Kind.class);

    /** Divergent loops with a grid-stride fast path ({@link StrideLoopCode#fastStrideLoop}). */
    private final Map<Cfg.Loop, StrideLoops.StrideLoop> strideLoops;

    /** Set when code that removes a faulting thread from the masks is emitted. */
    boolean killEmitted;

    /**
     * Set while the nodes of a grid-stride fast path's iteration are emitted ({@link StrideLoopCode#fastStrideLoop}): every
     * thread of the group is active there until a thread faults, which {@link #faultLaneSlot} records.
     */
    boolean fastIteration;

    /** Values some node, phi or branch reads; computed on first need ({@link #resultUsed}). */
    private Set<Node> readValues;

    /** Values a phi, a branch or another block reads; computed on first need ({@link #collectReads()}). */
    private Set<Node> readElsewhere;

    /**
     * The headers of the interleaved stride loops ({@link StrideLoopCode#interleavedPause}), each with its number k: a group
     * paused in it has {@code Phases.YIELD + k} as its stop.
     */
    final Map<Block, Integer> yieldIds = new LinkedHashMap<>();

    /** Per interleaved loop header: where a paused group resumes (its fast path's entry). */
    final Map<Block, Label> yieldResume = new HashMap<>();

    /** The label of {@link #yieldResume} for header {@code h}, made on first use. */
    Label yieldResumeLabel(Block h) {
        Label l = yieldResume.get(h);
        if (l == null) {
            l = cb.newLabel();
            yieldResume.put(h, l);
        }
        return l;
    }

    /**
     * In the method of an interleaved loop's pause that runs the loop round-robin ({@link StrideLoopCode#roundRobinLoop}): the
     * local set once the round-robin has run in this phase (the first paused group runs it for all); else -1.
     */
    int roundRobinDoneSlot = -1;

    /** -1: the general method (resumes each group where it stopped); else the one resume point this method serves. */
    final int resumeAt;

    MethodGen(CodeGen gen, CodeBuilder cb, CodeGen.Variant v, int resumeAt) {
        this.gen = gen;
        this.g = gen.g;
        this.cfg = gen.cfg;
        this.warpSize = gen.warpSize;
        this.l32 = gen.l32;
        this.l64 = gen.l64;
        this.barrierBlocks = gen.barrierBlocks;
        this.keptAcross = gen.keptAcross;
        this.resumeAt = resumeAt;
        this.n = v.group() > 0 ? v.group() : gen.n;
        this.regs32 = n / Lanes.L32;
        this.regs64 = n / Lanes.L64;
        this.cb = cb;
        this.v = v;
        this.u = v.u();
        this.plan = v.plan();
        this.strideLoops = gen.stridePaths() ? new StrideLoops(g, cfg, u, plan).loops : Map.of();
        if (!strideLoops.isEmpty()) {
            for (Block h : gen.interleavedHeaders(v)) {
                yieldIds.put(h, yieldIds.size());
            }
        }
        int slot = 0;
        for (Param p : g.params) {
            slot += Vec.typeKind(p.kind()).slotSize();
        }
        ctaSlot = slot++;
        bxSlot = slot++;
        bySlot = slot++;
        bzSlot = slot++;
        if (gen.phased()) {
            phasesSlot = slot++;
            fromGroupSlot = slot++;
        } else {
            ctaCountSlot = slot++;
        }
        nextSlot = slot;
        spillPlan = new SpillPlan(this);
        barriers = new Barriers(this);
        idleSkips = new IdleSkips(this);
        strideLoopCode = new StrideLoopCode(this);
        arithmetic = new Arithmetic(this);
        memoryOps = new MemoryOps(this);
        atomicOps = new AtomicOps(this);
        faults = new Faults(this);
        warpOps = new WarpOps(this);
    }

    int local(TypeKind t) {
        int s = nextSlot;
        nextSlot += t.slotSize();
        return s;
    }
    private final Map<TypeKind, ArrayDeque<Integer>> free = new EnumMap<>(TypeKind.class);
    private final List<int[]> heldTemps = new ArrayList<>();

    /** A local for the current node or terminator only, released after it. */
    int temp(TypeKind t) {
        int s = pooledLocal(t);
        heldTemps.add(new int[] {s, t.ordinal()});
        return s;
    }

    /** A local of type {@code t} from the pool, or a new one. */
    private int pooledLocal(TypeKind t) {
        ArrayDeque<Integer> pool = free.get(t);
        return pool != null && !pool.isEmpty() ? pool.pop() : local(t);
    }

    private int[] tempMasks(int count) {
        int[] s = new int[count];
        for (int i = 0; i < count; i++) {
            s[i] = temp(TypeKind.REFERENCE);
        }
        return s;
    }

    void releaseTemps() {
        for (int[] h : heldTemps) {
            freeSlot(h[0], TypeKind.values()[h[1]]);
        }
        heldTemps.clear();
    }

    /** Gives the block-local value's locals back to the pool. */
    private void release(Node x) {
        // instanceof chains, here and below, not pattern switches: each pattern switch spins a class on its first run,
        // a cost of every first compile in a JVM (see Compiler's implementation notes).
        Storage st = storage.get(x);
        if (st instanceof Storage.Scalar sc) {
            freeSlot(sc.slot(), Vec.typeKind(sc.kind()));
        } else if (st instanceof Storage.Affine a) {
            freeSlot(((Storage.Scalar) a.base()).slot(), TypeKind.INT);
        } else if (st instanceof Storage.PerRegister pr) {
            for (int sl : pr.slots()) {
                freeSlot(sl, Vec.typeKind(pr.kind()));
            }
        } else if (st instanceof Storage.RegisterAffine ra) {
            for (int sl : ra.slots()) {
                freeSlot(sl, TypeKind.INT);
            }
        } else if (st instanceof Storage.Vectors vs) {
            for (int sl : vs.slots()) {
                freeSlot(sl, TypeKind.REFERENCE);
            }
        } else if (st instanceof Storage.Masks ms) {
            for (int sl : ms.slots()) {
                freeSlot(sl, TypeKind.REFERENCE);
            }
        }
    }

    private void freeSlot(int slot, TypeKind t) {
        ArrayDeque<Integer> pool = free.get(t);
        if (pool == null) {
            pool = new ArrayDeque<>();
            free.put(t, pool);
        }
        pool.push(slot);
    }

    /** Allocates the locals of a block-local value from the pool. */
    private Storage allocateLocal(Node x) {
        Shape inRegister = perRegister.get(x);
        Shape s = inRegister != null ? inRegister : x.shape;
        TypeKind t = x.kind == Kind.VOID ? null
                : (s == Shape.VARYING ? TypeKind.REFERENCE : s == Shape.AFFINE ? TypeKind.INT : Vec.typeKind(x.kind));
        if (t == null) {
            return null;
        }
        if (inRegister != null) {
            int[] sl = new int[regs32];
            for (int i = 0; i < regs32; i++) {
                sl[i] = pooledLocal(t);
            }
            return inRegister == Shape.AFFINE ? new Storage.RegisterAffine(sl, v.perRegister().resultStride(x))
                    : new Storage.PerRegister(sl, x.kind);
        }
        return switch (x.shape) {
            case UNIFORM -> new Storage.Scalar(pooledLocal(t), x.kind);
            case AFFINE -> new Storage.Affine(new Storage.Scalar(pooledLocal(t), Kind.INT), x.stride);
            case VARYING -> {
                int count = x.kind == Kind.BOOL ? regs(x.in(0).kind) : regs(x.kind);
                int[] sl = new int[count];
                for (int i = 0; i < count; i++) {
                    sl[i] = pooledLocal(t);
                }
                yield x.kind == Kind.BOOL ? new Storage.Masks(sl, x.in(0).kind) : new Storage.Vectors(sl, x.kind);
            }
        };
    }

    private int[] vectors(Kind k, boolean init) {
        int[] s = new int[regs(k)];
        for (int i = 0; i < s.length; i++) {
            s[i] = local(TypeKind.REFERENCE);
        }
        if (init) {
            vectorInits.add(s);
            vectorInitKinds.add(k);
        }
        return s;
    }

    private int[] masks(int count, boolean init) {
        int[] s = new int[count];
        for (int i = 0; i < s.length; i++) {
            s[i] = local(TypeKind.REFERENCE);
        }
        if (init) {
            maskInits.add(s);
        }
        return s;
    }

    private int scalarLocal(Kind k, boolean init) {
        TypeKind t = Vec.typeKind(k);
        int s = local(t);
        if (init) {
            switch (t) {
                case INT -> intInits.add(s);
                case LONG -> longInits.add(s);
                case FLOAT -> floatInits.add(s);
                case DOUBLE -> doubleInits.add(s);
                case REFERENCE -> refInits.add(s);
                default -> throw new IllegalStateException("init of " + k);
            }
        }
        return s;
    }

    int regs(Kind k) {
        return k.isWide() ? regs64 : regs32;
    }

    int lanes(Kind k) {
        return k.isWide() ? l64 : l32;
    }

    /**
     * Stores {@code v}'s registers, of kind {@code k}, in lane order into the array in local {@code array}
     * from {@code offset}: how a value reaches the scratch rows that lane-by-lane code reads.
     */
    void storeRegisters(Node v, Kind k, int array, int offset) {
        for (int r = 0; r < regs(k); r++) {
            vector(v, r, cur);
            cb.aload(array);
            cb.loadConstant(offset + r * lanes(k));
            cb.invokevirtual(Vec.vector(k), "intoArray", mt(CD_void, Vec.scalar(k.arrayOf()), CD_int));
        }
    }

    private void allocate() {
        threadsSlot = local(TypeKind.INT);
        baseSlot = local(TypeKind.INT);
        faultLaneSlot = local(TypeKind.INT);
        faultCauseSlot = local(TypeKind.REFERENCE);
        kSlot = local(TypeKind.INT);
        bitsSlot = local(TypeKind.LONG);
        faultIndexSlot = local(TypeKind.INT);
        faultLengthSlot = local(TypeKind.INT);
        // Special registers used by the kernel.
        EnumSet<SReg> used = EnumSet.noneOf(SReg.class);
        for (Block b : g.blocks) {
            for (Node x : b.nodes) {
                if (x.op == Op.SREG) {
                    used.add((SReg) x.aux);
                }
            }
        }
        for (SReg r : used) {
            sregs.put(r, sregStorage(r));
        }
        perRegisterValues();
        Set<Node> crossBlock = crossBlockValues();
        for (Block b : g.blocks) {
            for (Node x : b.phis) {
                storage.put(x, allocateValue(x, true));
            }
            for (Node x : b.nodes) {
                boolean special = x.op == Op.CONST || x.op == Op.UNDEF || x.op == Op.PARAM || x.op == Op.SREG;
                if (!special && !crossBlock.contains(x)) {
                    deferred.add(x);
                } else {
                    storage.put(x, allocateValue(x, crossBlock.contains(x)));
                }
            }
        }
        // Shadows: values used outside a divergent loop that defines them.
        for (Block b : g.blocks) {
            for (Node x : b.phis) {
                useCheck(x, b);
            }
            for (Node x : b.nodes) {
                useCheck(x, b);
            }
            if (b.cond != null && u.crossesDivergentLoop(b.cond, b)) {
                needShadow(b.cond);
            }
        }
        Map<Node, Integer> uses = g.useCounts();
        for (Block b : g.blocks) {
            Node c = b.cond;
            if (b.exit == Block.Exit.IF && c != null && c.op == Op.TEST && c.block == b && c.isVarying()
                    && uses.get(c) == 1 && !shadow.containsKey(c) && b.succs.get(0) != b.succs.get(1)) {
                Cond cd = (Cond) c.aux;
                Kind k = c.in(0).kind;
                if ((k == Kind.FLOAT || k == Kind.DOUBLE) && cd.unordered() && cd.pred() != Cond.Pred.EQ
                        && cd.pred() != Cond.Pred.NE) {
                    inverted.add(c);
                }
            }
        }
        // Masks and flags.
        for (Block b : cfg.order) {
            Run r = plan.run.get(b);
            switch (r) {
                case ENTRY -> classSlots.put(b, masks(regs32, true));
                case MASK -> {
                    classSlots.put(b, masks(regs32, true));
                    accSlots.put(b, masks(regs32, true));
                }
                case FLAG, REGION -> flagSlot.put(b, scalarLocal(Kind.INT, true));
                case NONE -> {
                }
            }
            endLabel.put(b, cb.newLabel());
        }
        for (Cfg.Loop l : cfg.loops) {
            topLabel.put(l, cb.newLabel());
            afterLabel.put(l, cb.newLabel());
            if (plan.run.get(l.header) == Run.FLAG) {
                abortSlot.put(l, scalarLocal(Kind.INT, true));
            }
        }
        // Kill sets: the block's own mask and those of the regions it lies in.
        for (Block b : cfg.order) {
            Set<Block> ks = new HashSet<>();
            ks.add(plan.maskOf.get(b));
            killSets.put(b, ks);
        }
        for (Block j : cfg.order) {
            if (plan.run.get(j) == Run.REGION) {
                Block d = cfg.idom.get(j);
                int from = cfg.position.get(d);
                int to = cfg.position.get(j);
                for (int i = from; i < to; i++) {
                    killSets.get(cfg.order.get(i)).add(plan.maskOf.get(j));
                }
            }
        }
        // Masks of other lane types, per block.
        for (Block b : cfg.order) {
            EnumSet<Kind> kinds = derivedKindsNeeded(b);
            EnumMap<Kind, int[]> m = new EnumMap<>(Kind.class);
            for (Kind k : kinds) {
                m.put(k, masks(regs(k), true));
            }
            derived.put(b, m);
        }
        if (gen.phased()) {
            spillPlan.planSpills();
        }
    }

    /** Storage classes of spilled locals: the {@link Phases} array each goes to. */
    static final int SPILL_INT = 0;
    static final int SPILL_LONG = 1;
    static final int SPILL_FLOAT = 2;
    static final int SPILL_DOUBLE = 3;
    static final int SPILL_REF = 4;

    /** How many of the kept items are vectors (their spill entries have more than slot and class). */
    static int vectors(List<int[]> kept) {
        int n = 0;
        for (int[] k : kept) {
            if (k.length > 2) {
                n++;
            }
        }
        return n;
    }

    /**
     * {@code m}'s list for {@code key}, made if missing: computeIfAbsent without its lambda (each lambda spins a class
     * the first time it runs, a cost of every first compile in a JVM; see Compiler's implementation notes).
     */
    static <K, V> List<V> listAt(Map<K, List<V>> m, K key) {
        List<V> list = m.get(key);
        if (list == null) {
            list = new ArrayList<>();
            m.put(key, list);
        }
        return list;
    }

    /**
     * The values live at the end of each block, by SSA liveness: used further on before being defined again,
     * a phi's input live at the end of the predecessor it comes from, a phi itself not live before its block.
     * The linear ranges above keep a loop's phi over the whole loop, also where it is dead (between its last use
     * and the back edge, which writes the next value): the register-blocked sgemm kept its 16 accumulators of
     * the k loop across the barrier that ends the tile's FMA loop, beside the 16 live there.
     * A barrier passes only with every (not exited) thread of the group at it, so no phi is half-written (from
     * one side of a divergent branch) across one; values with shadows keep their ranges.
     */
    Map<Block, Set<Node>> liveOut() {
        if (gen.liveOut == null) {
            gen.liveOut = gen.computeLiveOut();
        }
        return gen.liveOut;
    }
    static final String[] SPILL_FIELDS = {"ints", "longs", "floats", "doubles", "refs"};
    static final ClassDesc[] SPILL_ARRAYS = {CD_int.arrayType(), CD_long.arrayType(), CD_float.arrayType(),
            CD_double.arrayType(), CD_Object.arrayType()};

    private void useCheck(Node x, Block b) {
        for (int i = 0; i < x.in.size(); i++) {
            Node op = x.in(i);
            Block useBlock = x.op == Op.PHI ? u.phiUse(b, i) : b;
            if (u.crossesDivergentLoop(op, useBlock)) {
                needShadow(op);
            }
        }
    }

    private void needShadow(Node x) {
        if (!shadow.containsKey(x)) {
            Kind k = x.kind == Kind.BOOL ? Kind.INT : x.kind;
            if (x.kind == Kind.BOOL) {
                throw new Decline("condition at " + x.site + " used after the divergent loop computing it: not compiled");
            }
            shadow.put(x, new Storage.Vectors(vectors(k, true), k));
        }
    }

    private EnumSet<Kind> derivedKindsNeeded(Block b) {
        return kindsNeeded(b.nodes, b.phis);
    }

    private EnumSet<Kind> kindsNeeded(List<Node> nodes, List<Node> phis) {
        EnumSet<Kind> ks = EnumSet.noneOf(Kind.class);
        for (Node x : phis) {
            if (shadow.containsKey(x)) {
                ks.add(shadow.get(x).kind());
            }
        }
        for (Node x : nodes) {
            if (shadow.containsKey(x)) {
                ks.add(shadow.get(x).kind());
            }
            if (!x.isVarying() && x.op != Op.STORE) {
                continue;
            }
            switch (x.op) {
                case LOAD -> ks.add(x.kind);
                case STORE -> ks.add(x.in(2).kind);
                case DIV, REM -> {
                    if (x.kind == Kind.INT || x.kind == Kind.LONG) {
                        ks.add(x.kind);
                    }
                }
                default -> {
                }
            }
        }
        ks.remove(Kind.INT);
        ks.remove(Kind.BOOL);
        return ks;
    }

    private Set<Node> crossBlockValues() {
        Set<Node> s = new HashSet<>();
        for (Block b : g.blocks) {
            for (Node x : b.phis) {
                for (Node op : x.in) {
                    s.add(op);
                }
            }
            for (Node x : b.nodes) {
                for (Node op : x.in) {
                    if (op.block != b) {
                        s.add(op);
                    }
                }
            }
            if (b.cond != null && b.cond.block != b) {
                s.add(b.cond);
            }
        }
        return s;
    }

    private Storage allocateValue(Node x, boolean cross) {
        switch (x.op) {
            case CONST:
                return new Storage.Const(x.aux, x.kind);
            case UNDEF:
                return new Storage.Const(zero(x.kind), x.kind);
            case PARAM: {
                if (x.kind == Kind.CONTEXT) {
                    return new Storage.Const(0, Kind.INT);
                }
                Param p = (Param) x.aux;
                int slot = 0;
                for (Param q : g.params) {
                    if (q == p) {
                        break;
                    }
                    slot += Vec.typeKind(q.kind()).slotSize();
                }
                return new Storage.Scalar(slot, x.kind);
            }
            case SREG:
                return sregs.get((SReg) x.aux);
            default:
                break;
        }
        if (x.kind == Kind.VOID) {
            return null;
        }
        boolean init = cross || x.op == Op.PHI;
        Shape inRegister = perRegister.get(x);
        if (inRegister != null) {
            int[] sl = new int[regs32];
            for (int i = 0; i < regs32; i++) {
                sl[i] = scalarLocal(inRegister == Shape.AFFINE ? Kind.INT : x.kind, init);
            }
            return inRegister == Shape.AFFINE ? new Storage.RegisterAffine(sl, v.perRegister().resultStride(x))
                    : new Storage.PerRegister(sl, x.kind);
        }
        return switch (x.shape) {
            case UNIFORM -> new Storage.Scalar(scalarLocal(x.kind, init), x.kind);
            case AFFINE -> new Storage.Affine(new Storage.Scalar(scalarLocal(Kind.INT, init), Kind.INT), x.stride);
            case VARYING -> x.kind == Kind.BOOL
                    ? new Storage.Masks(masks(regs(x.in(0).kind), true), x.in(0).kind)
                    : new Storage.Vectors(vectors(x.kind, init), x.kind);
        };
    }

    /**
     * In the row-aligned variant, the group's first thread's (x, y, z), stepped group by group: a group never
     * crosses a row, so x advances by the group size and wraps into y and z (no division per group).
     */
    private int[] rowSlots() {
        if (rowSlots == null) {
            rowSlots = new int[] {local(TypeKind.INT), local(TypeKind.INT), local(TypeKind.INT)};
        }
        return rowSlots;
    }

    /** Fills {@link #perRegister} ({@link RegisterRows#values}); special registers get theirs from {@link #sregStorage}. */
    private void perRegisterValues() {
        if (v.perRegister() == null) {
            return;
        }
        for (Map.Entry<Node, Shape> e : RegisterRows.values(cfg, u, v.perRegister(), n <= warpSize).entrySet()) {
            if (e.getKey().op != Op.SREG) {
                perRegister.put(e.getKey(), e.getValue());
            }
        }
    }

    /** {@link CodeGen.Layout#REGISTER_ROWS}: {@link #registerRows}, register 0's being {@link #rowSlots}. */
    private int[][] registerRows() {
        if (registerRows == null) {
            int[] first = rowSlots();
            registerRows = new int[3][regs32];
            for (int a = 0; a < 3; a++) {
                registerRows[a][0] = first[a];
                for (int r = 1; r < regs32; r++) {
                    registerRows[a][r] = local(TypeKind.INT);
                }
            }
        }
        return registerRows;
    }

    private Storage sregStorage(SReg r) {
        boolean aligned = v.rowAligned();
        boolean withinWarp = n <= warpSize;
        if (v.layout() == CodeGen.Layout.REGISTER_ROWS) {
            switch (r) {
                case TID_X -> {
                    return new Storage.RegisterAffine(registerRows()[0], 1);
                }
                case TID_Y, TID_Z -> {
                    return new Storage.PerRegister(registerRows()[r == SReg.TID_Y ? 1 : 2], Kind.INT);
                }
                default -> {
                }
            }
        }
        return switch (r) {
            case CTAID_X, CTAID_Y, CTAID_Z, NCTAID_X, NCTAID_Y, NCTAID_Z -> new Storage.Scalar(local(TypeKind.INT), Kind.INT);
            case NTID_X -> new Storage.Scalar(bxSlot, Kind.INT);
            case NTID_Y -> new Storage.Scalar(bySlot, Kind.INT);
            case NTID_Z -> new Storage.Scalar(bzSlot, Kind.INT);
            case WARP_SIZE -> new Storage.Const(warpSize, Kind.INT);
            case LINEAR_TID -> new Storage.Affine(new Storage.Scalar(baseSlot, Kind.INT), 1);
            case TID_X -> v.layout() == CodeGen.Layout.LINE ? new Storage.Affine(new Storage.Scalar(baseSlot, Kind.INT), 1)
                    : aligned ? new Storage.Affine(new Storage.Scalar(rowSlots()[0], Kind.INT), 1)
                    : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
            case TID_Y -> v.layout() == CodeGen.Layout.LINE ? new Storage.Const(0, Kind.INT)
                    : aligned ? new Storage.Scalar(rowSlots()[1], Kind.INT)
                    : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
            case TID_Z -> v.layout() == CodeGen.Layout.LINE ? new Storage.Const(0, Kind.INT)
                    : aligned ? new Storage.Scalar(rowSlots()[2], Kind.INT)
                    : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
            case LANE_ID -> withinWarp ? new Storage.Affine(new Storage.Scalar(local(TypeKind.INT), Kind.INT), 1)
                    : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
            case WARP_ID -> withinWarp ? new Storage.Scalar(local(TypeKind.INT), Kind.INT)
                    : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
        };
    }

    Object zero(Kind k) {
        return switch (k) {
            case LONG -> 0L;
            case FLOAT -> 0f;
            case DOUBLE -> 0.0;
            default -> 0;
        };
    }

    void emit() {
        allocate();
        // CTA prologue.
        cb.iload(bxSlot);
        cb.iload(bySlot);
        cb.imul();
        cb.iload(bzSlot);
        cb.imul();
        cb.istore(threadsSlot);
        for (Map.Entry<SReg, Storage> e : sregs.entrySet()) {
            String getter = switch (e.getKey()) {
                case CTAID_X -> "blockIdxX";
                case CTAID_Y -> "blockIdxY";
                case CTAID_Z -> "blockIdxZ";
                default -> null;
            };
            if (getter != null) {
                cb.aload(ctaSlot);
                cb.invokevirtual(Vec.CTA, getter, mt(CD_int));
                cb.istore(((Storage.Scalar) e.getValue()).slot());
            }
            String dim = switch (e.getKey()) {
                case NCTAID_X -> "x";
                case NCTAID_Y -> "y";
                case NCTAID_Z -> "z";
                default -> null;
            };
            if (dim != null) {
                cb.aload(ctaSlot);
                cb.invokevirtual(Vec.CTA, "gridDim", mt(Vec.DIM3));
                cb.invokevirtual(Vec.DIM3, dim, mt(CD_int));
                cb.istore(((Storage.Scalar) e.getValue()).slot());
            }
        }
        // Scratch arrays (gather maps, scatter values, per-lane calls): one small allocation per CTA, per
        // kind the kernel needs.
        for (Kind k : scratchKinds()) {
            int s = local(TypeKind.REFERENCE);
            scratch.put(k, s);
            TypeKind tk = Vec.typeKind(k);
            if (phasesSlot >= 0 && tk != TypeKind.REFERENCE) {
                // A kernel with barriers: its SM's arrays, reused by its CTAs and their phases (see Phases.scratchInt)
                cb.aload(phasesSlot);
                cb.loadConstant(n * 4);
                String which = switch (tk) {
                    case LONG -> "scratchLong";
                    case FLOAT -> "scratchFloat";
                    case DOUBLE -> "scratchDouble";
                    default -> "scratchInt";
                };
                cb.invokevirtual(Vec.PHASES, which, mt(tk.upperBound().arrayType(), CD_int));
            } else {
                cb.loadConstant(n * 4);
                cb.newarray(tk);
            }
            cb.astore(s);
        }
        cb.iconst_m1();
        cb.istore(faultLaneSlot);
        cb.aconst_null();
        cb.astore(faultCauseSlot);
        cb.iconst_0();
        cb.istore(kSlot);
        cb.iconst_0();
        cb.istore(faultIndexSlot);
        cb.iconst_0();
        cb.istore(faultLengthSlot);
        cb.lconst_0();
        cb.lstore(bitsSlot);
        if (gen.profiling != null) {
            profilingCounters = local(TypeKind.REFERENCE);
            gen.profiling.prologue(cb, ctaSlot, profilingCounters);
        }
        if (gen.phased()) {
            barriers.phasePrologue();
            if (gen.touches && resumeAt >= 0 && resumeAt < Phases.YIELD && gen.profiling == null) {
                Touches.emit(this, Touches.ofPhase(g, cfg, barrierBlocks, resumeAt));
            }
            nextGroup = cb.newLabel();
            for (StrideLoops.StrideLoop sl : strideLoops.values()) {
                if (strideLoopCode.roundRobin(sl)) {
                    roundRobinDoneSlot = local(TypeKind.INT);
                    cb.iconst_0();
                    cb.istore(roundRobinDoneSlot);
                }
            }
        }
        Label nextCta = cb.newLabel();
        cb.labelBinding(nextCta);
        if (rowSlots != null) {
            for (int sl : rowSlots) {
                cb.iconst_0();
                cb.istore(sl);
            }
        }
        cb.iconst_0();
        cb.istore(baseSlot);
        Label group = cb.newLabel();
        Label exit = cb.newLabel();
        cb.labelBinding(group);
        cb.iload(baseSlot);
        cb.iload(threadsSlot);
        cb.if_icmpge(exit);
        if (gen.phased() && resumeAt < 0) {
            // The general method runs from the group its last parameter names (0 from runCta; a later one
            // when a resume point's method hands it the rest of a phase, see expectFlags).
            cb.iload(groupIndexSlot);
            cb.iload(fromGroupSlot);
            cb.if_icmplt(nextGroup);
        }
        // Per group, not once per CTA: a local first set before the group loop is carried around it, so where a
        // region is skipped in some groups the previous group's vector reaches the join and the kernel's
        // loops through the group loop's phi, and C2 then boxes every value its loops carry (a Float256Vector
        // and a float[] per iteration and register: lesson 3's warp-grouped kernel 4x slower than the
        // interleaved one). Fresh values per group keep every vector phi inside one group's code.
        initLocals();
        // No cancellation check per group: a CTA is at most 1024 threads, and the runtime checks between
        // CTAs (the reference executor checks once per round, which for a barrier-free kernel is the CTA).
        groupPrologue();
        if (gen.phased()) {
            Label fresh = cb.newLabel();
            barriers.resumeGroup(fresh);
            cb.labelBinding(fresh);
        }
        for (Block b : cfg.order) {
            block(b);
        }
        // A fault recorded in this group fails the CTA; later groups never run, as in the reference.
        faults.throwFault();
        if (gen.phased()) {
            cb.aload(stopArraySlot);
            cb.iload(groupIndexSlot);
            cb.iconst_0();
            cb.iastore();
            cb.labelBinding(nextGroup);
            cb.iinc(groupIndexSlot, 1);
        }
        stepRow();
        cb.iinc(baseSlot, n);
        cb.goto_(group);
        idleSkips.idleRun(group, exit);
        cb.labelBinding(exit);
        if (ctaCountSlot >= 0 && gen.profiling == null) {
            nextCtaOfRow(nextCta);
        }
        if (!CodeGen.STACK_MAPS && nextSlot > 0) {
            // A method per resume point carries code it never reaches (the kernel's entry, other phases), and without
            // stack maps the ClassFile API counts max_locals over the reachable code only, while HotSpot's verifier
            // for version-49 classes checks every instruction's local against it: a local only unreachable code uses
            // failed the class ("Illegal local variable number"). A dead store to the top local counts them all.
            cb.iconst_0();
            cb.istore(nextSlot - 1);
        }
        cb.return_();
    }

    /**
     * The row-aligned variants' step of the group's first thread's (x, y, z) to the next group's. A row-aligned
     * group never crosses a row, so x advances by the group size and wraps into y and z at most once (no division
     * per group); with {@link CodeGen.Layout#REGISTER_ROWS} a group may span several rows: a loop.
     */
    void stepRow() {
        if (rowSlots == null) {
            return;
        }
        boolean spans = v.layout() == CodeGen.Layout.REGISTER_ROWS;
        Label stepped = cb.newLabel();
        Label again = cb.newLabel();
        cb.iinc(rowSlots[0], n);
        cb.labelBinding(again);
        cb.iload(rowSlots[0]);
        cb.iload(bxSlot);
        cb.if_icmplt(stepped);
        cb.iload(rowSlots[0]);
        cb.iload(bxSlot);
        cb.isub();
        cb.istore(rowSlots[0]);
        cb.iinc(rowSlots[1], 1);
        cb.iload(rowSlots[1]);
        cb.iload(bySlot);
        cb.if_icmplt(spans ? again : stepped);
        cb.iconst_0();
        cb.istore(rowSlots[1]);
        cb.iinc(rowSlots[2], 1);
        if (spans) {
            cb.goto_(again);
        }
        cb.labelBinding(stepped);
    }

    /**
     * {@link CodeGen.Layout#REGISTER_ROWS}: registers 1 on of the group, each from the one before it: the next
     * {@code l32} threads, in the same row or at the start of the next (blockDim.x is a multiple of {@code l32}).
     */
    private void registerRowsOfGroup() {
        if (registerRows == null) {
            return;
        }
        int[] x = registerRows[0];
        int[] y = registerRows[1];
        int[] z = registerRows[2];
        for (int r = 1; r < regs32; r++) {
            Label done = cb.newLabel();
            cb.iload(y[r - 1]);
            cb.istore(y[r]);
            cb.iload(z[r - 1]);
            cb.istore(z[r]);
            cb.iload(x[r - 1]);
            cb.loadConstant(l32);
            cb.iadd();
            cb.dup();
            cb.istore(x[r]);
            cb.iload(bxSlot);
            cb.if_icmplt(done);
            cb.iconst_0();
            cb.istore(x[r]);
            cb.iinc(y[r], 1);
            cb.iload(y[r]);
            cb.iload(bySlot);
            cb.if_icmplt(done);
            cb.iconst_0();
            cb.istore(y[r]);
            cb.iinc(z[r], 1);
            cb.labelBinding(done);
        }
    }

    /**
     * The loop over the CTAs of a grid row (runCtaRow): the next one, blockIdx.x + 1, with what its CTA
     * prologue set up kept; stops at the row's end or when the launch failed elsewhere, as the runtime would
     * between CTAs.
     */
    private void nextCtaOfRow(Label nextCta) {
        Label done = cb.newLabel();
        cb.iinc(ctaCountSlot, -1);
        cb.iload(ctaCountSlot);
        cb.ifle(done);
        cb.aload(ctaSlot);
        cb.invokevirtual(Vec.CTA, "cancelled", mt(CD_boolean));
        cb.ifne(done);
        cb.aload(ctaSlot);
        cb.invokevirtual(Vec.CTA, "nextX", mt(CD_void));
        Storage x = sregs.get(SReg.CTAID_X);
        if (x != null) {
            cb.aload(ctaSlot);
            cb.invokevirtual(Vec.CTA, "blockIdxX", mt(CD_int));
            cb.istore(((Storage.Scalar) x).slot());
        }
        cb.goto_(nextCta);
        cb.labelBinding(done);
    }

    /** The kinds of scratch array the code of this variant uses. */
    private EnumSet<Kind> scratchKinds() {
        EnumSet<Kind> ks = EnumSet.noneOf(Kind.class);
        for (Block b : g.blocks) {
            cur = b;
            for (Node x : b.nodes) {
                switch (x.op) {
                    case LOAD -> {
                        if (x.isVarying() && !memoryOps.contiguous(x.in(1))) {
                            ks.add(Kind.INT);
                        }
                    }
                    case STORE -> {
                        Shape is = shapeAt(x.in(1), b);
                        if (is == Shape.UNIFORM && shapeAt(x.in(2), b) != Shape.UNIFORM) {
                            ks.add(x.in(2).kind);
                        } else if (is != Shape.UNIFORM && !memoryOps.contiguous(x.in(1))) {
                            ks.add(Kind.INT);
                            ks.add(x.in(2).kind);
                        } else if (is != Shape.UNIFORM && x.in(0).kind.isNarrowArray()) {
                            // a masked store into it may go lane by lane (MemoryOps#narrowLaneByLane)
                            ks.add(Kind.INT);
                        }
                    }
                    case ATOMIC -> {
                        ks.add(Kind.INT);
                        ks.add(x.kind);
                    }
                    case WARP -> {
                        if (!((Warp) x.aux).isVote()) {
                            ks.add(Kind.INT);
                            ks.add(x.kind);
                        }
                    }
                    case CALL, REM -> {
                        if (x.isVarying() && (x.op == Op.REM ? x.kind == Kind.FLOAT || x.kind == Kind.DOUBLE
                                : ((Fn) x.aux).lowering() == Fn.Lowering.PER_LANE)) {
                            ks.add(x.kind);
                            for (Node a : x.in) {
                                ks.add(a.kind);
                            }
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        cur = null;
        ks.remove(Kind.BOOL);
        return ks;
    }

    private void initLocals() {
        groupConstants();
        for (int s : intInits) {
            cb.iconst_0();
            cb.istore(s);
        }
        for (int s : longInits) {
            cb.lconst_0();
            cb.lstore(s);
        }
        for (int s : floatInits) {
            cb.fconst_0();
            cb.fstore(s);
        }
        for (int s : doubleInits) {
            cb.dconst_0();
            cb.dstore(s);
        }
        for (int s : refInits) {
            if (barriers.hoistedShared().containsKey(s)) {
                continue;
            }
            cb.aconst_null();
            cb.astore(s);
        }
        Map<Kind, List<int[]>> byKind = new EnumMap<>(Kind.class);
        for (int i = 0; i < vectorInits.size(); i++) {
            listAt(byKind, vectorInitKinds.get(i)).add(vectorInits.get(i));
        }
        for (Map.Entry<Kind, List<int[]>> e : byKind.entrySet()) {
            Kind k = e.getKey();
            cb.aload(zeroSlots.get(k));
            for (int[] slots : e.getValue()) {
                for (int s : slots) {
                    cb.dup();
                    cb.astore(s);
                }
            }
            cb.pop();
        }
        // Masks are typed by lane kind only at run time; an int-lane "none" serves every init.
        if (!maskInits.isEmpty()) {
            cb.aload(noneSlot);
            for (int[] slots : maskInits) {
                for (int s : slots) {
                    cb.dup();
                    cb.astore(s);
                }
            }
            cb.pop();
        }
        // Derived masks hold other lane types: give them a value of their own type, one per type.
        EnumMap<Kind, List<Integer>> derivedByKind = new EnumMap<>(Kind.class);
        for (EnumMap<Kind, int[]> m : derived.values()) {
            for (Map.Entry<Kind, int[]> d : m.entrySet()) {
                for (int s : d.getValue()) {
                    listAt(derivedByKind, d.getKey()).add(s);
                }
            }
        }
        for (Map.Entry<Kind, List<Integer>> e : derivedByKind.entrySet()) {
            cb.aload(noneDerivedSlots.get(e.getKey()));
            for (int s : e.getValue()) {
                cb.dup();
                cb.astore(s);
            }
            cb.pop();
        }
    }

    /**
     * Sets, at the start of each group, the constant masks and vectors that the group's inits and clears copy:
     * a {@code maskAll} per pass of a loop that clears a pending mask is a new value each pass, and where C2
     * boxes the masks that reach a loop's phis it allocates one each pass (in the phased transpose, the pending
     * masks' clears inside the tile loop were among the boxes allocated per group); one value per group is
     * boxed at most once per group. Not once per call before the group loop: a vector or mask made before the
     * group loop, even one never reassigned, made C2 box every vector the group's loops carry (the kernel of
     * {@code CodeShapeTest}: 17.6 MB allocated per launch against 448 bytes, 100x slower). The loads are also
     * 7 bytes shorter than the call, which matters under C2's 8000-byte limit.
     */
    private void groupConstants() {
        boolean masks = !maskInits.isEmpty() || !derived.isEmpty();
        if (masks) {
            noneSlot = local(TypeKind.REFERENCE);
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.iconst_0();
            cb.invokeinterface(Vec.SPECIES, "maskAll", mt(Vec.MASK, CD_boolean));
            cb.astore(noneSlot);
            allSlot = local(TypeKind.REFERENCE);
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.iconst_1();
            cb.invokeinterface(Vec.SPECIES, "maskAll", mt(Vec.MASK, CD_boolean));
            cb.astore(allSlot);
        }
        for (Kind k : new java.util.TreeSet<>(vectorInitKinds)) {
            int sl = local(TypeKind.REFERENCE);
            Vec.loadSpecies(cb, k);
            cb.invokestatic(Vec.vector(k), "zero", mt(Vec.vector(k), Vec.SPECIES));
            cb.astore(sl);
            zeroSlots.put(k, sl);
        }
        java.util.EnumSet<Kind> derivedKinds = java.util.EnumSet.noneOf(Kind.class);
        for (EnumMap<Kind, int[]> m : derived.values()) {
            derivedKinds.addAll(m.keySet());
        }
        for (Kind k : derivedKinds) {
            int sl = local(TypeKind.REFERENCE);
            if (k == Kind.FLOAT) {
                // The float-lane "none" made as pushDerived makes every float mask: an int-lane mask cast to FS.
                // C2 merges boxed masks at a phi (Phi(VectorBox...) => VectorBox(Phi)) only when every input has
                // the same vector type, and a cast mask keeps the type of its int lanes while FS.maskAll(false)
                // has float lanes: a phi mixing the two allocates every mask reaching it. Measured in a scratch
                // loop of that shape (JDK 25, AVX2): 3,378 bytes per call with FS.maskAll, 0 with the cast.
                cb.aload(noneSlot);
                cb.getstatic(Vec.LANES, "FS", Vec.SPECIES);
                cb.invokevirtual(Vec.MASK, "cast", mt(Vec.MASK, Vec.SPECIES));
            } else {
                Vec.loadSpecies(cb, k);
                cb.iconst_0();
                cb.invokeinterface(Vec.SPECIES, "maskAll", mt(Vec.MASK, CD_boolean));
            }
            cb.astore(sl);
            noneDerivedSlots.put(k, sl);
        }
    }

    private void groupPrologue() {
        registerRowsOfGroup();
        // Entry mask: the threads of this group that exist (a partial warp at the CTA's end).
        int[] entry = classSlots.get(g.entry());
        Label partial = cb.newLabel();
        Label entryDone = cb.newLabel();
        cb.iload(threadsSlot);
        cb.iload(baseSlot);
        cb.isub();
        cb.loadConstant(n);
        cb.if_icmplt(partial);
        allTrueInto(entry);
        cb.goto_(entryDone);
        cb.labelBinding(partial);
        for (int r = 0; r < regs32; r++) {
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.iload(baseSlot);
            cb.loadConstant(r * l32);
            cb.iadd();
            cb.iload(threadsSlot);
            cb.invokeinterface(Vec.SPECIES, "indexInRange", mt(Vec.MASK, CD_int, CD_int));
            cb.astore(entry[r]);
        }
        cb.labelBinding(entryDone);
        for (Map.Entry<SReg, Storage> e : sregs.entrySet()) {
            Storage st = e.getValue();
            switch (e.getKey()) {
                case TID_X -> {
                    if (st instanceof Storage.Vectors) {
                        int[] s = ((Storage.Vectors) st).slots();
                        for (int r = 0; r < regs32; r++) {
                            cb.iload(baseSlot);
                            cb.loadConstant(r);
                            cb.iload(bxSlot);
                            cb.invokestatic(Vec.LANES, "tidX", mt(Vec.INT_VECTOR, CD_int, CD_int, CD_int));
                            cb.astore(s[r]);
                        }
                    }
                }
                case TID_Y, TID_Z -> {
                    boolean y = e.getKey() == SReg.TID_Y;
                    if (st instanceof Storage.Vectors) {
                        int[] s = ((Storage.Vectors) st).slots();
                        for (int r = 0; r < regs32; r++) {
                            cb.iload(baseSlot);
                            cb.loadConstant(r);
                            cb.iload(bxSlot);
                            cb.iload(bySlot);
                            cb.invokestatic(Vec.LANES, y ? "tidY" : "tidZ", mt(Vec.INT_VECTOR, CD_int, CD_int, CD_int, CD_int));
                            cb.astore(s[r]);
                        }
                    }
                }
                case LANE_ID -> {
                    if (st instanceof Storage.Affine a) {
                        cb.iload(baseSlot);
                        cb.loadConstant(warpSize - 1);
                        cb.iand();
                        cb.istore(((Storage.Scalar) a.base()).slot());
                    } else {
                        int[] s = ((Storage.Vectors) st).slots();
                        for (int r = 0; r < regs32; r++) {
                            linearVector(r);
                            cb.getstatic(Vec.OPERATORS, "AND", Vec.operatorType("AND"));
                            cb.loadConstant(warpSize - 1);
                            cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, arithmetic.binaryType(), CD_int));
                            cb.astore(s[r]);
                        }
                    }
                }
                case WARP_ID -> {
                    if (st instanceof Storage.Scalar sc) {
                        cb.iload(baseSlot);
                        cb.loadConstant(warpSize);
                        cb.idiv();
                        cb.istore(sc.slot());
                    } else {
                        int[] s = ((Storage.Vectors) st).slots();
                        for (int r = 0; r < regs32; r++) {
                            linearVector(r);
                            cb.getstatic(Vec.OPERATORS, "ASHR", Vec.operatorType("ASHR"));
                            cb.loadConstant(Integer.numberOfTrailingZeros(warpSize));
                            cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, arithmetic.binaryType(), CD_int));
                            cb.astore(s[r]);
                        }
                    }
                }
                default -> {
                }
            }
        }
    }

    /** Pushes the linear thread ids of register {@code r} of the group. */
    private void linearVector(int r) {
        cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
        cb.iload(baseSlot);
        cb.loadConstant(r * l32);
        cb.iadd();
        cb.invokestatic(Vec.INT_VECTOR, "broadcast", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int));
        cb.iconst_1();
        cb.invokevirtual(Vec.INT_VECTOR, "addIndex", mt(Vec.INT_VECTOR, CD_int));
    }

    private void block(Block b) {
        cur = b;
        nullChecked.clear();
        Run run = plan.run.get(b);
        if (run == Run.NONE) {
            cb.labelBinding(endLabel.get(b));
            loopEnds(b);
            return;
        }
        Cfg.Loop loop = cfg.loopOfHeader.get(b);
        Label end = endLabel.get(b);
        if (loop != null) {
            Label after = afterLabel.get(loop);
            StrideLoops.StrideLoop stride = run == Run.MASK ? strideLoops.get(loop) : null;
            if (stride != null) {
                strideLoopCode.fastStrideLoop(stride);
            }
            // Enter the loop only if some thread arrived; its back edge tests again.
            if (run == Run.MASK) {
                anyMask(accSlots.get(b));
                cb.ifeq(after);
            } else {
                cb.iload(flagSlot.get(b));
                cb.ifeq(after);
                Integer abort = abortSlot.get(loop);
                if (abort != null) {
                    cb.iconst_0();
                    cb.istore(abort);
                }
            }
            cb.labelBinding(topLabel.get(loop));
        } else if (run == Run.MASK) {
            takeMask(b);
            if (!runsWhenEmpty(b)) {
                anyMask(classSlots.get(b));
                cb.ifeq(end);
            }
        } else if (run == Run.FLAG || run == Run.REGION) {
            cb.iload(flagSlot.get(b));
            cb.ifeq(end);
        }
        if (run == Run.MASK && loop != null) {
            takeMask(b);
        } else if (run == Run.FLAG || run == Run.REGION) {
            cb.iconst_0();
            cb.istore(flagSlot.get(b));
        }
        for (Block j : plan.regionJoins.getOrDefault(b, List.of())) {
            cb.iconst_1();
            cb.istore(flagSlot.get(j));
        }
        if (gen.profiling != null) {
            gen.profiling.blockEntry(cb, profilingCounters, b, curMask());
        }
        materializeDerived(b);
        for (Node x : b.phis) {
            writeShadow(x);
        }
        nodes(b, false);
        if (keptAt.containsKey(b)) {
            barriers.barrier(b);
        }
        if (!handlers.isEmpty()) {
            cb.goto_(endLabel.get(b));
            faults.emitHandlers();
        }
        cb.labelBinding(end);
        loopEnds(b);
    }

    /**
     * Masked block {@code b} takes the threads that arrived: its accumulated mask becomes its mask and the
     * accumulator is emptied. A block that is not a loop header does this before it tests for an empty mask,
     * so that both happen on every path through it: then neither its accumulator nor its mask is live at the
     * header of a loop around it (both are written before they are read in each iteration) and C2 builds no
     * phi of masks there. Such a phi, of the mask a divergent branch hands on ({@code andNot}) and of the
     * empty mask, C2 boxed at each iteration (transpose: 47 MB per launch). Skipped, the block's mask is
     * empty rather than left over from its last run; only code the block dominates reads it, and none runs.
     */
    private void takeMask(Block b) {
        int[] c = classSlots.get(b);
        int[] a = accSlots.get(b);
        for (int r = 0; r < regs32; r++) {
            cb.aload(a[r]);
            cb.astore(c[r]);
        }
        noneInto(a);
    }

    /** Operations that neither fault nor write anything, whatever their operands: safe to run for no thread. */
    private static final Set<Op> HARMLESS = EnumSet.of(Op.CONST, Op.ADD, Op.SUB, Op.MUL, Op.NEG, Op.SHL, Op.SHR,
            Op.USHR, Op.AND, Op.OR, Op.XOR, Op.CONV, Op.TEST);

    /**
     * Whether masked block {@code b} runs even when no thread arrived: it only hands its threads on to its
     * successor's vector phis, to a successor that runs on a mask of its own or its region's flag, and before
     * that at most computes (no load, store, division, call or warp operation: nothing that faults or writes).
     * With an empty mask the copies blend nothing and the successor's mask gains nothing, so the test is not
     * needed; without it the phi's value is not live across one more branch. That matters to C2:
     * <ul>
     * <li>where a phi of vectors (say a load on one path and a constant on the other, {@code c ? a[i] : 0f})
     * is live at a branch it prunes into an uncommon trap, the trap's state holds the phi of boxes, and C2
     * then allocates them (tiled sgemm: 118 MB per launch);
     * <li>in scan's {@code if (lane >= d) v += up} inside the shuffle loop, the test made C2 allocate every
     * boxed vector the loop carries (the phi of the blended sum and the value before it), about 2.9 KB per
     * warp, and the boxes cost more than the add they skip;
     * <li>an empty arm ({@code d > 0 ? 1f - c : c}, black-scholes' cumulative normal) kept a test over nothing,
     * and with it a branch whose both paths read the phi's inputs: C2 had to compute them above that branch, so
     * the polynomial of the first cumulative normal ran between the exp calls, its vectors spilled around each
     * call, where without the branch C2 sinks it after the calls as in the hand-written loop (black-scholes'
     * weft/vectorApi 1.00-1.23 against 0.78-0.82 in alternating paired runs).
     * </ul>
     */
    private boolean runsWhenEmpty(Block b) {
        if (gen.profiling != null || keptAt.containsKey(b)) {
            return false;
        }
        collectReads();
        return runsWhenEmpty(b, plan, cfg, u, readElsewhere);
    }

    /**
     * {@link #runsWhenEmpty(Block)} for any method of the variant {@code u} and {@code plan} describe, without
     * profiling (the listing's words); {@code readElsewhere}: the values a phi, a branch or another block reads
     * ({@link #readElsewhere(Graph)}).
     */
    static boolean runsWhenEmpty(Block b, MaskPlan plan, Cfg cfg, Uniformity u, Set<Node> readElsewhere) {
        if (b.exit != Block.Exit.GOTO || !b.phis.isEmpty() || plan.regionJoins.containsKey(b)) {
            return false;
        }
        // A block of constants only leaves alone a phi read beyond its block (a loop's phi: scan's warp totals):
        // there the unconditional blend's result was the value C2 boxed, and scan allocated 7% more. An empty block
        // is not one: it blends a value already computed.
        boolean constants = !b.nodes.isEmpty();
        for (Node x : b.nodes) {
            if (!HARMLESS.contains(x.op)) {
                return false;
            }
            constants &= x.op == Op.CONST;
        }
        Block s = b.succs.get(0);
        Run sr = plan.run.get(s);
        // A uniform or affine phi takes the copy whole: an empty block must not make it.
        if (!(sr == Run.MASK || sr == Run.REGION) || cfg.loopOfHeader.get(s) != null || s.phis.isEmpty()) {
            return false;
        }
        for (Node p : s.phis) {
            if (u.shapeAt(p, s) != Shape.VARYING || constants && readElsewhere.contains(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Emits the nodes of {@code b} and, unless {@code fast}, its terminator. {@code fast}: an iteration of a
     * grid-stride loop with every thread of the group active ({@link StrideLoopCode#fastStrideLoop}): no shadows (no thread
     * leaves the loop there), and the header's test is replaced by the fast path's scalar one.
     */
    void nodes(Block b, boolean fast) {
        Map<Node, Integer> last = new HashMap<>();
        for (int i = 0; i < b.nodes.size(); i++) {
            Node x = b.nodes.get(i);
            if (deferred.contains(x)) {
                last.put(x, i);
            }
            for (Node o : x.in) {
                if (deferred.contains(o) && o.block == b) {
                    last.put(o, i);
                }
            }
            Node source = fast && x.op == Op.ATOMIC ? atomicOps.rereadSource(x) : null;
            if (source != null) {
                // the atomic reads its index again at the load's index: an operand of the atomic's too
                for (Node o : source.in) {
                    if (deferred.contains(o) && o.block == b) {
                        last.put(o, i);
                    }
                }
            }
        }
        if (b.cond != null && deferred.contains(b.cond)) {
            last.put(b.cond, b.nodes.size());
        }
        List<List<Node>> dying = new ArrayList<>();
        for (int i = 0; i <= b.nodes.size(); i++) {
            dying.add(new ArrayList<>());
        }
        for (Map.Entry<Node, Integer> e : last.entrySet()) {
            dying.get(e.getValue()).add(e.getKey());
        }
        // Lane types masked by node i and those after it (suffix unions, one pass).
        List<EnumSet<Kind>> suffix = new ArrayList<>();
        EnumSet<Kind> acc = EnumSet.noneOf(Kind.class);
        for (int i = b.nodes.size() - 1; i >= 0; i--) {
            acc.addAll(kindsNeeded(b.nodes.subList(i, i + 1), List.of()));
            suffix.add(0, EnumSet.copyOf(acc));
        }
        for (int i = 0; i < b.nodes.size(); i++) {
            Node x = b.nodes.get(i);
            laterKinds = suffix.get(i);
            if (fast && x == b.cond) {
                continue; // the fast path's scalar test replaces the header's mask
            }
            if (deferred.contains(x)) {
                storage.put(x, allocateLocal(x));
            }
            fastIteration = fast;
            node(x);
            fastIteration = false;
            if (!fast) {
                writeShadow(x);
            }
            releaseTemps();
            for (Node dead : dying.get(i)) {
                release(dead);
            }
        }
        if (fast) {
            dying.get(b.nodes.size()).remove(b.cond);
        } else {
            terminator(b);
        }
        releaseTemps();
        for (Node dead : dying.get(b.nodes.size())) {
            release(dead);
        }
    }

    /** Loops, innermost first. Not a lambda (see {@link #listAt}). */
    private static final Comparator<Cfg.Loop> DEEPEST_FIRST = new Comparator<>() {
        @Override
        public int compare(Cfg.Loop x, Cfg.Loop y) {
            return Integer.compare(y.depth, x.depth);
        }
    };

    /** After the last block of loops: the jumps back to their headers, innermost first. */
    private void loopEnds(Block b) {
        List<Cfg.Loop> ending = new ArrayList<>();
        for (Cfg.Loop l : cfg.loops) {
            if (l.last == b) {
                ending.add(l);
            }
        }
        ending.sort(DEEPEST_FIRST);
        for (Cfg.Loop l : ending) {
            Block h = l.header;
            if (plan.run.get(h) == Run.MASK) {
                anyMask(accSlots.get(h));
                cb.ifne(topLabel.get(l));
            } else {
                Label after = afterLabel.get(l);
                Integer abort = abortSlot.get(l);
                cb.iload(flagSlot.get(h));
                cb.ifeq(after);
                if (abort != null) {
                    Label reset = cb.newLabel();
                    cb.iload(abort);
                    cb.ifne(reset);
                    cb.goto_(topLabel.get(l));
                    cb.labelBinding(reset);
                    cb.iconst_0();
                    cb.istore(flagSlot.get(h));
                } else {
                    cb.goto_(topLabel.get(l));
                }
            }
            cb.labelBinding(afterLabel.get(l));
        }
    }

    /** Pushes the int-lane mask with every lane {@code set}: the hoisted constant where the method has one. */
    void pushMaskAll(boolean set) {
        int sl = set ? allSlot : noneSlot;
        if (sl >= 0) {
            cb.aload(sl);
            return;
        }
        cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
        if (set) {
            cb.iconst_1();
        } else {
            cb.iconst_0();
        }
        cb.invokeinterface(Vec.SPECIES, "maskAll", mt(Vec.MASK, CD_boolean));
    }

    void allTrueInto(int[] slots) {
        maskAllInto(slots, true);
    }

    void noneInto(int[] slots) {
        maskAllInto(slots, false);
    }

    /** Stores one {@code maskAll(set)} into every slot (a mask is immutable: one object serves them all). */
    private void maskAllInto(int[] slots, boolean set) {
        pushMaskAll(set);
        for (int i = 0; i < slots.length; i++) {
            if (i < slots.length - 1) {
                cb.dup();
            }
            cb.astore(slots[i]);
        }
    }

    /** Pushes 1 if any lane of the masks is set, else 0. */
    void anyMask(int[] slots) {
        cb.aload(slots[0]);
        for (int r = 1; r < slots.length; r++) {
            cb.aload(slots[r]);
            cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
        }
        cb.invokevirtual(Vec.MASK, "anyTrue", mt(CD_boolean));
    }

    /**
     * With a group's lane bits (a long) on the stack: jumps to {@code none} where no bit is set, else stores the
     * first set bit's lane in {@link #kSlot}. Compact code ({@link CodeGen#withCompactMasks}) tests the sign of
     * {@code Lanes.firstLane}, 6 bytes shorter; every fault site has one.
     */
    void firstLane(Label none) {
        if (gen.compactMasks) {
            cb.invokestatic(Vec.LANES, "firstLane", mt(CD_int, CD_long));
            cb.dup();
            cb.istore(kSlot);
            cb.iflt(none);
            return;
        }
        cb.dup2();
        cb.lstore(bitsSlot);
        cb.lconst_0();
        cb.lcmp();
        cb.ifeq(none);
        cb.lload(bitsSlot);
        cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
        cb.istore(kSlot);
    }

    /** The int-lane mask locals of the current block. */
    int[] curMask() {
        return classSlots.get(plan.maskOf.get(cur));
    }

    /** Pushes register {@code r} of the current block's mask for lanes of kind {@code k}. */
    void curMask(Kind k, int r) {
        if (k == Kind.INT || k == Kind.BOOL) {
            cb.aload(curMask()[r]);
        } else if (lazyLaneKinds(cur).contains(k)) {
            pushDerived(curMask(), k, r);
        } else {
            cb.aload(derived.get(cur).get(k)[r]);
        }
    }

    void materializeDerived(Block b) {
        for (Map.Entry<Kind, int[]> e : derived.get(b).entrySet()) {
            if (!lazyLaneKinds(b).contains(e.getKey())) {
                deriveMasks(curMask(), e.getKey(), e.getValue());
            }
        }
    }

    /**
     * The lane kinds whose masks block {@code b} makes where they are used, not at its start (see {@link
     * PhaseTrims#LAZY_LANE_MASKS}): float, where every node of the block that needs float masks is a load or store
     * at a contiguous index (they use them only on their masked paths) and no shadow of the block is float; with
     * {@link CodeGen#withCompactMasks compact masks}, every lane kind.
     */
    EnumSet<Kind> lazyLaneKinds(Block b) {
        EnumSet<Kind> lazy = lazyLaneKinds.get(b);
        if (lazy != null) {
            return lazy;
        }
        lazy = EnumSet.noneOf(Kind.class);
        if (gen.compactMasks) {
            // Smallest code: no mask of another lane type made at the block's start or again at each fault.
            lazy.addAll(derived.get(b).keySet());
        } else if (PhaseTrims.LAZY_LANE_MASKS && derived.get(b).containsKey(Kind.FLOAT)) {
            boolean only = true;
            for (Node x : b.phis) {
                only &= !shadow.containsKey(x);
            }
            for (Node x : b.nodes) {
                if (shadow.containsKey(x)) {
                    only = false;
                }
                Kind needs = x.op == Op.STORE ? x.in(2).kind : x.op == Op.LOAD && x.isVarying() ? x.kind : null;
                if (needs == Kind.FLOAT && !(shapeAt(x.in(1), b) == Shape.AFFINE && x.in(1).stride == 1)) {
                    only = false;
                }
                if ((x.op == Op.DIV || x.op == Op.REM) && x.isVarying() && x.kind == Kind.FLOAT) {
                    only = false;
                }
            }
            if (only) {
                lazy.add(Kind.FLOAT);
            }
        }
        lazyLaneKinds.put(b, lazy);
        return lazy;
    }

    /** Stores into {@code out} the masks for lanes of {@code k} equivalent to int-lane masks {@code in}. */
    void deriveMasks(int[] in, Kind k, int[] out) {
        for (int r = 0; r < regs(k); r++) {
            pushDerived(in, k, r);
            cb.astore(out[r]);
        }
    }

    /** Pushes register {@code r} of the lanes-of-{@code k} form of int-lane masks {@code in}. */
    private void pushDerived(int[] in, Kind k, int r) {
        switch (k) {
            case INT, BOOL -> cb.aload(in[r]);
            case FLOAT -> {
                // Inline, not Lanes.floatLanes: past NodeCountInliningCutoff C2 refuses a helper over
                // MaxTrivialSize (6 bytes) that is not @ForceInline, and boxes the mask it returns. Measured: a
                // divergent kernel boxed four masks per group, 2.5 KB per 256-thread CTA, in every run.
                cb.aload(in[r]);
                if (gen.compactMasks) {
                    cb.invokestatic(Vec.LANES, "floatLanes", mt(Vec.MASK, Vec.MASK));
                } else {
                    cb.getstatic(Vec.LANES, "FS", Vec.SPECIES);
                    cb.invokevirtual(Vec.MASK, "cast", mt(Vec.MASK, Vec.SPECIES));
                }
            }
            case LONG, DOUBLE -> {
                cb.aload(in[r / 2]);
                String half = r % 2 == 0 ? "wideLo" : "wideHi";
                cb.invokestatic(Vec.LANES, k == Kind.DOUBLE ? half + "Double" : half, mt(Vec.MASK, Vec.MASK));
            }
            default -> throw new IllegalStateException(k.toString());
        }
    }

    /** Pushes the lanes of masks (registers of kind k) as bits of a long, lane i of the group at bit i. */
    void bits(int[] slots, Kind k) {
        int lanes = lanes(k);
        if (slots.length == 2 || slots.length == 4 || slots.length == 8) {
            // One call (inlined by C2) instead of a shift-or chain: 20 bytes less at four registers, at every
            // fault check of a kernel.
            for (int sl : slots) {
                cb.aload(sl);
            }
            cb.loadConstant(lanes);
            ClassDesc[] ps = new ClassDesc[slots.length + 1];
            java.util.Arrays.fill(ps, Vec.MASK);
            ps[slots.length] = CD_int;
            cb.invokestatic(Vec.LANES, "bits", mt(CD_long, ps));
            return;
        }
        inlineBits(slots, lanes);
    }

    /** {@link #bits} as a {@code toLong}, shift and or per register, with no call. */
    void inlineBits(int[] slots, int lanes) {
        for (int r = 0; r < slots.length; r++) {
            cb.aload(slots[r]);
            cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
            if (r > 0) {
                cb.loadConstant(r * lanes);
                cb.lshl();
                cb.lor();
            }
        }
    }

    void curBits() {
        bits(curMask(), Kind.INT);
    }

    Storage at(Node x, Block use) {
        Storage.Vectors sh = shadow.get(x);
        if (sh != null && u.crossesDivergentLoop(x, use)) {
            return sh;
        }
        return storage.get(x);
    }

    Shape shapeAt(Node x, Block use) {
        return u.shapeAt(x, use);
    }

    /** Whether {@link #scalar} can push {@code x}: a uniform value in a local, or a constant. */
    boolean isScalar(Node x) {
        return storage.get(x) instanceof Storage.Scalar || storage.get(x) instanceof Storage.Const;
    }

    /**
     * {@link #isScalar} at a use in block {@code use}: not where {@code x} is read after a divergent loop that
     * defines it. Uniform inside the loop (a counter), it holds only the last iteration's value there; lanes that
     * left earlier have theirs in its shadow ({@link #at}).
     */
    boolean isScalarAt(Node x, Block use) {
        Storage st = at(x, use);
        return st instanceof Storage.Scalar || st instanceof Storage.Const;
    }

    void scalar(Node x) {
        Storage st = storage.get(x);
        if (st instanceof Storage.Scalar s) {
            cb.loadLocal(Vec.typeKind(s.kind()), s.slot());
        } else if (st instanceof Storage.Const c) {
            constant(c.value(), c.kind());
        } else if (st instanceof Storage.PerRegister p && reg >= 0) {
            cb.loadLocal(Vec.typeKind(p.kind()), p.slots()[reg]);
        } else {
            throw new IllegalStateException("not a scalar: " + x + " " + st);
        }
    }

    void constant(Object value, Kind k) {
        switch (k) {
            case INT, BOOL -> cb.loadConstant(((Number) value).intValue());
            case LONG -> cb.loadConstant(((Number) value).longValue());
            case FLOAT -> cb.loadConstant(((Number) value).floatValue());
            case DOUBLE -> cb.loadConstant(((Number) value).doubleValue());
            default -> cb.aconst_null();
        }
    }

    /** Pushes the base of an affine value (or the value of a uniform one). */
    void base(Node x, Block use) {
        Storage st = at(x, use);
        if (st instanceof Storage.Affine a) {
            pushStorageScalar(a.base());
            if (reg > 0) {
                // the group's base seen from register reg
                cb.loadConstant(reg * l32 * a.stride());
                cb.iadd();
            }
        } else if (st instanceof Storage.Scalar || st instanceof Storage.Const) {
            pushStorageScalar(st);
        } else if (st instanceof Storage.PerRegister p && reg >= 0) {
            cb.loadLocal(Vec.typeKind(p.kind()), p.slots()[reg]);
        } else if (st instanceof Storage.RegisterAffine ra && reg >= 0) {
            cb.iload(ra.slots()[reg]);
        } else {
            throw new IllegalStateException("no base: " + x);
        }
    }

    void pushStorageScalar(Storage s) {
        if (s instanceof Storage.Scalar sc) {
            cb.loadLocal(Vec.typeKind(sc.kind()), sc.slot());
        } else if (s instanceof Storage.Const c) {
            constant(c.value(), c.kind());
        } else {
            throw new IllegalStateException(String.valueOf(s));
        }
    }

    /** Pushes register {@code r} of {@code x} as a vector of its kind, seen from block {@code use}. */
    void vector(Node x, int r, Block use) {
        Storage st = at(x, use);
        Kind k = x.kind;
        if (st instanceof Storage.Vectors vs) {
            cb.aload(vs.slots()[r]);
        } else if (st instanceof Storage.Scalar s) {
            Vec.loadSpecies(cb, k);
            cb.loadLocal(Vec.typeKind(k), s.slot());
            cb.invokestatic(Vec.vector(k), "broadcast", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k)));
        } else if (st instanceof Storage.Const c) {
            Vec.loadSpecies(cb, k);
            constant(c.value(), k);
            cb.invokestatic(Vec.vector(k), "broadcast", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k)));
        } else if (st instanceof Storage.Affine a) {
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            pushStorageScalar(a.base());
            if (r != 0) {
                cb.loadConstant(r * l32 * a.stride());
                cb.iadd();
            }
            cb.invokestatic(Vec.INT_VECTOR, "broadcast", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int));
            cb.loadConstant(a.stride());
            cb.invokevirtual(Vec.INT_VECTOR, "addIndex", mt(Vec.INT_VECTOR, CD_int));
        } else if (st instanceof Storage.PerRegister p) {
            // 32-bit kinds only (RegisterRows): register r of x is 32-bit register r
            Vec.loadSpecies(cb, k);
            cb.loadLocal(Vec.typeKind(k), p.slots()[r]);
            cb.invokestatic(Vec.vector(k), "broadcast", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k)));
        } else if (st instanceof Storage.RegisterAffine ra) {
            cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
            cb.iload(ra.slots()[r]);
            cb.invokestatic(Vec.INT_VECTOR, "broadcast", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int));
            cb.loadConstant(ra.stride());
            cb.invokevirtual(Vec.INT_VECTOR, "addIndex", mt(Vec.INT_VECTOR, CD_int));
        } else if (st instanceof Storage.Masks) {
            throw new IllegalStateException("mask used as a vector: " + x);
        } else {
            throw new IllegalStateException("no storage: " + x);
        }
    }

    void storeVector(Node x, int r) {
        cb.astore(((Storage.Vectors) storage.get(x)).slots()[r]);
    }

    void storeScalar(Node x) {
        if (storage.get(x) instanceof Storage.PerRegister p && reg >= 0) {
            cb.storeLocal(Vec.typeKind(p.kind()), p.slots()[reg]);
            return;
        }
        Storage.Scalar s = (Storage.Scalar) storage.get(x);
        cb.storeLocal(Vec.typeKind(s.kind()), s.slot());
    }

    private void storeBase(Node x) {
        if (storage.get(x) instanceof Storage.RegisterAffine ra && reg >= 0) {
            cb.istore(ra.slots()[reg]);
            return;
        }
        Storage.Affine a = (Storage.Affine) storage.get(x);
        cb.istore(((Storage.Scalar) a.base()).slot());
    }

    /**
     * A value of {@link #perRegister}, register by register: the uniform code for each register's scalar, the affine
     * code for its base, a load per register where the index is uniform in it.
     */
    private void perRegisterNode(Node x, Storage st) {
        for (int r = 0; r < regs32; r++) {
            reg = r;
            if (x.op == Op.LOAD) {
                memoryOps.registerLoad(x, r);
            } else if (st instanceof Storage.RegisterAffine) {
                affineNode(x);
            } else {
                uniformNode(x);
            }
        }
        reg = -1;
    }

    private void writeShadow(Node x) {
        Storage.Vectors sh = shadow.get(x);
        if (sh == null) {
            return;
        }
        Kind k = sh.kind();
        for (int r = 0; r < regs(k); r++) {
            cb.aload(sh.slots()[r]);
            vector(x, r, x.block);
            curMask(k, r);
            cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.VECTOR, Vec.MASK));
            cb.astore(sh.slots()[r]);
        }
    }

    private void node(Node x) {
        switch (x.op) {
            case CONST, PARAM, UNDEF, SREG, PHI -> {
                return;
            }
            case STORE -> {
                memoryOps.store(x);
                return;
            }
            case ATOMIC -> {
                atomicOps.atomic(x);
                return;
            }
            case WARP -> {
                warpOps.warp(x);
                return;
            }
            case SHARED -> {
                memoryOps.sharedAllocation(x);
                return;
            }
            case BARRIER -> {
                // At the block's end, after its terminator: see barrier(Block).
                return;
            }
            default -> {
            }
        }
        Storage st = storage.get(x);
        if (st instanceof Storage.PerRegister || st instanceof Storage.RegisterAffine) {
            perRegisterNode(x, st);
            return;
        }
        switch (x.shape) {
            case UNIFORM -> uniformNode(x);
            case AFFINE -> affineNode(x);
            case VARYING -> varyingNode(x);
        }
    }

    void uniformNode(Node x) {
        switch (x.op) {
            case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> {
                // Affine operands may cancel ((t + 1) - t): bases then combine exactly as the values.
                base(x.in(0), cur);
                base(x.in(1), cur);
                arithmetic.scalarBinary(x.op, x.kind);
                storeScalar(x);
            }
            case DIV, REM -> {
                if (x.kind == Kind.INT || x.kind == Kind.LONG) {
                    scalar(x.in(1));
                    if (x.kind == Kind.LONG) {
                        cb.lconst_0();
                        cb.lcmp();
                    }
                    cb.ifeq(faults.handler(Faults.Shared.DIVIDE_BY_ZERO));
                    base(x.in(0), cur);
                    scalar(x.in(1));
                    arithmetic.scalarBinary(x.op, x.kind);
                    storeScalar(x);
                } else {
                    scalar(x.in(0));
                    scalar(x.in(1));
                    arithmetic.scalarBinary(x.op, x.kind);
                    storeScalar(x);
                }
            }
            case NEG -> {
                scalar(x.in(0));
                switch (x.kind) {
                    case INT -> cb.ineg();
                    case LONG -> cb.lneg();
                    case FLOAT -> cb.fneg();
                    default -> cb.dneg();
                }
                storeScalar(x);
            }
            case CONV -> {
                scalar(x.in(0));
                arithmetic.scalarConv((Conv) x.aux);
                storeScalar(x);
            }
            case CMP -> {
                scalar(x.in(0));
                scalar(x.in(1));
                arithmetic.cmp(x.in(0).kind, (Boolean) x.aux);
                storeScalar(x);
            }
            case TEST -> {
                Label t = cb.newLabel();
                Label done = cb.newLabel();
                scalarTestJump(x, t);
                cb.iconst_0();
                cb.goto_(done);
                cb.labelBinding(t);
                cb.iconst_1();
                cb.labelBinding(done);
                storeScalar(x);
            }
            case LOAD -> memoryOps.uniformLoad(x);
            case LENGTH -> {
                faults.nullCheck(x.in(0), null);
                scalar(x.in(0));
                cb.arraylength();
                storeScalar(x);
            }
            case CALL -> {
                Fn fn = (Fn) x.aux;
                for (Node a : x.in) {
                    scalar(a);
                    if (fn.viaDouble()) {
                        cb.f2d();
                    }
                }
                cb.invokestatic(ClassDesc.ofInternalName(fn.owner()), fn.name(), MethodTypeDesc.ofDescriptor(fn.descriptor()));
                if (fn.viaDouble()) {
                    cb.d2f();
                }
                storeScalar(x);
            }
            default -> throw new IllegalStateException("uniform " + x);
        }
    }

    /** Jumps to {@code t} if the uniform condition {@code x} holds. */
    private void scalarTestJump(Node x, Label t) {
        Cond c = (Cond) x.aux;
        Node a = x.in(0);
        Node b = x.in(1);
        Kind k = a.kind;
        scalar(a);
        scalar(b);
        if (k == Kind.INT || k == Kind.BOOL) {
            switch (c.pred()) {
                case EQ -> cb.if_icmpeq(t);
                case NE -> cb.if_icmpne(t);
                case LT -> cb.if_icmplt(t);
                case GE -> cb.if_icmpge(t);
                case GT -> cb.if_icmpgt(t);
                case LE -> cb.if_icmple(t);
            }
            return;
        }
        if (k == Kind.LONG) {
            cb.lcmp();
        } else {
            // NaN must make "cmp pred 0" equal c.unordered(): -1 satisfies LT/LE/NE, 1 satisfies GT/GE/NE.
            boolean nanIsOne = switch (c.pred()) {
                case LT, LE -> !c.unordered();
                case GT, GE -> c.unordered();
                default -> false;
            };
            arithmetic.cmp(k, nanIsOne);
        }
        switch (c.pred()) {
            case EQ -> cb.ifeq(t);
            case NE -> cb.ifne(t);
            case LT -> cb.iflt(t);
            case GE -> cb.ifge(t);
            case GT -> cb.ifgt(t);
            case LE -> cb.ifle(t);
        }
    }
    final EnumMap<Faults.Shared, Label> handlers = new EnumMap<>(Faults.Shared.class);

    private void affineNode(Node x) {
        Block b = cur;
        switch (x.op) {
            case ADD, SUB -> {
                base(x.in(0), b);
                base(x.in(1), b);
                if (x.op == Op.ADD) {
                    cb.iadd();
                } else {
                    cb.isub();
                }
            }
            case NEG -> {
                base(x.in(0), b);
                cb.ineg();
            }
            case MUL -> {
                base(x.in(0), b);
                base(x.in(1), b);
                cb.imul();
            }
            case SHL -> {
                base(x.in(0), b);
                base(x.in(1), b);
                cb.ishl();
            }
            case AND -> {
                // (base + lane) & mask, affine only where base is group-aligned (Uniformity): (base & mask) + lane
                base(x.in(0), b);
                base(x.in(1), b);
                cb.iand();
            }
            default -> throw new IllegalStateException("affine " + x);
        }
        storeBase(x);
    }

    private void varyingNode(Node x) {
        Block b = cur;
        switch (x.op) {
            case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> {
                if ((x.op == Op.SHL || x.op == Op.SHR || x.op == Op.USHR) && x.kind == Kind.LONG) {
                    arithmetic.longShift(x);
                    return;
                }
                String op = switch (x.op) {
                    case ADD -> "ADD";
                    case SUB -> "SUB";
                    case MUL -> "MUL";
                    case AND -> "AND";
                    case OR -> "OR";
                    case XOR -> "XOR";
                    case SHL -> "LSHL";
                    case SHR -> "ASHR";
                    default -> "LSHR";
                };
                for (int r = 0; r < regs(x.kind); r++) {
                    arithmetic.binary(x.kind, op, x.in(0), x.in(1), r);
                    storeVector(x, r);
                }
            }
            case DIV, REM -> arithmetic.divide(x);
            case NEG -> {
                for (int r = 0; r < regs(x.kind); r++) {
                    arithmetic.unary(x.kind, "NEG", x.in(0), r);
                    storeVector(x, r);
                }
            }
            case CONV -> arithmetic.convert(x);
            case TEST -> arithmetic.test(x);
            case LOAD -> memoryOps.load(x);
            case CALL -> arithmetic.call(x);
            case CMP -> throw new Decline("comparison result used as a number at " + x.site + ": not compiled");
            default -> throw new IllegalStateException("varying " + x);
        }
    }

    /** Whether any node, phi or branch reads {@code x}'s value. */
    boolean resultUsed(Node x) {
        collectReads();
        return readValues.contains(x);
    }

    /** The values a phi, a branch or a node of another block reads in {@code g}. */
    static Set<Node> readElsewhere(Graph g) {
        Set<Node> out = new HashSet<>();
        collectReads(g, new HashSet<>(), out);
        return out;
    }

    /** Fills {@link #readValues} and {@link #readElsewhere} in one pass over the graph, once. */
    private void collectReads() {
        if (readValues != null) {
            return;
        }
        readValues = new HashSet<>();
        readElsewhere = new HashSet<>();
        collectReads(g, readValues, readElsewhere);
    }

    private static void collectReads(Graph g, Set<Node> readValues, Set<Node> readElsewhere) {
        for (Block b : g.blocks) {
            for (Node p : b.phis) {
                readValues.addAll(p.in);
                readElsewhere.addAll(p.in);
            }
            for (Node y : b.nodes) {
                for (Node i : y.in) {
                    readValues.add(i);
                    if (i.block != b) {
                        readElsewhere.add(i);
                    }
                }
            }
            if (b.cond != null) {
                readValues.add(b.cond);
                readElsewhere.add(b.cond);
            }
        }
    }

    private void terminator(Block b) {
        switch (b.exit) {
            case RETURN -> {
            }
            case GOTO -> edge(b, b.succs.get(0), curMask(), null);
            case IF -> {
                boolean swap = inverted.contains(b.cond);
                Block t = b.succs.get(swap ? 1 : 0);
                Block f = b.succs.get(swap ? 0 : 1);
                if (t == f) {
                    edge(b, t, curMask(), null);
                } else if (shapeAt(b.cond, b) == Shape.UNIFORM) {
                    Label no = cb.newLabel();
                    Label done = cb.newLabel();
                    scalar(b.cond);
                    cb.ifeq(no);
                    edge(b, t, curMask(), null);
                    cb.goto_(done);
                    cb.labelBinding(no);
                    edge(b, f, curMask(), null);
                    cb.labelBinding(done);
                } else {
                    int[] c = condMask(b.cond, b);
                    int[] cm = curMask();
                    if (gen.profiling != null) {
                        gen.profiling.branch(cb, profilingCounters, b, cm, c);
                    }
                    // Threads going to a block with nothing to do need no mask.
                    if (plan.run.get(t) != Run.NONE) {
                        int[] mTrue = tempMasks(regs32);
                        for (int r = 0; r < regs32; r++) {
                            cb.aload(cm[r]);
                            cb.aload(c[r]);
                            cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                            cb.astore(mTrue[r]);
                        }
                        edge(b, t, mTrue, Boolean.TRUE);
                    }
                    if (plan.run.get(f) != Run.NONE) {
                        int[] mFalse = tempMasks(regs32);
                        for (int r = 0; r < regs32; r++) {
                            cb.aload(cm[r]);
                            cb.aload(c[r]);
                            cb.invokevirtual(Vec.MASK, "andNot", mt(Vec.MASK, Vec.MASK));
                            cb.astore(mFalse[r]);
                        }
                        edge(b, f, mFalse, Boolean.TRUE);
                    }
                }
            }
            case SWITCH -> switchTerminator(b);
        }
    }

    /** The int-lane masks of a varying condition. */
    private int[] condMask(Node cond, Block b) {
        Storage st = at(cond, b);
        Storage.Masks m = (Storage.Masks) st;
        Kind k = m.kind();
        if (k == Kind.INT || k == Kind.BOOL) {
            return m.slots();
        }
        int[] out = tempMasks(regs32);
        for (int r = 0; r < regs32; r++) {
            if (k == Kind.FLOAT) {
                cb.aload(m.slots()[r]);
                cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
                cb.invokevirtual(Vec.MASK, "cast", mt(Vec.MASK, Vec.SPECIES));
            } else {
                cb.aload(m.slots()[2 * r]);
                cb.aload(m.slots()[2 * r + 1]);
                cb.invokestatic(Vec.LANES, "narrow", mt(Vec.MASK, Vec.MASK, Vec.MASK));
            }
            cb.astore(out[r]);
        }
        return out;
    }

    private void switchTerminator(Block b) {
        int[] keys = b.keys;
        List<Block> targets = b.succs;
        Block dflt = targets.get(targets.size() - 1);
        if (shapeAt(b.cond, b) == Shape.UNIFORM) {
            Label done = cb.newLabel();
            Map<Block, Label> arms = new LinkedHashMap<>();
            for (Block t : targets) {
                if (!arms.containsKey(t)) {
                    arms.put(t, cb.newLabel());
                }
            }
            List<SwitchCase> cases = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) {
                cases.add(SwitchCase.of(keys[i], arms.get(targets.get(i))));
            }
            scalar(b.cond);
            cb.lookupswitch(arms.get(dflt), cases);
            for (Map.Entry<Block, Label> e : arms.entrySet()) {
                cb.labelBinding(e.getValue());
                edge(b, e.getKey(), curMask(), null);
                cb.goto_(done);
            }
            cb.labelBinding(done);
            return;
        }
        // Divergent: each target gets the lanes whose value matches one of its keys, the default the rest.
        int[] any = tempMasks(regs32);
        noneInto(any);
        Map<Block, int[]> edgeMasks = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            Block t = targets.get(i);
            int[] em = edgeMasks.get(t);
            if (em == null) {
                em = tempMasks(regs32);
                noneInto(em);
                edgeMasks.put(t, em);
            }
            for (int r = 0; r < regs32; r++) {
                vector(b.cond, r, b);
                cb.getstatic(Vec.OPERATORS, "EQ", Vec.operatorType("EQ"));
                cb.loadConstant(keys[i]);
                cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, arithmetic.comparisonType(), CD_int));
                cb.dup();
                cb.aload(any[r]);
                cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
                cb.astore(any[r]);
                cb.aload(em[r]);
                cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
                cb.astore(em[r]);
            }
        }
        int[] cm = curMask();
        for (int[] em : edgeMasks.values()) {
            for (int r = 0; r < regs32; r++) {
                cb.aload(em[r]);
                cb.aload(cm[r]);
                cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                cb.astore(em[r]);
            }
        }
        int[] dm = edgeMasks.get(dflt);
        if (dm == null) {
            dm = tempMasks(regs32);
            noneInto(dm);
            edgeMasks.put(dflt, dm);
        }
        for (int r = 0; r < regs32; r++) {
            cb.aload(cm[r]);
            cb.aload(any[r]);
            cb.invokevirtual(Vec.MASK, "andNot", mt(Vec.MASK, Vec.MASK));
            cb.aload(dm[r]);
            cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
            cb.astore(dm[r]);
        }
        if (gen.profiling != null) {
            gen.profiling.switchBranch(cb, profilingCounters, b, cm, List.copyOf(edgeMasks.values()));
        }
        for (Map.Entry<Block, int[]> e : edgeMasks.entrySet()) {
            edge(b, e.getKey(), e.getValue(), Boolean.TRUE);
        }
    }

    /**
     * The edge {@code b -> s} carrying the threads of int-lane masks {@code em}: copies into s's phis, then
     * hands the threads to s (its mask or its flag).
     */
    void edge(Block b, Block s, int[] em, Boolean divergent) {
        Run run = plan.run.get(s);
        if (run == Run.NONE) {
            return;
        }
        boolean assign = plan.assignable(b, s);
        int pi = s.preds.indexOf(b);
        // Parallel copy: read every source before writing any phi of s.
        List<Node> phis = s.phis;
        List<Storage> temps = new ArrayList<>();
        boolean needTemps = false;
        for (Node p : phis) {
            Node src = p.in(pi);
            if (src.op == Op.PHI && src.block == s) {
                needTemps = true;
            }
        }
        EnumMap<Kind, int[]> edgeDerived = new EnumMap<>(Kind.class);
        if (needTemps) {
            for (Node p : phis) {
                Node src = p.in(pi);
                temps.add(copyToTemp(p, src, b));
            }
        }
        for (int i = 0; i < phis.size(); i++) {
            Node p = phis.get(i);
            Node src = p.in(pi);
            Storage tmp = needTemps ? temps.get(i) : null;
            switch (p.shape) {
                case UNIFORM -> {
                    if (tmp != null) {
                        pushStorageScalar(tmp);
                    } else {
                        scalar(src);
                    }
                    storeScalar(p);
                }
                case AFFINE -> {
                    if (tmp != null) {
                        pushStorageScalar(tmp);
                    } else {
                        base(src, b);
                    }
                    storeBase(p);
                }
                case VARYING -> {
                    Kind k = p.kind;
                    int[] dst = ((Storage.Vectors) storage.get(p)).slots();
                    for (int r = 0; r < regs(k); r++) {
                        if (!assign) {
                            cb.aload(dst[r]);
                        }
                        if (tmp != null) {
                            cb.aload(((Storage.Vectors) tmp).slots()[r]);
                        } else {
                            // leaving a divergent loop: each thread's value from the shadow
                            vector(src, r, u.phiUse(s, pi));
                        }
                        if (!assign) {
                            int[] dm = edgeDerived.get(k);
                            if (dm == null) {
                                if (k == Kind.INT) {
                                    dm = em;
                                } else {
                                    // Net stack effect zero: the two operands of blend stay below.
                                    dm = tempMasks(regs(k));
                                    deriveMasks(em, k, dm);
                                }
                                edgeDerived.put(k, dm);
                            }
                            cb.aload(dm[r]);
                            cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.VECTOR, Vec.MASK));
                        }
                        cb.astore(dst[r]);
                    }
                }
            }
        }
        switch (run) {
            case FLAG -> {
                cb.iconst_1();
                cb.istore(flagSlot.get(s));
            }
            case MASK -> {
                int[] acc = accSlots.get(s);
                for (int r = 0; r < regs32; r++) {
                    if (assign) {
                        cb.aload(em[r]);
                    } else {
                        cb.aload(acc[r]);
                        cb.aload(em[r]);
                        cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
                    }
                    cb.astore(acc[r]);
                }
                // The loop's only back edge, from its last block, with this block's (non-empty) mask:
                // straight back to the header; the test at the loop's end serves when this block is skipped.
                Cfg.Loop l = cfg.loopOfHeader.get(s);
                if (l != null && l.last == b && l.latches.size() == 1 && assign && em == curMask()
                        && cfg.loopOf(b) == l) {
                    cb.goto_(topLabel.get(l));
                }
            }
            default -> {
            }
        }
    }

    private Storage copyToTemp(Node p, Node src, Block b) {
        switch (p.shape) {
            case UNIFORM -> {
                int t = temp(Vec.typeKind(p.kind));
                scalar(src);
                cb.storeLocal(Vec.typeKind(p.kind), t);
                return new Storage.Scalar(t, p.kind);
            }
            case AFFINE -> {
                int t = temp(TypeKind.INT);
                base(src, b);
                cb.istore(t);
                return new Storage.Scalar(t, Kind.INT);
            }
            default -> {
                int[] t = new int[regs(p.kind)];
                for (int r = 0; r < t.length; r++) {
                    t[r] = temp(TypeKind.REFERENCE);
                    vector(src, r, b);
                    cb.astore(t[r]);
                }
                return new Storage.Vectors(t, p.kind);
            }
        }
    }
}
