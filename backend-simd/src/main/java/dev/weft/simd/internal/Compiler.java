package dev.weft.simd.internal;

import dev.weft.Dim3;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.Pressure;
import dev.weft.simd.internal.analysis.SharedAllocations;
import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.analysis.WarpSync;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.front.LoopFission;
import dev.weft.simd.internal.front.Parser;
import dev.weft.simd.internal.front.WarpScans;
import dev.weft.simd.internal.gen.C1Exclusion;
import dev.weft.simd.internal.gen.CodeGen;
import dev.weft.simd.internal.gen.HiddenClasses;
import dev.weft.simd.internal.gen.Lanes;
import dev.weft.simd.internal.gen.Listing;
import dev.weft.simd.internal.gen.Profiling;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import dev.weft.simd.internal.ir.SReg;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.constant.ClassDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pipeline: bytecode to IR, control flow and uniformity analyses, masks, code generation, hidden class.
 * One compilation per implementation method and warp size; see {@link SimdBackend} for the cache.
 *
 * <p>Implementation notes: compile time. Once the JVM has JIT-compiled the compiler, a kernel takes 5 to 30 ms
 * of CPU (measured here by sampling the compiling thread, 15 rounds of 5 benchmark kernels): most of it the
 * ClassFile API writing 3 or 4 variants and their stack maps. A first compile in a fresh JVM costs 150 to 250
 * ms of CPU, and there the time goes to one-time work: some 40% linking invokedynamic sites (the compiler's
 * lambdas, string concatenations, records' equals and hashCode: each spins a class the first time it runs),
 * class loading, and code running interpreted. Hence: no {@code String.format} (its first use loads the
 * locale data), string concatenation compiled inline (see the module's pom), hand-written equals and hashCode
 * where a record is a hot map key, and on the path every compile takes no lambdas, method references, streams or
 * pattern switches: loops, instanceof chains, get and put for computeIfAbsent, and named or anonymous classes where
 * an API wants a function (the ClassFile API's builders). Measured without the warm-up, in fresh JVMs (medians of
 * 6): a saxpy compile loaded 283 classes instead of 463 (the rest are the ClassFile API's, the Vector API's and
 * the compiler's own) and took 67 ms of the compiling thread's CPU instead of 100, the tiled sgemm 100 instead of
 * 144 (see README's first-launch section). Also: each analysis computed once per compilation, and the warm-up
 * ({@link WarmUp}) taking the compiler down every kind of path once in the background. Kernels with many
 * parameters paid besides for the binder's method-handle chain (see {@link Binder}). A launch's compile generates
 * only the variant its CTA shape runs ({@link Menu}); a report generates them all.
 *
 * <p>Tried and rejected: the CTA-shape variants as a second tier. A first compile that generated only the general
 * variant (with barriers, the rowAligned one too, whose kept values the listing shows), the whole class following
 * from a background compile that the binders then took (as {@link Resumed} does), cut a warm compile's CPU by a
 * quarter to a third (compiling thread, median of 20 rounds of the seven first-compile benchmark kernels: saxpy
 * 4.9 to 3.6 ms, black-scholes 13.2 to 8.5, tiled sgemm 15.0 to 10.6, scan 16.7 to 12.6). But the first launches
 * run interpreted until C2 compiles the kernel, and there the general variant (threadIdx.x, .y and .z varying per
 * lane) is far slower than the line one: the first launch of a 65,536-thread saxpy, 4 s after the device was
 * created, took 6.4 to 9.1 s instead of 1.3 to 1.4 (2 runs each, busy machine). A launch binds once, so the
 * whole first launch ran the general variant. The compile got cheaper and the first launch dearer.
 *
 * <p>Kernels with barriers cost more: a method per resume point and variant besides the general one (see
 * CodeGen's resumePoints), each about the general method's size, so a block scan generates 12 methods of some 7500
 * bytes. The class is generated first without them (a size too large for the group is found at that price), then
 * they are added to it ({@link CodeGen#withResumeMethods}, the general methods kept as they are). Sampled, the time
 * is the methods' emission and the ClassFile API's label and stack map work, not the per-method planning. Measured
 * (compiling thread's CPU, fresh JVMs, 0.5 s after the device was created and after two other kernels): the
 * methods per resume point took 60 to 86 ms of a 106 to 160 ms compile of the phased benchmark kernels. So they
 * come from a second tier ({@link Resumed}): the compile returns the class with the general methods, which
 * compute the same results, and a background thread adds the methods per resume point and switches the kernel's
 * binders to the new class; the compile then took 39 to 53 ms of CPU. {@code -Dweft.simd.backgroundResume=false}
 * generates them within the compile, as before.
 */
final class Compiler {

    /** Overrides the threads per group, for experiments (a multiple of the 32-bit lanes of a register, at most 64). */
    static final int GROUP_OVERRIDE = Integer.getInteger("weft.simd.group", 0);
    /**
     * Whether kernels with shared memory get a variant for CTAs whose rows are a multiple of a register but not of the
     * group, with the values uniform in each register kept as a scalar per register ({@link CodeGen.Layout#REGISTER_ROWS},
     * {@code RegisterRows}): by default with 16-lane registers where it replaces a narrow variant of one register (16 x 16
     * tiles: groups of 32 threads instead of 16), {@code -Dweft.simd.registerRows=true} for every group size and register
     * width, {@code =false} for none. With 8-lane registers the default leaves the code as it was: the tiled sgemm's
     * groups there are 16 threads in two registers, which the row-aligned variant serves, and the one-register narrow
     * groups of 8 (CTA rows of 8 or 24) are unmeasured.
     *
     * <p>Measured, PairedBenchmark sgemm (16 x 16 tiles), weft/vectorApi over each run's six iterations, on against off
     * in back-to-back runs on the shared 2-core Zen 4: AVX-512 0.222-0.228/0.173-0.197, 0.203-0.209/0.185-0.194,
     * 0.197-0.203/0.203-0.213, 0.201-0.207/0.181-0.187, 0.229-0.239/0.196-0.201, 0.203-0.221/0.187-0.249,
     * 0.175-0.274/0.163-0.235, 0.190-0.197/0.194-0.201, 0.205-0.210/0.180-0.185 (the runs' medians 0.209 against
     * 0.193 on average, higher in seven of nine); the sgemm's first compile (FirstCompileBenchmark, two kernels
     * before, compiling thread's CPU, ten forks each) 19.0-22.3 ms against 16.4-29.1. With -XX:UseAVX=2
     * 0.282-0.295/0.246-0.257, 0.266-0.275/0.268-0.283, 0.274-0.285/0.287-0.301, 0.261-0.264/0.255-0.265, where the
     * tiles ran the row-aligned variant either way (groups of 16 in two registers): that variant's spread.
     */
    static final String REGISTER_ROWS = System.getProperty("weft.simd.registerRows", "auto");
    /** {@code -Dweft.simd.warpScans=false} keeps warp-scan loops as loops ({@link WarpScans}): for A/B runs and tests. */
    static final boolean FOLD_WARP_SCANS = !"false".equals(System.getProperty("weft.simd.warpScans"));
    /**
     * {@code -Dweft.simd.compactStridedStores=false}: a kernel that fits only with compact gathers loses its strided
     * stores ({@link CodeGen#withStridedStoresKept}), as before; for A/B runs.
     */
    static final boolean COMPACT_STRIDED_STORES = !"false".equals(System.getProperty("weft.simd.compactStridedStores"));
    /**
     * {@code -Dweft.simd.loopFission=false} keeps loops of many independent accumulators whole ({@link LoopFission}):
     * for A/B runs and tests.
     */
    static final boolean LOOP_FISSION = !"false".equals(System.getProperty("weft.simd.loopFission"));

    private static final AtomicInteger SERIAL = new AtomicInteger();

    /**
     * The largest method the compact masks are tried for before a smaller group: the conversions alone save 3 bytes
     * each, some 2% of a kernel (register-blocked sgemm in groups of 16: 10051 bytes, 9865 compact), so a kernel
     * further over the limit than 10% skips that generation (a cold JVM's first compile of that kernel spent some
     * 30 ms of CPU on it) and goes to the smaller group at once. In the last group they are always tried: the
     * alternative is the reference executor.
     */
    private static final int COMPACT_MASKS_REACH = CodeGen.HUGE_METHOD_LIMIT + CodeGen.HUGE_METHOD_LIMIT / 10;

    /**
     * What a compilation produced, shared by every lambda class with this implementation method.
     *
     * @param entry the generated class's constructor, parameters in {@link #params} order, and its static factory
     * @param params the kernel's parameters: captured values, then static fields
     * @param listing the teaching view, built when first asked for
     * @param compileNanos how long the compilation took
     * @param profiling the counters, for a profiling variant; null for the ordinary code
     * @param menu the kernel's variants, to choose which one a launch's CTA shape runs
     * @param own the one variant this code has, where it was compiled for a CTA shape; null where it has them all
     */
    record Code(Entry entry, List<Param> params, LazyListing listing, long compileNanos,
            Profiling profiling, Resumed resumed, Menu menu, Menu own) {

        /** Whether this code runs CTAs of shape {@code block}. */
        boolean serves(Dim3 block) {
            return own == null || own.serves(block);
        }
    }

    /**
     * A kernel's CTA-shape variants in runCta's dispatch order, for the first group size the compiler tries: which
     * one CTAs of a given shape run. A launch's compile generates only that one (a class with the others is
     * compiled when a report asks for the listing, or a profiled launch). Measured (FirstCompileBenchmark, the
     * first kernel compiled at once after the device was created, 5 fresh JVMs each, medians): saxpy 69 to 30 ms,
     * black-scholes 73 to 61, n-body 74 to 50, mandelbrot 47 to 26, reduction 99 to 51, scan 76 to 65, tiled
     * sgemm 105 to 77. Codes are cached by the menu's choice, so every shape the menu gives one variant runs one
     * code; a kernel too large for the first group tried compiles in smaller groups, where the variant that serves
     * the compile's shape may not serve every shape of that choice, so a launch checks ({@link Code#serves}) and
     * where it does not, compiles for its own shape.
     */
    static final class Menu {
        private final List<CodeGen.Variant> variants;
        private final int group;

        private Menu(List<CodeGen.Variant> variants, int group) {
            this.variants = variants;
            this.group = group;
        }

        /** The variants' names, layouts and groups, without their analyses (a menu outlives the compile). */
        static Menu of(List<CodeGen.Variant> variants, int group) {
            List<CodeGen.Variant> bare = new ArrayList<>();
            for (CodeGen.Variant v : variants) {
                bare.add(new CodeGen.Variant(v.method(), v.layout(), null, null, v.group(), null));
            }
            return new Menu(List.copyOf(bare), group);
        }

        /** The variant that CTAs of shape {@code block} run; null if none does. */
        String choose(Dim3 block) {
            for (CodeGen.Variant v : variants) {
                if (CodeGen.serves(v, group, block.x(), block.y(), block.z())) {
                    return v.method();
                }
            }
            return null;
        }

        boolean serves(Dim3 block) {
            return choose(block) != null;
        }
    }

    /**
     * A compilation's listing, written on the first {@link #get}: a launch never reads it, so a first launch does not
     * pay for it (some 5-10 ms of a cold JVM's first compile). It keeps the kernel's graph until then. The background
     * compile of a kernel's methods per resume point applies each variant's shapes to the graph's nodes, as the
     * listing does: it holds this object's lock meanwhile (until session 18 such kernels wrote the listing within
     * their compile instead).
     */
    static final class LazyListing {
        private String text;
        private Graph g;
        private Cfg cfg;
        private String header;
        private List<Listing.Variant> listed;
        private boolean stridePaths;
        private final int group;
        private List<CodeGen.Variant> variants;

        LazyListing(Graph g, Cfg cfg, String header, List<Listing.Variant> listed, boolean stridePaths, int group,
                List<CodeGen.Variant> variants) {
            this.g = g;
            this.cfg = cfg;
            this.header = header;
            this.listed = listed;
            this.stridePaths = stridePaths;
            this.group = group;
            this.variants = variants;
        }

        /** Whether the listing has been written (tests: a compile alone must not write it). */
        synchronized boolean written() {
            return text != null;
        }

        synchronized String get() {
            if (text == null) {
                // Each variant's shapes, as the listing's sections read them (generating left the last variant's).
                for (CodeGen.Variant v : variants) {
                    v.u().apply();
                }
                text = Listing.of(g, cfg, header, listed, stridePaths, group);
                g = null;
                cfg = null;
                listed = null;
                variants = null;
            }
            return text;
        }
    }

    /** A generated class's two ways in: its constructor and its {@link CodeGen#FROM_ARRAY} factory. */
    record Entry(MethodHandle constructor, MethodHandle fromArray) {

        static Entry of(MethodHandles.Lookup lookup, MethodType ctorType) throws ReflectiveOperationException {
            Class<?> c = lookup.lookupClass();
            return new Entry(lookup.findConstructor(c, ctorType), lookup.findStatic(c, CodeGen.FROM_ARRAY, FROM_ARRAY_TYPE));
        }
    }

    private static final MethodType FROM_ARRAY_TYPE = MethodType.methodType(CtaProgram.class, Object[].class);

    /**
     * Whether a kernel with barriers gets its methods per resume point from a background compile (the kernel
     * launching meanwhile on its general methods); {@code -Dweft.simd.backgroundResume=false} generates them
     * within the compile, as before.
     */
    static final boolean BACKGROUND_RESUME = !"false".equals(System.getProperty("weft.simd.backgroundResume"));

    /** What takes a kernel's second tier: each binder of the kernel's classes (see {@link Resumed}). */
    interface Upgradable {
        /** The class with the methods per resume point is defined: its constructor and factory, parameters as before. */
        void upgrade(Entry entry);
    }

    /**
     * The second tier of a kernel with barriers: its class with the methods per resume point, defined by a
     * background compile. Until then launches run the class without them, whose general methods compute the same
     * results (each phase resumes each group wherever it stopped), slower once C2 has compiled them; the kernel's
     * binders then switch to the new class for the next launch (a launch binds once, so runs one class). Where the
     * methods do not fit (over {@link CodeGen#HUGE_METHOD_LIMIT} or 64 KiB) the first class stays, as it did when
     * they were generated within the compile.
     */
    static final class Resumed {
        private Entry entry;
        private boolean done;
        private List<Upgradable> waiting = new ArrayList<>();

        /** Calls {@code u} with the new class's entry when it is ready, or at once if it is. */
        void whenReady(Upgradable u) {
            Entry ready;
            synchronized (this) {
                if (!done) {
                    waiting.add(u);
                    return;
                }
                ready = entry;
            }
            if (ready != null) {
                u.upgrade(ready);
            }
        }

        /** Ends the tier: {@code ready} null where the first class stays. */
        void complete(Entry ready) {
            List<Upgradable> call;
            synchronized (this) {
                entry = ready;
                done = true;
                call = waiting;
                waiting = null;
            }
            if (ready != null) {
                for (Upgradable u : call) {
                    u.upgrade(ready);
                }
            }
        }
    }

    /** Generates and defines the class with the methods per resume point, on a background thread. */
    private static final class ResumeJob implements Runnable {
        private final CodeGen gen;
        private final byte[] generalOnly;
        private final List<CodeGen.Variant> variants;
        private final ClassDesc cd;
        private final MethodType ctorType;
        private final Resumed resumed;
        /** Shares the kernel's graph with this job: it is written before or after the job's generation, not during. */
        private final LazyListing listing;

        ResumeJob(CodeGen gen, byte[] generalOnly, List<CodeGen.Variant> variants, ClassDesc cd, MethodType ctorType, Resumed resumed,
                LazyListing listing) {
            this.listing = listing;
            this.gen = gen;
            this.generalOnly = generalOnly;
            this.variants = variants;
            this.cd = cd;
            this.ctorType = ctorType;
            this.resumed = resumed;
        }

        @Override
        public void run() {
            Entry withMethods = null;
            try {
                Background.yieldToForeground();
                byte[] withResume;
                // Generating applies each variant's shapes to the graph's nodes, which the listing reads.
                synchronized (listing) {
                    withResume = withResumeMethods(gen, generalOnly, variants);
                }
                if (withResume != generalOnly && CodeGen.largestMethod(withResume) <= CodeGen.HUGE_METHOD_LIMIT) {
                    dump(cd, withResume);
                    MethodHandles.Lookup lookup = HiddenClasses.define(withResume);
                    withMethods = Entry.of(lookup, ctorType);
                }
            } catch (RuntimeException | ReflectiveOperationException | LinkageError e) {
                // Over 64 KiB, or not loadable: the general methods stay, with the same results.
                if (!(e instanceof IllegalArgumentException)) {
                    Background.internalError("the methods per resume point of " + cd.displayName()
                            + " do not load; the kernel keeps its general methods", e);
                }
            } finally {
                resumed.complete(withMethods);
            }
        }
    }

    private Compiler() {
    }

    static Code compile(LambdaSource src, int warpSize) {
        return compile(src, warpSize, false);
    }

    /**
     * Compiles the kernel, or with {@code profiled} its profiling variant: the same code with counters (see
     * {@link Profiling}), in groups of whole warps.
     */
    static Code compile(LambdaSource src, int warpSize, boolean profiled) {
        return compile(src, warpSize, profiled, null);
    }

    /**
     * As {@link #compile(LambdaSource, int, boolean)}; with a {@code block}, only the variant that CTAs of that shape
     * run (see {@link Menu}).
     */
    static Code compile(LambdaSource src, int warpSize, boolean profiled, Dim3 block) {
        long t0 = System.nanoTime();
        MethodModel impl = src.implementation();
        ClassModel cls = src.implClassModel();
        String simple = src.implClass.substring(src.implClass.lastIndexOf('/') + 1);
        String name = simple + "." + src.implMethod;
        Graph g = Parser.parse(name, cls, impl, src.capturedNames(impl), src);
        if (FOLD_WARP_SCANS) {
            WarpScans.fold(g, warpSize);
        }
        if (LOOP_FISSION) {
            LoopFission.split(g);
        }
        List<String> noNarrowLanes = narrowWithoutVectors(g);
        if (!noNarrowLanes.isEmpty()) {
            throw new Decline(noNarrowLanes);
        }
        long tParse = System.nanoTime();
        Cfg cfg = new Cfg(g);
        List<String> allocations = SharedAllocations.number(g, cfg);
        if (!allocations.isEmpty()) {
            throw new Decline(allocations);
        }
        boolean readsThreadIdx = false;
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.SREG && (n.aux == SReg.TID_X || n.aux == SReg.TID_Y || n.aux == SReg.TID_Z)) {
                    readsThreadIdx = true;
                }
            }
        }
        // The analyses per (rowAligned, groupWithinWarp): each is a whole fixpoint, and the same one serves the
        // group-size choice, the checks and the variants of every group size tried.
        Analyses analyses = new Analyses(g, cfg);
        int group = GROUP_OVERRIDE > 0 ? GROUP_OVERRIDE : defaultGroup(g, cfg, analyses, warpSize);
        if (profiled) {
            group = Math.max(group, warpSize);
        }
        boolean usesShared = false;
        boolean barriers = false;
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                usesShared |= n.op == Op.SHARED || n.op == Op.BARRIER;
                barriers |= n.op == Op.BARRIER;
            }
        }
        // Warp operations exchange values between the lanes of a warp: the group must be exactly one warp.
        boolean warpOps = WarpSync.hasWarpOps(g);
        if (warpOps) {
            if (warpSize % Lanes.L32 != 0 || warpSize > 32) {
                throw new Decline("kernel " + name + " uses warp operations, compiled only for warps of a multiple of "
                        + Lanes.L32 + " threads up to 32; this device's warps have " + warpSize + " (runs on the reference executor)");
            }
            group = warpSize;
            for (Block b : g.blocks) {
                for (Node n : b.nodes) {
                    if (n.op == Op.WARP && n.in.size() == 3 && n.in(2).op == Op.CONST) {
                        int width = ((Number) n.in(2).aux).intValue();
                        try {
                            dev.weft.internal.WarpLanes.checkWidth(width, warpSize);
                        } catch (IllegalArgumentException e) {
                            throw new Decline("warp shuffle at " + n.site + ": " + e.getMessage()
                                    + " (runs on the reference executor, which reports it)");
                        }
                    }
                }
            }
        }
        Decline tooLarge = null;
        Menu menu = null;
        for (; triesGroup(group, warpSize, warpOps, profiled); group /= 2) {
            boolean withinWarp = group <= warpSize;
            // varyingLengths reads the shapes the nodes hold: apply each analysis before it (see Uniformity#apply).
            Uniformity ua = analyses.uniformity(true, withinWarp, group);
            Uniformity ub = readsThreadIdx ? analyses.uniformity(false, withinWarp, group) : null;
            ua.apply();
            List<String> lengths = new ArrayList<>(SharedAllocations.varyingLengths(g, ua));
            if (readsThreadIdx) {
                ub.apply();
                lengths.addAll(SharedAllocations.varyingLengths(g, ub));
            }
            if (!lengths.isEmpty()) {
                throw new Decline(List.copyOf(new LinkedHashSet<>(lengths)));
            }
            if (warpOps) {
                List<String> why = new ArrayList<>(WarpSync.check(g, cfg, ua));
                if (readsThreadIdx) {
                    why.addAll(WarpSync.check(g, cfg, ub));
                }
                if (!why.isEmpty()) {
                    throw new Decline(List.copyOf(new LinkedHashSet<>(why)));
                }
            }
            MaskPlan pa = analyses.plan(ua);
            List<CodeGen.Variant> variants = new ArrayList<>();
            if (readsThreadIdx) {
                variants.add(new CodeGen.Variant("line", CodeGen.Layout.LINE, ua, pa));
            }
            // Without threadIdx reads the thread coordinates in use (linear id, lane, warp) are the same in every
            // layout: the variant then serves every CTA shape (dispatching it on rows only would run nothing for
            // the other shapes).
            variants.add(new CodeGen.Variant("rowAligned", readsThreadIdx ? CodeGen.Layout.ROWS : CodeGen.Layout.GENERAL, ua, pa));
            // Shared-memory kernels are mostly tiled over 2D CTAs whose rows are shorter than a group (16 x 16
            // tiles, 8-lane registers: a group of 32 spans two rows, and the tile reads become gathers). A
            // variant for groups of half the size keeps them broadcasts and vector loads: measured here (AVX2),
            // a 256 x 256 tiled matmul ran in about 25 ms instead of 400. With 16-lane registers that group is one
            // register; the register-rows variant serves those CTAs instead, in whole groups (REGISTER_ROWS).
            int narrow = group / 2;
            boolean registerRows = (REGISTER_ROWS.equals("true")
                    || REGISTER_ROWS.equals("auto") && narrow == Lanes.L32 && Lanes.L32 >= 16)
                    && readsThreadIdx && usesShared && !warpOps && !profiled && group > Lanes.L32;
            Uniformity perRegister = null;
            if (registerRows) {
                perRegister = analyses.uniformity(true, Lanes.L32 <= warpSize, Lanes.L32);
                ub.apply();
                variants.add(new CodeGen.Variant("registerRows", CodeGen.Layout.REGISTER_ROWS, ub, analyses.plan(ub), 0,
                        perRegister));
            }
            if (readsThreadIdx && usesShared && !warpOps && !profiled && narrow >= Lanes.L32 && narrow % Lanes.L32 == 0
                    && !(registerRows && narrow == Lanes.L32)) {
                variants.add(new CodeGen.Variant("rowAlignedNarrow", CodeGen.Layout.ROWS, ua, pa, narrow));
            }
            MaskPlan pb = readsThreadIdx ? analyses.plan(ub) : null;
            if (readsThreadIdx) {
                variants.add(new CodeGen.Variant("general", CodeGen.Layout.GENERAL, ub, pb));
            }
            if (menu == null) {
                menu = Menu.of(variants, group);
            }
            if (block != null) {
                // A launch binds one class, so the other variants would only lengthen its compile.
                CodeGen.Variant only = null;
                for (CodeGen.Variant v : variants) {
                    if (only == null && CodeGen.serves(v, group, block.x(), block.y(), block.z())) {
                        only = v;
                    }
                }
                if (only == null) {
                    throw new IllegalStateException("internal error in Weft (please report): no variant of " + name
                            + " serves CTAs of blockDim " + block);
                }
                variants.clear();
                variants.add(only);
            }
            boolean listsRows = false;
            boolean listsRegisterRows = false;
            boolean listsGeneral = false;
            for (CodeGen.Variant v : variants) {
                listsRegisterRows |= v.method().equals("registerRows");
                listsGeneral |= v.method().equals("general");
                listsRows |= !v.method().equals("registerRows") && !v.method().equals("general");
            }
            List<Listing.Variant> listed = new ArrayList<>();
            CodeGen gen = new CodeGen(g, cfg, warpSize, group);
            java.util.Map<Block, List<String>> keptRows = new java.util.HashMap<>();
            java.util.Map<Block, List<String>> keptGeneral = new java.util.HashMap<>();
            java.util.Map<String, java.util.Map<Block, List<String>>> keptLists = new java.util.HashMap<>();
            boolean lineOnly = variants.size() == 1 && variants.get(0).method().equals("line");
            if (lineOnly) {
                listed.add(new Listing.Variant("per group of " + group + " threads, in a 1D CTA (blockDim.y and .z 1): threadIdx.x"
                        + " = base + lane, threadIdx.y and .z uniform", ua, pa, keptRows));
            } else if (listsRows) {
                listed.add(new Listing.Variant("per group of " + group + " threads, when a group lies within one row of the CTA (blockDim.x a multiple of "
                        + group + ", or a 1D CTA): threadIdx.x = base + lane, threadIdx.y and .z uniform"
                        + (hasNarrow(variants) ? "; the same code also runs in groups of " + narrow
                                + " threads when blockDim.x is a multiple of " + narrow : ""), ua, pa, keptRows));
            }
            if (listsRegisterRows) {
                java.util.Map<Block, List<String>> keptRegisterRows = new java.util.HashMap<>();
                keptLists.put("registerRows", keptRegisterRows);
                listed.add(new Listing.Variant("per group of " + group + " threads, when each register lies within one row"
                        + " of the CTA (blockDim.x a multiple of " + Lanes.L32 + "): threadIdx.x = a base per register + lane,"
                        + " threadIdx.y and .z uniform in each register (a scalar per register), other values as in any CTA shape",
                        ub, analyses.plan(ub), keptRegisterRows, perRegister, group <= warpSize));
            }
            if (listsGeneral) {
                listed.add(new Listing.Variant("per group of " + group + " threads, any other CTA shape: threadIdx.x, .y, .z varying", ub, pb, keptGeneral));
            }
            Profiling profiling = profiled ? new Profiling(g, warpSize, group) : null;
            gen.withProfiling(profiling);
            ClassDesc cd = ClassDesc.ofInternalName(HiddenClasses.PACKAGE + "Kernel$" + sanitize(name) + "$" + SERIAL.incrementAndGet());
            long tGen0 = System.nanoTime();
            byte[] bytes;
            int largest;
            boolean tiered = false;
            try {
                // Without barriers, or with them first without the methods per resume point (see CodeGen.resumePoints):
                // a kernel too large for this group costs no more to find than before those methods.
                gen.withoutResumeMethods();
                CodeGen.Fitted fit = CodeGen.fit(gen.generate(cd, variants));
                bytes = fit.bytes();
                largest = fit.largest();
                boolean strides = gen.stridePaths();
                boolean compactGathers = false;
                if (largest > CodeGen.HUGE_METHOD_LIMIT && gen.inlineGathers()) {
                    // The gathers' inline index checks are the larger form: with calls the kernel may fit.
                    compactGathers = true;
                    gen = new CodeGen(g, cfg, warpSize, group).withProfiling(profiling).withCompactGathers(true).withoutResumeMethods();
                    fit = CodeGen.fit(gen.generate(cd, variants));
                    bytes = fit.bytes();
                    largest = fit.largest();
                    strides = gen.stridePaths();
                    if (largest <= CodeGen.HUGE_METHOD_LIMIT && gen.skippedStridedStores() && COMPACT_STRIDED_STORES) {
                        // Compact gathers fit: the strided stores they left out may fit too.
                        CodeGen kept = new CodeGen(g, cfg, warpSize, group).withProfiling(profiling).withCompactGathers(true)
                                .withStridedStoresKept(true).withoutResumeMethods();
                        CodeGen.Fitted keptFit = CodeGen.fit(kept.generate(cd, variants));
                        if (keptFit.largest() <= CodeGen.HUGE_METHOD_LIMIT) {
                            gen = kept;
                            bytes = keptFit.bytes();
                            largest = keptFit.largest();
                            strides = kept.stridePaths();
                        }
                    }
                }
                if (largest > CodeGen.HUGE_METHOD_LIMIT && strides) {
                    // The grid-stride fast paths repeat their loops' bodies: without them the kernel may fit.
                    gen = new CodeGen(g, cfg, warpSize, group).withProfiling(profiling).withCompactGathers(compactGathers)
                            .withStrideLoops(false).withSpillCalls(barriers).withoutResumeMethods();
                    fit = CodeGen.fit(gen.generate(cd, variants));
                    bytes = fit.bytes();
                    largest = fit.largest();
                    strides = false;
                }
                boolean lastGroup = !triesGroup(group / 2, warpSize, warpOps, profiled);
                if (largest > CodeGen.HUGE_METHOD_LIMIT && (largest <= COMPACT_MASKS_REACH || lastGroup)) {
                    // Just over, or in the last group before the reference executor: the compact masks and the spill
                    // helpers may fit before a smaller group is tried.
                    gen = new CodeGen(g, cfg, warpSize, group).withProfiling(profiling).withCompactMasks(true)
                            .withSpillCalls(true).withCompactGathers(compactGathers).withStrideLoops(false).withoutResumeMethods();
                    fit = CodeGen.fit(gen.generate(cd, variants));
                    bytes = fit.bytes();
                    largest = fit.largest();
                    strides = false;
                }
                if (barriers && largest <= CodeGen.HUGE_METHOD_LIMIT && BACKGROUND_RESUME && !profiled && gen.hasResumePoints()) {
                    // The methods per resume point come from a background compile, after this one (see Resumed).
                    tiered = true;
                } else if (barriers && largest <= CodeGen.HUGE_METHOD_LIMIT) {
                    // The methods per resume point added to the class just made, whose methods are kept as they are.
                    try {
                        byte[] withResume = withResumeMethods(gen, bytes, variants);
                        int largestWithResume = CodeGen.largestMethod(withResume);
                        if (largestWithResume <= CodeGen.HUGE_METHOD_LIMIT) {
                            bytes = withResume;
                            largest = largestWithResume;
                        } else {
                            gen.withoutResumeMethods();
                        }
                    } catch (IllegalArgumentException e) {
                        // Over 64 KiB: the general method alone.
                    }
                }
            } catch (IllegalArgumentException e) {
                // Over the JVM's 64 KiB per method: as too large for the JIT, try smaller groups.
                tooLarge = new Decline("kernel " + name + " is too large: over 64 KiB of generated code per warp even with "
                        + group + " threads per group (runs on the reference executor)");
                continue;
            }
            long tGen = System.nanoTime() - tGen0;
            // The rows section lists the row-aligned variant's kept values; a launch's class may have only the line
            // or the narrow variant, whose kept values are the same code's.
            for (String rows : new String[] {"rowAligned", "line", "rowAlignedNarrow"}) {
                if (keptRows.isEmpty()) {
                    keptRows.putAll(gen.keptAcross().getOrDefault(rows, java.util.Map.of()));
                }
            }
            keptGeneral.putAll(gen.keptAcross().getOrDefault("general", java.util.Map.of()));
            for (java.util.Map.Entry<String, java.util.Map<Block, List<String>>> e : keptLists.entrySet()) {
                e.getValue().putAll(gen.keptAcross().getOrDefault(e.getKey(), java.util.Map.of()));
            }
            dump(cd, bytes);
            if (largest > CodeGen.HUGE_METHOD_LIMIT) {
                tooLarge = new Decline("kernel " + name + " is too large for the JIT: " + largest
                        + " bytes of generated code per warp (limit " + CodeGen.HUGE_METHOD_LIMIT + ") even with " + group
                        + " threads per group (runs on the reference executor)");
                continue;
            }
            try {
                boolean c1Failed = C1Exclusion.failed();
                long tDefine = System.nanoTime();
                MethodHandles.Lookup lookup = HiddenClasses.define(bytes);
                Class<?>[] ctorParams = new Class<?>[g.params.size()];
                for (int i = 0; i < ctorParams.length; i++) {
                    ctorParams[i] = javaType(g.params.get(i).kind());
                }
                MethodType ctorType = MethodType.methodType(void.class, ctorParams);
                Entry entry = Entry.of(lookup, ctorType);
                tDefine = System.nanoTime() - tDefine;
                long nanos = System.nanoTime() - t0;
                // Not String.format: its first use in a JVM loads the locale data, some 20-50 ms of a cold compile.
                String header = "kernel " + name + " compiled by simd in " + millis(nanos) + " ms"
                        + " (parse " + millis(tParse - t0) + ", code generation " + millis(tGen)
                        + ", class definition " + millis(tDefine) + ")\n"
                        + "a group of " + group + " threads (" + (group == warpSize ? "one warp" : group < warpSize ? "part of a warp" : (group / warpSize) + " warps")
                        + ") = " + (group / Lanes.L32) + " x " + Lanes.L32 + " int/float lanes or " + (group / Lanes.L64) + " x " + Lanes.L64
                        + " long/double lanes (" + Lanes.IS.vectorBitSize() + "-bit vectors); " + largest + " bytes of bytecode"
                        + (gen.compactMasks() ? "; compact masks (masks of long, float and double lanes made where used,"
                                + " which fits the JIT's limit but runs slower)" : "")
                        + (c1Failed ? "; JIT: tiered (C1 could not be excluded: large kernels may stay slow)" : "; JIT: C2 (C1 excluded)")
                        + (block == null ? "" : "\nfor CTAs of blockDim " + block.x() + " x " + block.y() + " x " + block.z()
                                + " and the shapes that run the same variant; other shapes compile when a launch first needs them")
                        + (tiered ? "\nthe methods per resume point are compiled in the background; launches run the general"
                                + " methods until they are ready" : "");
                LazyListing listing = new LazyListing(g, cfg, header, listed, gen.stridePaths(), group, variants);
                Resumed resumed = null;
                if (tiered) {
                    resumed = new Resumed();
                    Background.startPending("weft-resume-methods", new ResumeJob(gen, bytes, variants, cd, ctorType, resumed, listing));
                }
                return new Code(entry, List.copyOf(g.params), listing, nanos, profiling, resumed, menu,
                        block == null ? null : Menu.of(variants, group));
            } catch (ReflectiveOperationException | LinkageError e) {
                throw new IllegalStateException("internal error in Weft (please report): generated class for " + name
                        + " does not load: " + e, e);
            }
        }
        throw tooLarge;
    }

    /**
     * Whether a compile tries groups of {@code group} threads: whole registers, one warp where the kernel has warp
     * operations, and whole warps for the profiling variant.
     */
    private static boolean triesGroup(int group, int warpSize, boolean warpOps, boolean profiled) {
        return group >= Lanes.L32 && (!warpOps || group == warpSize) && (!profiled || group >= warpSize);
    }

    private static boolean hasNarrow(List<CodeGen.Variant> variants) {
        for (CodeGen.Variant v : variants) {
            if (v.group() > 0) {
                return true;
            }
        }
        return false;
    }

    /** With -Dweft.simd.dump=DIR, writes each generated class there (for javap). */
    private static void dump(ClassDesc cd, byte[] bytes) {
        String dir = System.getProperty("weft.simd.dump");
        if (dir != null) {
            try {
                java.nio.file.Path p = java.nio.file.Path.of(dir, cd.displayName() + ".class");
                java.nio.file.Files.createDirectories(p.getParent());
                // Written whole, then moved into place: the background compile of the methods per resume point
                // dumps the class again under the same name, and a reader (javap, a test) must never see half of it.
                java.nio.file.Path tmp = java.nio.file.Files.createTempFile(p.getParent(), ".weft-dump-", ".part");
                java.nio.file.Files.write(tmp, bytes);
                java.nio.file.Files.move(tmp, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (java.io.IOException e) {
                System.err.println("weft: cannot dump " + cd.displayName() + ": " + e);
            }
        }
    }

    /**
     * Threads per group: a warp (32 threads) where the registers allow, fewer where a loop would keep more
     * vectors live than the register file holds (see {@link Pressure}); at least one register, and two with
     * barriers (where the warp allows); two warps for a reduction's interleaved loop ({@link #sumsInterleaved}).
     *
     * <p>With barriers each group pays, per phase, the restore and spill of the values kept across the barriers,
     * whatever its width, and spilling accumulators to the stack costs less than that: measured here (AVX2, CPU
     * time of one SM, methods per resume point), the 544 x 544 tiled sgemm in 16 x 16 CTAs ran 2.7 GFLOP/s per
     * core in groups of 8 and 6.4 in groups of 16 (4.7 in groups of 32); the register-blocked sgemm and the tiled
     * transpose ran the same in groups of 8 and 16.
     */
    private static int defaultGroup(Graph g, Cfg cfg, Analyses analyses, int warpSize) {
        Uniformity u = analyses.uniformity(true, 32 <= warpSize);
        MaskPlan plan = analyses.plan(u);
        // Pressure reads the shapes the nodes hold.
        u.apply();
        int perRegister = Pressure.perRegister(cfg, u, plan);
        int registers = Pressure.REGISTERS;
        int regs = Math.max(1, 32 / Lanes.L32);
        while (regs > 1 && perRegister * regs > registers) {
            regs /= 2;
        }
        boolean barriers = false;
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                barriers |= n.op == Op.BARRIER;
            }
        }
        if (barriers && regs < 2 && 2 * Lanes.L32 <= warpSize) {
            regs = 2;
        }
        if (barriers && regs == 2 && Lanes.L32 == 16 && 2 * regs * perRegister <= registers && sumsInterleaved(g, cfg, u, plan)) {
            regs = 4;
        }
        // A mask or shift of the thread index (a tile load's (tid & 15) and tid >> 4) is contiguous or uniform only
        // within an aligned group no wider than the mask: in a wider group those loads become gathers, which cost
        // more than the narrower group's extra passes. Take the widest group that scatters no more than one
        // register's does (on AVX2 one register is 8 threads and this rarely narrows; with 16-lane registers the
        // register-blocked sgemm's 16-wide tile rows need groups of 16).
        if (regs > 1 && u.alignmentMatters()) {
            int least = scatteredAccesses(g, analyses.uniformity(true, 32 <= warpSize, Lanes.L32));
            while (regs > 1 && scatteredAccesses(g, analyses.uniformity(true, 32 <= warpSize, regs * Lanes.L32)) > least) {
                regs /= 2;
            }
            u.apply();
        }
        return regs * Lanes.L32;
    }

    /**
     * Whether the kernel (with barriers) has a grid-stride loop that the CTA's groups run interleaved and that carries a
     * vector (a reduction's per-thread sums), where its thread indexing is one-dimensional and it has no warp
     * operations: then {@link #defaultGroup} takes groups of two warps with 16-lane registers. Per iteration such a
     * group reads four registers' contiguous lines instead of two, and it pauses every 32 iterations instead of 16
     * ({@link CodeGen#interleaveIterations}): nearer the order of reads of the hand-written code of the same algorithm
     * (eight registers of threads per pass). Measured (PairedBenchmark, the reduction against that code, alternating
     * JVMs, AVX-512 on an Ice Lake; not measured on Zen 4): 0.60-0.88 where groups of one warp read 0.43-0.58; groups
     * of two warps pausing every 16 iterations read 0.47-0.65. With 8-lane registers a warp is four registers already,
     * and groups of two warps (eight) read a third as fast (0.17-0.21 against 0.48-0.61): the rule is for 16 lanes.
     * Not where threadIdx.y or .z is read: two-dimensional CTAs would then need rows of 64 threads for their
     * contiguous variant, where groups of one warp take rows of 16 (a tiled kernel's).
     */
    private static boolean sumsInterleaved(Graph g, Cfg cfg, Uniformity u, MaskPlan plan) {
        if (!CodeGen.INTERLEAVE || !CodeGen.FAST_STRIDE_LOOPS || WarpSync.hasWarpOps(g)) {
            return false;
        }
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if (n.op == Op.SREG && (n.aux == SReg.TID_Y || n.aux == SReg.TID_Z)) {
                    return false;
                }
            }
        }
        java.util.Map<Node, Integer> uses = g.useCounts();
        for (java.util.Map.Entry<Cfg.Loop, StrideLoops.StrideLoop> e : new StrideLoops(g, cfg, u, plan).loops.entrySet()) {
            StrideLoops.StrideLoop sl = e.getValue();
            if (StrideLoops.interleavable(sl, e.getKey(), g, uses)) {
                for (Node p : sl.header().phis) {
                    if (u.shapeAt(p, sl.header()) == Node.Shape.VARYING) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Loads and stores that {@code u} makes gathers or scatters (a varying index, not lane-contiguous). */
    private static int scatteredAccesses(Graph g, Uniformity u) {
        u.apply();
        int n = 0;
        for (Block b : g.blocks) {
            for (Node x : b.nodes) {
                if (x.op == Op.LOAD || x.op == Op.STORE) {
                    Node idx = x.in(1);
                    Node.Shape s = u.shapeAt(idx, b);
                    if (s == Node.Shape.VARYING || s == Node.Shape.AFFINE && idx.stride != 1) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /**
     * The uniformity analyses and mask plans of one compilation, each computed once. A plan depends only on its
     * analysis's divergent branches, not on the shapes the nodes hold, so it can be shared too.
     */
    private static final class Analyses {
        private final Graph g;
        private final Cfg cfg;
        /** Keyed by rowAligned * 2 + groupWithinWarp, and the group where it matters (see {@link #uniformity}). */
        private final java.util.Map<Long, Uniformity> uniformity = new java.util.HashMap<>();
        private final java.util.Map<Uniformity, MaskPlan> plans = new java.util.IdentityHashMap<>();

        Analyses(Graph g, Cfg cfg) {
            this.g = g;
            this.cfg = cfg;
        }

        /** The analysis with no group alignment (for estimates made before the group size is chosen). */
        Uniformity uniformity(boolean rowAligned, boolean groupWithinWarp) {
            return uniformity(rowAligned, groupWithinWarp, 0);
        }

        /**
         * The analysis for groups of up to {@code group} threads; a new one leaves its shapes in the nodes, a cached
         * one must be applied before use. The one without alignment serves every group where the alignment rules
         * cannot apply (no int and or right shift of a lane-strided value): most kernels, one analysis as before.
         */
        Uniformity uniformity(boolean rowAligned, boolean groupWithinWarp, int group) {
            long key = (rowAligned ? 2 : 0) | (groupWithinWarp ? 1 : 0);
            Uniformity base = uniformity.get(key);
            if (base == null) {
                base = new Uniformity(g, cfg, rowAligned, groupWithinWarp, 0);
                uniformity.put(key, base);
            }
            if (group == 0 || !base.alignmentMatters()) {
                return base;
            }
            key |= (long) group << 2;
            Uniformity u = uniformity.get(key);
            if (u == null) {
                u = new Uniformity(g, cfg, rowAligned, groupWithinWarp, group);
                uniformity.put(key, u);
            }
            return u;
        }

        MaskPlan plan(Uniformity u) {
            MaskPlan p = plans.get(u);
            if (p == null) {
                p = new MaskPlan(g, cfg, u);
                plans.put(u, p);
            }
            return p;
        }
    }

    /** Nanoseconds as milliseconds with one decimal, as {@code %.1f} would print them in the root locale. */
    static String millis(long nanos) {
        long tenths = Math.round(nanos / 1e5);
        return (tenths / 10) + "." + (tenths % 10);
    }

    /**
     * {@code s} with every character but ASCII letters, digits and {@code _} replaced by {@code _}. (Not
     * {@code replaceAll}: its pattern's compile and lambdas were a cold cost of every first compile.)
     */
    static String sanitize(String s) {
        char[] c = s.toCharArray();
        for (int i = 0; i < c.length; i++) {
            char x = c[i];
            if (!(x >= 'A' && x <= 'Z' || x >= 'a' && x <= 'z' || x >= '0' && x <= '9' || x == '_')) {
                c[i] = '_';
            }
        }
        return new String(c);
    }

    /**
     * {@link CodeGen#withResumeMethods}, generated again without the passes over idle groups where those make a
     * method too large for the JIT (which would cost the kernel all its methods per resume point).
     */
    private static byte[] withResumeMethods(CodeGen gen, byte[] generalOnly, List<CodeGen.Variant> variants) {
        byte[] withResume = gen.withResumeMethods(generalOnly, variants);
        if (withResume != generalOnly && gen.touches() && CodeGen.largestMethod(withResume) > CodeGen.HUGE_METHOD_LIMIT) {
            // The touch passes are the smaller loss (a few hundred bytes): drop them before the idle skips.
            gen.withoutResumeMethods().withoutTouches();
            withResume = gen.withResumeMethods(generalOnly, variants);
        }
        if (withResume != generalOnly && gen.skipsIdleGroups() && CodeGen.largestMethod(withResume) > CodeGen.HUGE_METHOD_LIMIT) {
            gen.withoutResumeMethods().withoutIdleSkips();
            withResume = gen.withResumeMethods(generalOnly, variants);
        }
        return withResume;
    }

    /**
     * Loads and stores of byte, boolean, short or char arrays where no vector holds as many such lanes as an int
     * register: the Vector API's smallest vector is 64 bits, so 4-lane (128-bit) registers have no byte vector
     * to widen from ({@link Lanes#hasNarrowLanes}).
     */
    private static List<String> narrowWithoutVectors(Graph g) {
        Set<String> why = new LinkedHashSet<>();
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                if ((n.op == Op.LOAD || n.op == Op.STORE) && n.in(0).kind.isNarrowArray()) {
                    Kind a = n.in(0).kind;
                    int bits = a.elementBytes() * Byte.SIZE;
                    if (!Lanes.hasNarrowLanes(bits)) {
                        why.add(a.text() + " element " + (n.op == Op.LOAD ? "load" : "store") + " at " + n.site + ": no vector of "
                                + Lanes.L32 + " " + bits + "-bit lanes with " + Lanes.IS.vectorBitSize()
                                + "-bit registers (runs on the reference executor)");
                    }
                }
            }
        }
        return List.copyOf(why);
    }

    private static Class<?> javaType(Kind k) {
        return switch (k) {
            case INT, BOOL -> int.class;
            case LONG -> long.class;
            case FLOAT -> float.class;
            case DOUBLE -> double.class;
            case INT_ARRAY -> int[].class;
            case LONG_ARRAY -> long[].class;
            case FLOAT_ARRAY -> float[].class;
            case DOUBLE_ARRAY -> double[].class;
            case BYTE_ARRAY -> byte[].class;
            case SHORT_ARRAY -> short[].class;
            case CHAR_ARRAY -> char[].class;
            case BOOLEAN_ARRAY -> boolean[].class;
            default -> throw new IllegalArgumentException(k.toString());
        };
    }
}
