package dev.weft.simd.internal.gen;

import static dev.weft.simd.internal.gen.Vec.mt;
import static java.lang.constant.ConstantDescs.CD_Object;
import static java.lang.constant.ConstantDescs.CD_String;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.ir.Barrier;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

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
    public record Variant(String method, Layout layout, Uniformity u, MaskPlan plan, int group, Uniformity perRegister) {

        public Variant(String method, Layout layout, Uniformity u, MaskPlan plan) {
            this(method, layout, u, plan, 0, null);
        }

        public Variant(String method, Layout layout, Uniformity u, MaskPlan plan, int group) {
            this(method, layout, u, plan, group, null);
        }

        /** Whether threadIdx.y and .z are uniform in a group (and threadIdx.x affine). */
        public boolean rowAligned() {
            return layout == Layout.LINE || layout == Layout.ROWS;
        }
    }

    /** Which CTA shapes a variant serves. */
    public enum Layout {
        /** {@code blockDim.y == blockDim.z == 1}: threadIdx.x is the linear id, an induction variable of the group loop. */
        LINE,
        /** A group lies within one x-row ({@code blockDim.x} a multiple of the group size). */
        ROWS,
        /**
         * Each register of a group lies within one x-row ({@code blockDim.x} a multiple of the register's 32-bit
         * lanes), the group may span rows: threadIdx.x is affine and threadIdx.y, .z uniform per register, not per
         * group. The variant's {@link Variant#perRegister} analysis says which values are; they get one scalar per
         * register ({@link Storage.PerRegister}, {@link Storage.RegisterAffine}), the rest is the general code.
         */
        REGISTER_ROWS,
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
     * ({@link StrideLoopCode#interleavedPause}); {@code -Dweft.simd.interleave=false} turns it off, to compare.
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
     * The iterations between a group's pauses in an interleaved stride loop, for groups of {@code threads}:
     * {@link #INTERLEAVE_ITERATIONS} for 32 threads or fewer (the group it was measured for), that many per 32 threads
     * of a wider group (a variant's own group: a narrow variant pauses sooner). Measured for groups of two
     * warps (the reduction against its algorithm by hand, PairedBenchmark, AVX-512, after each run's first iteration):
     * 32 iterations 0.50-0.77, 16 0.47-0.65, 64 0.54-0.56.
     */
    public static int interleaveIterations(int threads) {
        return INTERLEAVE_ITERATIONS * Math.max(1, threads / 32);
    }

    /**
     * Whether an interleaved stride loop whose carried values are all scalars (affine indexes, uniform counters) runs
     * round-robin across the CTA's groups in its pause's method ({@link StrideLoopCode#roundRobinLoop}): one iteration
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
    /** The most header and body nodes of a loop run round-robin: its body is emitted once more in the pause's method. */
    static final int ROUND_ROBIN_NODES = 32;

    /**
     * Spills in a resume point's method leave out the kept locals its phase never writes ({@code
     * SpillPlan.unchangedSinceRestore}); false for A/B runs.
     */
    static final boolean SKIP_UNCHANGED_SPILLS = !"false".equals(System.getProperty("weft.simd.skipUnchangedSpills"));

    /**
     * A resume point's method passes over a group that would only wait at the same barrier again, every thread on
     * the idle side of the phase's divergent branch (the levels of a tree reduction where {@code tid < stride}
     * holds for none of the group), computing just the uniform scalars on its way there ({@code
     * IdleSkips.idleSkip}); false for A/B runs.
     */
    static final boolean SKIP_IDLE_GROUPS = !"false".equals(System.getProperty("weft.simd.skipIdleGroups"));

    /**
     * Groups that {@code IdleSkips.idleSkip} passes over run on in a small loop of their own ({@code
     * IdleSkips.idleRun}) rather than round the whole group loop; {@code -Dweft.simd.idleRuns=false} turns it off,
     * to compare. Measured together with the then switch {@code uniformSharedOncePerPhase} (see {@link
     * #SHARED_ONCE_PER_PHASE}) and {@code Phases.ONE_PASS_NEXT}
     * (PairedBenchmark weft/vectorApi, medians of 6 iterations, all on / all off back to back, 2 shared cores):
     * reduction 0.31 / 0.19, 0.33 / 0.29 (a third pair disturbed by a test run), and with uniformSharedOncePerPhase
     * off in both 0.24 / 0.19; the tree alone (the reduction's
     * kernel over n = 0, 256 CTAs, CPU ms per launch) 0.54-0.60 on, 0.67-0.70 with only this off.
     */
    static final boolean IDLE_RUNS = !"false".equals(System.getProperty("weft.simd.idleRuns"));

    /**
     * Idle ways ({@code IdleSkips.idleSkip}) also where a whole group reaches the next barrier (or returns) by a plain
     * jump or a uniform branch, with no lane test ({@code IdleSkips.idleWalkOrArrive}): the scan's warps other than
     * the first, which only wait while warp 0 scans the warps' totals. {@code -Dweft.simd.uniformIdleWays=false}
     * turns it off, to compare. Measured (scan, PairedBenchmark as for {@link #IDLE_RUNS}, all four switches on / off):
     * 0.30 / 0.22, 0.27 / 0.23, 0.26 / 0.25.
     */
    static final boolean UNIFORM_IDLE_WAYS = !"false".equals(System.getProperty("weft.simd.uniformIdleWays"));

    /**
     * Vector values linked through phis share one spill column where no barrier keeps two of them ({@code
     * SpillPlan.sharePhiColumns}), so that a phase that only hands them on through a loop's phis neither restores nor
     * spills them; {@code -Dweft.simd.phiColumns=false} turns it off, to compare.
     */
    static final boolean PHI_COLUMNS = !"false".equals(System.getProperty("weft.simd.phiColumns"));

    /**
     * The last active thread's value of a store to one element read from its register ({@code lane}), not stored
     * with the whole group to scratch and read back: the read of one lane just after the vector stores could not
     * be forwarded from them and waited for them to reach the cache (8% of the scan's first phase, whose warps
     * each store lane 31's sum). {@code -Dweft.simd.laneInRegister=false} for A/B.
     */
    static final boolean LANE_IN_REGISTER = !"false".equals(System.getProperty("weft.simd.laneInRegister"));

    /** The largest stride, either way, of a store done as one scalar store per lane (see {@code MemoryOps.stridedStore}). */
    static final int MAX_STORE_STRIDE = 1 << 20;

    /** Stores at a constant stride as one scalar store per lane ({@code MemoryOps.stridedStore}); false for A/B runs. */
    static final boolean STRIDED_STORES = !"false".equals(System.getProperty("weft.simd.stridedStores"));

    /**
     * Whether a store of {@code kind} values into {@code arr} at an affine index of {@code stride} is a strided store
     * ({@code MemoryOps.stridedStore}) where the group is whole and in range: the code generator's rule, and the listing's.
     */
    static boolean stridedStoreApplies(Node arr, int stride, Kind kind) {
        return STRIDED_STORES && arr.op == Op.SHARED && stride != 0 && stride != 1 && Math.abs(stride) <= MAX_STORE_STRIDE
                && kind != Kind.BOOL;
    }

    /**
     * Whether an atomic whose indices a contiguous load just read takes each thread's index from the source array
     * again rather than from the vector ({@code AtomicOps#contiguousSource}); false for A/B runs
     * ({@code -Dweft.simd.rereadAtomicIndices=false}). Measured here (Zen 4, paired histogram, weft/vectorApi per
     * iteration, on against off in alternating runs): 0.30-0.75 against 0.15-0.24 with 512-bit vectors (off: the
     * loop over scratch); 0.21-0.84 against 0.05-0.40 with {@code -XX:UseAVX=2} (off: the unrolled updates). A
     * session on the Zen 3 machine had found a re-read slower than the unrolled updates there (0.42-0.52 against
     * 0.55-0.73), in a version since lost; not measured again.
     */
    static final boolean REREAD_ATOMIC_INDICES = !"false".equals(System.getProperty("weft.simd.rereadAtomicIndices"));

    /**
     * The most lanes a group may have for {@code AtomicOps#unmaskedAtomic} to unroll its updates (about 12 bytes of
     * bytecode per lane): more would eat into the JIT's 8000-byte limit for little gain. 0 (no unrolling) where the
     * vectors are 512 bits: the unrolled updates read each index with {@code lane(j)}, which measured 2.3 times
     * faster than a loop over the indices stored to scratch on the AVX2 Zen 3 machine the unrolling was made for,
     * but 4 to 5 times slower on the AVX-512 Zen 4 machine here (paired histogram, weft/vectorApi per iteration:
     * unrolled 0.04-0.06, loop 0.20-0.31; also with {@code -XX:UseAVX=2}: 0.05-0.09 against 0.20-0.31). AVX-512
     * is the proxy for the newer core: Zen 3 has none. {@code -Dweft.simd.unrolledAtomicLanes=N} overrides.
     */
    static final int UNROLLED_ATOMIC_LANES = Integer.getInteger("weft.simd.unrolledAtomicLanes",
            Lanes.IS.vectorBitSize() >= 512 ? 0 : 32);

    /**
     * Whether {@code AtomicOps#unmaskedAtomic} tests a group's indices with one compare of their lanewise unsigned
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
     * Barriers.hoistedShared}); {@code -Dweft.simd.sharedOncePerPhase=false} turns it off, to compare. Measured
     * (tiled sgemm, PairedBenchmark weft/vectorApi per 1-s iteration, flag on/off back to back, 2 cores shared with
     * other builds): quiet pairs on 0.217-0.228 / off 0.170-0.206, on 0.222-0.235 / off 0.204-0.214, off 0.208-0.215 /
     * on 0.222-0.232 (then disturbed), off 0.175-0.191 / on 0.192-0.225; one pair under load 7 the other way (on
     * 0.203-0.228 / off 0.214-0.289). Register-blocked sgemm on 0.272-0.285 / off 0.235-0.283; transpose on
     * 0.655-0.760 / off 0.622-0.698; reduction (its array's length is blockDim.x: not fetched so) within noise. Per
     * group of the tile-loading phase it drops the reference row's array loads and two type checks, and C2 hoists
     * the tiles' lengths out of the group loop (perfasm). Arrays whose length is the same for the whole CTA but not
     * a constant ({@code sharedFloats(blockDim.x)}, the tree reduction's) are not fetched so: computing the length
     * again in the phase prologue did not measurably win (the reduction's tree alone, 256 CTAs, CPU ms per launch:
     * 0.54-0.60 with it, 0.52-0.58 without; only about 20 of 144 resumes per CTA restore the array, the others are
     * passed over), and was removed in session 20.
     */
    static final boolean SHARED_ONCE_PER_PHASE = !"false".equals(System.getProperty("weft.simd.sharedOncePerPhase"));


    final Graph g;
    final Cfg cfg;
    final int warpSize;
    /** Threads per group. */
    final int n;
    /** 32-bit registers per group. */
    final int regs32;
    /** 64-bit registers per group. */
    final int regs64;
    final int l32 = Lanes.L32;
    final int l64 = Lanes.L64;
    private final Map<String, Integer> methodSizes = new LinkedHashMap<>();
    /** See {@link #withoutIdleSkips}. */
    boolean skipIdleGroups = SKIP_IDLE_GROUPS;
    /** See {@link #withoutTouches}. */
    boolean touches = Touches.TOUCH_PASS;
    /**
     * Whether kernels without barriers run a grid row of CTAs per call (runCtaRow); {@code -Dweft.simd.ctaRows=false}
     * turns it off, to measure what it buys.
     */
    private static final boolean CTA_ROWS = !"false".equals(System.getProperty("weft.simd.ctaRows"));

    /** Set for the profiling variant only: the ordinary variant's code has no trace of profiling. */
    Profiling profiling;
    private boolean strideLoops = FAST_STRIDE_LOOPS;
    /** See {@link #withCompactMasks}. */
    boolean compactMasks;
    /** See {@link #withSpillCalls}. */
    boolean spillCalls;
    /** SSA liveness at the end of each block, computed once per kernel (see MethodGen#liveOut). */
    Map<Block, Set<Node>> liveOut;
    /** Gathers' index checks as calls to Lanes helpers (see {@link #withCompactGathers}). */
    boolean compactGathers;
    /** Whether the last generation emitted a gather's index checks inline (see {@link #withCompactGathers}). */
    boolean inlineGathers;
    /** Strided stores kept with compact gathers (see {@link #withStridedStoresKept}). */
    boolean keepStridedStores;
    /** Whether the last generation left out a strided store for compact gathers (see {@link #withStridedStoresKept}). */
    boolean skippedStridedStores;
    private boolean noResumeMethods;
    /** The class {@link #generate} is generating, and its variant methods' type. */
    ClassDesc className;
    MethodTypeDesc variantType;
    /** Blocks that end at a barrier (their last node), in the order of their barrier's number. */
    final List<Block> barrierBlocks = new ArrayList<>();
    /** Values kept across each barrier, per variant method, for the listing. */
    final Map<String, Map<Block, List<String>>> keptAcross = new LinkedHashMap<>();

    public CodeGen(Graph g, Cfg cfg, int warpSize, int groupSize) {
        // -Dweft.simd.compactMasks=true: compact masks from the first group on, read per compile so that a test can
        // run kernels of every size through them (FuzzTest). Slower code; for testing.
        this.compactMasks = Boolean.getBoolean("weft.simd.compactMasks");
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
        barrierBlocks.sort(BY_BARRIER_ID);
    }

    /*
     * Here and below, named and anonymous classes where lambdas would do: each lambda (and method reference) spins
     * a class the first time it runs, a cost of every first compile in a JVM (see Compiler's implementation notes).
     */

    /** Barrier blocks in the order of their barriers' ids. */
    private static final Comparator<Block> BY_BARRIER_ID = new Comparator<>() {
        @Override
        public int compare(Block x, Block y) {
            return Integer.compare(barrierOf(x).id(), barrierOf(y).id());
        }
    };

    static Barrier barrierOf(Block b) {
        return (Barrier) b.nodes.getLast().aux;
    }

    /** Whether the kernel has barriers: its CTAs then run in phases ({@link Phases}). */
    boolean phased() {
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
     * For a kernel otherwise over {@link #HUGE_METHOD_LIMIT}: makes mask conversions calls to small {@link Lanes}
     * helpers instead of inline Vector API calls, 3 bytes less each, at the risk the inline form avoids (past C2's
     * NodeCountInliningCutoff a helper is not inlined and the mask it returns is boxed); and makes the masks of lane
     * types other than int where they are used ({@code MethodGen.lazyLaneKinds}), not at each block's start and
     * again after each fault. That costs speed: black-scholes, whose general method fits without it, ran at 0.92 of
     * the hand-written code with every mask made where used against 1.05-1.2 without.
     */
    public CodeGen withCompactMasks(boolean compact) {
        this.compactMasks = compact;
        return this;
    }

    /** Whether this generation makes compact masks ({@link #withCompactMasks}). */
    public boolean compactMasks() {
        return compactMasks;
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
     * With {@link #withCompactGathers}, still emits the strided stores into shared arrays ({@code MemoryOps.stridedStore}):
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

    /** Resume-point methods without their phases' touch passes ({@link Touches}): when those make them too large. */
    public CodeGen withoutTouches() {
        this.touches = false;
        return this;
    }

    /** Whether resume-point methods have their phases' touch passes (where a phase has a loop that gets one). */
    public boolean touches() {
        return touches;
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
     * Whether generated classes carry stack maps ({@code -Dweft.simd.stackMaps=true}); by default they are class file
     * version {@value #CLASS_VERSION_WITHOUT_STACK_MAPS} (Java 5), which needs none: the JVM's verifier infers the
     * types itself when it defines the class, in C++, where the ClassFile API computes the maps in Java, which in a
     * fresh JVM runs interpreted. Measured (FirstCompileBenchmark, the first kernel compiled at once after the device
     * was created, 5 fresh JVMs each, alternating, medians): tiled sgemm 56 to 42 ms, reduction 41 to 36, scan 56 to
     * 42, the four kernels without barriers within noise (32-46 ms either way); class definition took 3-5 ms instead
     * of 0.4-1.4. Compiled half a second later after two other kernels (warm), the maps' cost is smaller than the
     * verifier's: tiled sgemm 14 to 19 ms, scan 11 to 13, the others within noise. The generated code uses nothing
     * a Java 5 class cannot: no invokedynamic, no constant dynamic, no static interface methods, no method handle
     * constants.
     */
    public static final boolean STACK_MAPS = Boolean.getBoolean("weft.simd.stackMaps");

    /**
     * Whether a class with a method over the JIT's limit loses its dead code and dead stores ({@link BytecodeTrim});
     * {@code -Dweft.simd.trim=false} turns it off, to compare. Not every class: in a cold JVM the pass cost a first
     * compile some 20-40 ms (FirstCompileBenchmark, scan 54 ms without, 75-100 with), for no measured gain: scan with
     * its methods per resume point trimmed read 0.42, 0.41, 0.48, 0.38 and 0.44 of the hand-written code in five
     * PairedBenchmark pairs, untrimmed 0.47, 0.48, 0.40, 0.42 and 0.46 (its forks spread that much); the tiled sgemm
     * 0.203 against 0.210, the reduction the same.
     */
    public static final boolean TRIM = !"false".equals(System.getProperty("weft.simd.trim"));

    /** A generated class and the code length of its largest method. */
    public record Fitted(byte[] bytes, int largest) {
    }

    /**
     * Whether a class still over the JIT's limit after the trim gets its most used locals in the one-byte slots
     * ({@link HotLocals}); {@code -Dweft.simd.hotLocals=false} turns it off, to compare.
     */
    static final boolean HOT_LOCALS = !"false".equals(System.getProperty("weft.simd.hotLocals"));

    /**
     * The class, without dead code and dead stores where a method is over the JIT's limit ({@link #TRIM}), then with
     * its most used locals in the one-byte slots where one still is ({@link #HOT_LOCALS}).
     */
    public static Fitted fit(byte[] bytes) {
        int largest = largestMethod(bytes);
        if (TRIM && largest > HUGE_METHOD_LIMIT) {
            bytes = BytecodeTrim.trim(CLASS_FILE, bytes);
            largest = largestMethod(bytes);
        }
        if (HOT_LOCALS && largest > HUGE_METHOD_LIMIT) {
            bytes = HotLocals.apply(CLASS_FILE, bytes);
            largest = largestMethod(bytes);
        }
        return new Fitted(bytes, largest);
    }

    /** The code length of the class's largest method. */
    public static int largestMethod(byte[] bytes) {
        int max = 0;
        for (MethodModel m : CLASS_FILE.parse(bytes).methods()) {
            Optional<CodeAttribute> code = m.findAttribute(Attributes.code());
            if (code.isPresent()) {
                max = Math.max(max, code.get().codeLength());
            }
        }
        return max;
    }
    static final int CLASS_VERSION_WITHOUT_STACK_MAPS = 49;

    /**
     * The ClassFile context of every generation. Stack maps merge the generated code's reference types (vectors,
     * masks, arrays, Weft's classes): the resolver answers from the loaded classes, and once per type per JVM.
     * Its cache is a ConcurrentHashMap: {@code cached()}'s default is a HashMap, whose computeIfAbsent threw
     * ConcurrentModificationException when the warm-up and a user's compile resolved types at once (the user's
     * kernel then fell back to the reference executor).
     */
    private static final ClassFile CLASS_FILE = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
            ClassHierarchyResolver.ofClassLoading(CodeGen.class.getClassLoader())
                    .orElse(ClassHierarchyResolver.defaultResolver()).cached(new ResolverCache())));

    /**
     * The resolver's cache of {@link #CLASS_FILE}. Not {@code ConcurrentHashMap::new}: a method reference spins a class
     * the first time it runs, in every first compile (see Compiler's implementation notes).
     */
    private static final class ResolverCache implements Supplier<Map<ClassDesc, ClassHierarchyResolver.ClassHierarchyInfo>> {
        @Override
        public Map<ClassDesc, ClassHierarchyResolver.ClassHierarchyInfo> get() {
            return new java.util.concurrent.ConcurrentHashMap<>();
        }
    }

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
        ClassDesc[] ptypes = new ClassDesc[params.size()];
        for (int i = 0; i < ptypes.length; i++) {
            ptypes[i] = Vec.scalar(params.get(i).kind());
        }
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
        return cf.build(name, new Consumer<ClassBuilder>() {
            @Override
            public void accept(ClassBuilder clb) {
                classBody(clb, name, variants, ptypes);
            }
        });
    }

    /** The class {@link #generate} makes: fields, constructor, factory, entry points and the variants' methods. */
    private void classBody(ClassBuilder clb, ClassDesc name, List<Variant> variants, ClassDesc[] ptypes) {
        List<Param> params = g.params;
        if (!STACK_MAPS) {
            clb.withVersion(CLASS_VERSION_WITHOUT_STACK_MAPS, 0);
        }
        clb.withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC);
        clb.withInterfaceSymbols(Vec.CTA_PROGRAM);
        for (Param p : params) {
            clb.withField("p" + p.index(), Vec.scalar(p.kind()), ClassFile.ACC_PRIVATE | ClassFile.ACC_FINAL);
        }
        clb.withMethodBody(ConstantDescs.INIT_NAME, MethodTypeDesc.of(CD_void, ptypes), ClassFile.ACC_PUBLIC, new Consumer<CodeBuilder>() {
            @Override
            public void accept(CodeBuilder cb) {
                constructor(cb, name, params);
            }
        });
        MethodTypeDesc fromArrayType = MethodTypeDesc.of(Vec.CTA_PROGRAM, CD_Object.arrayType());
        clb.withMethodBody(FROM_ARRAY, fromArrayType, ClassFile.ACC_STATIC, new Consumer<CodeBuilder>() {
            @Override
            public void accept(CodeBuilder cb) {
                fromArray(cb, name, params, ptypes);
            }
        });
        clb.withMethodBody("runCta", mt(CD_void, Vec.CTA), ClassFile.ACC_PUBLIC, new RunCta(name, variants, variantType));
        if (!phased() && profiling == null && CTA_ROWS) {
            clb.withMethodBody("runCtaRow", mt(CD_void, Vec.CTA, CD_int), ClassFile.ACC_PUBLIC, new Consumer<CodeBuilder>() {
                @Override
                public void accept(CodeBuilder cb) {
                    ctaRow(cb, name, variants, variantType);
                }
            });
        }
        for (Variant v : variants) {
            v.u().apply();
            clb.withMethodBody(v.method(), variantType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, new VariantBody(v, -1));
            resumeMethods(clb, v);
        }
    }

    /** The constructor: each parameter into its field. */
    private static void constructor(CodeBuilder cb, ClassDesc name, List<Param> params) {
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
    }

    /** The body of {@code runCta} ({@link #runCta}). */
    private final class RunCta implements Consumer<CodeBuilder> {
        private final ClassDesc name;
        private final List<Variant> variants;
        private final MethodTypeDesc type;

        RunCta(ClassDesc name, List<Variant> variants, MethodTypeDesc type) {
            this.name = name;
            this.variants = variants;
            this.type = type;
        }

        @Override
        public void accept(CodeBuilder cb) {
            runCta(cb, name, variants, type);
        }
    }

    /** The body of a variant's method, or with {@code resumeAt >= 0} of its method per that resume point. */
    private final class VariantBody implements Consumer<CodeBuilder> {
        private final Variant v;
        private final int resumeAt;

        VariantBody(Variant v, int resumeAt) {
            this.v = v;
            this.resumeAt = resumeAt;
        }

        @Override
        public void accept(CodeBuilder cb) {
            new MethodGen(CodeGen.this, cb, v, resumeAt).emit();
        }
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
                        clb.withMethodBody("runCta", mt(CD_void, Vec.CTA), ClassFile.ACC_PUBLIC, new RunCta(name, variants, type));
                        for (Variant v : variants) {
                            resumeMethods(clb, v);
                        }
                    }));
            return fit(CLASS_FILE.transformClass(cm, t)).bytes();
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
            clb.withMethodBody(v.method() + "$" + r, variantType, ClassFile.ACC_STATIC | ClassFile.ACC_PRIVATE, new VariantBody(v, r));
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
    Map<Block, Set<Node>> computeLiveOut() {
        Map<Block, Set<Node>> in = new HashMap<>();
        Map<Block, Set<Node>> out = new HashMap<>();
        Map<Block, Set<Node>> phis = new HashMap<>();
        for (Block b : g.blocks) {
            in.put(b, new HashSet<>());
            out.put(b, new HashSet<>());
            Set<Node> p = new HashSet<>();
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
                Set<Node> li = new HashSet<>();
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
     * Whether {@code v}, in a class whose groups have {@code group} threads, serves CTAs of blockDim {@code x},
     * {@code y}, {@code z}: the test {@link #layoutTest} generates, in Java.
     */
    public static boolean serves(Variant v, int group, int x, int y, int z) {
        int vn = v.group() > 0 ? v.group() : group;
        if (v.layout() == Layout.LINE) {
            return y * z == 1;
        } else if (v.layout() == Layout.ROWS) {
            return x % vn == 0 || y * z == 1;
        } else if (v.layout() == Layout.REGISTER_ROWS) {
            return x % Lanes.L32 == 0;
        }
        return true;
    }

    /**
     * Jumps to {@code next} unless the CTA's shape (blockDim.x, .y, .z in locals {@code xSlot} on) is one the
     * variant serves: line (1D), rows (groups within x-rows), or general (any). {@link #serves} is the same test.
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
        if (v.layout() == Layout.REGISTER_ROWS) {
            cb.iload(xSlot);
            cb.loadConstant(Lanes.L32);
            cb.irem();
            cb.ifne(next);
        } else if (v.layout() != Layout.GENERAL) {
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
     * stride loop of a variant ({@link StrideLoopCode#interleavedPause}) is a resume point too, {@code Phases.YIELD + k}:
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
     * The headers of the variant's interleaved stride loops ({@link StrideLoopCode#interleavedPause}), in linear order:
     * every method of the class numbers them, and lays out their spills, alike. Applies the variant's analysis.
     */
    List<Block> interleavedHeaders(Variant v) {
        if (!phased() || !INTERLEAVE || !stridePaths()) {
            return List.of();
        }
        v.u().apply();
        List<Map.Entry<Cfg.Loop, StrideLoops.StrideLoop>> loops = new ArrayList<>(new StrideLoops(g, cfg, v.u(), v.plan()).loops.entrySet());
        loops.sort(new Comparator<Map.Entry<Cfg.Loop, StrideLoops.StrideLoop>>() {
            @Override
            public int compare(Map.Entry<Cfg.Loop, StrideLoops.StrideLoop> x, Map.Entry<Cfg.Loop, StrideLoops.StrideLoop> y) {
                return Integer.compare(cfg.position.get(x.getKey().header), cfg.position.get(y.getKey().header));
            }
        });
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

}
