package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.MaskPlan.EdgeKind;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.front.WarpScans;
import dev.weft.simd.internal.ir.Atomic;
import dev.weft.simd.internal.ir.Barrier;
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
import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Generates the hidden class that runs a kernel's CTAs: for each group of threads (a warp of 32 threads, or as
 * many as the vector registers hold), the kernel's blocks in linear order, values as scalars (uniform), bases
 * (affine) or vector locals (varying), and a mask per block saying which threads run it.
 *
 * <p>Implementation notes.
 * <ul>
 * <li>A group of {@code N} threads is {@code G} registers of 32-bit lanes, or {@code 2G} of 64-bit lanes; every
 * varying value has one local per register and every operation is unrolled over them, so the registers'
 * dependency chains interleave (the latency hiding an SM gets from switching warps).
 * <li>Masks. Block masks are int-lane masks ({@code G} registers); float, long and double operations use
 * masks derived from them at the block's start. Which blocks share a mask, and how a block decides to run,
 * is {@link MaskPlan}'s; how values merge at joins is decided per edge: a copy that cannot be preceded by
 * another copy into the same phi overwrites the whole register, the others blend under the edge's mask.
 * <li>Faults. Every access and integer division is checked lane by lane against the current mask. A
 * faulting lane {@code k} is recorded and removed, with every lane after it, from the masks of the current
 * block and of the regions enclosing it; lanes before it go on, so that, as in the reference executor,
 * the fault reported is the first thread's in linear order and the threads before it complete. At the end
 * of the group the fault is thrown. Residual difference: threads after the faulting one may have executed
 * part of their code (stores included) before the fault, and those not at the fault site may go on.
 * <li>Stack maps are computed by the ClassFile API; all locals used across blocks are initialised before the
 * loop over groups so that every path is verifiable.
 * </ul>
 */
public final class CodeGen {

    /**
     * One CTA-shape variant of the kernel: its analysis, the static method that runs it, and its threads per
     * group (0: the generator's own).
     */
    public record Variant(String method, Layout layout, Uniformity u, MaskPlan plan, int group) {

        public Variant(String method, Layout layout, Uniformity u, MaskPlan plan) {
            this(method, layout, u, plan, 0);
        }

        /** Whether threadIdx.y and .z are uniform in a group (and threadIdx.x affine). */
        public boolean rowAligned() {
            return layout != Layout.GENERAL;
        }
    }

    /** Which CTA shapes a variant serves. */
    public enum Layout {
        /** {@code blockDim.y == blockDim.z == 1}: threadIdx.x is the linear id, an induction variable of the group loop. */
        LINE,
        /** A group lies within one x-row ({@code blockDim.x} a multiple of the group size). */
        ROWS,
        /** Any shape. */
        GENERAL
    }

    /**
     * The generated class's static factory {@code (Object[]) CtaProgram}: the constructor's arguments in an array,
     * boxed. Binding through it needs one method handle of a type every kernel shares, where a spreader of the
     * constructor needs method-handle forms specific to its signature, which the JDK spins classes for on first
     * use (see {@code Binder}).
     */
    public static final String FROM_ARRAY = "fromArray";

    /** JIT limit: C2 does not compile methods of more bytecode than this (-XX:HugeMethodLimit). */
    public static final int HUGE_METHOD_LIMIT = 8000;
    /**
     * Whether divergent grid-stride loops get their fast path ({@link StrideLoops}); {@code -Dweft.simd.strideLoops=false}
     * turns it off, to compare.
     */
    public static final boolean FAST_STRIDE_LOOPS = !"false".equals(System.getProperty("weft.simd.strideLoops"));
    /**
     * Whether a kernel with barriers runs its grid-stride fast paths interleaved across the groups of a CTA
     * ({@link MethodGen#interleavedPause}); {@code -Dweft.simd.interleave=false} turns it off, to compare.
     */
    public static final boolean INTERLEAVE = !"false".equals(System.getProperty("weft.simd.interleave"));
    /**
     * The fast iterations a group runs before it pauses for the next group, in an interleaved stride loop. Measured
     * (a hand-written model of the reduction's loop, 16-thread groups, 256-thread CTAs, 2 cores): the whole loop
     * per group 2.6-5.2 ms, 4 iterations per pause 1.1-2.0 ms, 16 per pause 1.3-2.0 ms, every iteration (restoring
     * the group's values each time) slower than no pausing. 16 keeps the phases few. Session 6, the generated
     * reduction (first launch, 2^22 floats, loaded machine): 1 iteration per pause 4.2-5.1 ms, 2 4.1 ms, 4 1.9 ms,
     * 16 1.8-1.9 ms. Session 8, the histogram benchmark's kernel (16-thread groups, PairedBenchmark: weft over the
     * hand-written rate in the same seconds, medians of 5 iterations per run): 4 per pause 0.50, 8 0.64 and 0.62,
     * 16 0.60, 0.57, 0.64 and 0.63, 32 0.56, 64 0.27. The read order wants few iterations per pause (a Java model of
     * the histogram's order on one core: 4 per pause 20-30% faster than 16), but a pause costs some 50 ns (spill,
     * stop, the next group's restore: 4 per pause against 8 adds 16384 pauses per SM and 0.86 ms per launch), which
     * eats the gain below 8. {@code -Dweft.simd.interleaveIterations=N} (at least 1) sets it, to compare.
     */
    static final int INTERLEAVE_ITERATIONS = Math.max(1, Integer.getInteger("weft.simd.interleaveIterations", 16));

    /**
     * Whether an interleaved stride loop whose carried values are all scalars (affine indexes, uniform counters) runs
     * round-robin across the CTA's groups in its pause's method ({@link MethodGen#roundRobinLoop}): one iteration
     * per group in turn, each group's carried scalars read from and written to its spill row, with no pause, spill
     * or restore of anything else. {@code -Dweft.simd.roundRobin=false} turns it off, to compare.
     *
     * <p>Measured (session 9, PairedBenchmark histogram, weft over the hand-written rate in the same seconds, medians of
     * the 6 measured iterations per run, a loaded machine): off 0.53, 0.49, 0.52; on with 4 iterations per turn 0.57, 0.58, 0.65;
     * 8 per turn 0.51, 0.62; 2 per turn 0.47; 16 per turn 0.40; 1 per turn (the GPU's order) 0.36-0.39 against 0.37-0.51
     * off in its first pair. So the pause's cost was not the whole story: the order of the reads wants a few stretches
     * in flight (see {@link #ROUND_ROBIN_ITERATIONS}). Perfasm with it on: 83% of the samples in the pause's method,
     * the hottest instruction the range check of the atomics' indices right after the two loads (11%, the loads'
     * latency), the rest the 16 lane extractions and scalar read-modify-writes of the shared atomics (each still with
     * its own bounds check). Reduction (the loop carries a float vector): on 0.25, off 0.26.
     */
    static final boolean ROUND_ROBIN = !"false".equals(System.getProperty("weft.simd.roundRobin"));
    /**
     * The iterations a group runs per turn in a round-robin stride loop. The order of the reads matters, not only
     * the cost of a pause: one iteration per turn reads each stretch of blockDim elements once, in order, and then
     * jumps (gridDim x blockDim on); a few per turn keep that many stretches in flight, which the hardware
     * prefetchers follow (session 8's Java model of the histogram's order on one core: 1 per turn 4.9 ms, 4 per
     * turn 3.5, 16 per turn 3.9). {@code -Dweft.simd.roundRobinIterations=N} (at least 1) sets it, to compare.
     */
    static final int ROUND_ROBIN_ITERATIONS = Math.max(1, Integer.getInteger("weft.simd.roundRobinIterations", 4));
    /**
     * Whether round-robin stride loops may carry vectors (each group's from and back to its spill row, see
     * {@code MethodGen.roundRobinColumns}); off unless {@code -Dweft.simd.roundRobinVectors=true}: the reduction (its
     * loop carries a per-thread float sum) measured no faster with it (session 9, PairedBenchmark, medians of 6
     * iterations: on 0.25 and 0.24 of the hand-written rate, off 0.26 and 0.29), so scalars only by default.
     */
    public static final boolean ROUND_ROBIN_VECTORS = "true".equals(System.getProperty("weft.simd.roundRobinVectors"));
    /** The most header and body nodes of a loop run round-robin: its body is emitted once more in the pause's method. */
    private static final int ROUND_ROBIN_NODES = 32;

    /**
     * Spills in a resume point's method leave out the kept locals its phase never writes ({@code
     * MethodGen.unchangedSinceRestore}); false for A/B runs.
     */
    static final boolean SKIP_UNCHANGED_SPILLS = !"false".equals(System.getProperty("weft.simd.skipUnchangedSpills"));

    /**
     * A resume point's method passes over a group that would only wait at the same barrier again, every thread on
     * the idle side of the phase's divergent branch (the levels of a tree reduction where {@code tid < stride}
     * holds for none of the group), computing just the uniform scalars on its way there ({@code
     * MethodGen.idleSkip}); false for A/B runs.
     */
    static final boolean SKIP_IDLE_GROUPS = !"false".equals(System.getProperty("weft.simd.skipIdleGroups"));

    /**
     * Groups that {@code MethodGen.idleSkip} passes over run on in a small loop of their own ({@code
     * MethodGen.idleRun}) rather than round the whole group loop; {@code -Dweft.simd.idleRuns=false} turns it off,
     * to compare. Measured together with {@code uniformSharedOncePerPhase} and {@code Phases.ONE_PASS_NEXT}
     * (PairedBenchmark weft/vectorApi, medians of 6 iterations, all on / all off back to back, 2 shared cores):
     * reduction 0.31 / 0.19, 0.33 / 0.29 (a third pair disturbed by a test run), and with uniformSharedOncePerPhase
     * off in both 0.24 / 0.19; the tree alone (the reduction's
     * kernel over n = 0, 256 CTAs, CPU ms per launch) 0.54-0.60 on, 0.67-0.70 with only this off.
     */
    static final boolean IDLE_RUNS = !"false".equals(System.getProperty("weft.simd.idleRuns"));

    /**
     * Idle ways ({@code MethodGen.idleSkip}) also where a whole group reaches the next barrier (or returns) by a plain
     * jump or a uniform branch, with no lane test ({@code MethodGen.idleWalkOrArrive}): the scan's warps other than
     * the first, which only wait while warp 0 scans the warps' totals. {@code -Dweft.simd.uniformIdleWays=false}
     * turns it off, to compare. Measured (scan, PairedBenchmark as for {@link #IDLE_RUNS}, all four switches on / off):
     * 0.30 / 0.22, 0.27 / 0.23, 0.26 / 0.25.
     */
    static final boolean UNIFORM_IDLE_WAYS = !"false".equals(System.getProperty("weft.simd.uniformIdleWays"));

    /**
     * Vector values linked through phis share one spill column where no barrier keeps two of them ({@code
     * MethodGen.sharePhiColumns}), so that a phase that only hands them on through a loop's phis neither restores nor
     * spills them; {@code -Dweft.simd.phiColumns=false} turns it off, to compare.
     */
    static final boolean PHI_COLUMNS = !"false".equals(System.getProperty("weft.simd.phiColumns"));

    /** The largest stride, either way, of a store done as one scalar store per lane (see {@code MethodGen.stridedStore}). */
    static final int MAX_STORE_STRIDE = 1 << 20;

    /** Stores at a constant stride as one scalar store per lane ({@code MethodGen.stridedStore}); false for A/B runs. */
    static final boolean STRIDED_STORES = !"false".equals(System.getProperty("weft.simd.stridedStores"));

    /**
     * Whether a store of {@code kind} values into {@code arr} at an affine index of {@code stride} is a strided store
     * ({@code MethodGen.stridedStore}) where the group is whole and in range: the code generator's rule, and the listing's.
     */
    static boolean stridedStoreApplies(Node arr, int stride, Kind kind) {
        return STRIDED_STORES && arr.op == Op.SHARED && stride != 0 && stride != 1 && Math.abs(stride) <= MAX_STORE_STRIDE
                && kind != Kind.BOOL;
    }

    /**
     * The most lanes a group may have for {@code MethodGen#unmaskedAtomic} to unroll its updates (about 12 bytes of
     * bytecode per lane): more would eat into the JIT's 8000-byte limit for little gain.
     */
    static final int UNROLLED_ATOMIC_LANES = 32;

    /**
     * Whether {@code MethodGen#unmaskedAtomic} tests a group's indices with one compare of their lanewise unsigned
     * maximum against the length (any index is outside the array exactly when the largest one, unsigned, is)
     * instead of one compare and test per register; false for A/B runs ({@code -Dweft.simd.mergedAtomicCheck}).
     * Measured (histogram, 16-thread groups: 2 registers; against the hand-written loop in alternating batches): one
     * SM, CPU time, 0.463/0.477/0.491 of its rate on, 0.425/0.452 off; two SMs, wall time, 0.604/0.614 on,
     * 0.615/0.610 off (there the loads' memory stalls hide the instructions).
     */
    static final boolean MERGED_ATOMIC_CHECK = !"false".equals(System.getProperty("weft.simd.mergedAtomicCheck"));

    /**
     * A resume point's method fetches the CTA's shared arrays that its groups keep across barriers once per phase,
     * before the group loop, instead of restoring them per group from the spill rows ({@code
     * MethodGen.hoistedShared}); {@code -Dweft.simd.sharedOncePerPhase=false} turns it off, to compare. Measured
     * (tiled sgemm, PairedBenchmark weft/vectorApi per 1-s iteration, flag on/off back to back, 2 cores shared with
     * other builds): quiet pairs on 0.217-0.228 / off 0.170-0.206, on 0.222-0.235 / off 0.204-0.214, off 0.208-0.215 /
     * on 0.222-0.232 (then disturbed), off 0.175-0.191 / on 0.192-0.225; one pair under load 7 the other way (on
     * 0.203-0.228 / off 0.214-0.289). Register-blocked sgemm on 0.272-0.285 / off 0.235-0.283; transpose on
     * 0.655-0.760 / off 0.622-0.698; reduction (its array's length is blockDim.x: not fetched so) within noise. Per
     * group of the tile-loading phase it drops the reference row's array loads and two type checks, and C2 hoists
     * the tiles' lengths out of the group loop (perfasm).
     */
    static final boolean SHARED_ONCE_PER_PHASE = !"false".equals(System.getProperty("weft.simd.sharedOncePerPhase"));

    /**
     * With {@link #SHARED_ONCE_PER_PHASE}, also the shared arrays whose length is the same for the whole CTA but not
     * a constant ({@code sharedFloats(blockDim.x)}, the tree reduction's array; {@code MethodGen.ctaUniformLength}):
     * the phase prologue computes the length again from the CTA's parameters and registers. Off unless
     * {@code -Dweft.simd.uniformSharedOncePerPhase=true}: it did not measurably win. The reduction's tree alone (256
     * CTAs, CPU ms per launch, the session's other switches on): 0.54-0.60 with it, 0.52-0.58 without; there only the
     * groups with work (about 20 of 144 resumes per CTA) restore the array, the others are passed over.
     */
    static final boolean UNIFORM_SHARED_ONCE_PER_PHASE = Boolean.getBoolean("weft.simd.uniformSharedOncePerPhase");

    private final Graph g;
    private final Cfg cfg;
    private final int warpSize;
    /** Threads per group. */
    final int n;
    /** 32-bit registers per group. */
    final int regs32;
    /** 64-bit registers per group. */
    final int regs64;
    private final int l32 = Lanes.L32;
    private final int l64 = Lanes.L64;
    private final Map<String, Integer> methodSizes = new LinkedHashMap<>();
    /** See {@link #withoutIdleSkips}. */
    private boolean skipIdleGroups = SKIP_IDLE_GROUPS;
    /**
     * Whether kernels without barriers run a grid row of CTAs per call (runCtaRow); {@code -Dweft.simd.ctaRows=false}
     * turns it off, to measure what it buys.
     */
    private static final boolean CTA_ROWS = !"false".equals(System.getProperty("weft.simd.ctaRows"));

    /** Set for the profiling variant only: the ordinary variant's code has no trace of profiling. */
    private Profiling profiling;
    private boolean strideLoops = FAST_STRIDE_LOOPS;
    /** See {@link #withCompactMasks}. */
    private boolean compactMasks;
    /** See {@link #withSpillCalls}. */
    private boolean spillCalls;
    /** SSA liveness at the end of each block, computed once per kernel (see MethodGen#liveOut). */
    private Map<Block, Set<Node>> liveOut;
    /** Gathers' index checks as calls to Lanes helpers (see {@link #withCompactGathers}). */
    private boolean compactGathers;
    /** Whether the last generation emitted a gather's index checks inline (see {@link #withCompactGathers}). */
    private boolean inlineGathers;
    /** Strided stores kept with compact gathers (see {@link #withStridedStoresKept}). */
    private boolean keepStridedStores;
    /** Whether the last generation left out a strided store for compact gathers (see {@link #withStridedStoresKept}). */
    private boolean skippedStridedStores;
    private boolean noResumeMethods;
    /** The class {@link #generate} is generating, and its variant methods' type. */
    private ClassDesc className;
    private MethodTypeDesc variantType;
    /** Blocks that end at a barrier (their last node), in the order of their barrier's number. */
    private final List<Block> barrierBlocks = new ArrayList<>();
    /** Values kept across each barrier, per variant method, for the listing. */
    private final Map<String, Map<Block, List<String>>> keptAcross = new LinkedHashMap<>();

    public CodeGen(Graph g, Cfg cfg, int warpSize, int groupSize) {
        this.g = g;
        this.cfg = cfg;
        this.warpSize = warpSize;
        this.n = groupSize;
        this.regs32 = groupSize / Lanes.L32;
        this.regs64 = groupSize / Lanes.L64;
        if (regs32 < 1 || groupSize % Lanes.L32 != 0 || groupSize > 64) {
            throw new IllegalArgumentException("group size " + groupSize + " for " + Lanes.L32 + "-lane registers");
        }
        for (Block b : g.blocks) {
            if (!b.nodes.isEmpty() && b.nodes.getLast().op == Op.BARRIER) {
                barrierBlocks.add(b);
            }
        }
        barrierBlocks.sort((x, y) -> Integer.compare(barrierOf(x).id(), barrierOf(y).id()));
    }

    private static Barrier barrierOf(Block b) {
        return (Barrier) b.nodes.getLast().aux;
    }

    /** Whether the kernel has barriers: its CTAs then run in phases ({@link Phases}). */
    private boolean phased() {
        return !barrierBlocks.isEmpty();
    }

    /**
     * For the listing: per variant method, per barrier block, the values the generated code keeps across it
     * (besides masks and flags), after {@link #generate}.
     */
    public Map<String, Map<Block, List<String>>> keptAcross() {
        return keptAcross;
    }

    /** The barrier table {@link Phases#next} reads: {@code site|where} per barrier node, node 1 first. */
    private String barrierTable() {
        int max = 0;
        for (Block b : barrierBlocks) {
            max = Math.max(max, barrierOf(b).id());
        }
        String[] lines = new String[max];
        java.util.Arrays.fill(lines, "0|?");
        for (Block b : barrierBlocks) {
            Barrier bar = barrierOf(b);
            lines[bar.id() - 1] = bar.site() + "|" + bar.where();
        }
        return String.join("\n", lines);
    }

    /** Makes this the kernel's profiling variant: the code counts into {@code p}'s counters (see {@link Profiling}). */
    public CodeGen withProfiling(Profiling p) {
        this.profiling = p;
        return this;
    }

    /**
     * Makes mask conversions calls to small {@link Lanes} helpers instead of inline Vector API calls: 3 bytes less
     * each, for a kernel otherwise over {@link #HUGE_METHOD_LIMIT}, at the risk the inline form avoids (past C2's
     * NodeCountInliningCutoff a helper is not inlined and the mask it returns is boxed).
     */
    public CodeGen withCompactMasks(boolean compact) {
        this.compactMasks = compact;
        return this;
    }

    /**
     * Makes the int vectors kept across barriers go through {@link Lanes}' spill and restore helpers instead of
     * inline {@code intoArray} and {@code fromArray}: a few bytes less each, for a kernel otherwise over
     * {@link #HUGE_METHOD_LIMIT}. Inline is the default: in a method near that limit C2 does not inline the
     * helpers, and every vector passed to one is boxed, back to its definitions (scan: the shuffle loop's phi,
     * each pass's blend and the load, about 1.2 KB per warp).
     */
    public CodeGen withSpillCalls(boolean calls) {
        this.spillCalls = calls;
        return this;
    }

    /**
     * Makes the index checks of gathers and scatters calls to {@link Lanes#outside} and {@link Lanes#inside}
     * instead of inline Vector API code: about 20 bytes less per register and gather, for a kernel otherwise over
     * {@link #HUGE_METHOD_LIMIT}. The inline form is the default because in a method near C2's inlining budget
     * those helpers are not inlined and their index vectors and masks are boxed, per gather and group: 77 MB per
     * launch of the register-blocked sgemm (576 x 576; 0.4 MB with the inline form).
     */
    public CodeGen withCompactGathers(boolean compact) {
        this.compactGathers = compact;
        return this;
    }

    /**
     * With {@link #withCompactGathers}, still emits the strided stores into shared arrays ({@code MethodGen.stridedStore}):
     * the compiler tries this first where compact gathers made a kernel fit but left strided stores out. Why: the
     * register-blocked sgemm fits the JIT's limit only with compact gathers, which dropped the strided store of its
     * transposed A tile; its general scatter (values and indices through scratch arrays, a loop over the mask's bits)
     * took 7-9% of the samples (perfasm) and the phase that loads tiles 41%.
     */
    public CodeGen withStridedStoresKept(boolean keep) {
        this.keepStridedStores = keep;
        return this;
    }

    /** Whether the last {@link #generate} left out a strided store because of compact gathers. */
    public boolean skippedStridedStores() {
        return skippedStridedStores;
    }

    /** Whether the last {@link #generate} emitted gathers' index checks inline (so that compact ones could be tried). */
    public boolean inlineGathers() {
        return inlineGathers;
    }

    /**
     * Whether divergent grid-stride loops get their fast path ({@link StrideLoops}); off for a kernel that would
     * otherwise be over {@link #HUGE_METHOD_LIMIT} (the fast path repeats the loop's body).
     */
    public CodeGen withStrideLoops(boolean on) {
        this.strideLoops = on && FAST_STRIDE_LOOPS;
        return this;
    }

    /** Whether the generated code has the grid-stride fast paths (never in the profiling variant). */
    public boolean stridePaths() {
        return strideLoops && profiling == null;
    }

    /**
     * Without methods per resume point (see {@link #resumePoints}): for a kernel whose methods would otherwise be
     * over {@link #HUGE_METHOD_LIMIT} (a resume point's method is about the size of the general one, and a little
     * more).
     */
    public CodeGen withoutResumeMethods() {
        this.noResumeMethods = true;
        return this;
    }

    /** Resume-point methods without the passes over idle groups ({@link #SKIP_IDLE_GROUPS}): when those make them too large. */
    public CodeGen withoutIdleSkips() {
        this.skipIdleGroups = false;
        return this;
    }

    /** Whether resume-point methods pass over idle groups. */
    public boolean skipsIdleGroups() {
        return skipIdleGroups;
    }

    /** Whether {@link #withResumeMethods} would add methods: the kernel has resume points that get them. */
    public boolean hasResumePoints() {
        boolean none = noResumeMethods;
        noResumeMethods = false;
        try {
            return !resumePoints().isEmpty();
        } finally {
            noResumeMethods = none;
        }
    }

    /** Bytecode size of each generated method, after {@link #generate}. */
    public Map<String, Integer> methodSizes() {
        return methodSizes;
    }

    /**
     * The ClassFile context of every generation. Stack maps merge the generated code's reference types (vectors,
     * masks, arrays, Weft's classes): the resolver answers from the loaded classes, and once per type per JVM.
     * Its cache is a ConcurrentHashMap: {@code cached()}'s default is a HashMap, whose computeIfAbsent threw
     * ConcurrentModificationException when the warm-up and a user's compile resolved types at once (the user's
     * kernel then fell back to the reference executor).
     */
    private static final ClassFile CLASS_FILE = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
            ClassHierarchyResolver.ofClassLoading(CodeGen.class.getClassLoader())
                    .orElse(ClassHierarchyResolver.defaultResolver()).cached(java.util.concurrent.ConcurrentHashMap::new)));

    /**
     * Generates the class.
     *
     * @param name the class name (in this package)
     * @param variants the row-aligned variant first, then optionally the general one
     * @return the class file
     */
    public byte[] generate(ClassDesc name, List<Variant> variants) {
        List<Param> params = g.params;
        ClassFile cf = CLASS_FILE;
        ClassDesc[] ptypes = params.stream().map(p -> Vec.scalar(p.kind())).toArray(ClassDesc[]::new);
        ClassDesc[] vtypes = new ClassDesc[ptypes.length + (phased() ? 6 : 5)];
        System.arraycopy(ptypes, 0, vtypes, 0, ptypes.length);
        vtypes[ptypes.length] = Vec.CTA;
        vtypes[ptypes.length + 1] = CD_int;
        vtypes[ptypes.length + 2] = CD_int;
        vtypes[ptypes.length + 3] = CD_int;
        // With barriers the runtime's phase state; without, how many CTAs of the grid row to run (runCtaRow).
        vtypes[ptypes.length + 4] = phased() ? Vec.PHASES : CD_int;
        if (phased()) {
            vtypes[ptypes.length + 5] = CD_int;
        }
        MethodTypeDesc variantType = MethodTypeDesc.of(CD_void, vtypes);
        this.className = name;
        this.variantType = variantType;
        inlineGathers = false;
        skippedStridedStores = false;
        maxYields = 0;
        for (Variant v : variants) {
            maxYields = Math.max(maxYields, interleavedHeaders(v).size());
        }
        return cf.build(name, clb -> {
            clb.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC);
            clb.withInterfaceSymbols(Vec.CTA_PROGRAM);
            for (Param p : params) {
                clb.withField("p" + p.index(), Vec.scalar(p.kind()), ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
            }
            clb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void, ptypes), ClassFile.ACC_PUBLIC, cb -> {
                cb.aload(0);
                cb.invokespecial(CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                int slot = 1;
                for (Param p : params) {
                    cb.aload(0);
                    cb.loadLocal(Vec.typeKind(p.kind()), slot);
                    cb.putfield(name, "p" + p.index(), Vec.scalar(p.kind()));
                    slot += Vec.typeKind(p.kind()).slotSize();
                }
                cb.return_();
            });
            clb.withMethodBody(FROM_ARRAY, MethodTypeDesc.of(Vec.CTA_PROGRAM, CD_Object.arrayType()), ClassFile.ACC_STATIC,
                    cb -> fromArray(cb, name, params, ptypes));
            clb.withMethodBody("runCta", mt(CD_void, Vec.CTA), ClassFile.ACC_PUBLIC, cb -> runCta(cb, name, variants, variantType));
            if (!phased() && profiling == null && CTA_ROWS) {
                clb.withMethodBody("runCtaRow", mt(CD_void, Vec.CTA, CD_int), ClassFile.ACC_PUBLIC,
                        cb -> ctaRow(cb, name, variants, variantType));
            }
            for (Variant v : variants) {
                v.u().apply();
                clb.withMethodBody(v.method(), variantType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, cb -> {
                    MethodGen mg = new MethodGen(cb, v, -1);
                    mg.emit();
                });
                resumeMethods(clb, v);
            }
        });
    }

    /**
     * Adds the methods per resume point to a class {@link #generate} made {@link #withoutResumeMethods without them}
     * (same generator, same variants): its other methods are copied as they are (the constant pool is shared, so
     * their bytes, stack maps included, are not regenerated), runCta is replaced by the one that dispatches to the
     * new methods. The generator then stands for the class returned.
     *
     * <p>Why not generate the class again with them: that repeats the general methods, about a quarter of the
     * generation of a kernel with two barriers (sampled, block scan in a cold JVM: three variants of one general and
     * three resume methods each, all some 7500 bytes; the rest is the resume methods' emission and their stack maps).
     *
     * @return the class with the methods per resume point; {@code generalOnly} itself where the kernel gets none
     * @throws IllegalArgumentException as {@link #generate}, a method over 64 KiB
     */
    public byte[] withResumeMethods(byte[] generalOnly, List<Variant> variants) {
        if (!noResumeMethods || className == null) {
            throw new IllegalStateException("internal error in Weft (please report): withResumeMethods needs a class generated withoutResumeMethods");
        }
        noResumeMethods = false;
        if (resumePoints().isEmpty()) {
            noResumeMethods = true;
            return generalOnly;
        }
        ClassDesc name = className;
        MethodTypeDesc type = variantType;
        try {
            ClassModel cm = CLASS_FILE.parse(generalOnly);
            ClassTransform t = ClassTransform.dropping(e -> e instanceof MethodModel m && m.methodName().equalsString("runCta"))
                    .andThen(ClassTransform.endHandler(clb -> {
                        clb.withMethodBody("runCta", mt(CD_void, Vec.CTA), ClassFile.ACC_PUBLIC, cb -> runCta(cb, name, variants, type));
                        for (Variant v : variants) {
                            resumeMethods(clb, v);
                        }
                    }));
            return CLASS_FILE.transformClass(cm, t);
        } catch (RuntimeException e) {
            noResumeMethods = true;
            throw e;
        }
    }

    /** The variant's methods per resume point (none where {@link #resumePoints} has none). */
    private void resumeMethods(ClassBuilder clb, Variant v) {
        for (int r : resumePoints()) {
            // The second tier's background compile gives way to a user's compile between methods.
            dev.weft.simd.internal.Background.yieldToForeground();
            v.u().apply();
            clb.withMethodBody(v.method() + "$" + r, variantType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, cb -> {
                MethodGen mg = new MethodGen(cb, v, r);
                mg.emit();
            });
        }
    }

    /**
     * {@link #FROM_ARRAY}: {@code new Kernel$...(args[0], args[1], ...)}, each argument cast to its array type or
     * unboxed through {@link Number} (the binder passes each parameter boxed in its own wrapper type).
     */
    private static void fromArray(CodeBuilder cb, ClassDesc name, List<Param> params, ClassDesc[] ptypes) {
        cb.new_(name);
        cb.dup();
        ClassDesc number = ClassDesc.of("java.lang.Number");
        for (int i = 0; i < params.size(); i++) {
            cb.aload(0);
            cb.loadConstant(i);
            cb.aaload();
            ClassDesc t = ptypes[i];
            if (t.isPrimitive()) {
                cb.checkcast(number);
                String unbox = switch (t.descriptorString()) {
                    case "I" -> "intValue";
                    case "J" -> "longValue";
                    case "F" -> "floatValue";
                    case "D" -> "doubleValue";
                    default -> throw new IllegalStateException("internal error in Weft (please report): parameter type " + t);
                };
                cb.invokevirtual(number, unbox, MethodTypeDesc.of(t));
            } else {
                cb.checkcast(t);
            }
        }
        cb.invokespecial(name, ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void, ptypes));
        cb.areturn();
    }

    /** The values live at the end of each block (see MethodGen#liveOut); blocks in post-order until stable. */
    private Map<Block, Set<Node>> computeLiveOut() {
        Map<Block, Set<Node>> in = new IdentityHashMap<>();
        Map<Block, Set<Node>> out = new IdentityHashMap<>();
        Map<Block, Set<Node>> phis = new IdentityHashMap<>();
        for (Block b : g.blocks) {
            in.put(b, identitySet());
            out.put(b, identitySet());
            Set<Node> p = identitySet();
            p.addAll(b.phis);
            phis.put(b, p);
        }
        List<Block> order = new ArrayList<>(cfg.rpo);
        Collections.reverse(order);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : order) {
                Set<Node> o = out.get(b);
                for (Block s : b.succs) {
                    Set<Node> sp = phis.get(s);
                    for (Node x : in.get(s)) {
                        if (!sp.contains(x)) {
                            changed |= o.add(x);
                        }
                    }
                    for (int k = 0; k < s.preds.size(); k++) {
                        if (s.preds.get(k) == b) {
                            for (Node phi : s.phis) {
                                changed |= o.add(phi.in(k));
                            }
                        }
                    }
                }
                Set<Node> li = identitySet();
                li.addAll(o);
                if (b.cond != null) {
                    li.add(b.cond);
                }
                for (int j = b.nodes.size() - 1; j >= 0; j--) {
                    Node x = b.nodes.get(j);
                    li.remove(x);
                    li.addAll(x.in);
                }
                li.removeAll(phis.get(b));
                changed |= in.get(b).addAll(li);
            }
        }
        return out;
    }

    private static <T> Set<T> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /** runCta: reads the CTA's shape, dispatches to the variant for it, and with barriers runs its phases. */
    private void runCta(CodeBuilder cb, ClassDesc name, List<Variant> variants, MethodTypeDesc variantType) {
        readShape(cb, 2);
        for (Variant v : variants) {
            int vn = v.group() > 0 ? v.group() : n;
            Label next = cb.newLabel();
            layoutTest(cb, v, 3, next);
            if (phased()) {
                // With barriers, a variant runs one phase per call (every group to its next barrier); the loop
                // here runs phases until every thread has returned (see Phases).
                Label phase = cb.newLabel();
                threadsOfCta(cb);
                cb.loadConstant(vn);
                cb.invokestatic(Vec.PHASES, "begin", mt(Vec.PHASES, CD_int, CD_int));
                cb.astore(6);
                cb.labelBinding(phase);
                // Where every group resumes, when they all resume at one point (always, but for barrier nodes
                // that share a call site): the method for that point, whose code is reducible.
                List<Integer> points = resumePoints();
                Label general = cb.newLabel();
                Label ran = cb.newLabel();
                if (!points.isEmpty()) {
                    cb.aload(6);
                    threadsOfCta(cb);
                    cb.loadConstant(vn);
                    cb.invokevirtual(Vec.PHASES, "resumePoint", mt(CD_int, CD_int, CD_int));
                    List<SwitchCase> cases = new ArrayList<>();
                    List<Label> targets = new ArrayList<>();
                    for (int r : points) {
                        Label l = cb.newLabel();
                        targets.add(l);
                        cases.add(SwitchCase.of(r, l));
                    }
                    cb.lookupswitch(general, cases);
                    for (int k = 0; k < points.size(); k++) {
                        cb.labelBinding(targets.get(k));
                        variantCall(cb, name, variantType, v.method() + "$" + points.get(k));
                        cb.goto_(ran);
                    }
                }
                cb.labelBinding(general);
                variantCall(cb, name, variantType, v.method());
                cb.labelBinding(ran);
                cb.aload(6);
                cb.aload(1);
                threadsOfCta(cb);
                cb.loadConstant(vn);
                cb.loadConstant(barrierTable());
                cb.invokevirtual(Vec.PHASES, "next", mt(CD_boolean, Vec.CTA, CD_int, CD_int, CD_String));
                cb.ifne(phase);
            } else {
                pushParams(cb, name);
                cb.aload(1);
                cb.iload(3);
                cb.iload(4);
                cb.iload(5);
                cb.iconst_1();
                cb.invokestatic(name, v.method(), variantType);
            }
            cb.return_();
            cb.labelBinding(next);
        }
        cb.return_(); // the variants cover every shape the compiler accepted
    }

    /**
     * {@code runCtaRow} of a kernel without barriers: the CTA shape read and dispatched once for the row, and the
     * variant's own CTA loop keeps its set-up in registers. Measured (perf, saxpy, 256-thread CTAs): the runtime's
     * per-CTA call, the dispatch above and the variant's prologue took about 15% of the time, one call per CTA.
     */
    private void ctaRow(CodeBuilder cb, ClassDesc name, List<Variant> variants, MethodTypeDesc variantType) {
        readShape(cb, 3);
        for (Variant v : variants) {
            Label next = cb.newLabel();
            layoutTest(cb, v, 4, next);
            pushParams(cb, name);
            cb.aload(1);
            cb.iload(4);
            cb.iload(5);
            cb.iload(6);
            cb.iload(2);
            cb.invokestatic(name, v.method(), variantType);
            cb.return_();
            cb.labelBinding(next);
        }
        cb.return_(); // as runCta's
    }

    /** The CTA's blockDim (parameter 1) into local {@code dimSlot}, and its x, y and z into the three after it. */
    private static void readShape(CodeBuilder cb, int dimSlot) {
        cb.aload(1);
        cb.invokevirtual(Vec.CTA, "blockDim", mt(Vec.DIM3));
        cb.astore(dimSlot);
        String[] axes = {"x", "y", "z"};
        for (int a = 0; a < 3; a++) {
            cb.aload(dimSlot);
            cb.invokevirtual(Vec.DIM3, axes[a], mt(CD_int));
            cb.istore(dimSlot + 1 + a);
        }
    }

    /**
     * Jumps to {@code next} unless the CTA's shape (blockDim.x, .y, .z in locals {@code xSlot} on) is one the
     * variant serves: line (1D), rows (groups within x-rows), or general (any).
     */
    private void layoutTest(CodeBuilder cb, Variant v, int xSlot, Label next) {
        int vn = v.group() > 0 ? v.group() : n;
        Label take = cb.newLabel();
        if (v.layout() == Layout.ROWS) {
            cb.iload(xSlot);
            cb.loadConstant(vn);
            cb.irem();
            cb.ifeq(take);
        }
        if (v.layout() != Layout.GENERAL) {
            cb.iload(xSlot + 1);
            cb.iload(xSlot + 2);
            cb.imul();
            cb.iconst_1();
            cb.if_icmpne(next);
        }
        cb.labelBinding(take);
    }

    /** runCta's threads per CTA, from its shape locals. */
    private static void threadsOfCta(CodeBuilder cb) {
        cb.iload(3);
        cb.iload(4);
        cb.imul();
        cb.iload(5);
        cb.imul();
    }

    /** The kernel's parameters, from the program's fields. */
    private void pushParams(CodeBuilder cb, ClassDesc name) {
        for (Param p : g.params) {
            cb.aload(0);
            cb.getfield(name, "p" + p.index(), Vec.scalar(p.kind()));
        }
    }

    /**
     * Most barrier nodes for which a variant gets methods of its own per resume point (each about the size of the
     * variant's general method, which stays for the rare phase whose groups resume at different nodes).
     */
    private static final int MAX_RESUME_METHODS = 8;

    /**
     * The resume points that get a method of their own: 0 (the first phase: every group at the kernel's start)
     * and each barrier node's number; none without barriers, or with more than {@link #MAX_RESUME_METHODS}
     * ({@code -Dweft.simd.noResumeMethods=true}: none, to measure what they buy).
     *
     * <p>Why. The general method starts each group with a switch that jumps to where it stopped, into the middle
     * of the loop that holds the barriers: a loop with several entries, which C2 does not optimise as a loop, and
     * where every local carried around the group loop stays live across it. Measured here (AVX2, 544 x 544 tiled
     * sgemm, 16 x 16 CTAs): ~70% of the time went to per-group code with the accumulator spilled to the stack on
     * every k step. In a method for one resume point the code reachable runs from that point to the next
     * barriers only: the barrier loop is no longer a cycle, the inner loops are ordinary loops, and C2 drops the
     * values that point does not need. Every phase after the first resumes all groups at one barrier site (else
     * {@link Phases#next} fails the CTA); {@link Phases#resumePoint} checks they are at one node. Each interleaved
     * stride loop of a variant ({@link MethodGen#interleavedPause}) is a resume point too, {@code Phases.YIELD + k}:
     * the phases that run its paused groups on would otherwise take the general method, whose resume switch jumps
     * into the middle of the code.
     */
    private List<Integer> resumePoints() {
        if (!phased() || noResumeMethods || barrierBlocks.size() > MAX_RESUME_METHODS || Boolean.getBoolean("weft.simd.noResumeMethods")) {
            return List.of();
        }
        List<Integer> r = new ArrayList<>();
        r.add(0);
        for (Block b : barrierBlocks) {
            r.add(barrierOf(b).id());
        }
        for (int k = 0; k < maxYields; k++) {
            r.add(Phases.YIELD + k);
        }
        return r;
    }

    /** The most interleaved stride loops a variant has: each is a resume point too ({@code Phases.YIELD + k}). */
    private int maxYields;

    /**
     * The headers of the variant's interleaved stride loops ({@link MethodGen#interleavedPause}), in linear order:
     * every method of the class numbers them, and lays out their spills, alike. Applies the variant's analysis.
     */
    private List<Block> interleavedHeaders(Variant v) {
        if (!phased() || !INTERLEAVE || !stridePaths()) {
            return List.of();
        }
        v.u().apply();
        List<Map.Entry<Cfg.Loop, StrideLoops.StrideLoop>> loops = new ArrayList<>(new StrideLoops(g, cfg, v.u(), v.plan()).loops.entrySet());
        loops.sort(java.util.Comparator.comparingInt(e -> cfg.position.get(e.getKey().header)));
        Map<Node, Integer> uses = g.useCounts();
        List<Block> headers = new ArrayList<>();
        for (Map.Entry<Cfg.Loop, StrideLoops.StrideLoop> e : loops) {
            if (StrideLoops.interleavable(e.getValue(), e.getKey(), g, uses)) {
                headers.add(e.getKey().header);
            }
        }
        return headers;
    }

    /** Calls a variant method of the CTA program: its parameters from the fields, the CTA and shape from runCta's locals. */
    private void variantCall(CodeBuilder cb, ClassDesc name, MethodTypeDesc type, String method) {
        pushParams(cb, name);
        cb.aload(1);
        cb.iload(3);
        cb.iload(4);
        cb.iload(5);
        cb.aload(6);
        cb.iconst_0();
        cb.invokestatic(name, method, type);
    }

    // =====================================================================================================

    /** Generates one variant's static method. */
    private final class MethodGen {
        /** This variant's threads per group and registers: they shadow the generator's defaults. */
        private final int n;
        private final int regs32;
        private final int regs64;
        private final CodeBuilder cb;
        private final Variant v;
        private final Uniformity u;
        private final MaskPlan plan;
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
        private final EnumMap<Kind, Integer> zeroSlots = new EnumMap<>(Kind.class);
        private final EnumMap<Kind, Integer> noneDerivedSlots = new EnumMap<>(Kind.class);
        private final List<Integer> intInits = new ArrayList<>();
        private final List<Integer> longInits = new ArrayList<>();
        private final List<Integer> floatInits = new ArrayList<>();
        private final List<Integer> doubleInits = new ArrayList<>();

        private final Map<Node, Storage> storage = new IdentityHashMap<>();
        private final Map<Node, Storage.Vectors> shadow = new IdentityHashMap<>();
        private final Map<Block, int[]> classSlots = new IdentityHashMap<>();
        private final Map<Block, int[]> accSlots = new IdentityHashMap<>();
        private final Map<Block, Integer> flagSlot = new IdentityHashMap<>();
        private final Map<Cfg.Loop, Integer> abortSlot = new IdentityHashMap<>();
        private final Map<Block, Set<Block>> killSets = new IdentityHashMap<>();
        private final Map<Block, EnumMap<Kind, int[]>> derived = new IdentityHashMap<>();
        /** Per block: the lane kinds whose masks it makes where used ({@link #lazyLaneKinds}). */
        private final Map<Block, EnumSet<Kind>> lazyLaneKinds = new IdentityHashMap<>();
        private final Map<Block, Label> endLabel = new IdentityHashMap<>();
        private final Map<Cfg.Loop, Label> topLabel = new IdentityHashMap<>();
        private final Map<Cfg.Loop, Label> afterLabel = new IdentityHashMap<>();
        private final EnumMap<SReg, Storage> sregs = new EnumMap<>(SReg.class);
        private final EnumMap<Kind, Integer> scratch = new EnumMap<>(Kind.class);
        private final int ctaSlot;
        private final int bxSlot;
        private final int bySlot;
        private final int bzSlot;
        /** With barriers: the {@link Phases} parameter, and locals for its arrays and this group's index. */
        private int phasesSlot = -1;
        /** Without barriers: the CTAs of the grid row still to run, this one included (see runCtaRow). */
        private int ctaCountSlot = -1;
        /** With barriers: the first group the method runs (the general method, called for the rest of a phase). */
        private int fromGroupSlot = -1;
        private int stopArraySlot;
        private int lanesArraySlot;
        private final int[] spillArraySlots = new int[5];
        private int groupIndexSlot;
        private int spillStride;
        /** Spill rows: per storage class (int, long, float, double, reference), {@link #spillKey} to first column. */
        private final List<Map<Long, Integer>> columns = new ArrayList<>();
        /** Per storage class, the next free column of the spill rows. */
        private final int[] nextColumn = new int[5];
        /** The masked code's state, each with its live range. */
        private final List<StateItem> stateItems = new ArrayList<>();
        /** Per barrier block, the locals of the values live across it (type class, slot). */
        private final Map<Block, List<int[]>> keptAt = new IdentityHashMap<>();
        /**
         * Barriers that keep the same locals (typically the two of a loop's body) share their spill and their
         * restore code: per set of kept locals, its barriers in number order and its two labels.
         */
        private final Map<List<Long>, List<Block>> keptSets = new LinkedHashMap<>();
        private final Map<List<Long>, Label[]> keptSetLabels = new HashMap<>();
        private final Set<List<Long>> spillEmitted = new HashSet<>();
        /** In a resume point's method: the kept locals no block of its phase writes (see {@link #unchangedSinceRestore}). */
        private Set<Long> unchanged;
        /** See {@link #hoistedShared()}. */
        private Map<Integer, Node> hoistedShared;
        private Label nextGroup;
        /** See {@link #idleRun}: the barrier and idle way of the resume method's idle skip, and the loop's label. */
        private Block idleRunBar;
        private IdleWay idleRunWay;
        private Label idleRunLabel;
        private final List<Integer> refInits = new ArrayList<>();
        /** The static types of spilled reference locals. */
        private final Map<Integer, ClassDesc> refTypes = new HashMap<>();
        private int threadsSlot;
        private int baseSlot;
        private int faultLaneSlot;
        private int faultCauseSlot;
        private int kSlot;
        private int bitsSlot;
        private int faultIndexSlot;
        private int faultLengthSlot;
        private int[] rowSlots;
        private Block cur;
        /** The local holding the CTA's profiling counters, in the profiling variant. */
        private int profilingCounters = -1;
        private final Set<Node> nullChecked = new HashSet<>();
        /** Values used only in their own block: locals from the pool at definition, released after the last use. */
        private final Set<Node> deferred = new HashSet<>();
        /**
         * Varying float conditions "a < b or NaN" (javac's fcmpg/ifge and kin) used only by their block's branch:
         * computed as the ordered "a >= b", saving a mask negation, with the branch's targets swapped.
         */
        private final Set<Node> inverted = new HashSet<>();
        /** Lane types whose masks the current node and the rest of the block use. */
        private EnumSet<Kind> laterKinds = EnumSet.noneOf(Kind.class);
        /** Divergent loops with a grid-stride fast path ({@link #fastStrideLoop}). */
        private final Map<Cfg.Loop, StrideLoops.StrideLoop> strideLoops;
        /** Set when code that removes a faulting thread from the masks is emitted. */
        private boolean killEmitted;
        /**
         * Set while the nodes of a grid-stride fast path's iteration are emitted ({@link #fastStrideLoop}): every
         * thread of the group is active there until a thread faults, which {@link #faultLaneSlot} records.
         */
        private boolean fastIteration;
        /** Values some node, phi or branch reads; computed on first need ({@link #resultUsed}). */
        private Set<Node> readValues;
        /** Values a phi, a branch or another block reads; computed on first need ({@link #readElsewhere}). */
        private Set<Node> readElsewhere;
        /**
         * The headers of the interleaved stride loops ({@link #interleavedPause}), each with its number k: a group
         * paused in it has {@code Phases.YIELD + k} as its stop.
         */
        private final Map<Block, Integer> yieldIds = new LinkedHashMap<>();
        /** Per interleaved loop header: where a paused group resumes (its fast path's entry). */
        private final Map<Block, Label> yieldResume = new IdentityHashMap<>();
        /** Per interleaved loop header: the local counting down the fast iterations left before the group pauses. */
        private final Map<Block, Integer> yieldCount = new IdentityHashMap<>();
        /**
         * In the method of an interleaved loop's pause that runs the loop round-robin ({@link #roundRobinLoop}): the
         * local set once the round-robin has run in this phase (the first paused group runs it for all); else -1.
         */
        private int roundRobinDoneSlot = -1;

        /** -1: the general method (resumes each group where it stopped); else the one resume point this method serves. */
        private final int resumeAt;

        MethodGen(CodeBuilder cb, Variant v, int resumeAt) {
            this.resumeAt = resumeAt;
            this.n = v.group() > 0 ? v.group() : CodeGen.this.n;
            this.regs32 = n / Lanes.L32;
            this.regs64 = n / Lanes.L64;
            this.cb = cb;
            this.v = v;
            this.u = v.u();
            this.plan = v.plan();
            this.strideLoops = stridePaths() ? new StrideLoops(g, cfg, u, plan).loops : Map.of();
            if (!strideLoops.isEmpty()) {
                for (Block h : interleavedHeaders(v)) {
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
            if (phased()) {
                phasesSlot = slot++;
                fromGroupSlot = slot++;
            } else {
                ctaCountSlot = slot++;
            }
            nextSlot = slot;
        }

        private int local(TypeKind t) {
            int s = nextSlot;
            nextSlot += t.slotSize();
            return s;
        }

        // Locals of values and temporaries that live within one block are recycled, which keeps local indices
        // small (one-byte loads and stores: less bytecode under the JIT's 8000-byte limit).
        private final Map<TypeKind, ArrayDeque<Integer>> free = new EnumMap<>(TypeKind.class);
        private final List<int[]> heldTemps = new ArrayList<>();

        /** A local for the current node or terminator only, released after it. */
        private int temp(TypeKind t) {
            ArrayDeque<Integer> pool = free.get(t);
            int s = pool != null && !pool.isEmpty() ? pool.pop() : local(t);
            heldTemps.add(new int[] {s, t.ordinal()});
            return s;
        }

        private int[] tempMasks(int count) {
            int[] s = new int[count];
            for (int i = 0; i < count; i++) {
                s[i] = temp(TypeKind.REFERENCE);
            }
            return s;
        }

        private void releaseTemps() {
            for (int[] h : heldTemps) {
                free.computeIfAbsent(TypeKind.values()[h[1]], k -> new ArrayDeque<>()).push(h[0]);
            }
            heldTemps.clear();
        }

        /** Gives the block-local value's locals back to the pool. */
        private void release(Node x) {
            Storage st = storage.get(x);
            switch (st) {
                case Storage.Scalar sc -> freeSlot(sc.slot(), Vec.typeKind(sc.kind()));
                case Storage.Affine a -> freeSlot(((Storage.Scalar) a.base()).slot(), TypeKind.INT);
                case Storage.Vectors vs -> {
                    for (int sl : vs.slots()) {
                        freeSlot(sl, TypeKind.REFERENCE);
                    }
                }
                case Storage.Masks ms -> {
                    for (int sl : ms.slots()) {
                        freeSlot(sl, TypeKind.REFERENCE);
                    }
                }
                case null, default -> {
                }
            }
        }

        private void freeSlot(int slot, TypeKind t) {
            free.computeIfAbsent(t, k -> new ArrayDeque<>()).push(slot);
        }

        /** Allocates the locals of a block-local value from the pool. */
        private Storage allocateLocal(Node x) {
            TypeKind t = x.kind == Kind.VOID ? null : (x.shape == Shape.VARYING ? TypeKind.REFERENCE
                    : x.shape == Shape.AFFINE ? TypeKind.INT : Vec.typeKind(x.kind));
            if (t == null) {
                return null;
            }
            java.util.function.IntSupplier one = () -> {
                ArrayDeque<Integer> pool = free.get(t);
                return pool != null && !pool.isEmpty() ? pool.pop() : local(t);
            };
            return switch (x.shape) {
                case UNIFORM -> new Storage.Scalar(one.getAsInt(), x.kind);
                case AFFINE -> new Storage.Affine(new Storage.Scalar(one.getAsInt(), Kind.INT), x.stride);
                case VARYING -> {
                    int count = x.kind == Kind.BOOL ? regs(x.in(0).kind) : regs(x.kind);
                    int[] sl = new int[count];
                    for (int i = 0; i < count; i++) {
                        sl[i] = one.getAsInt();
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

        private int regs(Kind k) {
            return k.isWide() ? regs64 : regs32;
        }

        private int lanes(Kind k) {
            return k.isWide() ? l64 : l32;
        }

        /**
         * Stores {@code v}'s registers, of kind {@code k}, in lane order into the array in local {@code array}
         * from {@code offset}: how a value reaches the scratch rows that lane-by-lane code reads.
         */
        private void storeRegisters(Node v, Kind k, int array, int offset) {
            for (int r = 0; r < regs(k); r++) {
                vector(v, r, cur);
                cb.aload(array);
                cb.loadConstant(offset + r * lanes(k));
                cb.invokevirtual(Vec.vector(k), "intoArray", mt(CD_void, Vec.scalar(k.arrayOf()), CD_int));
            }
        }

        // ---- planning ---------------------------------------------------------------------------

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
            if (phased()) {
                planSpills();
            }
        }

        // ---- barriers ---------------------------------------------------------------------------

        /** Storage classes of spilled locals: the {@link Phases} array each goes to. */
        private static final int SPILL_INT = 0;
        private static final int SPILL_LONG = 1;
        private static final int SPILL_FLOAT = 2;
        private static final int SPILL_DOUBLE = 3;
        private static final int SPILL_REF = 4;

        private int spillClass(TypeKind t) {
            return switch (t) {
                case INT, BOOLEAN, BYTE, CHAR, SHORT -> SPILL_INT;
                case LONG -> SPILL_LONG;
                case FLOAT -> SPILL_FLOAT;
                case DOUBLE -> SPILL_DOUBLE;
                default -> SPILL_REF;
            };
        }

        /**
         * What each barrier keeps: the state of the masked code (every mask, flag and loop abort, and the shadows
         * of values leaving divergent loops: few, and cheap to keep), and the values whose live range in the
         * linear code spans the barrier.
         *
         * <p>Live range: the code runs blocks in linear order and jumps back only from a loop's end to its
         * header, so a value's locals are live from the first block that touches them (its definition, or for a
         * phi the first incoming edge's copy) to the last that reads them; a range that enters or leaves a loop
         * covers the whole loop, since every iteration may come back to it. A barrier at the end of block B keeps
         * the values whose range starts at or before B and ends after it.
         */
        private void planSpills() {
            for (int i = 0; i < 5; i++) {
                columns.add(new LinkedHashMap<>());
            }
            // Live ranges of the masked code's state: which blocks touch each mask and flag.
            Map<Block, List<Block>> maskUsers = new IdentityHashMap<>();
            for (Block b : cfg.order) {
                for (Block m : killSets.get(b)) {
                    maskUsers.computeIfAbsent(m, k -> new ArrayList<>()).add(b);
                }
            }
            for (Block x : cfg.order) {
                Run r = plan.run.get(x);
                List<Block> touching = new ArrayList<>(x.preds);
                touching.add(x);
                if (r == Run.MASK) {
                    List<int[]> slots = new ArrayList<>();
                    for (int sl : accSlots.get(x)) {
                        slots.add(new int[] {SPILL_REF, sl});
                        refTypes.put(sl, Vec.MASK);
                    }
                    stateItems.add(new StateItem(slots, range(touching)));
                }
                if (r == Run.MASK) {
                    List<int[]> slots = new ArrayList<>();
                    for (int sl : classSlots.get(x)) {
                        slots.add(new int[] {SPILL_REF, sl});
                        refTypes.put(sl, Vec.MASK);
                    }
                    List<Block> users = new ArrayList<>(maskUsers.getOrDefault(x, List.of()));
                    users.add(x);
                    stateItems.add(new StateItem(slots, range(users)));
                }
                if (r == Run.FLAG || r == Run.REGION) {
                    if (r == Run.REGION) {
                        // Set when the region's dominator starts.
                        plan.regionJoins.forEach((d, joins) -> {
                            if (joins.contains(x)) {
                                touching.add(d);
                            }
                        });
                    }
                    stateItems.add(new StateItem(List.<int[]>of(new int[] {SPILL_INT, flagSlot.get(x)}), range(touching)));
                }
            }
            for (Map.Entry<Cfg.Loop, Integer> e : abortSlot.entrySet()) {
                stateItems.add(new StateItem(List.<int[]>of(new int[] {SPILL_INT, e.getValue()}), range(new ArrayList<>(e.getKey().body))));
            }
            // Accesses per value, as positions in the linear order.
            Map<Node, int[]> range = new IdentityHashMap<>();
            java.util.function.BiConsumer<Node, Block> touch = (x, b) -> {
                Integer p = cfg.position.get(b);
                if (p == null) {
                    return;
                }
                int[] r = range.computeIfAbsent(x, k -> new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE});
                r[0] = Math.min(r[0], p);
                r[1] = Math.max(r[1], p);
            };
            for (Block b : g.blocks) {
                for (Node x : b.phis) {
                    touch.accept(x, b);
                    for (int i = 0; i < x.in.size(); i++) {
                        touch.accept(x, b.preds.get(i));
                        touch.accept(x.in(i), b.preds.get(i));
                    }
                }
                for (Node x : b.nodes) {
                    touch.accept(x, b);
                    for (Node o : x.in) {
                        touch.accept(o, b);
                    }
                }
                if (b.cond != null) {
                    touch.accept(b.cond, b);
                }
            }
            for (int[] r : range.values()) {
                extendOverLoops(r);
            }
            int stride = 0;
            // An interleaved stride loop's pause keeps what lives into its header, as a barrier at the end of the
            // block before it would.
            List<Block> points = new ArrayList<>(barrierBlocks);
            points.addAll(yieldIds.keySet());
            List<List<int[]>> yieldKept = new ArrayList<>();
            Map<Block, Set<Node>> liveOut = barrierBlocks.isEmpty() ? Map.of() : liveOut();
            for (Block b : points) {
                boolean pause = yieldIds.containsKey(b);
                int p = cfg.position.get(b) - (pause ? 1 : 0);
                List<int[]> kept = new ArrayList<>();
                for (StateItem it : stateItems) {
                    if (it.range()[0] <= p && it.range()[1] > p) {
                        kept.addAll(it.slots());
                    }
                }
                List<String> names = new ArrayList<>();
                for (Map.Entry<Node, int[]> e : range.entrySet()) {
                    Node x = e.getKey();
                    int[] r = e.getValue();
                    if (r[0] > p || r[1] <= p || x.op == Op.CONST || x.op == Op.PARAM || x.op == Op.UNDEF
                            || x.op == Op.SREG || deferred.contains(x)) {
                        continue;
                    }
                    if (!pause && !shadow.containsKey(x) && !liveOut.get(b).contains(x) && x != b.cond) {
                        // In range but dead here: a loop's phi between its last use and the back edge's copy.
                        continue;
                    }
                    int before = kept.size();
                    switch (storage.get(x)) {
                        case Storage.Scalar sc -> {
                            kept.add(new int[] {spillClass(Vec.typeKind(sc.kind())), sc.slot()});
                            if (sc.kind().isArray()) {
                                refTypes.put(sc.slot(), Vec.scalar(sc.kind()));
                            }
                        }
                        case Storage.Affine a when a.base() instanceof Storage.Scalar sc -> kept.add(new int[] {SPILL_INT, sc.slot()});
                        case Storage.Vectors vs -> {
                            for (int sl : vs.slots()) {
                                kept.add(vectorSpill(vs.kind(), sl));
                            }
                        }
                        case Storage.Masks ms -> {
                            for (int sl : ms.slots()) {
                                kept.add(new int[] {SPILL_REF, sl});
                                refTypes.put(sl, Vec.MASK);
                            }
                        }
                        case null, default -> {
                        }
                    }
                    Storage.Vectors sh = shadow.get(x);
                    if (sh != null) {
                        for (int sl : sh.slots()) {
                            kept.add(vectorSpill(sh.kind(), sl));
                        }
                    }
                    if (kept.size() > before) {
                        names.add(x.name());
                    }
                }
                // A local may hold two values (never at once); keep it once.
                Map<Long, int[]> unique = new LinkedHashMap<>();
                for (int[] k : kept) {
                    unique.putIfAbsent(spillKey(k), k);
                }
                kept = new ArrayList<>(unique.values());
                for (int[] k : kept) {
                    Map<Long, Integer> col = columns.get(k[0]);
                    if (!col.containsKey(spillKey(k))) {
                        col.put(spillKey(k), nextColumn[k[0]]);
                        nextColumn[k[0]] += k.length > 2 ? k[2] : 1;
                    }
                    stride = Math.max(stride, nextColumn[k[0]]);
                }
                if (pause) {
                    yieldKept.add(kept);
                    continue;
                }
                keptAt.put(b, kept);
                names.sort(java.util.Comparator.comparingInt(nm -> Integer.parseInt(nm.substring(1))));
                keptAcross.computeIfAbsent(v.method(), k -> new LinkedHashMap<>()).put(b, names);
            }
            // All barriers keep the union of their sets, so that they share one spill and one restore (less
            // bytecode under C2's limit; the two barriers of a tiled loop differ only in a flag or two). Keeping
            // more is safe: a value not live is dead (any content will do) and a flag or pending mask not live
            // is clear at the barrier (every block clears its own when it runs), so it is kept clear.
            Map<Long, int[]> union = new LinkedHashMap<>();
            for (Block b : barrierBlocks) {
                for (int[] k : keptAt.get(b)) {
                    union.putIfAbsent(spillKey(k), k);
                }
            }
            for (List<int[]> kept : yieldKept) {
                for (int[] k : kept) {
                    union.putIfAbsent(spillKey(k), k);
                }
            }
            List<int[]> all = new ArrayList<>(union.values());
            boolean own = yieldKept.isEmpty() && (ownKeptSets(all) || phaseKeptSets(all));
            for (Block b : barrierBlocks) {
                List<int[]> kept = own ? keptAt.get(b) : all;
                keptAt.put(b, kept);
                keptSets.computeIfAbsent(keptKey(b, kept), k -> new ArrayList<>()).add(b);
            }
            // Vectors first in their row, whole vectors each, so that the vector index passed is a small constant.
            Map<Long, Integer> ints = columns.get(SPILL_INT);
            int vectors = 0;
            for (int[] k : all) {
                if (k.length > 2 && k[0] == SPILL_INT) {
                    vectors++;
                }
            }
            int nextVector = 0;
            int nextScalar = vectors * Lanes.L32;
            for (Map.Entry<Long, Integer> e : ints.entrySet()) {
                boolean vector = (e.getKey() >>> 32) != SPILL_INT;
                e.setValue(vector ? Lanes.L32 * nextVector++ : nextScalar++);
            }
            stride = Math.max(stride, nextScalar);
            if (PHI_COLUMNS && yieldKept.isEmpty()) {
                sharePhiColumns();
            }
            spillStride = Math.max(1, stride);
            stopArraySlot = local(TypeKind.REFERENCE);
            lanesArraySlot = local(TypeKind.REFERENCE);
            for (int i = 0; i < 5; i++) {
                spillArraySlots[i] = columns.get(i).isEmpty() ? -1 : local(TypeKind.REFERENCE);
            }
            groupIndexSlot = local(TypeKind.INT);
        }

        /**
         * Whether each barrier keeps only its own set rather than the union {@code all}: where the union holds
         * vectors dead at a barrier, for the price of a few more bytes of scalar spills. With the union, a group
         * restores at every barrier the vectors that are live at any, and C2 carries those through the phase's loops
         * to spill them again: the register-blocked sgemm's 16 accumulators are different values at its two
         * barriers (the k-loop's phis and the tile loop's), so the union was 32 vectors restored and spilled per
         * group and phase, and its FMA loop spilled accumulators to the stack at every iteration.
         */
        private boolean ownKeptSets(List<int[]> all) {
            int maxVectors = 0;
            int items = 0;
            for (Block b : barrierBlocks) {
                maxVectors = Math.max(maxVectors, vectors(keptAt.get(b)));
                items += keptAt.get(b).size();
            }
            int unionVectors = vectors(all);
            // At least 4 dead vectors: the tiled sgemm (its accumulator, one vector at each barrier) ran about 25%
            // slower per CPU-second with own sets (2 vectors in the union), so kernels like it keep the union.
            return unionVectors >= maxVectors + 4 && items <= all.size() + 16;
        }

        /**
         * Whether each barrier keeps its own set (see {@link PhaseTrims#PHASE_KEPT_SETS}): where the union {@code all}
         * holds vectors some barrier does not keep, and each of those is linked through phis to a vector local of
         * another barrier's set, so that {@link #sharePhiColumns} gives them one column. Why: the tiled sgemm keeps
         * its accumulator as the k-tile loop's phi across the barrier after the tile loads and as the k-loop's across
         * the one after it; with the union each phase restored both (four vector loads per group and phase for two
         * registers) and the load phase spilled the first again.
         */
        private boolean phaseKeptSets(List<int[]> all) {
            if (!PhaseTrims.PHASE_KEPT_SETS || !PHI_COLUMNS || barrierBlocks.size() < 2) {
                return false;
            }
            Set<Long> linked = phiLinkedVectors();
            boolean some = false;
            for (int[] k : all) {
                if (k.length <= 2) {
                    continue;
                }
                long key = spillKey(k);
                for (Block b : barrierBlocks) {
                    if (keptAt.get(b).stream().noneMatch(o -> spillKey(o) == key)) {
                        if (!linked.contains(key)) {
                            return false;
                        }
                        some = true;
                    }
                }
            }
            return some;
        }

        /** The spill keys of vector locals that a phi links to another vector local of the same kind and registers. */
        private Set<Long> phiLinkedVectors() {
            Set<Long> linked = new HashSet<>();
            for (Block b : g.blocks) {
                for (Node x : b.phis) {
                    if (!(storage.get(x) instanceof Storage.Vectors xs)) {
                        continue;
                    }
                    for (Node y : x.in) {
                        if (storage.get(y) instanceof Storage.Vectors ys && ys.kind() == xs.kind()
                                && ys.slots().length == xs.slots().length) {
                            for (int r = 0; r < xs.slots().length; r++) {
                                linked.add(spillKey(vectorSpill(xs.kind(), xs.slots()[r])));
                                linked.add(spillKey(vectorSpill(ys.kind(), ys.slots()[r])));
                            }
                        }
                    }
                }
            }
            return linked;
        }

        /**
         * Gives the vector locals linked through phis (a loop's phi, the value its back edge hands it, the phis of the
         * loops inside it that take it on) one spill column, where no barrier keeps two of them. Why: the register-blocked
         * sgemm keeps its 16 accumulators across the barrier after the tile loads as the outer loop's phis and across the
         * one after the FMA loop as the inner loop's; in their own columns, the phase that only loads tiles restored
         * them from one and spilled them to the other, every group and tile. In one column the spill writes back what the
         * restore read ({@link #unchangedSinceRestore} leaves it out, and C2 drops the restore nobody reads).
         */
        private void sharePhiColumns() {
            Map<Long, Long> parent = new HashMap<>();
            for (Block b : g.blocks) {
                for (Node x : b.phis) {
                    if (!(storage.get(x) instanceof Storage.Vectors xs)) {
                        continue;
                    }
                    for (Node y : x.in) {
                        if (storage.get(y) instanceof Storage.Vectors ys && ys.kind() == xs.kind()
                                && ys.slots().length == xs.slots().length) {
                            for (int r = 0; r < xs.slots().length; r++) {
                                long a = findRoot(parent, spillKey(vectorSpill(xs.kind(), xs.slots()[r])));
                                long c = findRoot(parent, spillKey(vectorSpill(ys.kind(), ys.slots()[r])));
                                if (a != c) {
                                    parent.put(c, a);
                                }
                            }
                        }
                    }
                }
            }
            // A web two of whose locals one barrier keeps (both live there) keeps its own columns.
            Set<Long> clash = new HashSet<>();
            for (Block b : barrierBlocks) {
                Set<Long> seen = new HashSet<>();
                for (int[] k : keptAt.get(b)) {
                    long key = spillKey(k);
                    if (k.length > 2 && parent.containsKey(key) && !seen.add(findRoot(parent, key))) {
                        clash.add(findRoot(parent, key));
                    }
                }
            }
            Map<Long, Integer> webColumn = new HashMap<>();
            for (Map<Long, Integer> col : columns) {
                for (Map.Entry<Long, Integer> e : col.entrySet()) {
                    if (!parent.containsKey(e.getKey())) {
                        continue;
                    }
                    long root = findRoot(parent, e.getKey());
                    if (!clash.contains(root)) {
                        e.setValue(webColumn.computeIfAbsent(root, r -> e.getValue()));
                    }
                }
            }
        }

        private static long findRoot(Map<Long, Long> parent, long key) {
            long r = key;
            for (Long p = parent.putIfAbsent(r, r); p != null && p != r; p = parent.get(r)) {
                r = p;
            }
            return r;
        }

        /** How many of the kept items are vectors (their spill entries have more than slot and class). */
        private static int vectors(List<int[]> kept) {
            return (int) kept.stream().filter(k -> k.length > 2).count();
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
        private Map<Block, Set<Node>> liveOut() {
            if (liveOut == null) {
                liveOut = computeLiveOut();
            }
            return liveOut;
        }

        /** Mask, flag or loop-abort locals of the masked code, and the linear positions between which they live. */
        private record StateItem(List<int[]> slots, int[] range) {
        }

        /** The range of positions of {@code blocks}, extended over loops as {@link #extendOverLoops} says. */
        private int[] range(List<Block> blocks) {
            int[] r = {Integer.MAX_VALUE, Integer.MIN_VALUE};
            for (Block b : blocks) {
                Integer p = b == null ? null : cfg.position.get(b);
                if (p != null) {
                    r[0] = Math.min(r[0], p);
                    r[1] = Math.max(r[1], p);
                }
            }
            extendOverLoops(r);
            return r;
        }

        /** A range that enters or leaves a loop covers all of it: every iteration may come back to its locals. */
        private void extendOverLoops(int[] r) {
            boolean changed = true;
            while (changed) {
                changed = false;
                for (Cfg.Loop l : cfg.loops) {
                    int h = cfg.position.get(l.header);
                    int e = cfg.position.get(l.last);
                    boolean meets = r[1] >= h && r[0] <= e;
                    if (meets && (r[0] < h || r[1] > e) && (r[0] > h || r[1] < e)) {
                        r[0] = Math.min(r[0], h);
                        r[1] = Math.max(r[1], e);
                        changed = true;
                    }
                }
            }
        }


        private static final String[] SPILL_FIELDS = {"ints", "longs", "floats", "doubles", "refs"};
        private static final ClassDesc[] SPILL_ARRAYS = {CD_int.arrayType(), CD_long.arrayType(), CD_float.arrayType(),
                CD_double.arrayType(), CD_Object.arrayType()};

        /** CTA prologue of a phase: room for the spills, and the arrays in locals. */
        private void phasePrologue() {
            cb.aload(phasesSlot);
            cb.iload(threadsSlot);
            cb.loadConstant(n);
            cb.loadConstant(spillStride);
            cb.invokevirtual(Vec.PHASES, "reserve", mt(CD_void, CD_int, CD_int, CD_int));
            cb.aload(phasesSlot);
            cb.getfield(Vec.PHASES, "stop", CD_int.arrayType());
            cb.astore(stopArraySlot);
            cb.aload(phasesSlot);
            cb.getfield(Vec.PHASES, "lanes", CD_long.arrayType());
            cb.astore(lanesArraySlot);
            cb.iconst_0();
            cb.istore(groupIndexSlot);
            hoistedShared().forEach((slot, x) -> {
                // Made by every group in the first phase: this returns that array (see SharedMemory#find).
                cb.aload(ctaSlot);
                cb.invokevirtual(Vec.CTA, "sharedMemory", mt(Vec.SHARED_MEMORY));
                cb.loadConstant((Integer) x.aux);
                ctaUniformValue(x.in(0));
                cb.invokevirtual(Vec.SHARED_MEMORY, sharedMethod(x.kind), mt(Vec.scalar(x.kind), CD_int, CD_int));
                cb.astore(slot);
            });
        }

        /**
         * Whether int value {@code x} is the same for every thread of a CTA and computable in a phase's prologue
         * without a fault: a constant, an int parameter, a CTA-wide special register (blockDim, blockIdx, gridDim,
         * warpSize: read at the method's start), or the arithmetic of such values (no loads: memory may change
         * between phases). The length of a shared array such as {@code sharedFloats(blockDim.x)}; see {@link
         * #hoistedShared}.
         */
        private boolean ctaUniformLength(Node x, int depth) {
            if (depth > 8 || x.kind != Kind.INT) {
                return false;
            }
            Storage st = storage.get(x);
            if (st instanceof Storage.Const) {
                return true;
            }
            return switch (x.op) {
                case PARAM -> st instanceof Storage.Scalar;
                case SREG -> ((SReg) x.aux).isCtaUniform() && st instanceof Storage.Scalar;
                case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> x.in.size() == 2
                        && ctaUniformLength(x.in(0), depth + 1) && ctaUniformLength(x.in(1), depth + 1);
                // a constant divisor other than 0: no fault (MIN_VALUE / -1 wraps in Java as in the group's code)
                case DIV, REM -> x.in.size() == 2 && ctaUniformLength(x.in(0), depth + 1)
                        && storage.get(x.in(1)) instanceof Storage.Const c && ((Number) c.value()).intValue() != 0;
                case NEG -> ctaUniformLength(x.in(0), depth + 1);
                default -> false;
            };
        }

        /** Pushes a value {@link #ctaUniformLength} accepts, from its leaves (the group's locals are not set yet). */
        private void ctaUniformValue(Node x) {
            Storage st = storage.get(x);
            if (st instanceof Storage.Const || x.op == Op.PARAM || x.op == Op.SREG) {
                scalar(x);
                return;
            }
            ctaUniformValue(x.in(0));
            if (x.op == Op.NEG) {
                cb.ineg();
                return;
            }
            ctaUniformValue(x.in(1));
            scalarBinary(x.op, Kind.INT);
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
        private Map<Integer, Node> hoistedShared() {
            if (hoistedShared == null) {
                hoistedShared = new LinkedHashMap<>();
                if (!SHARED_ONCE_PER_PHASE || resumeAt <= 0 || resumeAt >= Phases.YIELD) {
                    return hoistedShared;
                }
                Set<Integer> keptRefs = new HashSet<>();
                for (List<int[]> kept : keptAt.values()) {
                    for (int[] k : kept) {
                        if (k.length == 2 && k[0] == SPILL_REF) {
                            keptRefs.add(k[1]);
                        }
                    }
                }
                for (Node x : g.entry().nodes) {
                    if (x.op == Op.SHARED && (storage.get(x.in(0)) instanceof Storage.Const
                            || UNIFORM_SHARED_ONCE_PER_PHASE && ctaUniformLength(x.in(0), 0))
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
        private void resumeGroup(Label fresh) {
            // This group's rows of the spill arrays.
            for (int i = 0; i < 5; i++) {
                if (spillArraySlots[i] >= 0 && rowUnused(i)) {
                    // (null: no code of this method reads the local; a mistake here would fail loudly)
                    cb.aconst_null();
                    cb.astore(spillArraySlots[i]);
                } else if (spillArraySlots[i] >= 0) {
                    cb.aload(phasesSlot);
                    cb.getfield(Vec.PHASES, SPILL_FIELDS[i], SPILL_ARRAYS[i].arrayType());
                    cb.iload(groupIndexSlot);
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
                for (Map.Entry<Block, Integer> e : yieldIds.entrySet()) {
                    h = e.getValue() == resumeAt - Phases.YIELD ? e.getKey() : h;
                }
                if (h == null) {
                    cb.goto_(nextGroup); // (no such loop in this variant: never called)
                    return;
                }
                cb.aload(stopArraySlot);
                cb.iload(groupIndexSlot);
                cb.iaload();
                cb.loadConstant(resumeAt);
                cb.if_icmpne(nextGroup);
                restoreKept(barrierBlocks.getFirst());
                cb.goto_(yieldResume.computeIfAbsent(h, x -> cb.newLabel()));
                return;
            }
            if (resumeAt > 0) {
                for (Block b : barrierBlocks) {
                    if (barrierOf(b).id() == resumeAt) {
                        IdleWay idle = skipIdleGroups ? idleWay(b) : null;
                        if (idle != null) {
                            if (IDLE_RUNS && profiling == null) {
                                idleRunBar = b;
                                idleRunWay = idle;
                            }
                            idleSkip(b, idle);
                        }
                        restoreKept(b);
                        expectFlags(b);
                        cb.goto_(endLabel.get(b));
                        return;
                    }
                }
                throw new IllegalStateException("no barrier node " + resumeAt);
            }
            cb.aload(stopArraySlot);
            cb.iload(groupIndexSlot);
            cb.iaload();
            if (!yieldIds.isEmpty()) {
                resumeInterleaved(fresh);
                return;
            }
            if (keptSets.size() == 1) {
                cb.ifeq(fresh);
            } else {
                List<SwitchCase> cases = new ArrayList<>();
                for (Block b : barrierBlocks) {
                    cases.add(SwitchCase.of(barrierOf(b).id(), keptSetLabels(b)[1]));
                }
                cb.lookupswitch(fresh, cases);
            }
            for (List<Block> set : keptSets.values()) {
                Block b = set.getFirst();
                cb.labelBinding(keptSetLabels(b)[1]);
                restoreKept(b);
                if (set.size() == 1) {
                    cb.goto_(endLabel.get(b));
                } else {
                    cb.aload(stopArraySlot);
                    cb.iload(groupIndexSlot);
                    cb.iaload();
                    List<SwitchCase> ends = new ArrayList<>();
                    for (Block m : set) {
                        ends.add(SwitchCase.of(barrierOf(m).id(), endLabel.get(m)));
                    }
                    cb.lookupswitch(endLabel.get(b), ends);
                }
            }
        }

        /**
         * In a resume point's method: whether no code of it touches the group's spill row of class {@code cls} (see
         * {@link PhaseTrims#UNUSED_ROWS}): the resumed barrier restores nothing of that class (a shared array fetched
         * once per phase is not restored), no barrier spills anything of it ({@link #unchangedSinceRestore} leaves out
         * what the phase never writes), and no group can be passed over as idle (that path reads and writes rows).
         */
        private boolean rowUnused(int cls) {
            if (!PhaseTrims.UNUSED_ROWS || resumeAt <= 0 || resumeAt >= Phases.YIELD) {
                return false;
            }
            Block from = null;
            for (Block b : barrierBlocks) {
                if (barrierOf(b).id() == resumeAt) {
                    from = b;
                }
            }
            if (from == null || skipIdleGroups && idleWay(from) != null) {
                return false;
            }
            for (int[] k : keptAt.get(from)) {
                if (k[0] == cls && !(cls == SPILL_REF && hoistedShared().containsKey(k[1]))) {
                    return false;
                }
            }
            if (unchanged == null) {
                unchanged = unchangedSinceRestore();
            }
            for (Block b : barrierBlocks) {
                for (int[] k : keptAt.get(b)) {
                    if (k[0] == cls && !unchanged.contains(spillKey(k))) {
                        return false;
                    }
                }
            }
            return true;
        }

        /**
         * The general method's resume of a group in a kernel with interleaved stride loops (stop value on the
         * stack): a waiting group sits the phase out, a paused one resumes at its loop's fast path, the others as
         * after a barrier. Every barrier and pause keeps the same set (see {@link #allocate}).
         */
        private void resumeInterleaved(Label fresh) {
            Block first = barrierBlocks.getFirst();
            Label restore = keptSetLabels(first)[1];
            List<SwitchCase> cases = new ArrayList<>();
            List<SwitchCase> ends = new ArrayList<>();
            cases.add(SwitchCase.of(Phases.WAIT, nextGroup));
            for (Block b : barrierBlocks) {
                cases.add(SwitchCase.of(barrierOf(b).id(), restore));
                ends.add(SwitchCase.of(barrierOf(b).id(), endLabel.get(b)));
            }
            yieldIds.forEach((h, k) -> {
                cases.add(SwitchCase.of(Phases.YIELD + k, restore));
                ends.add(SwitchCase.of(Phases.YIELD + k, yieldResume.computeIfAbsent(h, x -> cb.newLabel())));
            });
            cb.lookupswitch(fresh, cases);
            cb.labelBinding(restore);
            restoreKept(first);
            cb.aload(stopArraySlot);
            cb.iload(groupIndexSlot);
            cb.iaload();
            cb.lookupswitch(endLabel.get(first), ends);
        }

        /** The locals of the blocks' run flags and the loops' abort flags. */
        private Set<Integer> flagAndAbortSlots() {
            Set<Integer> flags = new HashSet<>(flagSlot.values());
            flags.addAll(abortSlot.values());
            return flags;
        }

        /**
         * The flag a group resumed after barrier block {@code b} has set: its successor's, where {@code b} ends with a
         * plain jump to a flag-run block; null where every flag is clear.
         */
        private Integer expectedFlag(Block b) {
            if (b.exit == Block.Exit.GOTO && b.succs.size() == 1 && flagSlot.containsKey(b.succs.getFirst())
                    && plan.run.get(b.succs.getFirst()) == Run.FLAG) {
                return flagSlot.get(b.succs.getFirst());
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
                if (k.length == 2 && k[0] == SPILL_INT && flags.contains(k[1])) {
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
            for (Param p : g.params) {
                cb.loadLocal(Vec.typeKind(p.kind()), slot);
                slot += Vec.typeKind(p.kind()).slotSize();
            }
            cb.aload(ctaSlot);
            cb.iload(bxSlot);
            cb.iload(bySlot);
            cb.iload(bzSlot);
            cb.aload(phasesSlot);
            cb.iload(groupIndexSlot);
            cb.invokestatic(className, v.method(), variantType);
            cb.return_();
            cb.labelBinding(resume);
        }

        /**
         * The ways a group resumed after barrier block {@code bar} goes when all its threads sit the phase out, as a
         * tree: block {@code b} entered from {@code from}, every thread running it; after a uniform branch a way per
         * side ({@code next}, null for a side that leads to work); after a GOTO the one way on; at the end a
         * divergent branch whose side {@code idleOnTrue} leads to {@code target}: {@code bar}, another barrier block
         * that keeps the same locals, or an empty block that returns.
         */
        private record IdleWay(Block from, Block b, IdleWay[] next, boolean idleOnTrue, Block target) {
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
        private IdleWay idleWay(Block bar) {
            if (profiling != null || bar.exit != Block.Exit.GOTO || bar.succs.size() != 1 || !bar.phis.isEmpty()
                    || bar.nodes.size() != 1 || plan.maskOf.get(bar) != g.entry()) {
                return null;
            }
            return idleWalk(bar, bar, bar.succs.getFirst(), new ArrayList<>());
        }

        private IdleWay idleWalk(Block bar, Block from, Block b, List<Block> seen) {
            if (b == bar || seen.size() > 8 || seen.contains(b) || plan.run.get(b) != Run.FLAG
                    || plan.maskOf.get(b) != g.entry() || b.preds.indexOf(from) != b.preds.lastIndexOf(from)) {
                return null;
            }
            for (Node p : b.phis) {
                if (shapeAt(p, b) != Shape.UNIFORM || !(storage.get(p) instanceof Storage.Scalar)
                        || shapeAt(p.in(b.preds.indexOf(from)), from) != Shape.UNIFORM) {
                    return null;
                }
            }
            boolean divergent = b.exit == Block.Exit.IF && shapeAt(b.cond, b) != Shape.UNIFORM;
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
                        && t.phis.isEmpty() && t.nodes.size() == 1 && plan.maskOf.get(t) == g.entry()
                        && keptKey(t).equals(keptKey(bar)))) {
                    return new IdleWay(from, b, null, onTrue, t);
                }
            }
            return null;
        }

        /**
         * {@link #idleWalk}, or where {@code b} is itself a barrier the group may wait at ({@code bar} again, another
         * whose kept set is {@code bar}'s), or an empty return, a way that arrives there with no lane test: the whole
         * group goes there by a plain jump or a uniform branch (scan: {@code if (warp == 0)}, the other warps straight
         * to the next barrier). Only with {@link #UNIFORM_IDLE_WAYS}.
         */
        private IdleWay idleWalkOrArrive(Block bar, Block from, Block b, List<Block> seen) {
            if (UNIFORM_IDLE_WAYS && (b == bar || idleReturn(b) || keptAt.containsKey(b) && b.exit == Block.Exit.GOTO
                    && b.phis.isEmpty() && b.nodes.size() == 1 && plan.maskOf.get(b) == g.entry()
                    && keptKey(b).equals(keptKey(bar)))) {
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
            if (shapeAt(x, b) != Shape.UNIFORM) {
                return false;
            }
            for (Node o : x.in) {
                if (shapeAt(o, b) != Shape.UNIFORM) {
                    return false;
                }
            }
            return switch (x.op) {
                case CONST, PARAM, UNDEF -> true;
                case SREG -> isScalar(x);
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
            if (c.op != Op.TEST || c.block != b || inverted.contains(c) || c.in.size() != 2) {
                return false;
            }
            int ai = at(c.in(0), b) instanceof Storage.Affine ? 0 : 1;
            Node a = c.in(ai);
            Node k = c.in(1 - ai);
            return a.op == Op.SREG && a.kind == Kind.INT && at(a, b) instanceof Storage.Affine st
                    && (long) Math.abs(st.stride()) * (n - 1) < (1 << 24) && k.kind == Kind.INT
                    && shapeAt(k, b) == Shape.UNIFORM && (isScalar(k) || deferred.contains(k) && k.block == b && idleNode(k, b));
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
        private void idleSkip(Block bar, IdleWay way) {
            Label ordinary = cb.newLabel();
            Set<Integer> flags = flagAndAbortSlots();
            Integer set = expectedFlag(bar);
            List<int[]> scalars = new ArrayList<>();
            for (int[] k : keptAt.get(bar)) {
                if (k.length != 2 || k[0] == SPILL_REF) {
                    continue;
                }
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
                if (k[0] == SPILL_INT && flags.contains(k[1])) {
                    cb.iaload();
                    if (set != null && set == k[1]) {
                        cb.iconst_1();
                        cb.if_icmpne(ordinary);
                    } else {
                        cb.ifne(ordinary);
                    }
                    continue;
                }
                TypeKind t = spillTypeKind(k[0]);
                cb.arrayLoad(t);
                cb.storeLocal(t, k[1]);
                scalars.add(k);
            }
            List<Node> borrowed = new ArrayList<>();
            Block saved = cur;
            idleEmit(bar, way, new HashSet<>(), scalars, flags, ordinary, borrowed);
            cb.labelBinding(ordinary);
            for (Node x : borrowed) {
                storage.remove(x);
            }
            cur = saved;
        }

        /** The element type of a spill class's rows. */
        private static TypeKind spillTypeKind(int spillClass) {
            return switch (spillClass) {
                case SPILL_INT -> TypeKind.INT;
                case SPILL_LONG -> TypeKind.LONG;
                case SPILL_FLOAT -> TypeKind.FLOAT;
                case SPILL_DOUBLE -> TypeKind.DOUBLE;
                default -> TypeKind.REFERENCE;
            };
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
            cur = b;
            int pi = b.preds.indexOf(w.from());
            for (Node p : b.phis) {
                base(p.in(pi), w.from());
            }
            for (Node p : b.phis.reversed()) {
                storeScalar(p);
                written.add(((Storage.Scalar) storage.get(p)).slot());
            }
            for (Node x : b.nodes) {
                if (x == b.cond && w.next() == null || x.op == Op.CONST || x.op == Op.PARAM || x.op == Op.UNDEF
                        || x.op == Op.SREG) {
                    continue;
                }
                if (deferred.contains(x) && !borrowed.contains(x)) {
                    // A fresh local: the pool's may hold values the ordinary resume still needs.
                    storage.put(x, new Storage.Scalar(local(Vec.typeKind(x.kind)), x.kind));
                    borrowed.add(x);
                }
                cur = b;
                if ((x.op == Op.DIV || x.op == Op.REM) && (x.kind == Kind.INT || x.kind == Kind.LONG)) {
                    // (a constant divisor, not zero: no test, and no fault handler outside a block)
                    scalar(x.in(0));
                    scalar(x.in(1));
                    scalarBinary(x.op, x.kind);
                    storeScalar(x);
                } else {
                    uniformNode(x);
                }
                written.add(((Storage.Scalar) storage.get(x)).slot());
            }
            IdleWay[] next = w.next();
            if (next != null && next.length == 1) {
                idleEmit(bar, next[0], written, scalars, flags, ordinary, borrowed);
                return;
            }
            if (next != null) {
                cur = b;
                scalar(b.cond);
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
            cur = b;
            Node c = b.cond;
            int ai = at(c.in(0), b) instanceof Storage.Affine ? 0 : 1;
            Storage.Affine a = (Storage.Affine) at(c.in(ai), b);
            Cond.Pred pred = ((Cond) c.aux).pred();
            if (ai == 1) {
                pred = pred.swap();
            }
            int lo = local(TypeKind.INT);
            int span = a.stride() * (n - 1);
            pushStorageScalar(a.base());
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
                scalar(c.in(1 - ai));
                cb.iload(lo);
                if (span >= 0) {
                    cb.if_icmplt(outside);
                } else {
                    cb.loadConstant(span);
                    cb.iadd();
                    cb.if_icmplt(outside);
                }
                scalar(c.in(1 - ai));
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
                    scalar(c.in(1 - ai));
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
                cb.aload(stopArraySlot);
                cb.iload(groupIndexSlot);
                cb.iconst_0();
                cb.iastore();
                cb.goto_(idleEnd());
                return;
            }
            for (int[] k : scalars) {
                if (written.contains(k[1])) {
                    TypeKind tk = spillTypeKind(k[0]);
                    cb.aload(spillArraySlots[k[0]]);
                    cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
                    cb.loadLocal(tk, k[1]);
                    cb.arrayStore(tk);
                }
            }
            if (t != bar) {
                // Waits at t now: its stop, and the flags a resume after t expects (as t's spill would leave them).
                Integer tset = expectedFlag(t);
                for (int[] k : keptAt.get(t)) {
                    if (k.length == 2 && k[0] == SPILL_INT && flags.contains(k[1])) {
                        cb.aload(spillArraySlots[SPILL_INT]);
                        cb.loadConstant(columns.get(SPILL_INT).get(spillKey(k)));
                        cb.loadConstant(tset != null && tset == k[1] ? 1 : 0);
                        cb.iastore();
                    }
                }
                cb.aload(stopArraySlot);
                cb.iload(groupIndexSlot);
                cb.loadConstant(barrierOf(t).id());
                cb.iastore();
            }
            cb.goto_(idleEnd());
        }

        /** Where a group passed over by {@link #idleSkip} goes: the next group, through {@link #idleRun} if any. */
        private Label idleEnd() {
            if (idleRunBar != null) {
                if (idleRunLabel == null) {
                    idleRunLabel = cb.newLabel();
                }
                return idleRunLabel;
            }
            return nextGroup;
        }

        /**
         * After the group loop, a loop of its own over the groups that follow one {@link #idleSkip} passed over: the
         * next group's rows of the kept scalars, the same idle test, and on to the next while groups are idle; the
         * first that is not (or whose flags differ, or the end of the CTA) goes back to the group loop, whose resume
         * tests it again and runs it. Why: passed over in the group loop, an idle group still went round the whole
         * loop, whose values C2 keeps on the stack around it: about 100 instructions per group (perfasm; a tree
         * reduction of 256 threads passes over 124 groups per CTA), of which the test needs some 20.
         */
        private void idleRun(Label group, Label exit) {
            if (idleRunLabel == null) {
                return;
            }
            cb.labelBinding(idleRunLabel);
            cb.iinc(groupIndexSlot, 1);
            stepRow();
            cb.iinc(baseSlot, n);
            cb.iload(baseSlot);
            cb.iload(threadsSlot);
            cb.if_icmpge(exit);
            // The group's scalar special registers, as groupPrologue sets them (an idle way may test them).
            if (sregs.get(SReg.LANE_ID) instanceof Storage.Affine a) {
                cb.iload(baseSlot);
                cb.loadConstant(warpSize - 1);
                cb.iand();
                cb.istore(((Storage.Scalar) a.base()).slot());
            }
            if (sregs.get(SReg.WARP_ID) instanceof Storage.Scalar sc) {
                cb.iload(baseSlot);
                cb.loadConstant(warpSize);
                cb.idiv();
                cb.istore(sc.slot());
            }
            Set<Integer> classes = new TreeSet<>(List.of(SPILL_INT));
            for (int[] k : keptAt.get(idleRunBar)) {
                if (k.length == 2 && k[0] != SPILL_REF) {
                    classes.add(k[0]);
                }
            }
            for (int i : classes) {
                if (spillArraySlots[i] >= 0) {
                    cb.aload(phasesSlot);
                    cb.getfield(Vec.PHASES, SPILL_FIELDS[i], SPILL_ARRAYS[i].arrayType());
                    cb.iload(groupIndexSlot);
                    cb.aaload();
                    cb.astore(spillArraySlots[i]);
                }
            }
            idleSkip(idleRunBar, idleRunWay);
            cb.goto_(group);
        }

        /** The row-aligned variant's step of the group's (x, y, z) to the next group, as the group loop's end does. */
        private void stepRow() {
            if (rowSlots == null) {
                return;
            }
            Label stepped = cb.newLabel();
            cb.iinc(rowSlots[0], n);
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
            cb.if_icmplt(stepped);
            cb.iconst_0();
            cb.istore(rowSlots[1]);
            cb.iinc(rowSlots[2], 1);
            cb.labelBinding(stepped);
        }
        /** The values kept across the barrier at the end of {@code b}, back from this group's rows. */
        private void restoreKept(Block b) {
            for (int[] k : keptAt.get(b)) {
                if (k[0] == SPILL_REF && hoistedShared().containsKey(k[1])) {
                    continue;
                }
                if (k.length > 2) {
                    restoreVector(k);
                    continue;
                }
                TypeKind t = spillTypeKind(k[0]);
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
                cb.arrayLoad(t);
                if (k[0] == SPILL_REF) {
                    cb.checkcast(spillType(k[1]));
                }
                cb.storeLocal(t, k[1]);
            }
            releaseTemps();
        }

        /** The identity of a barrier's kept set: its locals, and the flags and pending masks it clears. */
        private List<Long> keptKey(Block b, List<int[]> kept) {
            List<Long> key = new ArrayList<>();
            for (int[] k : kept) {
                key.add(spillKey(k));
            }
            return key;
        }

        private List<Long> keptKey(Block b) {
            return keptKey(b, keptAt.get(b));
        }

        private Label[] keptSetLabels(Block b) {
            return keptSetLabels.computeIfAbsent(keptKey(b), k -> new Label[] {cb.newLabel(), cb.newLabel()});
        }


        /**
         * A vector local kept across barriers: its bits go to the int spill row, at {@code lanes} consecutive
         * columns ({@code {class, slot, lanes, kind}}; see {@code Lanes.spill}). A spilled reference comes back
         * as an object C2 knows nothing of, and where it meets computed vectors at a phi C2 must box those too
         * (loaded back with {@code fromArray} it is an intrinsic's value like the others). Measured here (AVX2,
         * the 544 x 544 tiled sgemm in 16 x 16 CTAs, after warm-up): 1.64 GB allocated per launch with references
         * in the spill, 0.35 GB with lanes. (Masks as bits were slower: {@code VectorMask.fromLong} is not an
         * intrinsic for 256-bit int masks here.)
         *
         * <p>Float vectors go to the float row, loaded and stored as floats ({@code FloatVector.fromArray} and
         * {@code intoArray} inline): through the int row they were reinterpreted both ways, and C2 boxed every
         * restored vector that reached the loop's phis and every spilled one (the boxes' allocation sites were the
         * {@code reinterpretAsFloats} of the restore and the {@code reinterpretAsInts} of the spill). Measured
         * (AVX2, JDK 25, 256 x 256 register-blocked sgemm, 16 x 16 CTAs, warm): 100 MB allocated per launch through
         * the int row, 12 MB through the float row.
         */
        private int[] vectorSpill(Kind kind, int slot) {
            return new int[] {kind == Kind.FLOAT ? SPILL_FLOAT : SPILL_INT, slot, Lanes.L32, kind.ordinal()};
        }

        /** The identity of a kept local in the spill rows: its class, slot, and whether it holds a vector. */
        private static long spillKey(int[] k) {
            return ((long) (k.length > 2 ? k[0] | 8 : k[0]) << 32) | k[1];
        }

        /**
         * Whether kept vector {@code k} is stored and loaded inline ({@code intoArray}, {@code fromArray}) in a row of
         * its own element type: float vectors always (their row), int vectors unless {@link #withSpillCalls}.
         */
        private boolean inlineSpill(int[] k) {
            return k[0] == SPILL_FLOAT || (!spillCalls && k[3] == Kind.INT.ordinal());
        }

        private void restoreVector(int[] k) {
            Kind kind = Kind.values()[k[3]];
            if (inlineSpill(k)) {
                Vec.loadSpecies(cb, kind);
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
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
            cb.loadConstant(columns.get(k[0]).get(spillKey(k)) / k[2]);
            cb.invokestatic(Vec.LANES, restore, mt(vt, SPILL_ARRAYS[k[0]], CD_int));
            cb.astore(k[1]);
        }

        private void spillVector(int[] k) {
            Kind kind = Kind.values()[k[3]];
            ClassDesc vt = Vec.vector(kind);
            if (inlineSpill(k)) {
                cb.aload(k[1]);
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
                cb.invokevirtual(vt, "intoArray", mt(CD_void, Vec.scalar(kind).arrayType(), CD_int));
                return;
            }
            cb.aload(k[1]);
            cb.aload(spillArraySlots[k[0]]);
            cb.loadConstant(columns.get(k[0]).get(spillKey(k)) / k[2]);
            cb.invokestatic(Vec.LANES, "spill", mt(CD_void, vt, SPILL_ARRAYS[k[0]], CD_int));
        }

        /** The static type of reference local {@code slot}, for the checkcast after a spill. */
        private ClassDesc spillType(int slot) {
            ClassDesc t = refTypes.get(slot);
            return t != null ? t : CD_Object;
        }

        /**
         * The end of a barrier's block: a fault recorded in this group fails the CTA now (as the reference
         * executor fails it in this round); a group whose threads are not all here stops for good (the CTA
         * fails after the phase, unless a later group faults first, as in the reference); otherwise the values
         * live across the barrier go to the group's row, and the group stops until every group is here.
         */
        private void barrier(Block b) {
            Barrier bar = barrierOf(b);
            if (plan.maskOf.get(b) != g.entry()) {
                // (Else the shared spill code checks for a fault.)
                throwFault();
                // Not provably every thread of the group: count them.
                Label all = cb.newLabel();
                int[] m = curMask();
                for (int r = 0; r < regs32; r++) {
                    cb.aload(m[r]);
                    cb.invokevirtual(Vec.MASK, "trueCount", mt(CD_int));
                    if (r > 0) {
                        cb.iadd();
                    }
                }
                cb.iload(threadsSlot);
                cb.iload(baseSlot);
                cb.isub();
                cb.loadConstant(n);
                cb.invokestatic(ClassDesc.of("java.lang.Math"), "min", mt(CD_int, CD_int, CD_int));
                cb.if_icmpeq(all);
                cb.aload(stopArraySlot);
                cb.iload(groupIndexSlot);
                cb.loadConstant(-bar.id());
                cb.iastore();
                cb.aload(lanesArraySlot);
                cb.iload(groupIndexSlot);
                curBits();
                cb.lastore();
                clearKept(b);
                cb.goto_(nextGroup);
                cb.labelBinding(all);
            }
            cb.aload(stopArraySlot);
            cb.iload(groupIndexSlot);
            cb.loadConstant(bar.id());
            cb.iastore();
            spillKept(b);
        }

        /**
         * In the method of resume point {@code resumeAt} (a barrier): the kept locals that the group restored at
         * its start and that no block its phase can run writes, so that their spill rows still hold their values
         * and a spill may leave them out. The phase runs from the end of the barrier's block until it reaches the
         * end of a barrier block (or a pause, or returns); the blocks it can run are those reachable from there
         * without passing a barrier block's end. A local of a value is written only by the value's block (a phi's:
         * also its predecessors, which copy into it): each value kept across a barrier lives in locals of its own
         * (only block-local values share). Masks, flags, loop aborts and shadows are always spilled. None in the
         * general method, whose groups resume at any barrier, nor at the first phase or an interleaved loop's pause.
         * Why: the loop-invariant values of a tiled loop (the shared arrays, the thread's row and column, the
         * A and B tiles' bases) and the accumulators in the phase that only loads tiles were spilled back unchanged
         * by every group in every phase, the arrays with the garbage collector's write barriers.
         */
        private Set<Long> unchangedSinceRestore() {
            Set<Long> out = new HashSet<>();
            if (!SKIP_UNCHANGED_SPILLS || resumeAt <= 0 || resumeAt >= Phases.YIELD) {
                return out;
            }
            Block from = null;
            for (Block b : barrierBlocks) {
                if (barrierOf(b).id() == resumeAt) {
                    from = b;
                }
            }
            if (from == null) {
                return out;
            }
            Set<Block> barrierSet = identitySet();
            barrierSet.addAll(barrierBlocks);
            Set<Block> reach = identitySet();
            ArrayDeque<Block> work = new ArrayDeque<>(from.succs);
            while (!work.isEmpty()) {
                Block b = work.pop();
                if (reach.add(b) && !barrierSet.contains(b)) {
                    work.addAll(b.succs);
                }
            }
            // Per local of a value: whether a block of the phase writes it.
            Map<Integer, Boolean> written = new HashMap<>();
            // Phi copies the phase runs that may hand on a spill column's value (see sharePhiColumns): phi local to
            // its sources' locals, on whole-group edges.
            Map<Integer, List<Integer>> copies = new HashMap<>();
            for (Block b : g.blocks) {
                for (Node x : b.phis) {
                    boolean w = reach.contains(b);
                    for (Block p : b.preds) {
                        w |= reach.contains(p);
                    }
                    if (w && PHI_COLUMNS && copiesOnly(x, b, from, reach, copies)) {
                        markWritten(written, x, false);
                        continue;
                    }
                    markWritten(written, x, w);
                }
                for (Node x : b.nodes) {
                    markWritten(written, x, reach.contains(b));
                }
            }
            Set<Integer> restored = new HashSet<>();
            for (int[] k : keptAt.get(from)) {
                restored.add(k[1]);
            }
            // The locals that hold their column's value wherever the phase has written them: restored and not
            // written, or written only by copies of such locals of the same column (greatest fixed point).
            Map<Integer, Integer> column = new HashMap<>();
            for (Map<Long, Integer> col : columns) {
                col.forEach((key, c) -> {
                    if ((key >>> 32) == (SPILL_FLOAT | 8) || (key >>> 32) == (SPILL_INT | 8)) {
                        column.put((int) (long) key, (int) (key >>> 32) << 24 | c);
                    }
                });
            }
            Set<Integer> same = new HashSet<>();
            written.forEach((sl, w) -> {
                if (!w && (restored.contains(sl) || copies.containsKey(sl))) {
                    same.add(sl);
                }
            });
            while (same.removeIf(sl -> copies.getOrDefault(sl, List.of()).stream().anyMatch(src -> !same.contains(src)
                    || column.get(src) == null || !column.get(src).equals(column.get(sl))))) {
                // Until no local changes.
            }
            for (int[] k : keptAt.get(from)) {
                if (Boolean.FALSE.equals(written.get(k[1])) && same.contains(k[1])) {
                    out.add(spillKey(k));
                }
            }
            for (Block b : barrierBlocks) {
                for (int[] k : keptAt.get(b)) {
                    if (k.length > 2 && same.contains(k[1]) && copies.containsKey(k[1])) {
                        out.add(spillKey(k));
                    }
                }
            }
            return out;
        }

        /**
         * Whether every copy into vector phi {@code x} (of block {@code b}) that the phase starting after barrier block
         * {@code from} runs is a plain copy of a vector local on a whole-group edge; if so, records them in {@code
         * copies} (phi local to source locals).
         */
        private boolean copiesOnly(Node x, Block b, Block from, Set<Block> reach, Map<Integer, List<Integer>> copies) {
            if (!(storage.get(x) instanceof Storage.Vectors xs) || shadow.containsKey(x) || x.shape != Shape.VARYING) {
                return false;
            }
            List<int[]> found = new ArrayList<>();
            for (int i = 0; i < b.preds.size(); i++) {
                Block p = b.preds.get(i);
                if (!reach.contains(p) && p != from) {
                    continue;
                }
                Node y = x.in(i);
                if (!(storage.get(y) instanceof Storage.Vectors ys) || ys.kind() != xs.kind() || y.shape != Shape.VARYING
                        || ys.slots().length != xs.slots().length || !plan.assignable(p, b)) {
                    return false;
                }
                for (int r = 0; r < xs.slots().length; r++) {
                    found.add(new int[] {xs.slots()[r], ys.slots()[r]});
                }
            }
            for (int[] c : found) {
                copies.computeIfAbsent(c[0], k -> new ArrayList<>()).add(c[1]);
            }
            return true;
        }

        private void markWritten(Map<Integer, Boolean> written, Node x, boolean w) {
            List<Integer> slots = new ArrayList<>();
            switch (storage.get(x)) {
                case Storage.Scalar sc -> slots.add(sc.slot());
                case Storage.Affine a when a.base() instanceof Storage.Scalar sc -> slots.add(sc.slot());
                case Storage.Vectors vs -> {
                    for (int sl : vs.slots()) {
                        slots.add(sl);
                    }
                }
                case Storage.Masks ms -> {
                    for (int sl : ms.slots()) {
                        slots.add(sl);
                    }
                }
                case null, default -> {
                }
            }
            if (x.op == Op.PARAM || x.op == Op.SREG || x.op == Op.CONST || x.op == Op.UNDEF) {
                // Parameters and special registers are never kept; their locals are not a value's own.
                return;
            }
            for (int sl : slots) {
                written.merge(sl, w, Boolean::logicalOr);
            }
            Storage.Vectors sh = shadow.get(x);
            if (sh != null) {
                for (int sl : sh.slots()) {
                    // Shadows are written where their value is used after a divergent loop: never left out.
                    written.put(sl, true);
                }
            }
        }

        /**
         * The group's values kept across the barrier at the end of {@code b} (or a pause, see
         * {@link #interleavedPause}) to its rows, then the next group: the code is shared by the barriers (and
         * pauses) that keep the same set, emitted at the first and jumped to from the others.
         */
        private void spillKept(Block b) {
            Label shared = keptSetLabels(b)[0];
            if (!spillEmitted.add(keptKey(b))) {
                cb.goto_(shared);
                return;
            }
            cb.labelBinding(shared);
            throwFault();
            List<int[]> keptHere = new ArrayList<>(keptAt.get(b));
            if (unchanged == null) {
                unchanged = unchangedSinceRestore();
            }
            keptHere.removeIf(k -> unchanged.contains(spillKey(k)));
            for (int i = 0; i < keptHere.size(); i++) {
                int[] k = keptHere.get(i);
                if (k.length > 2) {
                    int[] next = i + 1 < keptHere.size() ? keptHere.get(i + 1) : null;
                    if (!inlineSpill(k) && next != null && next.length > 2 && next[3] == k[3] && k[0] == SPILL_INT && next[0] == SPILL_INT
                            && columns.get(SPILL_INT).get(spillKey(next)) == columns.get(SPILL_INT).get(spillKey(k)) + k[2]) {
                        // The two registers of one value, side by side: one call (bytes under C2's limit).
                        ClassDesc vt = Vec.vector(Kind.values()[k[3]]);
                        cb.aload(k[1]);
                        cb.aload(next[1]);
                        cb.aload(spillArraySlots[k[0]]);
                        cb.loadConstant(columns.get(k[0]).get(spillKey(k)) / k[2]);
                        cb.invokestatic(Vec.LANES, "spill", mt(CD_void, vt, vt, SPILL_ARRAYS[k[0]], CD_int));
                        i++;
                        continue;
                    }
                    spillVector(k);
                    continue;
                }
                TypeKind t = spillTypeKind(k[0]);
                cb.aload(spillArraySlots[k[0]]);
                cb.loadConstant(columns.get(k[0]).get(spillKey(k)));
                cb.loadLocal(t, k[1]);
                cb.arrayStore(t);
            }
            releaseTemps();
            clearKept(b);
            cb.goto_(nextGroup);
        }

        /**
         * Clears the flags and pending masks kept across the barrier at the end of {@code b}: the next group
         * starts, or resumes, with them clear, as a group that returns leaves them (every block clears its own when
         * it runs). The others are clear already: not yet touched, or cleared by their block.
         */
        private void clearKept(Block b) {
            Set<Integer> flags = new HashSet<>(flagSlot.values());
            Set<Integer> accs = new HashSet<>();
            for (int[] a : accSlots.values()) {
                for (int sl : a) {
                    accs.add(sl);
                }
            }
            boolean none = false;
            for (int[] k : keptAt.get(b)) {
                if (k[0] == SPILL_INT && flags.contains(k[1])) {
                    cb.iconst_0();
                    cb.istore(k[1]);
                } else if (k[0] == SPILL_REF && accs.contains(k[1])) {
                    if (!none) {
                        pushMaskAll(false);
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

        /** Throws the fault recorded in this group, if any. */
        private void throwFault() {
            Label ok = cb.newLabel();
            cb.iload(faultLaneSlot);
            cb.iflt(ok);
            if (!yieldIds.isEmpty()) {
                // An earlier group paused in an interleaved loop may fault first: Phases decides (see Phases.fault).
                cb.aload(phasesSlot);
                cb.iload(groupIndexSlot);
            }
            cb.iload(baseSlot);
            cb.iload(faultLaneSlot);
            cb.iadd();
            cb.iload(bxSlot);
            cb.iload(bySlot);
            cb.aload(faultCauseSlot);
            cb.invokestatic(Vec.LANES, "fault", mt(Vec.KERNEL_FAULT, CD_int, CD_int, CD_int, Vec.THROWABLE));
            if (!yieldIds.isEmpty()) {
                cb.invokevirtual(Vec.PHASES, "fault", mt(CD_void, CD_int, Vec.KERNEL_FAULT));
                cb.return_();
            } else {
                cb.athrow();
            }
            cb.labelBinding(ok);
        }

        /** The {@code SharedMemory} method that makes a shared array of {@code kind}. */
        private static String sharedMethod(Kind kind) {
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
         * the first active thread, which is the thread that makes it first in the reference executor.
         */
        private void sharedAllocation(Node x) {
            Label start = cb.newLabel();
            Label end = cb.newLabel();
            Label handler = cb.newLabel();
            Label done = cb.newLabel();
            String method = sharedMethod(x.kind);
            cb.labelBinding(start);
            cb.aload(ctaSlot);
            cb.invokevirtual(Vec.CTA, "sharedMemory", mt(Vec.SHARED_MEMORY));
            cb.loadConstant((Integer) x.aux);
            scalar(x.in(0));
            cb.invokevirtual(Vec.SHARED_MEMORY, method, mt(Vec.scalar(x.kind), CD_int, CD_int));
            cb.labelBinding(end);
            storeScalar(x);
            cb.goto_(done);
            cb.labelBinding(handler);
            int cause = temp(TypeKind.REFERENCE);
            cb.astore(cause);
            uniformFault(() -> cb.aload(cause));
            // (No active thread: not reached; the array is not there for the rest of the block to use.)
            cb.goto_(endLabel.get(cur));
            cb.labelBinding(done);
            cb.exceptionCatch(start, end, handler, ClassDesc.of("java.lang.IllegalArgumentException"));
        }

        private void useCheck(Node x, Block b) {
            for (int i = 0; i < x.in.size(); i++) {
                Node op = x.in(i);
                Block useBlock = x.op == Op.PHI ? b.preds.get(i) : b;
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

        private Storage sregStorage(SReg r) {
            boolean aligned = v.rowAligned();
            boolean withinWarp = n <= warpSize;
            return switch (r) {
                case CTAID_X, CTAID_Y, CTAID_Z, NCTAID_X, NCTAID_Y, NCTAID_Z -> new Storage.Scalar(local(TypeKind.INT), Kind.INT);
                case NTID_X -> new Storage.Scalar(bxSlot, Kind.INT);
                case NTID_Y -> new Storage.Scalar(bySlot, Kind.INT);
                case NTID_Z -> new Storage.Scalar(bzSlot, Kind.INT);
                case WARP_SIZE -> new Storage.Const(warpSize, Kind.INT);
                case LINEAR_TID -> new Storage.Affine(new Storage.Scalar(baseSlot, Kind.INT), 1);
                case TID_X -> v.layout() == Layout.LINE ? new Storage.Affine(new Storage.Scalar(baseSlot, Kind.INT), 1)
                        : aligned ? new Storage.Affine(new Storage.Scalar(rowSlots()[0], Kind.INT), 1)
                        : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
                case TID_Y -> v.layout() == Layout.LINE ? new Storage.Const(0, Kind.INT)
                        : aligned ? new Storage.Scalar(rowSlots()[1], Kind.INT)
                        : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
                case TID_Z -> v.layout() == Layout.LINE ? new Storage.Const(0, Kind.INT)
                        : aligned ? new Storage.Scalar(rowSlots()[2], Kind.INT)
                        : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
                case LANE_ID -> withinWarp ? new Storage.Affine(new Storage.Scalar(local(TypeKind.INT), Kind.INT), 1)
                        : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
                case WARP_ID -> withinWarp ? new Storage.Scalar(local(TypeKind.INT), Kind.INT)
                        : new Storage.Vectors(vectors(Kind.INT, false), Kind.INT);
            };
        }

        private Object zero(Kind k) {
            return switch (k) {
                case LONG -> 0L;
                case FLOAT -> 0f;
                case DOUBLE -> 0.0;
                default -> 0;
            };
        }

        // ---- method ---------------------------------------------------------------------------

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
            if (profiling != null) {
                profilingCounters = local(TypeKind.REFERENCE);
                profiling.prologue(cb, ctaSlot, profilingCounters);
            }
            if (phased()) {
                phasePrologue();
                nextGroup = cb.newLabel();
                for (StrideLoops.StrideLoop sl : strideLoops.values()) {
                    if (roundRobin(sl)) {
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
            if (phased() && resumeAt < 0) {
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
            if (phased()) {
                Label fresh = cb.newLabel();
                resumeGroup(fresh);
                cb.labelBinding(fresh);
            }
            for (Block b : cfg.order) {
                block(b);
            }
            // A fault recorded in this group fails the CTA; later groups never run, as in the reference.
            throwFault();
            if (phased()) {
                cb.aload(stopArraySlot);
                cb.iload(groupIndexSlot);
                cb.iconst_0();
                cb.iastore();
                cb.labelBinding(nextGroup);
                cb.iinc(groupIndexSlot, 1);
            }
            if (rowSlots != null) {
                Label stepped = cb.newLabel();
                cb.iinc(rowSlots[0], n);
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
                cb.if_icmplt(stepped);
                cb.iconst_0();
                cb.istore(rowSlots[1]);
                cb.iinc(rowSlots[2], 1);
                cb.labelBinding(stepped);
            }
            cb.iinc(baseSlot, n);
            cb.goto_(group);
            idleRun(group, exit);
            cb.labelBinding(exit);
            if (ctaCountSlot >= 0 && profiling == null) {
                nextCtaOfRow(nextCta);
            }
            cb.return_();
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
                            if (x.isVarying() && !contiguous(x.in(1))) {
                                ks.add(Kind.INT);
                            }
                        }
                        case STORE -> {
                            Shape is = shapeAt(x.in(1), b);
                            if (is == Shape.UNIFORM && shapeAt(x.in(2), b) != Shape.UNIFORM) {
                                ks.add(x.in(2).kind);
                            } else if (is != Shape.UNIFORM && !contiguous(x.in(1))) {
                                ks.add(Kind.INT);
                                ks.add(x.in(2).kind);
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
                if (hoistedShared().containsKey(s)) {
                    continue;
                }
                cb.aconst_null();
                cb.astore(s);
            }
            Map<Kind, List<int[]>> byKind = new EnumMap<>(Kind.class);
            for (int i = 0; i < vectorInits.size(); i++) {
                byKind.computeIfAbsent(vectorInitKinds.get(i), k -> new ArrayList<>()).add(vectorInits.get(i));
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
                        derivedByKind.computeIfAbsent(d.getKey(), k -> new ArrayList<>()).add(s);
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
                                cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
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
                                cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                                cb.astore(s[r]);
                            }
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        private ClassDesc binaryType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Binary");
        }

        private ClassDesc unaryType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Unary");
        }

        private ClassDesc ternaryType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Ternary");
        }

        private ClassDesc comparisonType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Comparison");
        }

        private ClassDesc conversionType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Conversion");
        }

        private ClassDesc testType() {
            return ClassDesc.of("jdk.incubator.vector.VectorOperators$Test");
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

        // ---- blocks -----------------------------------------------------------------------------

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
                    fastStrideLoop(stride);
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
            if (profiling != null) {
                profiling.blockEntry(cb, profilingCounters, b, curMask());
            }
            materializeDerived(b);
            for (Node x : b.phis) {
                writeShadow(x);
            }
            nodes(b, false);
            if (keptAt.containsKey(b)) {
                barrier(b);
            }
            if (!handlers.isEmpty()) {
                cb.goto_(endLabel.get(b));
                emitHandlers();
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
         * warp, and the boxes cost more than the add they skip.
         * </ul>
         */
        private boolean runsWhenEmpty(Block b) {
            if (b.exit != Block.Exit.GOTO || !b.phis.isEmpty() || profiling != null || keptAt.containsKey(b)
                    || plan.regionJoins.containsKey(b) || !b.nodes.stream().allMatch(x -> HARMLESS.contains(x.op))) {
                return false;
            }
            Block s = b.succs.get(0);
            Run sr = plan.run.get(s);
            // A block of constants only leaves alone a phi read beyond its block (a loop's phi: scan's warp totals):
            // there the unconditional blend's result was the value C2 boxed, and scan allocated 7% more.
            boolean constants = b.nodes.stream().allMatch(x -> x.op == Op.CONST);
            // A uniform or affine phi takes the copy whole: an empty block must not make it.
            return (sr == Run.MASK || sr == Run.REGION) && cfg.loopOfHeader.get(s) == null && !s.phis.isEmpty()
                    && s.phis.stream().allMatch(p -> p.shape == Shape.VARYING && !(constants && readElsewhere(p)));
        }

        /**
         * Emits the nodes of {@code b} and, unless {@code fast}, its terminator. {@code fast}: an iteration of a
         * grid-stride loop with every thread of the group active ({@link #fastStrideLoop}): no shadows (no thread
         * leaves the loop there), and the header's test is replaced by the fast path's scalar one.
         */
        private void nodes(Block b, boolean fast) {
            Map<Node, Integer> last = new IdentityHashMap<>();
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
            }
            if (b.cond != null && deferred.contains(b.cond)) {
                last.put(b.cond, b.nodes.size());
            }
            List<List<Node>> dying = new ArrayList<>();
            for (int i = 0; i <= b.nodes.size(); i++) {
                dying.add(new ArrayList<>());
            }
            last.forEach((x, i) -> dying.get(i).add(x));
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

        /**
         * The grid-stride fast path of a divergent loop, emitted before its header. While every thread of the group
         * is in the loop and one scalar test (the extreme lane against the bound) says every lane stays, an
         * iteration runs the header's other nodes and the body with full masks: no mask arithmetic, no blends of
         * the loop's values, no shadows (nobody leaves). When the test fails, the general masked loop takes over
         * at its header with every thread still in it and the loop's values as they are, so it runs the last,
         * partial iterations exactly as it would have. A thread faulting in the body leaves the fast path: the
         * masks it changed, and the back edge's copies, are those the general path would have made.
         */
        private void fastStrideLoop(StrideLoops.StrideLoop sl) {
            Block h = sl.header();
            Block body = sl.body();
            Label general = cb.newLabel();
            Label top = cb.newLabel();
            Label fault = cb.newLabel();
            Integer yield = yieldIds.get(h);
            Label pause = cb.newLabel();
            if (yield != null) {
                cb.labelBinding(yieldResume.computeIfAbsent(h, x -> cb.newLabel()));
                if (roundRobin(sl)) {
                    roundRobinLoop(sl);
                }
            }
            int[] acc = accSlots.get(h);
            for (int r = 0; r < regs32; r++) {
                cb.aload(acc[r]);
                cb.invokevirtual(Vec.MASK, "allTrue", mt(CD_boolean));
                cb.ifeq(general);
            }
            int[] hc = classSlots.get(h);
            int[] bc = classSlots.get(body);
            int[] both = java.util.Arrays.copyOf(hc, hc.length + bc.length);
            System.arraycopy(bc, 0, both, hc.length, bc.length);
            allTrueInto(both);
            cur = h;
            materializeDerived(h);
            cur = body;
            materializeDerived(body);
            Label hEnd = endLabel.get(h);
            Label bEnd = endLabel.get(body);
            endLabel.put(h, fault);
            endLabel.put(body, fault);
            killEmitted = false;
            int count = yield != null ? interleavedCount(h) : -1;
            cb.labelBinding(top);
            cur = h;
            nullChecked.clear();
            strideTest(sl, general);
            if (yield != null) {
                cb.iinc(count, -1);
                cb.iload(count);
                cb.iflt(pause);
            }
            nodes(h, true);
            if (!handlers.isEmpty()) {
                Label on = cb.newLabel();
                cb.goto_(on);
                emitHandlers();
                cb.labelBinding(on);
            }
            cur = body;
            nullChecked.clear();
            nodes(body, true);
            edge(body, h, bc.clone(), null);
            releaseTemps();
            if (killEmitted) {
                // A thread has faulted (here or before the loop): its lane left the masks, so hand over. A scalar
                // test: the masks' allTrue on every iteration cost two vector tests C2 cannot hoist.
                cb.iload(faultLaneSlot);
                cb.ifge(general);
            }
            cb.goto_(top);
            if (!handlers.isEmpty()) {
                emitHandlers();
            }
            if (yield != null) {
                interleavedPause(pause, yield, acc);
            }
            endLabel.put(h, hEnd);
            endLabel.put(body, bEnd);
            // Every thread of the body faulted: none goes on.
            cb.labelBinding(fault);
            noneInto(acc);
            cb.labelBinding(general);
            cur = h;
            nullChecked.clear();
        }

        /**
         * The fast iterations before an interleaved loop's group pauses, in a new local: {@link #INTERLEAVE_ITERATIONS},
         * or never when the CTA is one group (there is no other group to give the core's loads to).
         */
        private int interleavedCount(Block h) {
            int count = yieldCount.computeIfAbsent(h, x -> local(TypeKind.INT));
            Label one = cb.newLabel();
            Label set = cb.newLabel();
            cb.iload(threadsSlot);
            cb.loadConstant(n);
            cb.if_icmple(one);
            cb.loadConstant(INTERLEAVE_ITERATIONS);
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
         * in a grid-stride fast path pauses every {@link #INTERLEAVE_ITERATIONS} iterations as at a barrier (its
         * values to its rows, stop {@code Phases.YIELD + k}), and the CTA's phases go round the groups until none
         * is paused (see Phases#next); a resumed group re-enters the fast path. Each thread's own operations stay
         * in program order (a float sum adds in the same order), and {@link StrideLoops#interleavable} admits only
         * loops whose reordering across threads nobody can observe.
         * {@code -Dweft.simd.interleave=false} turns it off.
         */
        private void interleavedPause(Label pause, int k, int[] acc) {
            cb.labelBinding(pause);
            cb.aload(stopArraySlot);
            cb.iload(groupIndexSlot);
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
            spillKept(barrierBlocks.getFirst());
        }

        /**
         * Whether this method runs the interleaved stride loop {@code sl} round-robin ({@link #roundRobinLoop}): it is
         * the method of that loop's pause (every group it runs resumes there), each value the loop carries round its
         * back edge is a scalar local (an affine index's base, a uniform counter) kept in the spill rows, and every
         * value its nodes read from outside it is the same in every group of the CTA (built from constants,
         * parameters, shared arrays and the CTA's coordinates), so that one copy of the body serves every group with
         * only the carried scalars swapped in. The loop is small ({@link #ROUND_ROBIN_NODES}): the pause's method
         * carries its body once more.
         */
        private boolean roundRobin(StrideLoops.StrideLoop sl) {
            Block h = sl.header();
            Integer k = yieldIds.get(h);
            if (!ROUND_ROBIN || k == null || resumeAt != Phases.YIELD + k
                    || h.nodes.size() + sl.body().nodes.size() > ROUND_ROBIN_NODES) {
                return false;
            }
            Set<Node> inLoop = identitySet();
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
         * For a phi of a round-robin loop's header: per local it lives in, {@code {spill class, local, column, vector
         * kind or -1}}, as the pause keeps it; null when it is not kept so. Scalars (an affine index's base, a uniform
         * value) and vectors kept inline in their row (float, and int ones without spill calls): a varying value a
         * group carries (the reduction's per-thread sum) comes from its row and goes back to it as a load and a store
         * of that row, which the last group's turn left in L1. (A shadow, the per-thread copy a value has after the
         * divergent loop, is written on the general path only: fast iterations leave it as kept.)
         */
        private List<int[]> roundRobinColumns(Node phi) {
            Storage st = storage.get(phi);
            if (st instanceof Storage.Affine a) {
                st = a.base();
            }
            int[] slots;
            if (st instanceof Storage.Scalar sc && sc.kind() != Kind.BOOL) {
                slots = new int[] {sc.slot()};
            } else if (st instanceof Storage.Vectors vs && ROUND_ROBIN_VECTORS) {
                slots = vs.slots();
            } else {
                return null;
            }
            List<int[]> out = new ArrayList<>();
            for (int slot : slots) {
                int[] found = null;
                for (int[] k : keptAt.get(barrierBlocks.getFirst())) {
                    if (k[1] == slot && k[0] != SPILL_REF && (k.length == 2) == (st instanceof Storage.Scalar)
                            && (k.length == 2 || inlineSpill(k))) {
                        found = new int[] {k[0], k[1], columns.get(k[0]).get(spillKey(k)), k.length == 2 ? -1 : k[3]};
                    }
                }
                if (found == null) {
                    return null;
                }
                out.add(found);
            }
            return out;
        }

        /** Loads (or with {@code store}, stores) carried local {@code c} (see {@link #roundRobinColumns}) of group {@code g}'s row. */
        private void roundRobinCarry(int[] c, int rows, int g, boolean store) {
            if (c[3] >= 0) {
                Kind kind = Kind.values()[c[3]];
                ClassDesc vt = Vec.vector(kind);
                if (store) {
                    cb.aload(c[1]);
                    cb.aload(rows);
                    cb.iload(g);
                    cb.aaload();
                    cb.loadConstant(c[2]);
                    cb.invokevirtual(vt, "intoArray", mt(CD_void, Vec.scalar(kind).arrayType(), CD_int));
                } else {
                    Vec.loadSpecies(cb, kind);
                    cb.aload(rows);
                    cb.iload(g);
                    cb.aaload();
                    cb.loadConstant(c[2]);
                    cb.invokestatic(vt, "fromArray", mt(vt, Vec.SPECIES, Vec.scalar(kind).arrayType(), CD_int));
                    cb.astore(c[1]);
                }
                return;
            }
            TypeKind t = spillTypeKind(c[0]);
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
         * ran 16 iterations between pauses (see {@link #INTERLEAVE_ITERATIONS}), and the CTA then read memory in 16
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
            cb.iload(roundRobinDoneSlot);
            cb.ifne(skip);
            cb.iconst_1();
            cb.istore(roundRobinDoneSlot);
            List<int[]> carried = new ArrayList<>();
            for (Node p : h.phis) {
                carried.addAll(roundRobinColumns(p));
            }
            // Every group's rows, per spill class the phis use.
            int[] rows = {-1, -1, -1, -1, -1};
            for (int[] c : carried) {
                if (rows[c[0]] < 0) {
                    rows[c[0]] = local(TypeKind.REFERENCE);
                    cb.aload(phasesSlot);
                    cb.getfield(Vec.PHASES, SPILL_FIELDS[c[0]], SPILL_ARRAYS[c[0]].arrayType());
                    cb.astore(rows[c[0]]);
                }
            }
            int groups = local(TypeKind.INT);
            cb.iload(threadsSlot);
            cb.loadConstant(n - 1);
            cb.iadd();
            cb.loadConstant(n);
            cb.idiv();
            cb.istore(groups);
            // Per group: 0 while it takes part (paused here, its test not yet failed).
            int active = local(TypeKind.REFERENCE);
            cb.aload(phasesSlot);
            cb.iload(groups);
            cb.invokevirtual(Vec.PHASES, "roundRobinGroups", mt(CD_int.arrayType(), CD_int));
            cb.astore(active);
            int g2 = local(TypeKind.INT);
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
            cb.aload(stopArraySlot);
            cb.iload(g2);
            cb.iaload();
            cb.loadConstant(resumeAt);
            cb.isub(); // 0 where paused here
            cb.iastore();
            cb.iinc(g2, 1);
            cb.goto_(initTop);
            cb.labelBinding(initEnd);
            // The masks a fault in the body may change (the blocks' own and the enclosing regions'), to put back.
            Set<Integer> maskSlots = new java.util.TreeSet<>();
            for (int sl2 : accSlots.get(h)) {
                maskSlots.add(sl2); // the back edge hands the body's mask, a faulting lane gone, to the header
            }
            for (Block b : List.of(h, body)) {
                for (Block m : killSets.getOrDefault(b, Set.of())) {
                    for (int sl2 : classSlots.get(m)) {
                        maskSlots.add(sl2);
                    }
                }
            }
            Map<Integer, Integer> saved = new LinkedHashMap<>();
            for (int m : maskSlots) {
                int t = local(TypeKind.REFERENCE);
                saved.put(m, t);
                cb.aload(m);
                cb.astore(t);
            }
            int[] hc = classSlots.get(h);
            int[] bc = classSlots.get(body);
            int[] both = java.util.Arrays.copyOf(hc, hc.length + bc.length);
            System.arraycopy(bc, 0, both, hc.length, bc.length);
            allTrueInto(both);
            cur = h;
            materializeDerived(h);
            cur = body;
            materializeDerived(body);
            Label hEnd = endLabel.get(h);
            Label bEnd = endLabel.get(body);
            Label fault = cb.newLabel();
            Label end = cb.newLabel();
            endLabel.put(h, fault);
            endLabel.put(body, fault);
            int progressed = local(TypeKind.INT);
            int turn = local(TypeKind.INT);
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
            cb.loadConstant(ROUND_ROBIN_ITERATIONS);
            cb.istore(turn);
            Label iteration = cb.newLabel();
            cb.labelBinding(iteration);
            killEmitted = false;
            cur = h;
            nullChecked.clear();
            strideTest(sl, leave);
            nodes(h, true);
            if (!handlers.isEmpty()) {
                Label on = cb.newLabel();
                cb.goto_(on);
                emitHandlers();
                cb.labelBinding(on);
            }
            cur = body;
            nullChecked.clear();
            nodes(body, true);
            edge(body, h, bc.clone(), null);
            releaseTemps();
            if (killEmitted) {
                cb.iload(faultLaneSlot);
                cb.ifge(fault);
            }
            for (int[] c : carried) {
                roundRobinCarry(c, rows[c[0]], g2, true);
            }
            cb.iconst_1();
            cb.istore(progressed);
            cb.iinc(turn, -1);
            cb.iload(turn);
            cb.ifgt(iteration);
            cb.goto_(nextG);
            if (!handlers.isEmpty()) {
                emitHandlers();
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
            cb.aload(ctaSlot);
            cb.invokevirtual(Vec.CTA, "cancelled", mt(CD_boolean));
            cb.ifne(end);
            cb.goto_(round);
            // A group's iteration faulted: its row stays as before it, the masks and the fault record as before.
            cb.labelBinding(fault);
            cb.iconst_m1();
            cb.istore(faultLaneSlot);
            cb.aconst_null();
            cb.astore(faultCauseSlot);
            saved.forEach((m, t) -> {
                cb.aload(t);
                cb.astore(m);
            });
            cb.labelBinding(end);
            endLabel.put(h, hEnd);
            endLabel.put(body, bEnd);
            // This group's carried values back from its row (every group's row is up to date).
            for (int[] c : carried) {
                roundRobinCarry(c, rows[c[0]], groupIndexSlot, false);
            }
            releaseTemps();
            cb.labelBinding(skip);
            cur = h;
            nullChecked.clear();
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
            long c = (long) a.stride * (n - 1);
            base(a, h);
            if (c > 0) {
                cb.loadConstant((int) (Integer.MAX_VALUE - c));
                cb.if_icmpgt(exit);
            } else {
                cb.loadConstant((int) (Integer.MIN_VALUE - c));
                cb.if_icmplt(exit);
            }
            Runnable max = () -> {
                base(a, h);
                if (c > 0) {
                    cb.loadConstant((int) c);
                    cb.iadd();
                }
            };
            Runnable min = () -> {
                base(a, h);
                if (c < 0) {
                    cb.loadConstant((int) c);
                    cb.iadd();
                }
            };
            switch (sl.pred()) {
                case LT -> {
                    max.run();
                    base(bound, h);
                    cb.if_icmpge(exit);
                }
                case LE -> {
                    max.run();
                    base(bound, h);
                    cb.if_icmpgt(exit);
                }
                case GT -> {
                    min.run();
                    base(bound, h);
                    cb.if_icmple(exit);
                }
                case GE -> {
                    min.run();
                    base(bound, h);
                    cb.if_icmplt(exit);
                }
                case NE -> {
                    // Every lane differs from the bound when the bound lies outside [min, max].
                    Label ok = cb.newLabel();
                    base(bound, h);
                    min.run();
                    cb.if_icmplt(ok);
                    base(bound, h);
                    max.run();
                    cb.if_icmple(exit);
                    cb.labelBinding(ok);
                }
                case EQ -> throw new IllegalStateException("== never has a grid-stride fast path");
            }
        }

        /** After the last block of loops: the jumps back to their headers, innermost first. */
        private void loopEnds(Block b) {
            List<Cfg.Loop> ending = new ArrayList<>();
            for (Cfg.Loop l : cfg.loops) {
                if (l.last == b) {
                    ending.add(l);
                }
            }
            ending.sort((x, y) -> Integer.compare(y.depth, x.depth));
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
        private void pushMaskAll(boolean set) {
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

        private void allTrueInto(int[] slots) {
            maskAllInto(slots, true);
        }

        private void noneInto(int[] slots) {
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
        private void anyMask(int[] slots) {
            cb.aload(slots[0]);
            for (int r = 1; r < slots.length; r++) {
                cb.aload(slots[r]);
                cb.invokevirtual(Vec.MASK, "or", mt(Vec.MASK, Vec.MASK));
            }
            cb.invokevirtual(Vec.MASK, "anyTrue", mt(CD_boolean));
        }

        /** The int-lane mask locals of the current block. */
        private int[] curMask() {
            return classSlots.get(plan.maskOf.get(cur));
        }

        /** Pushes register {@code r} of the current block's mask for lanes of kind {@code k}. */
        private void curMask(Kind k, int r) {
            if (k == Kind.INT || k == Kind.BOOL) {
                cb.aload(curMask()[r]);
            } else if (lazyLaneKinds(cur).contains(k)) {
                pushDerived(curMask(), k, r);
            } else {
                cb.aload(derived.get(cur).get(k)[r]);
            }
        }

        private void materializeDerived(Block b) {
            for (Map.Entry<Kind, int[]> e : derived.get(b).entrySet()) {
                if (!lazyLaneKinds(b).contains(e.getKey())) {
                    deriveMasks(curMask(), e.getKey(), e.getValue());
                }
            }
        }

        /**
         * The lane kinds whose masks block {@code b} makes where they are used, not at its start (see {@link
         * PhaseTrims#LAZY_LANE_MASKS}): float, where every node of the block that needs float masks is a load or store
         * at a contiguous index (they use them only on their masked paths) and no shadow of the block is float.
         */
        private EnumSet<Kind> lazyLaneKinds(Block b) {
            EnumSet<Kind> lazy = lazyLaneKinds.get(b);
            if (lazy != null) {
                return lazy;
            }
            lazy = EnumSet.noneOf(Kind.class);
            if (PhaseTrims.LAZY_LANE_MASKS && !compactMasks && derived.get(b).containsKey(Kind.FLOAT)) {
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
        private void deriveMasks(int[] in, Kind k, int[] out) {
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
                    if (compactMasks) {
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
        private void bits(int[] slots, Kind k) {
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
        private void inlineBits(int[] slots, int lanes) {
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

        private void curBits() {
            bits(curMask(), Kind.INT);
        }

        // ---- values -----------------------------------------------------------------------------

        private Storage at(Node x, Block use) {
            Storage.Vectors sh = shadow.get(x);
            if (sh != null && u.crossesDivergentLoop(x, use)) {
                return sh;
            }
            return storage.get(x);
        }

        private Shape shapeAt(Node x, Block use) {
            return u.shapeAt(x, use);
        }

        /** Pushes the uniform scalar value of {@code x}. */
        /** Whether {@link #scalar} can push {@code x}: a uniform value in a local, or a constant. */
        private boolean isScalar(Node x) {
            return storage.get(x) instanceof Storage.Scalar || storage.get(x) instanceof Storage.Const;
        }

        private void scalar(Node x) {
            Storage st = storage.get(x);
            switch (st) {
                case Storage.Scalar s -> cb.loadLocal(Vec.typeKind(s.kind()), s.slot());
                case Storage.Const c -> constant(c.value(), c.kind());
                default -> throw new IllegalStateException("not a scalar: " + x + " " + st);
            }
        }

        private void constant(Object value, Kind k) {
            switch (k) {
                case INT, BOOL -> cb.loadConstant(((Number) value).intValue());
                case LONG -> cb.loadConstant(((Number) value).longValue());
                case FLOAT -> cb.loadConstant(((Number) value).floatValue());
                case DOUBLE -> cb.loadConstant(((Number) value).doubleValue());
                default -> cb.aconst_null();
            }
        }

        /** Pushes the base of an affine value (or the value of a uniform one). */
        private void base(Node x, Block use) {
            Storage st = at(x, use);
            switch (st) {
                case Storage.Affine a -> pushStorageScalar(a.base());
                case Storage.Scalar s -> cb.loadLocal(Vec.typeKind(s.kind()), s.slot());
                case Storage.Const c -> constant(c.value(), c.kind());
                default -> throw new IllegalStateException("no base: " + x);
            }
        }

        private void pushStorageScalar(Storage s) {
            switch (s) {
                case Storage.Scalar sc -> cb.loadLocal(Vec.typeKind(sc.kind()), sc.slot());
                case Storage.Const c -> constant(c.value(), c.kind());
                default -> throw new IllegalStateException(s.toString());
            }
        }

        /** Pushes register {@code r} of {@code x} as a vector of its kind, seen from block {@code use}. */
        private void vector(Node x, int r, Block use) {
            Storage st = at(x, use);
            Kind k = x.kind;
            switch (st) {
                case Storage.Vectors vs -> cb.aload(vs.slots()[r]);
                case Storage.Scalar s -> {
                    Vec.loadSpecies(cb, k);
                    cb.loadLocal(Vec.typeKind(k), s.slot());
                    cb.invokestatic(Vec.vector(k), "broadcast", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k)));
                }
                case Storage.Const c -> {
                    Vec.loadSpecies(cb, k);
                    constant(c.value(), k);
                    cb.invokestatic(Vec.vector(k), "broadcast", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k)));
                }
                case Storage.Affine a -> {
                    cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
                    pushStorageScalar(a.base());
                    if (r != 0) {
                        cb.loadConstant(r * l32 * a.stride());
                        cb.iadd();
                    }
                    cb.invokestatic(Vec.INT_VECTOR, "broadcast", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int));
                    cb.loadConstant(a.stride());
                    cb.invokevirtual(Vec.INT_VECTOR, "addIndex", mt(Vec.INT_VECTOR, CD_int));
                }
                case Storage.Masks m -> throw new IllegalStateException("mask used as a vector: " + x);
            }
        }

        private void storeVector(Node x, int r) {
            cb.astore(((Storage.Vectors) storage.get(x)).slots()[r]);
        }

        private void storeScalar(Node x) {
            Storage.Scalar s = (Storage.Scalar) storage.get(x);
            cb.storeLocal(Vec.typeKind(s.kind()), s.slot());
        }

        private void storeBase(Node x) {
            Storage.Affine a = (Storage.Affine) storage.get(x);
            cb.istore(((Storage.Scalar) a.base()).slot());
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

        // ---- nodes ------------------------------------------------------------------------------

        private void node(Node x) {
            switch (x.op) {
                case CONST, PARAM, UNDEF, SREG, PHI -> {
                    return;
                }
                case STORE -> {
                    store(x);
                    return;
                }
                case ATOMIC -> {
                    atomic(x);
                    return;
                }
                case WARP -> {
                    warp(x);
                    return;
                }
                case SHARED -> {
                    sharedAllocation(x);
                    return;
                }
                case BARRIER -> {
                    // At the block's end, after its terminator: see barrier(Block).
                    return;
                }
                default -> {
                }
            }
            switch (x.shape) {
                case UNIFORM -> uniformNode(x);
                case AFFINE -> affineNode(x);
                case VARYING -> varyingNode(x);
            }
        }

        // ---- uniform ----

        private void uniformNode(Node x) {
            switch (x.op) {
                case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> {
                    // Affine operands may cancel ((t + 1) - t): bases then combine exactly as the values.
                    base(x.in(0), cur);
                    base(x.in(1), cur);
                    scalarBinary(x.op, x.kind);
                    storeScalar(x);
                }
                case DIV, REM -> {
                    if (x.kind == Kind.INT || x.kind == Kind.LONG) {
                        scalar(x.in(1));
                        if (x.kind == Kind.LONG) {
                            cb.lconst_0();
                            cb.lcmp();
                        }
                        cb.ifeq(handler(Shared.DIVIDE_BY_ZERO));
                        base(x.in(0), cur);
                        scalar(x.in(1));
                        scalarBinary(x.op, x.kind);
                        storeScalar(x);
                    } else {
                        scalar(x.in(0));
                        scalar(x.in(1));
                        scalarBinary(x.op, x.kind);
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
                    scalarConv((Conv) x.aux);
                    storeScalar(x);
                }
                case CMP -> {
                    scalar(x.in(0));
                    scalar(x.in(1));
                    cmp(x.in(0).kind, (Boolean) x.aux);
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
                case LOAD -> uniformLoad(x);
                case LENGTH -> {
                    nullCheck(x.in(0), null);
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

        private void scalarBinary(Op op, Kind k) {
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

        private void scalarConv(Conv c) {
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

        private void cmp(Kind k, boolean nanIsOne) {
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
                cmp(k, nanIsOne);
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

        /** A fault of every active thread (a uniform operation failed): the first active one is recorded. */
        /** Faults every active thread of the block shares, each handled once per block after its terminator. */
        private enum Shared { NULL_ARRAY, OUT_OF_BOUNDS, DIVIDE_BY_ZERO }

        private final EnumMap<Shared, Label> handlers = new EnumMap<>(Shared.class);

        /** The label of the current block's handler for a uniform fault; the handler is emitted at block end. */
        private Label handler(Shared kind) {
            return handlers.computeIfAbsent(kind, k -> cb.newLabel());
        }

        /**
         * The current block's shared fault handlers: every active thread faulted, the first one is recorded, and
         * nothing of the block is left to run. {@code OUT_OF_BOUNDS} reads the index and length its sites stored.
         */
        private void emitHandlers() {
            for (Map.Entry<Shared, Label> e : handlers.entrySet()) {
                cb.labelBinding(e.getValue());
                switch (e.getKey()) {
                    case NULL_ARRAY -> uniformFault(() -> pushNpe("Cannot access an array element or length because the array is null"));
                    case OUT_OF_BOUNDS -> uniformFault(() -> {
                        cb.iload(faultIndexSlot);
                        cb.iload(faultLengthSlot);
                        cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
                    });
                    case DIVIDE_BY_ZERO -> uniformFault(() -> cb.invokestatic(Vec.LANES, "divideByZero",
                            mt(ClassDesc.of("java.lang.ArithmeticException"))));
                }
                cb.goto_(endLabel.get(cur));
            }
            handlers.clear();
        }

        /** Jumps to the shared out-of-bounds handler with the index and the array's length. */
        private void toOutOfBounds(Node idx, Node arr) {
            scalar(idx);
            cb.istore(faultIndexSlot);
            scalar(arr);
            cb.arraylength();
            cb.istore(faultLengthSlot);
            cb.goto_(handler(Shared.OUT_OF_BOUNDS));
        }

        private void uniformFault(Runnable cause) {
            Label none = cb.newLabel();
            curBits();
            cb.dup2();
            cb.lstore(bitsSlot);
            cb.lconst_0();
            cb.lcmp();
            cb.ifeq(none);
            cb.lload(bitsSlot);
            cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
            cb.istore(kSlot);
            cause.run();
            cb.astore(faultCauseSlot);
            kill(false);
            // Every thread running this block faulted: nothing of it is left to run.
            cb.goto_(endLabel.get(cur));
            cb.labelBinding(none);
        }

        /**
         * Records the fault of lane {@code kSlot} (cause in {@code faultCauseSlot}) and removes it and every later
         * lane from the masks of this block and of the regions enclosing it.
         */
        private void kill() {
            kill(true);
        }

        /** As {@link #kill()}; {@code continues}: whether the block goes on (its derived masks must follow). */
        private void kill(boolean continues) {
            killEmitted = true;
            cb.iload(kSlot);
            cb.istore(faultLaneSlot);
            for (Block m : killSets.get(cur)) {
                int[] c = classSlots.get(m);
                for (int r = 0; r < regs32; r++) {
                    cb.aload(c[r]);
                    cb.loadConstant(r);
                    cb.iload(kSlot);
                    cb.invokestatic(Vec.LANES, "keepBelow", mt(Vec.MASK, Vec.MASK, CD_int, CD_int));
                    cb.astore(c[r]);
                }
            }
            if (continues) {
                // Only the lane types the rest of the block still masks with.
                for (Map.Entry<Kind, int[]> e : derived.get(cur).entrySet()) {
                    if (laterKinds.contains(e.getKey()) && !lazyLaneKinds(cur).contains(e.getKey())) {
                        deriveMasks(curMask(), e.getKey(), e.getValue());
                    }
                }
            }
            // A uniform loop whose threads all faulted stops at its back edge.
            List<Integer> aborts = new ArrayList<>();
            Block m = plan.maskOf.get(cur);
            for (Cfg.Loop l = cfg.loopOf(cur); l != null; l = l.parent) {
                if (plan.run.get(l.header) != Run.FLAG || plan.maskOf.get(l.header) != m) {
                    break;
                }
                aborts.add(abortSlot.get(l));
            }
            if (!aborts.isEmpty()) {
                Label alive = cb.newLabel();
                anyMask(curMask());
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
        private void nullCheck(Node arr, Label unused) {
            if (nullChecked.add(arr)) {
                scalar(arr);
                cb.ifnull(handler(Shared.NULL_ARRAY));
            }
        }

        private void pushNpe(String what) {
            cb.loadConstant(what);
            cb.invokestatic(Vec.LANES, "nullArray", mt(ClassDesc.of("java.lang.NullPointerException"), CD_String));
        }

        private void uniformLoad(Node x) {
            Node arr = x.in(0);
            Node idx = x.in(1);
            Kind ek = x.kind;
            Label oob = cb.newLabel();
            Label ok = cb.newLabel();
            nullCheck(arr, null);
            // One unsigned comparison: negative indices are above any length.
            scalar(idx);
            scalar(arr);
            cb.arraylength();
            cb.invokestatic(ClassDesc.of("java.lang.Integer"), "compareUnsigned", mt(CD_int, CD_int, CD_int));
            cb.iflt(ok);
            toOutOfBounds(idx, arr);
            cb.labelBinding(ok);
            scalar(arr);
            scalar(idx);
            cb.arrayLoad(Vec.typeKind(ek));
            storeScalar(x);
        }

        // ---- affine ----

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

        // ---- varying ----

        private void varyingNode(Node x) {
            Block b = cur;
            switch (x.op) {
                case ADD, SUB, MUL, AND, OR, XOR, SHL, SHR, USHR -> {
                    if ((x.op == Op.SHL || x.op == Op.SHR || x.op == Op.USHR) && x.kind == Kind.LONG) {
                        longShift(x);
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
                        binary(x.kind, op, x.in(0), x.in(1), r);
                        storeVector(x, r);
                    }
                }
                case DIV, REM -> divide(x);
                case NEG -> {
                    for (int r = 0; r < regs(x.kind); r++) {
                        unary(x.kind, "NEG", x.in(0), r);
                        storeVector(x, r);
                    }
                }
                case CONV -> convert(x);
                case TEST -> test(x);
                case LOAD -> load(x);
                case CALL -> call(x);
                case CMP -> throw new Decline("comparison result used as a number at " + x.site + ": not compiled");
                default -> throw new IllegalStateException("varying " + x);
            }
        }

        private void binary(Kind k, String op, Node a, Node bb, int r) {
            boolean commutes = switch (op) {
                case "ADD", "MUL", "MIN", "MAX", "AND", "OR", "XOR" -> true;
                default -> false;
            };
            if (commutes && shapeAt(a, cur) == Shape.UNIFORM && shapeAt(bb, cur) != Shape.UNIFORM) {
                Node t = a;
                a = bb;
                bb = t;
            }
            vector(a, r, cur);
            cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
            if (shapeAt(bb, cur) == Shape.UNIFORM && bb.kind == k) {
                // The scalar form: no broadcast in the bytecode (C2 broadcasts once, hoisted).
                scalar(bb);
                cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), binaryType(), Vec.scalar(k)));
            } else {
                vector(bb, r, cur);
                cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), binaryType(), Vec.VECTOR));
            }
        }

        private void unary(Kind k, String op, Node a, int r) {
            vector(a, r, cur);
            cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
            cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), unaryType()));
        }

        private void longShift(Node x) {
            String op = x.op == Op.SHL ? "LSHL" : x.op == Op.SHR ? "ASHR" : "LSHR";
            Node amount = x.in(1);
            boolean uniformAmount = shapeAt(amount, cur) == Shape.UNIFORM;
            for (int r = 0; r < regs64; r++) {
                vector(x.in(0), r, cur);
                cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
                if (uniformAmount) {
                    scalar(amount);
                    cb.i2l();
                    cb.invokevirtual(Vec.LONG_VECTOR, "lanewise", mt(Vec.LONG_VECTOR, binaryType(), CD_long));
                } else {
                    vector(amount, r / 2, cur);
                    widen(Kind.INT, Kind.LONG, "I2L", r % 2);
                    cb.invokevirtual(Vec.LONG_VECTOR, "lanewise", mt(Vec.LONG_VECTOR, binaryType(), Vec.VECTOR));
                }
                storeVector(x, r);
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

        private void divide(Node x) {
            Kind k = x.kind;
            Node a = x.in(0);
            Node d = x.in(1);
            if (k == Kind.FLOAT || k == Kind.DOUBLE) {
                if (x.op == Op.DIV) {
                    for (int r = 0; r < regs(k); r++) {
                        binary(k, "DIV", a, d, r);
                        storeVector(x, r);
                    }
                } else {
                    perLane(x, Vec.LANES, k == Kind.FLOAT ? "frem" : "drem",
                            k == Kind.FLOAT ? mt(CD_float, CD_float, CD_float) : mt(CD_double, CD_double, CD_double), false);
                }
                return;
            }
            // Integer division: a zero divisor in an active lane faults that lane.
            if (shapeAt(d, cur) == Shape.UNIFORM) {
                scalar(d);
                if (k == Kind.LONG) {
                    cb.lconst_0();
                    cb.lcmp();
                }
                cb.ifeq(handler(Shared.DIVIDE_BY_ZERO));
            } else {
                Label ok = cb.newLabel();
                int[] zeroMask = new int[regs(k)];
                for (int r = 0; r < regs(k); r++) {
                    zeroMask[r] = temp(TypeKind.REFERENCE);
                    vector(d, r, cur);
                    cb.getstatic(Vec.OPERATORS, "EQ", Vec.operatorType("EQ"));
                    constant(zero(k), k);
                    cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.scalar(k)));
                    curMask(k, r);
                    cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                    cb.astore(zeroMask[r]);
                }
                bits(zeroMask, k);
                cb.dup2();
                cb.lstore(bitsSlot);
                cb.lconst_0();
                cb.lcmp();
                cb.ifeq(ok);
                cb.lload(bitsSlot);
                cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
                cb.istore(kSlot);
                cb.invokestatic(Vec.LANES, "divideByZero", mt(ClassDesc.of("java.lang.ArithmeticException")));
                cb.astore(faultCauseSlot);
                kill();
                cb.labelBinding(ok);
            }
            for (int r = 0; r < regs(k); r++) {
                vector(a, r, cur);
                // Inactive lanes divide by one.
                vector(d, r, cur);
                constant(k == Kind.LONG ? (Object) 1L : (Object) 1, k);
                curMask(k, r);
                cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
                cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.scalar(k), Vec.MASK));
                cb.invokestatic(Vec.LANES, x.op == Op.DIV ? "div" : "rem", mt(Vec.vector(k), Vec.vector(k), Vec.vector(k)));
                storeVector(x, r);
            }
        }

        private void convert(Node x) {
            Conv c = (Conv) x.aux;
            Node a = x.in(0);
            switch (c) {
                case I2F, F2I, L2D, D2L -> {
                    for (int r = 0; r < regs(c.to); r++) {
                        vector(a, r, cur);
                        cb.getstatic(Vec.OPERATORS, c.name(), Vec.operatorType(c.name()));
                        cb.iconst_0();
                        cb.invokevirtual(Vec.VECTOR, "convert", mt(Vec.VECTOR, conversionType(), CD_int));
                        cb.checkcast(Vec.vector(c.to));
                        storeVector(x, r);
                    }
                }
                case I2L, I2D, F2L, F2D -> {
                    for (int r = 0; r < regs64; r++) {
                        vector(a, r / 2, cur);
                        widen(c.from, c.to, c.name(), r % 2);
                        storeVector(x, r);
                    }
                }
                case L2I, L2F, D2I, D2F -> {
                    for (int r = 0; r < regs32; r++) {
                        for (int half = 0; half < 2; half++) {
                            vector(a, 2 * r + half, cur);
                            cb.getstatic(Vec.OPERATORS, c.name(), Vec.operatorType(c.name()));
                            Vec.loadSpecies(cb, c.to);
                            cb.loadConstant(-half);
                            cb.invokevirtual(Vec.VECTOR, "convertShape", mt(Vec.VECTOR, conversionType(), Vec.SPECIES, CD_int));
                            cb.checkcast(Vec.vector(c.to));
                            if (c.to == Kind.FLOAT) {
                                cb.invokevirtual(Vec.FLOAT_VECTOR, "reinterpretAsInts", mt(Vec.INT_VECTOR));
                            }
                        }
                        int tmp = temp(TypeKind.REFERENCE);
                        cb.astore(tmp);
                        cb.getstatic(Vec.OPERATORS, "OR", Vec.operatorType("OR"));
                        cb.aload(tmp);
                        cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), Vec.VECTOR));
                        if (c.to == Kind.FLOAT) {
                            cb.invokevirtual(Vec.INT_VECTOR, "reinterpretAsFloats", mt(Vec.FLOAT_VECTOR));
                        }
                        storeVector(x, r);
                    }
                }
                case I2B, I2S -> {
                    int sh = c == Conv.I2B ? 24 : 16;
                    for (int r = 0; r < regs32; r++) {
                        vector(a, r, cur);
                        cb.getstatic(Vec.OPERATORS, "LSHL", Vec.operatorType("LSHL"));
                        cb.loadConstant(sh);
                        cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                        cb.getstatic(Vec.OPERATORS, "ASHR", Vec.operatorType("ASHR"));
                        cb.loadConstant(sh);
                        cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                        storeVector(x, r);
                    }
                }
                case I2C -> {
                    for (int r = 0; r < regs32; r++) {
                        vector(a, r, cur);
                        cb.getstatic(Vec.OPERATORS, "AND", Vec.operatorType("AND"));
                        cb.loadConstant(0xFFFF);
                        cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), CD_int));
                        storeVector(x, r);
                    }
                }
            }
        }

        private void test(Node x) {
            Cond c = (Cond) x.aux;
            Node a = x.in(0);
            Node b = x.in(1);
            Kind k = a.kind == Kind.BOOL ? Kind.INT : a.kind;
            boolean fp = k == Kind.FLOAT || k == Kind.DOUBLE;
            Storage.Masks out = (Storage.Masks) storage.get(x);
            if (affineBound(x, c, a, b, out)) {
                return;
            }
            for (int r = 0; r < regs(k); r++) {
                boolean javaDefault = c.pred() == Cond.Pred.NE;
                if (inverted.contains(x)) {
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
            if (shapeAt(a, cur) == Shape.UNIFORM && shapeAt(b, cur) == Shape.AFFINE) {
                aff = b;
                uni = a;
                p = p.swap();
            }
            if (shapeAt(aff, cur) != Shape.AFFINE || aff.stride != 1 || shapeAt(uni, cur) != Shape.UNIFORM) {
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
                base(aff, cur);
                cb.loadConstant(Integer.MAX_VALUE - (n - 1));
                cb.if_icmpgt(wraps);
            }
            int limit = temp(TypeKind.INT);
            int wide = temp(TypeKind.LONG);
            scalar(uni);
            cb.i2l();
            base(aff, cur);
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
            pushMaskAll(!negate);
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
                cb.loadConstant(r * l32);
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
                base(aff, cur);
                cb.loadConstant(r);
                scalar(uni);
                cb.getstatic(Vec.OPERATORS, p.name(), Vec.operatorType(p.name()));
                cb.invokestatic(Vec.LANES, "affineCompare", mt(Vec.MASK, CD_int, CD_int, CD_int, comparisonType()));
                cb.astore(out.slots()[r]);
            }
            cb.labelBinding(done);
            return true;
        }

        private void nanTest(Kind k, Node a, int r) {
            vector(a, r, cur);
            cb.getstatic(Vec.OPERATORS, "IS_NAN", Vec.operatorType("IS_NAN"));
            cb.invokevirtual(Vec.vector(k), "test", mt(Vec.MASK, testType()));
        }

        private void compare(Kind k, Cond.Pred p, Node a, Node b, int r) {
            vector(a, r, cur);
            String op = p.name();
            cb.getstatic(Vec.OPERATORS, op, Vec.operatorType(op));
            if (shapeAt(b, cur) == Shape.UNIFORM) {
                scalar(b);
                cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.scalar(k)));
            } else {
                vector(b, r, cur);
                cb.invokevirtual(Vec.vector(k), "compare", mt(Vec.MASK, comparisonType(), Vec.VECTOR));
            }
        }

        // ---- memory ----

        private boolean contiguous(Node idx) {
            return shapeAt(idx, cur) == Shape.AFFINE && idx.stride == 1;
        }

        private void load(Node x) {
            Node arr = x.in(0);
            Node idx = x.in(1);
            Kind ek = x.kind;
            Label done = cb.newLabel();
            nullCheck(arr, null);
            if (contiguous(idx)) {
                Label slow = cb.newLabel();
                fastRangeCheck(idx, arr, slow);
                for (int r = 0; r < regs(ek); r++) {
                    Vec.loadSpecies(cb, ek);
                    scalar(arr);
                    registerOffset(idx, r, ek);
                    cb.invokestatic(Vec.vector(ek), "fromArray", mt(Vec.vector(ek), Vec.SPECIES, Vec.scalar(arr.kind), CD_int));
                    storeVector(x, r);
                }
                cb.goto_(done);
                cb.labelBinding(slow);
                contiguousFaults(idx, arr);
                for (int r = 0; r < regs(ek); r++) {
                    Vec.loadSpecies(cb, ek);
                    scalar(arr);
                    registerOffset(idx, r, ek);
                    curMask(ek, r);
                    cb.invokestatic(Vec.vector(ek), "fromArray", mt(Vec.vector(ek), Vec.SPECIES, Vec.scalar(arr.kind), CD_int, Vec.MASK));
                    storeVector(x, r);
                }
                cb.goto_(done);
            } else {
                if (stridedGather(idx)) {
                    Label slow = cb.newLabel();
                    stridedRangeCheck(idx, arr, slow);
                    for (int r = 0; r < regs(ek); r++) {
                        Vec.loadSpecies(cb, ek);
                        scalar(arr);
                        registerOffset(idx, r, ek);
                        cb.getstatic(Vec.LANES, "STRIDED", CD_int.arrayType().arrayType());
                        cb.loadConstant(idx.stride + Lanes.MAX_GATHER_STRIDE);
                        cb.aaload();
                        cb.iconst_0();
                        cb.invokestatic(Vec.vector(ek), "fromArray", mt(Vec.vector(ek), Vec.SPECIES, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int));
                        storeVector(x, r);
                    }
                    cb.goto_(done);
                    cb.labelBinding(slow);
                }
                gatherIndices(idx, arr);
                Label empty = cb.newLabel();
                scalar(arr);
                cb.arraylength();
                cb.ifeq(empty);
                int map = scratch.get(Kind.INT);
                for (int r = 0; r < regs(ek); r++) {
                    Vec.loadSpecies(cb, ek);
                    scalar(arr);
                    cb.iconst_0();
                    cb.aload(map);
                    cb.loadConstant(r * lanes(ek));
                    cb.invokestatic(Vec.vector(ek), "fromArray", mt(Vec.vector(ek), Vec.SPECIES, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int));
                    storeVector(x, r);
                }
                cb.goto_(done);
                cb.labelBinding(empty);
                zeroVectors(x);
                cb.goto_(done);
            }
            cb.labelBinding(done);
        }

        private void zeroVectors(Node x) {
            for (int r = 0; r < regs(x.kind); r++) {
                Integer zero = zeroSlots.get(x.kind);
                if (zero != null) {
                    cb.aload(zero);
                } else {
                    Vec.loadSpecies(cb, x.kind);
                    cb.invokestatic(Vec.vector(x.kind), "zero", mt(Vec.vector(x.kind), Vec.SPECIES));
                }
                storeVector(x, r);
            }
        }

        /** Whether a load at {@code idx} is a gather at {@code base + stride * lane} with a map in {@link Lanes#STRIDED}. */
        private boolean stridedGather(Node idx) {
            return shapeAt(idx, cur) == Shape.AFFINE && idx.stride != 1 && idx.stride != 0
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
                base(idx, cur);
                cb.iflt(slow);
                base(idx, cur);
                scalar(arr);
                cb.arraylength();
                cb.loadConstant(span);
                cb.isub();
                cb.if_icmpge(slow);
            } else {
                // 0 <= base - span and base < length
                base(idx, cur);
                cb.loadConstant(span);
                cb.if_icmplt(slow);
                base(idx, cur);
                scalar(arr);
                cb.arraylength();
                cb.if_icmpge(slow);
            }
        }

        /** Jumps to {@code slow} unless {@code [base, base + n)} lies inside the array. */
        private void fastRangeCheck(Node idx, Node arr, Label slow) {
            base(idx, cur);
            cb.iflt(slow);
            base(idx, cur);
            scalar(arr);
            cb.arraylength();
            cb.loadConstant(n);
            cb.isub();
            cb.if_icmpgt(slow);
        }

        /** For a contiguous access near an array's end: faults the first active lane outside it, if any. */
        private void contiguousFaults(Node idx, Node arr) {
            Label ok = cb.newLabel();
            base(idx, cur);
            scalar(arr);
            cb.arraylength();
            curBits();
            cb.invokestatic(Vec.LANES, "firstOutside", mt(CD_int, CD_int, CD_int, CD_long));
            cb.dup();
            cb.istore(kSlot);
            cb.iflt(ok);
            base(idx, cur);
            cb.iload(kSlot);
            cb.iadd();
            scalar(arr);
            cb.arraylength();
            cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
            cb.astore(faultCauseSlot);
            kill();
            cb.labelBinding(ok);
        }

        /**
         * With the lane bits of the indexes outside {@code arr} on the stack (lane {@code i} of the group at bit
         * {@code i}; {@code map} holds the group's indexes): if any, the first such lane faults as the reference's
         * thread would, and it and the lanes after it leave the masks ({@link #kill}).
         */
        private void faultAtFirstOutside(int map, Node arr) {
            Label ok = cb.newLabel();
            cb.dup2();
            cb.lstore(bitsSlot);
            cb.lconst_0();
            cb.lcmp();
            cb.ifeq(ok);
            cb.lload(bitsSlot);
            cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
            cb.istore(kSlot);
            cb.aload(map);
            cb.iload(kSlot);
            cb.iaload();
            scalar(arr);
            cb.arraylength();
            cb.invokestatic(Vec.LANES, "outOfBounds", mt(ClassDesc.of("java.lang.ArrayIndexOutOfBoundsException"), CD_int, CD_int));
            cb.astore(faultCauseSlot);
            kill();
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
            if (compactGathers) {
                compactGatherIndices(idx, arr, map);
                return;
            }
            inlineGathers = true;
            for (int r = 0; r < regs32; r++) {
                vector(idx, r, cur);
                cb.aload(map);
                cb.loadConstant(r * l32);
                cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
                // unsigned: a negative index is above any length
                vector(idx, r, cur);
                cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
                scalar(arr);
                cb.arraylength();
                cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, comparisonType(), CD_int));
                curMask(Kind.INT, r);
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
                vector(idx, r, cur);
                cb.iconst_0();
                curMask(Kind.INT, r);
                cb.invokevirtual(Vec.MASK, "not", mt(Vec.MASK));
                cb.invokevirtual(Vec.INT_VECTOR, "blend", mt(Vec.INT_VECTOR, CD_int, Vec.MASK));
                cb.aload(map);
                cb.loadConstant(r * l32);
                cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
            }
        }

        /** {@link #gatherIndices} as calls to Lanes helpers ({@link #withCompactGathers}). */
        private void compactGatherIndices(Node idx, Node arr, int map) {
            for (int r = 0; r < regs32; r++) {
                vector(idx, r, cur);
                curMask(Kind.INT, r);
                scalar(arr);
                cb.arraylength();
                cb.aload(map);
                cb.loadConstant(r * l32);
                cb.invokestatic(Vec.LANES, "outside", mt(CD_long, Vec.INT_VECTOR, Vec.MASK, CD_int, CD_int.arrayType(), CD_int));
                if (r > 0) {
                    cb.loadConstant(r * l32);
                    cb.lshl();
                    cb.lor();
                }
            }
            faultAtFirstOutside(map, arr);
            for (int r = 0; r < regs32; r++) {
                vector(idx, r, cur);
                curMask(Kind.INT, r);
                cb.aload(map);
                cb.loadConstant(r * l32);
                cb.invokestatic(Vec.LANES, "inside", mt(CD_void, Vec.INT_VECTOR, Vec.MASK, CD_int.arrayType(), CD_int));
            }
        }

        private void store(Node x) {
            Node arr = x.in(0);
            Node idx = x.in(1);
            Node val = x.in(2);
            Kind ek = val.kind;
            Shape is = shapeAt(idx, cur);
            Label done = cb.newLabel();
            nullCheck(arr, null);
            if (is == Shape.UNIFORM) {
                // Every active thread writes the same element: the last one in linear order wins.
                Label oob = cb.newLabel();
                scalar(idx);
                cb.iflt(oob);
                scalar(idx);
                scalar(arr);
                cb.arraylength();
                cb.if_icmpge(oob);
                // inline: with Lanes.bits not inlined (a method near C2's limit) the masks passed were boxed
                activeBits();
                cb.dup2();
                cb.lstore(bitsSlot);
                cb.lconst_0();
                cb.lcmp();
                cb.ifeq(done);
                scalar(arr);
                scalar(idx);
                if (shapeAt(val, cur) == Shape.UNIFORM) {
                    scalar(val);
                } else {
                    int s = scratch.get(ek);
                    for (int r = 0; r < regs(ek); r++) {
                        vector(val, r, cur);
                        cb.aload(s);
                        cb.loadConstant(r * lanes(ek));
                        cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int));
                    }
                    cb.aload(s);
                    cb.bipush(63);
                    cb.lload(bitsSlot);
                    cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfLeadingZeros", mt(CD_int, CD_long));
                    cb.isub();
                    cb.arrayLoad(Vec.typeKind(ek));
                }
                cb.arrayStore(Vec.typeKind(ek));
                cb.goto_(done);
                cb.labelBinding(oob);
                toOutOfBounds(idx, arr);
            } else if (contiguous(idx)) {
                Label slow = cb.newLabel();
                fastRangeCheck(idx, arr, slow);
                // One test for the group, not one per register: every thread active (the common case) stores
                // unmasked; otherwise every register masked. Where C2 cannot fold the masks (a kernel whose groups
                // at the grid's edge are partial, as the stencil's) each test is a mask-to-bits move and a branch.
                Label masked = cb.newLabel();
                allActive(ek);
                cb.ifeq(masked);
                for (int r = 0; r < regs(ek); r++) {
                    vector(val, r, cur);
                    scalar(arr);
                    registerOffset(idx, r, ek);
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int));
                }
                cb.goto_(done);
                cb.labelBinding(masked);
                for (int r = 0; r < regs(ek); r++) {
                    vector(val, r, cur);
                    scalar(arr);
                    registerOffset(idx, r, ek);
                    curMask(ek, r);
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int, Vec.MASK));
                }
                cb.goto_(done);
                cb.labelBinding(slow);
                contiguousFaults(idx, arr);
                for (int r = 0; r < regs(ek); r++) {
                    vector(val, r, cur);
                    scalar(arr);
                    registerOffset(idx, r, ek);
                    curMask(ek, r);
                    cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int, Vec.MASK));
                }
                cb.goto_(done);
            } else {
                if ((!compactGathers || keepStridedStores) && is == Shape.AFFINE && stridedStoreApplies(arr, idx.stride, ek)) {
                    stridedStore(idx, arr, val, ek, done);
                } else if (is == Shape.AFFINE && stridedStoreApplies(arr, idx.stride, ek)) {
                    skippedStridedStores = true;
                }
                gatherIndices(idx, arr);
                int map = scratch.get(Kind.INT);
                if (Lanes.NATIVE_SCATTER) {
                    for (int r = 0; r < regs(ek); r++) {
                        vector(val, r, cur);
                        scalar(arr);
                        cb.iconst_0();
                        cb.aload(map);
                        cb.loadConstant(r * lanes(ek));
                        curMask(ek, r);
                        cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int, CD_int.arrayType(), CD_int, Vec.MASK));
                    }
                } else {
                    // Values go after the index map (both may be int arrays).
                    int s = scratch.get(ek);
                    for (int r = 0; r < regs(ek); r++) {
                        vector(val, r, cur);
                        cb.aload(s);
                        cb.loadConstant(2 * n + r * lanes(ek));
                        cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int));
                    }
                    scalar(arr);
                    cb.aload(map);
                    cb.aload(s);
                    cb.loadConstant(2 * n);
                    curBits();
                    cb.invokestatic(Vec.LANES, "scatter", mt(CD_void, Vec.scalar(arr.kind), CD_int.arrayType(), Vec.scalar(arr.kind), CD_int, CD_long));
                }
                cb.goto_(done);
            }
            cb.labelBinding(done);
        }

        /** Pushes whether every thread of the group is active: the registers' masks and-ed, then {@code allTrue}. */
        private void allActive(Kind ek) {
            if (lazyLaneKinds(cur).contains(ek) && regs(ek) == regs32) {
                // The same lanes as the int-lane masks: no cast to test.
                ek = Kind.INT;
            }
            curMask(ek, 0);
            for (int r = 1; r < regs(ek); r++) {
                curMask(ek, r);
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
         * once the compiler retries a kernel too large with compact gathers ({@link #withCompactGathers}). Strides up to {@link #MAX_STORE_STRIDE}: the
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
            for (int r = 0; r < regs(ek); r++) {
                vector(val, r, cur);
                cb.aload(s);
                cb.loadConstant(r * lanes(ek));
                cb.invokevirtual(Vec.vector(ek), "intoArray", mt(CD_void, Vec.scalar(arr.kind), CD_int));
            }
            int i = temp(TypeKind.INT);
            Label loop = cb.newLabel();
            cb.iconst_0();
            cb.istore(i);
            cb.labelBinding(loop);
            scalar(arr);
            base(idx, cur);
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

        /**
         * An {@link dev.weft.Atomics} call: the scalar method once per active thread, in lane order. Threads of a
         * warp on one address are so serialised and none of their updates is lost; the order is the reference
         * executor's for a thread's first atomic (it runs each thread on until it blocks, so a thread doing
         * several atomics on an address others update sees another, equally valid, interleaving). An active
         * thread whose index is outside the array faults; the threads before it in lane order do their update,
         * those after it do not (they leave with it, as after any fault).
         *
         * <p>In a grid-stride fast path's iteration with no thread faulted yet ({@link #fastIteration}), every lane
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
        private void atomic(Node x) {
            nullCheck(x.in(0), null);
            boolean used = resultUsed(x);
            if (!fastIteration) {
                maskedAtomic(x, used);
                return;
            }
            Label masked = cb.newLabel();
            Label done = cb.newLabel();
            // A thread that faulted (in an earlier node of this iteration) has left the masks: one scalar test.
            cb.iload(faultLaneSlot);
            cb.ifge(masked);
            unmaskedAtomic(x, used, masked);
            cb.goto_(done);
            cb.labelBinding(masked);
            maskedAtomic(x, used);
            cb.labelBinding(done);
        }

        /** Whether a phi, a branch, or a node of another block than {@code x}'s reads {@code x}'s value. */
        private boolean readElsewhere(Node x) {
            collectReads();
            return readElsewhere.contains(x);
        }

        /** Whether any node, phi or branch reads {@code x}'s value. */
        private boolean resultUsed(Node x) {
            collectReads();
            return readValues.contains(x);
        }

        /** Fills {@link #readValues} and {@link #readElsewhere} in one pass over the graph, once. */
        private void collectReads() {
            if (readValues != null) {
                return;
            }
            readValues = new HashSet<>();
            readElsewhere = new HashSet<>();
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
         * gridStrideOldValues) past the JIT's 8000-byte limit, which costs it its fast paths.
         */
        private void unmaskedAtomic(Node x, boolean used, Label outside) {
            Node arr = x.in(0);
            Node idx = x.in(1);
            boolean unrolled = !used && n <= UNROLLED_ATOMIC_LANES;
            for (int i = 2; i < x.in.size(); i++) {
                unrolled &= isScalar(x.in(i));
            }
            int[] idxRegs = new int[regs32];
            for (int r = 0; r < regs32; r++) {
                if (MERGED_ATOMIC_CHECK && r > 0) {
                    cb.getstatic(Vec.OPERATORS, "UMAX", Vec.operatorType("UMAX"));
                }
                // unsigned: a negative index is above any length
                vector(idx, r, cur);
                if (unrolled) {
                    idxRegs[r] = temp(TypeKind.REFERENCE);
                    cb.dup();
                    cb.astore(idxRegs[r]);
                }
                if (MERGED_ATOMIC_CHECK) {
                    if (r > 0) {
                        cb.invokevirtual(Vec.INT_VECTOR, "lanewise", mt(Vec.INT_VECTOR, binaryType(), Vec.VECTOR));
                    }
                    if (r < regs32 - 1) {
                        continue;
                    }
                }
                cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
                scalar(arr);
                cb.arraylength();
                cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, comparisonType(), CD_int));
                cb.invokevirtual(Vec.MASK, "anyTrue", mt(CD_boolean));
                cb.ifne(outside);
            }
            if (unrolled) {
                for (int j = 0; j < n; j++) {
                    int lane = j;
                    update(x, false, () -> cb.loadConstant(lane), () -> {
                        cb.aload(idxRegs[lane / l32]);
                        cb.loadConstant(lane % l32);
                        cb.invokevirtual(Vec.INT_VECTOR, "lane", mt(CD_int, CD_int));
                    }, i -> {
                        throw new IllegalStateException("varying operand in an unrolled atomic");
                    });
                }
                return;
            }
            storeRegisters(idx, Kind.INT, scratch.get(Kind.INT), 0);
            storeOperands(x);
            int j = temp(TypeKind.INT);
            Label loop = cb.newLabel();
            Label end = cb.newLabel();
            cb.iconst_0();
            cb.istore(j);
            cb.labelBinding(loop);
            cb.iload(j);
            cb.loadConstant(n);
            cb.if_icmpge(end);
            update(x, used, () -> cb.iload(j));
            cb.iinc(j, 1);
            cb.goto_(loop);
            cb.labelBinding(end);
            loadResults(x, used);
        }

        /**
         * The atomic under the current mask: the indices checked with one vector compare per register (the first
         * active lane outside the array faults, see {@link #kill()}), then the update per active lane in lane
         * order. The indices of inactive lanes are stored too but never read: only active lanes are visited.
         */
        private void maskedAtomic(Node x, boolean used) {
            Node arr = x.in(0);
            Node idx = x.in(1);
            int map = scratch.get(Kind.INT);
            for (int r = 0; r < regs32; r++) {
                vector(idx, r, cur);
                cb.dup();
                cb.aload(map);
                cb.loadConstant(r * l32);
                cb.invokevirtual(Vec.INT_VECTOR, "intoArray", mt(CD_void, CD_int.arrayType(), CD_int));
                cb.getstatic(Vec.OPERATORS, "UGE", Vec.operatorType("UGE"));
                scalar(arr);
                cb.arraylength();
                cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, comparisonType(), CD_int));
                curMask(Kind.INT, r);
                cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
                if (r > 0) {
                    cb.loadConstant(r * l32);
                    cb.lshl();
                    cb.lor();
                }
            }
            faultAtFirstOutside(map, arr);
            storeOperands(x);
            int left = temp(TypeKind.LONG);
            int j = temp(TypeKind.INT);
            Label loop = cb.newLabel();
            Label end = cb.newLabel();
            curBits();
            cb.lstore(left);
            cb.labelBinding(loop);
            cb.lload(left);
            cb.lconst_0();
            cb.lcmp();
            cb.ifeq(end);
            cb.lload(left);
            cb.invokestatic(ClassDesc.of("java.lang.Long"), "numberOfTrailingZeros", mt(CD_int, CD_long));
            cb.istore(j);
            update(x, used, () -> cb.iload(j));
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

        // Scratch layout of an atomic (every scratch array holds 4n lanes): the index map in the int one, the
        // operands from lane n on (operand i at (i-1)*n), the old values from 3n on.

        /** Stores the atomic's varying operands to the scratch array; a uniform one (a histogram's 1) stays scalar. */
        private void storeOperands(Node x) {
            Kind k = x.kind;
            int s = scratch.get(k);
            for (int i = 2; i < x.in.size(); i++) {
                if (!isScalar(x.in(i))) {
                    storeRegisters(x.in(i), k, s, (i - 1) * n);
                }
            }
        }

        /**
         * One thread's update, lane {@code lane} pushed by the runnable: the {@code Atomics} method (or its
         * {@link SharedAtomics} twin for a CTA's shared array), its old value stored to the scratch array when
         * read. An add on a shared array whose old value nobody reads is a plain {@code a[i] += v} in place: one
         * load and one store, independent of whether C2 still inlines small calls in a large kernel method.
         */
        private void update(Node x, boolean used, Runnable lane) {
            int map = scratch.get(Kind.INT);
            int s = scratch.get(x.kind);
            update(x, used, lane, () -> {
                cb.aload(map);
                lane.run();
                cb.iaload();
            }, i -> {
                cb.aload(s);
                lane.run();
                cb.loadConstant((i - 1) * n);
                cb.iadd();
                cb.arrayLoad(Vec.typeKind(x.kind));
            });
        }

        /**
         * One thread's update as above, its index pushed by {@code index} and its varying operand {@code i} by
         * {@code operand} (lane {@code lane}'s value either way).
         */
        private void update(Node x, boolean used, Runnable lane, Runnable index, java.util.function.IntConsumer operand) {
            Node arr = x.in(0);
            Kind k = x.kind;
            Atomic a = (Atomic) x.aux;
            int s = scratch.get(k);
            TypeKind tk = Vec.typeKind(k);
            boolean inPlace = !used && arr.op == Op.SHARED && a.name().equals("add");
            if (used) {
                cb.aload(s);
                lane.run();
                cb.loadConstant(3 * n);
                cb.iadd();
            }
            scalar(arr);
            index.run();
            if (inPlace) {
                cb.dup2();
                cb.arrayLoad(tk);
            }
            for (int i = 2; i < x.in.size(); i++) {
                if (isScalar(x.in(i))) {
                    scalar(x.in(i));
                    continue;
                }
                operand.accept(i);
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

        /** The old values, when read, from the scratch array into the atomic's registers. */
        private void loadResults(Node x, boolean used) {
            if (!used) {
                return;
            }
            Kind k = x.kind;
            int s = scratch.get(k);
            for (int r = 0; r < regs(k); r++) {
                Vec.loadSpecies(cb, k);
                cb.aload(s);
                cb.loadConstant(3 * n + r * lanes(k));
                cb.invokestatic(Vec.vector(k), "fromArray", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k.arrayOf()), CD_int));
                storeVector(x, r);
            }
        }

        /**
         * A warp operation; the group is exactly one warp (the compiler makes it so), lane {@code j} of the group
         * is lane {@code j} of the warp, and the lanes of the current mask are those the reference executor
         * would find waiting ({@link dev.weft.simd.internal.analysis.WarpSync} proves it). A vote is one scalar
         * for the warp; a shuffle goes through the scratch arrays, the source lanes computed by
         * {@link dev.weft.internal.WarpLanes} as in the reference.
         */
        private void warp(Node x) {
            Warp w = (Warp) x.aux;
            if (w.isVote()) {
                // predicate.compare(NE, 0).and(active).toLong() per register, inline: the Vector API's methods are
                // force-inlined, whereas a helper taking a vector and a mask is not inlined once the kernel's method
                // passes C2's DesiredMethodLimit (8000 bytes with what it inlined), and then boxes both per call.
                for (int r = 0; r < regs32; r++) {
                    vector(x.in(0), r, cur);
                    cb.getstatic(Vec.OPERATORS, "NE", Vec.operatorType("NE"));
                    cb.iconst_0();
                    cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, comparisonType(), CD_int));
                    curMask(Kind.INT, r);
                    cb.invokevirtual(Vec.MASK, "and", mt(Vec.MASK, Vec.MASK));
                    cb.invokevirtual(Vec.MASK, "toLong", mt(CD_long));
                    if (r > 0) {
                        cb.loadConstant(r * l32);
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
                storeScalar(x);
                return;
            }
            if (w.name().equals(WarpScans.SCAN_ADD)) {
                warpScanAdd(x);
                return;
            }
            Kind k = x.kind;
            int s = scratch.get(k);
            int args = scratch.get(Kind.INT);
            if (shapeAt(x.in(1), cur) == Shape.UNIFORM && staticWidth(x) > 0) {
                permuteShuffle(x, w, k);
                return;
            }
            storeRegisters(x.in(0), k, s, 0);
            storeRegisters(x.in(1), Kind.INT, args, n);
            cb.aload(s);
            cb.aload(args);
            cb.loadConstant(n);
            activeBits();
            cb.loadConstant(w.mode());
            scalar(x.in(2));
            cb.loadConstant(warpSize);
            cb.invokestatic(Vec.LANES, "shuffle", mt(CD_void, Vec.scalar(k.arrayOf()), CD_int.arrayType(), CD_int, CD_long, CD_int, CD_int, CD_int));
            for (int r = 0; r < regs(k); r++) {
                Vec.loadSpecies(cb, k);
                cb.aload(s);
                cb.loadConstant(3 * n + r * lanes(k));
                cb.invokestatic(Vec.vector(k), "fromArray", mt(Vec.vector(k), Vec.SPECIES, Vec.scalar(k.arrayOf()), CD_int));
                storeVector(x, r);
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
            int active = temp(TypeKind.LONG);
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
            int t = temp(TypeKind.REFERENCE);
            for (int r = 0; r < regs32; r++) {
                vector(x.in(0), r, cur);
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
                vector(x.in(0), r, cur);
                cb.aload(t);
                curMask(Kind.INT, r);
                cb.invokevirtual(Vec.INT_VECTOR, "blend", mt(Vec.INT_VECTOR, Vec.VECTOR, Vec.MASK));
                storeVector(x, r);
            }
            cb.goto_(done);
            cb.labelBinding(lanes);
            int s = scratch.get(Kind.INT);
            storeRegisters(x.in(0), Kind.INT, s, 0);
            cb.aload(s);
            cb.lload(active);
            cb.loadConstant(warpSize);
            cb.invokestatic(Vec.LANES, "scanAddLanes", mt(CD_void, CD_int.arrayType(), CD_long, CD_int));
            for (int r = 0; r < regs32; r++) {
                cb.getstatic(Vec.LANES, "IS", Vec.SPECIES);
                cb.aload(s);
                cb.loadConstant(r * l32);
                cb.invokestatic(Vec.INT_VECTOR, "fromArray", mt(Vec.INT_VECTOR, Vec.SPECIES, CD_int.arrayType(), CD_int));
                storeVector(x, r);
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
            int lanes = lanes(k);
            int regs = regs(k);
            int lg = Integer.numberOfTrailingZeros(lanes);
            int mode = w.mode();
            boolean f = k == Kind.FLOAT;
            Node arg = x.in(1);
            Integer known = storage.get(arg) instanceof Storage.Const c ? ((Number) c.value()).intValue() : null;
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
                q = temp(TypeKind.INT);
                j = temp(TypeKind.INT);
                scalar(arg);
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
            int take = temp(TypeKind.LONG);
            int active = temp(TypeKind.LONG);
            activeBits();
            cb.lstore(active);
            long ones = width == 64 ? -1L : (1L << width) - 1;
            long starts = (warpSize == 64 ? -1L : (1L << warpSize) - 1) / ones;
            switch (mode) {
                case 1, 2 -> {
                    // up: (active << d) & active & starts * (ones & -1L << d); down: >>> and starts * (ones >>> d)
                    int d = temp(TypeKind.INT);
                    scalar(arg);
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
                    scalar(arg);
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
                    scalar(arg);
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
                int sh = temp(TypeKind.REFERENCE);
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
                    moved[r] = temp(TypeKind.REFERENCE);
                    vector(x.in(0), r, cur);
                    cb.aload(sh);
                    cb.invokevirtual(Vec.vector(k), "rearrange", mt(Vec.vector(k), Vec.SHUFFLE));
                    cb.astore(moved[r]);
                }
            }
            if ((mode == 1 || mode == 2) && !(known != null && j == 0)) {
                // the lanes [0, m) a rotation wraps around come from the register before: joined register s is
                // rotated s above lane m, rotated s - 1 below it; the register part then only picks registers
                int from = temp(TypeKind.REFERENCE);
                cb.getstatic(Vec.PERMUTES, f ? "FROM_F" : "FROM_I", Vec.MASK.arrayType());
                pushInt(known, j);
                cb.aaload();
                cb.astore(from);
                int[] joined = new int[regs];
                for (int r = 0; r < regs; r++) {
                    joined[r] = temp(TypeKind.REFERENCE);
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
            int[] out = ((Storage.Vectors) storage.get(x)).slots();
            for (int r = 0; r < regs; r++) {
                vector(x.in(0), r, cur);
                cb.aload(out[r]);
                Vec.loadSpecies(cb, k);
                cb.lload(take);
                if (r > 0) {
                    cb.loadConstant(r * lanes);
                    cb.lushr();
                }
                cb.invokestatic(Vec.MASK, "fromLong", mt(Vec.MASK, Vec.SPECIES, CD_long));
                cb.invokevirtual(Vec.vector(k), "blend", mt(Vec.vector(k), Vec.VECTOR, Vec.MASK));
                storeVector(x, r);
            }
        }

        /**
         * The current mask's lanes as bits, inline ({@code toLong} per register): {@link #curBits()} calls
         * {@code Lanes.bits}, which C2 stops inlining once a kernel's method nears DesiredMethodLimit, and then
         * boxes every mask it passes.
         */
        private void activeBits() {
            inlineBits(curMask(), l32);
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
            int regs = regs(k);
            for (int r = 0; r < regs; r++) {
                int src = switch (mode) {
                    case 1, 2 -> Math.floorMod(r - q, regs);
                    case 3 -> r ^ q;
                    default -> width > lanes(k) ? (r & -(width / lanes(k))) | q : r;
                };
                pushMoved(x, src, moved, identity);
                storeVector(x, r);
            }
        }

        private void pushMoved(Node x, int r, int[] moved, boolean identity) {
            if (identity) {
                vector(x.in(0), r, cur);
            } else {
                cb.aload(moved[r]);
            }
        }

        /** Pushes the index of register {@code r}'s first lane of the affine {@code idx}: base + r * lanes * stride. */
        private void registerOffset(Node idx, int r, Kind ek) {
            base(idx, cur);
            if (r > 0) {
                cb.loadConstant(r * lanes(ek) * idx.stride);
                cb.iadd();
            }
        }

        // ---- calls ----

        private void call(Node x) {
            Fn fn = (Fn) x.aux;
            Kind k = x.kind;
            switch (fn.lowering()) {
                case UNARY -> {
                    for (int r = 0; r < regs(k); r++) {
                        unary(k, fn.vectorOp(), x.in(0), r);
                        storeVector(x, r);
                    }
                }
                case BINARY -> {
                    for (int r = 0; r < regs(k); r++) {
                        binary(k, fn.vectorOp(), x.in(0), x.in(1), r);
                        storeVector(x, r);
                    }
                }
                case FMA -> {
                    for (int r = 0; r < regs(k); r++) {
                        vector(x.in(0), r, cur);
                        cb.getstatic(Vec.OPERATORS, "FMA", Vec.operatorType("FMA"));
                        vector(x.in(1), r, cur);
                        vector(x.in(2), r, cur);
                        cb.invokevirtual(Vec.vector(k), "lanewise", mt(Vec.vector(k), ternaryType(), Vec.VECTOR, Vec.VECTOR));
                        storeVector(x, r);
                    }
                }
                case HELPER -> {
                    String h = fn.helper();
                    int dot = h.lastIndexOf('.');
                    ClassDesc owner = ClassDesc.ofInternalName(h.substring(0, dot));
                    ClassDesc[] ps = x.in.stream().map(a -> Vec.vector(a.kind)).toArray(ClassDesc[]::new);
                    for (int r = 0; r < regs(k); r++) {
                        for (Node a : x.in) {
                            vector(a, r, cur);
                        }
                        cb.invokestatic(owner, h.substring(dot + 1), MethodTypeDesc.of(Vec.vector(k), ps));
                        storeVector(x, r);
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
                int slotNo = used.merge(k, 1, Integer::sum) - 1;
                offset[i] = slotNo * n;
                storeRegisters(a, k, scratch.get(k), offset[i]);
            }
            int resultOffset = 3 * n;
            int j = temp(TypeKind.INT);
            Label loop = cb.newLabel();
            Label end = cb.newLabel();
            cb.iconst_0();
            cb.istore(j);
            cb.labelBinding(loop);
            cb.iload(j);
            cb.loadConstant(n);
            cb.if_icmpge(end);
            cb.aload(scratch.get(rk));
            cb.iload(j);
            cb.loadConstant(resultOffset);
            cb.iadd();
            for (int i = 0; i < x.in.size(); i++) {
                Kind k = x.in(i).kind;
                cb.aload(scratch.get(k));
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
            for (int r = 0; r < regs(rk); r++) {
                Vec.loadSpecies(cb, rk);
                cb.aload(scratch.get(rk));
                cb.loadConstant(resultOffset + r * lanes(rk));
                cb.invokestatic(Vec.vector(rk), "fromArray", mt(Vec.vector(rk), Vec.SPECIES, Vec.scalar(rk.arrayOf()), CD_int));
                storeVector(x, r);
            }
        }

        // ---- control flow -------------------------------------------------------------------

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
                        if (profiling != null) {
                            profiling.branch(cb, profilingCounters, b, cm, c);
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
                    arms.computeIfAbsent(t, k -> cb.newLabel());
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
                    cb.invokevirtual(Vec.INT_VECTOR, "compare", mt(Vec.MASK, comparisonType(), CD_int));
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
            if (profiling != null) {
                profiling.switchBranch(cb, profilingCounters, b, cm, List.copyOf(edgeMasks.values()));
            }
            for (Map.Entry<Block, int[]> e : edgeMasks.entrySet()) {
                edge(b, e.getKey(), e.getValue(), Boolean.TRUE);
            }
        }

        /**
         * The edge {@code b -> s} carrying the threads of int-lane masks {@code em}: copies into s's phis, then
         * hands the threads to s (its mask or its flag).
         */
        private void edge(Block b, Block s, int[] em, Boolean divergent) {
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
                                vector(src, r, b);
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
}
