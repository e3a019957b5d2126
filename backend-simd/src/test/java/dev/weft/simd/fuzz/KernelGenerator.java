package dev.weft.simd.fuzz;

import dev.weft.Dim3;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates random, well-typed kernels as Java source: a class with a static method that returns a
 * {@code Kernel} lambda capturing input arrays and scalars of the four types and writing one element per
 * thread of each output array.
 *
 * <p>The body mixes int, long, float and double expressions over locals, captured values, thread ids,
 * contiguous and gathered loads, casts (narrowing and float-to-int included), exact {@link Math}
 * functions, ternaries, {@code &&} and {@code ||}; statements are declarations, plain and compound
 * assignments, stores, if/else, for, while and do-while loops with uniform or per-thread trip counts,
 * {@code break}, {@code continue}, early returns, and calls to generated static helpers of the same class.
 * With {@link Options#tolerantMath}, results of {@code Math.sin/cos/tan/exp/log/pow} are also stored, each
 * straight into an output compared within the Vector API's accuracy bound, never fed into other
 * arithmetic, so the tolerance does not have to cover propagated error.
 *
 * <p>With {@link Options#barriers}, the kernel also allocates one shared array of each type (a slot per
 * thread of the CTA) and, in CTA-uniform control flow only (the kernel's top level, loops with uniform trip
 * counts, branches on uniform values, uniform {@code break}/{@code continue}), runs exchange phases: every
 * thread writes a value to its slot (or updates one with a shared atomic at a computed index: add, min, max,
 * and, or, xor), {@code syncThreads()}, reads another thread's slot ({@code (tid + k) % nt}, a slot in another warp, a
 * data-dependent one), {@code syncThreads()} again. What it read goes to an output, so a barrier that lets
 * a warp run ahead shows as a difference. Such kernels launch exactly {@code n} threads and never return
 * early: every thread reaches every barrier, as the convergence rules require. Outside the exchanges, in
 * divergent code too, threads may store to their own slot of a fifth shared array ({@code shP}), which an
 * exchange's read phase may read another slot of.
 *
 * <p>With {@link Options#warpOps}, the kernel also has warp votes ({@code ballot}, {@code any}, {@code all}) and
 * int and float shuffles (all four kinds, with and without a segment width, lane arguments constant, per lane
 * or from data) where every thread of the warp that has not returned meets them: the top level, uniform loops
 * and branches. Early returns before them leave lanes inactive, as a partial warp does.
 *
 * <p>Any kernel may update global arrays with atomics (see {@link #ATOMIC_LENGTH}), in divergent code too, at
 * an index the warp shares, one per lane, or one from data; and may apply any atomic to its own output elements,
 * using the old value.
 *
 * <p>CTAs are 1D (1 to 1024 threads, partial warps included), 2D or 3D (warps that span rows and planes); grids
 * 1D, 2D or 3D to match.
 *
 * <p>With {@link Options#extras} (a knob of its own, so that programs generated without it stay as they were):
 * switch statements and expressions, labelled {@code break}/{@code continue} out of nested loops, loop steps and
 * bounds that vary per thread or with an enclosing counter, long and float counters, boolean and narrow locals,
 * the bit, rounding and conversion functions the backend lowers and {@code Sfu} calls (compared bit for bit, as
 * the SFU's scalar and vector forms agree), divisions and loads guarded against zero divisors and out-of-bounds
 * indices, grid-, block- and warp-stride loops (over inputs, over shared arrays, building shared histograms), loops
 * carrying many accumulators, warp reductions in helpers that take the thread context, exchanges with one writer
 * per warp or reads by 2D and 3D coordinates, shared arrays whose length differs between CTAs, atomics in
 * divergent code on shared arrays (one order-free operation per kernel) and order-free exchanges and
 * compare-and-swaps on global arrays, and grids of many small CTAs.
 *
 * <p>Every program terminates (loop counters are never assigned in the body and bound the trip count),
 * never divides an int or long by zero (divisors are {@code (x | 1)}, non-zero constants or tested first), never
 * indexes out of bounds (gathers are {@code (x & 0x7fffffff) % n} or tested first) and never races (each thread
 * writes only its own output elements, and atomics update the atomic arrays only in ways whose result is
 * independent of order), except that with {@link Options#faults} a kernel has statements that divide by zero,
 * index out of bounds or break a convergence rule in some threads (of one of these kinds per kernel).
 * Equal seeds give equal programs.
 */
public final class KernelGenerator {

    /** The package generated classes live in. */
    public static final String PACKAGE = "dev.weft.simd.fuzz.generated";

    /**
     * Output elements per thread in each of the int, long, float and double output arrays: thread
     * {@code gid} owns {@code [gid * SLOTS, gid * SLOTS + SLOTS)}. Slots 0-3 take stores from anywhere in the
     * body; slots 4-7 take the final values of the kernel's top-level locals (loop counters included), so a
     * wrong value anywhere is likely to reach an output.
     */
    public static final int SLOTS = 8;

    /**
     * Elements in each of the int, long, float and double arrays that global atomics update. Each atomic
     * statement of a kernel gets a slice of {@value #ATOMIC_SLICE} elements of its own, and only operations
     * whose result does not depend on the order of the updates (int and long add, min, max, and, or, xor,
     * inc and dec with a constant limit; float and double min and max), so any interleaving of the threads
     * gives the same final array. The kernel never reads these arrays nor uses an atomic's return value.
     */
    public static final int ATOMIC_LENGTH = 128;

    private static final int ATOMIC_SLICE = 16;

    /**
     * The factory's narrow arrays ({@link Options#narrowArrays}): inputs of {@code n} elements, outputs of {@link #SLOTS}
     * per thread (slots 0-3 its own row's, 4-7 written by the thread at the reversed index {@code n - 1 - gid}).
     */
    public static final String NARROW_PARAMS = "byte[] ba, short[] sa, char[] ca, boolean[] za, byte[] bo, short[] so, char[] co, boolean[] zo";

    /**
     * What to generate.
     *
     * @param tolerantMath also store transcendental results
     * @param statementBudget about how many statements the kernel has
     * @param barriers use shared memory and barriers in CTA-uniform control flow
     * @param warpOps use warp votes and shuffles where every live thread of the warp reaches them
     */
    public record Options(boolean tolerantMath, int statementBudget, boolean barriers, boolean warpOps, boolean extras,
            boolean faults, boolean more, boolean wideTypes, boolean narrowArrays) {

        /** Without the session-15 constructs and type mix. */
        public Options(boolean tolerantMath, int statementBudget, boolean barriers, boolean warpOps, boolean extras, boolean faults) {
            this(tolerantMath, statementBudget, barriers, warpOps, extras, faults, false, false, false);
        }

        /** Without barriers or warp operations. */
        public Options(boolean tolerantMath, int statementBudget) {
            this(tolerantMath, statementBudget, false, false);
        }

        /** Without warp operations. */
        public Options(boolean tolerantMath, int statementBudget, boolean barriers) {
            this(tolerantMath, statementBudget, barriers, false);
        }

        /** Without the extra constructs and faults. */
        public Options(boolean tolerantMath, int statementBudget, boolean barriers, boolean warpOps) {
            this(tolerantMath, statementBudget, barriers, warpOps, false, false);
        }

        /** These options with shared memory and barriers. */
        public Options withBarriers() {
            return new Options(tolerantMath, statementBudget, true, warpOps, extras, faults, more, wideTypes, narrowArrays);
        }

        /** These options with warp votes and shuffles. */
        public Options withWarpOps() {
            return new Options(tolerantMath, statementBudget, barriers, true, extras, faults, more, wideTypes, narrowArrays);
        }

        /**
         * These options with the constructs added in session 14 (see {@link KernelGenerator}): switches, labelled
         * jumps, bit and rounding intrinsics, SFU calls, guarded divisions and gathers, more atomics. A knob of its
         * own so that the seeds generated without it keep their programs.
         */
        public Options withExtras() {
            return new Options(tolerantMath, statementBudget, barriers, warpOps, true, faults, more, wideTypes, narrowArrays);
        }

        /**
         * These options with statements that may fault on some threads (one kind per kernel: a division by zero,
         * an index out of bounds, or a convergence error); both executors must then fail alike.
         */
        public Options withFaults() {
            return new Options(tolerantMath, statementBudget, barriers, warpOps, extras, true, more, wideTypes, narrowArrays);
        }

        /**
         * These options with the constructs added in session 15 (see {@link KernelGenerator}): compound assignments and
         * increments of array elements and narrow locals, mixed-type ternaries, floorDiv/floorMod, divisions at
         * MIN_VALUE / -1, shifts by large counts, float-to-int casts of NaN and infinities, negative-stride accesses,
         * two more outputs written in reverse thread order, one written at grid-stride loops' indices, loops whose threads
         * leave at different iterations with their exit values used after them, and values uniform per row. A knob of its
         * own so that older seeds keep their programs.
         */
        public Options withMore() {
            return new Options(tolerantMath, statementBudget, barriers, warpOps, extras, faults, true, wideTypes, narrowArrays);
        }

        /** These options with long and double values three times as likely as int and float ones. */
        public Options withWideTypes() {
            return new Options(tolerantMath, statementBudget, barriers, warpOps, extras, faults, more, true, narrowArrays);
        }

        /**
         * These options with global arrays of byte, short, char and boolean: loads of the inputs {@code ba, sa, ca, za}
         * (contiguous, reversed, gathered) in int and boolean expressions, and stores to the outputs {@code bo, so, co, zo}
         * (explicit casts, compound assignments and increments with Java's implicit narrowing, a reversed row). A knob of
         * its own so that older seeds keep their programs.
         */
        public Options withNarrowArrays() {
            return new Options(tolerantMath, statementBudget, barriers, warpOps, extras, faults, more, wideTypes, true);
        }

        /** Exact operations only, about 25 statements. */
        public static Options exact() {
            return new Options(false, 25);
        }

        /** Also stores transcendental results, compared within 1 ulp (float) / 2 ulps (double). */
        public static Options withTolerantMath() {
            return new Options(true, 25);
        }
    }

    /**
     * A generated kernel.
     *
     * @param seed the seed it was generated from
     * @param simpleName the class's simple name
     * @param source the compilation unit
     * @param grid the grid to launch it over
     * @param block the CTA shape
     * @param n the problem size: threads at or past it return at once
     */
    public record Program(long seed, String simpleName, String source, Dim3 grid, Dim3 block, int n, boolean mayFault) {

        /** A program that never faults. */
        public Program(long seed, String simpleName, String source, Dim3 grid, Dim3 block, int n) {
            this(seed, simpleName, source, grid, block, n, false);
        }

        /** The class's binary name. */
        public String className() {
            return PACKAGE + "." + simpleName;
        }

        /** This program with another class name and source, for mutants. */
        public Program withSource(String newSimpleName, String newSource) {
            return new Program(seed, newSimpleName, newSource, grid, block, n, mayFault);
        }
    }

    private enum T {
        INT("int"), LONG("long"), FLOAT("float"), DOUBLE("double"), BOOL("boolean");

        final String java;

        T(String java) {
            this.java = java;
        }

        static final T[] NUMERIC = {INT, LONG, FLOAT, DOUBLE};
    }

    /** A local; {@code decl} is its declared type where that is narrower than {@code type} (byte, short, char). */
    private record Var(String name, T type, boolean assignable, String decl) {

        Var(String name, T type, boolean assignable) {
            this(name, type, assignable, null);
        }
    }

    private record Helper(String name, T result, List<T> params) {
    }

    private static final int MAX_EXPR_DEPTH = 3;

    /**
     * The depth of top-level expressions: 3, or 2 in barrier mode. Each barrier splits the kernel into phases
     * that the backend generates, with the values live across it, per group of warps; at depth 3 nearly every
     * barrier kernel exceeded the JIT's method size limit and was declined, so the fuzzer hardly reached the
     * barrier lowering.
     */
    private final int maxDepth;

    private final SplittableRandom r;
    private final Options options;
    private final StringBuilder out = new StringBuilder();
    private final Deque<List<Var>> scopes = new ArrayDeque<>();
    private final List<Helper> helpers = new ArrayList<>();
    private boolean inKernel;
    /** The result type of the helper being generated, for its early returns. */
    private T helperResult = T.INT;
    private boolean twoD;
    private boolean threeD;
    private int nextName;
    private int indent;
    private int loopDepth;
    private int budget;
    /** Barrier mode: whether all control flow enclosing the current statement is the same for the whole CTA. */
    private boolean uniformControl;
    /** Barrier mode: whether the innermost enclosing loop is a uniform one that may hold barriers. */
    private boolean innermostLoopUniform;
    /** Barrier mode: the counters of the enclosing uniform loops (uniform values usable in slot indices). */
    private final Deque<String> uniformCounters = new ArrayDeque<>();
    /** The slices of the atomic arrays taken so far, per type. */
    private final int[] atomicSlices = new int[4];

    /** What a fault statement may do to a kernel of {@link Options#faults}: one kind per kernel. */
    private enum FaultKind { DIVIDE, INDEX, CONVERGENCE }

    /** The enclosing loops, innermost first, for labelled jumps (extras). */
    private record Loop(String label, boolean uniform) {
    }

    private final Deque<Loop> loops = new ArrayDeque<>();
    /** Extras: the innermost construct a plain {@code break} leaves is a switch. */
    private boolean switchInnermost;
    private FaultKind faultKind;
    private int faultsPlaced;
    /** More than zero while generating an expression that is written more than once: it must not have side effects. */
    private int pure;
    /**
     * Extras in barrier mode: the one atomic operation (per kernel, so that updates of one phase commute) that
     * divergent code applies to the shared arrays {@code shA} and {@code shAF}.
     */
    private String sharedAtomicOp;
    private int[] sharedAtomicConstants;
    private String sharedAtomicFloatOp;

    private KernelGenerator(long seed, Options options) {
        this.r = new SplittableRandom(seed);
        this.options = options;
        // The session-15 constructs nest more (mixed ternaries), so their kernels keep to depth 2 as barrier kernels do.
        this.maxDepth = options.barriers || options.more ? 2 : MAX_EXPR_DEPTH;
    }

    /** The program for {@code seed}. */
    public static Program generate(long seed, Options options) {
        return new KernelGenerator(seed, options).program(seed);
    }

    private Program program(long seed) {
        String name = "Fuzz_" + Long.toHexString(seed) + (options.tolerantMath ? "_m" : "");
        Dim3 block;
        Dim3 grid;
        int shape = r.nextInt(8);
        twoD = shape < 2;
        threeD = shape == 2;
        if (threeD) {
            // Warps span rows and planes of the CTA when blockDim.x is not a multiple of the warp size.
            int bx = pickInt(1, 2, 8, 32, r.nextInt(1, 20));
            int by = r.nextInt(1, Math.min(8, 1024 / bx) + 1);
            int bz = r.nextInt(2, Math.max(3, Math.min(8, 1024 / (bx * by)) + 1));
            block = Dim3.of(bx, by, bz);
            grid = Dim3.of(r.nextInt(1, 3), r.nextInt(1, 3), r.nextInt(1, 3));
        } else if (twoD) {
            int bx = pickInt(1, 4, 8, 16, 32, r.nextInt(1, 40));
            int by = r.nextInt(1, Math.max(2, Math.min(32, 1024 / bx) + 1));
            block = Dim3.of(bx, by);
            grid = Dim3.of(r.nextInt(1, 4), r.nextInt(1, 3));
        } else {
            block = Dim3.of(pickInt(1, 32, 33, 64, 100, 1024, r.nextInt(1, 300), r.nextInt(1, 130)));
            grid = Dim3.of(r.nextInt(1, 5));
        }
        if (options.more && r.nextInt(3) == 0) {
            // Shapes whose rows are not whole registers (8 or 16 lanes), or are several, and the extremes of 1 and 1024 threads.
            switch (r.nextInt(4)) {
                case 0 -> {
                    twoD = false;
                    threeD = false;
                    block = Dim3.of(pickInt(1, 1024, 1023, 1000, 2, 3));
                    grid = Dim3.of(r.nextInt(1, 4));
                }
                case 1 -> {
                    twoD = true;
                    threeD = false;
                    int bx = pickInt(3, 5, 7, 9, 12, 17, 20, 24, 31, 48, 8, 16);
                    block = Dim3.of(bx, r.nextInt(1, Math.min(32, 1024 / bx) + 1));
                    grid = Dim3.of(r.nextInt(1, 4), r.nextInt(1, 3));
                }
                case 2 -> {
                    twoD = false;
                    threeD = true;
                    int bx = pickInt(3, 5, 6, 7, 9, 12, 24, 16, 8);
                    int by = r.nextInt(1, Math.min(8, 1024 / bx) + 1);
                    block = Dim3.of(bx, by, r.nextInt(2, Math.max(3, Math.min(6, 1024 / (bx * by)) + 1)));
                    grid = Dim3.of(r.nextInt(1, 3), r.nextInt(1, 3), r.nextInt(1, 3));
                }
                default -> {
                    twoD = true;
                    threeD = false;
                    block = Dim3.of(pickInt(1, 2, 1024, 512, 33), 1);
                    grid = Dim3.of(r.nextInt(1, 3), r.nextInt(1, 3));
                }
            }
        }
        if (options.extras && r.nextInt(4) == 0) {
            // Many small CTAs: whole grid rows per call, the work distributor handing CTAs to both SMs.
            int limit = Math.max(1, 4096 / (int) block.volume());
            Dim3 many = threeD ? Dim3.of(r.nextInt(1, 6), r.nextInt(1, 4), r.nextInt(1, 4))
                    : twoD ? Dim3.of(r.nextInt(1, Math.min(17, limit + 1)), r.nextInt(1, Math.max(2, Math.min(9, limit / 4 + 1))))
                    : Dim3.of(r.nextInt(1, Math.min(65, limit + 1)));
            grid = many.volume() * block.volume() <= 8192 ? many : grid;
        }
        int threads = Math.toIntExact(grid.volume() * block.volume());
        int n = Math.max(1, threads - r.nextInt(0, threads / 4 + 1));
        if (options.barriers) {
            // Every thread must reach every barrier, so none may return at a gid >= n guard.
            n = threads;
        }
        if (options.faults) {
            faultKind = options.barriers || options.warpOps ? pick(FaultKind.values()) : pick(FaultKind.DIVIDE, FaultKind.INDEX);
        }

        line("package " + PACKAGE + ";");
        line("");
        line("import dev.weft.Atomics;");
        line("import dev.weft.Kernel;");
        line("");
        line("/** Generated from seed 0x" + Long.toHexString(seed) + " by " + KernelGenerator.class.getSimpleName() + ". */");
        line("public final class " + name + " {");
        indent++;
        if (options.extras && options.warpOps) {
            // Helpers that take the thread context or a shared array: warp reductions, a barrier, a slot read.
            line("static int warpSum(dev.weft.ThreadContext t, int v) {");
            line("    for (int d = t.warpSize() / 2; d > 0; d >>= 1) {");
            line("        v += t.shflXor(v, d);");
            line("    }");
            line("    return v;");
            line("}");
            line("");
            line("static int warpMax(dev.weft.ThreadContext t, int v) {");
            line("    for (int d = 1; d < t.warpSize(); d *= 2) {");
            line("        v = Math.max(v, t.shflDown(v, d));");
            line("    }");
            line("    return t.shfl(v, 0);");
            line("}");
            line("");
            line("static int warpCount(dev.weft.ThreadContext t, int v) {");
            line("    return Integer.bitCount(t.ballot((v & 1) != 0)) + (t.all(v > 0) ? 100 : 0);");
            line("}");
            line("");
        }
        if (options.more) {
            // Helpers that update an array element they are given, as kernels factor out an accumulation.
            line("static void bump(int[] a, int i, int v) {");
            line("    a[i] += v;");
            line("    a[i] ^= a[i] >>> 3;");
            line("}");
            line("");
            line("static double mix(double[] a, int i, double v) {");
            line("    double old = a[i];");
            line("    a[i] = old * 0.5d + v;");
            line("    return old;");
            line("}");
            line("");
            line("static long step(long[] a, int i, boolean up) {");
            line("    if (up) {");
            line("        return a[i]++;");
            line("    }");
            line("    return --a[i] << 1;");
            line("}");
            line("");
        }
        if (options.extras && options.barriers) {
            line("static void barrier(dev.weft.ThreadContext t) {");
            line("    t.syncThreads();");
            line("}");
            line("");
            line("static int read(int[] a, int i) {");
            line("    return a[i];");
            line("}");
            line("");
        }
        // Barrier kernels get at most one helper: inlined into every phase that calls it, helpers grow them most.
        int helperCount = r.nextInt(0, options.barriers ? 2 : 3);
        for (int h = 0; h < helperCount; h++) {
            helper(h);
        }
        line("public static Kernel kernel(int n, int[] ia, long[] la, float[] fa, double[] da, int si, long sl, "
                + "float sf, double sd, int[] io, long[] lo, float[] fo, double[] dout, float[] fm, double[] dm, "
                + "int[] ai, long[] al, float[] af, double[] ad" + (options.more ? ", int[] ro, double[] rd, long[] go" : "")
                + (options.narrowArrays ? ", " + NARROW_PARAMS : "") + ") {");
        indent++;
        line("return t -> {");
        indent++;
        inKernel = true;
        budget = options.statementBudget;
        scopes.push(new ArrayList<>());
        String gid3 = "((t.blockIdxZ() * t.gridDimY() + t.blockIdxY()) * t.gridDimX() + t.blockIdxX())"
                + " * (t.blockDimX() * t.blockDimY() * t.blockDimZ()) + t.linearThreadIdx()";
        line("int gid = " + (threeD ? gid3 : twoD ? "t.globalIdY() * (t.gridDimX() * t.blockDimX()) + t.globalIdX()" : "t.globalIdX()") + ";");
        if (options.barriers) {
            line("int tid = t.linearThreadIdx();");
            line("int nt = t.blockDimX() * t.blockDimY()" + (threeD ? " * t.blockDimZ()" : "") + ";");
            line("int[] shI = t.sharedInts(nt);");
            line("long[] shL = t.sharedLongs(nt);");
            line("float[] shF = t.sharedFloats(nt);");
            line("double[] shD = t.sharedDoubles(nt);");
            line("int[] shP = t.sharedInts(nt);");
            if (options.extras) {
                // Arrays of other lengths (padded, doubled), and two that divergent code updates atomically.
                sharedAtomicOp = pick("add", "xor", "or", "and", "min", "max", "add", "exchange", "compareAndSwap", "inc");
                // exchange: always to one value; compareAndSwap: always from one value to another; inc: one limit.
                sharedAtomicConstants = new int[] {r.nextInt(-3, 4), r.nextInt(-3, 4), r.nextInt(1, 40)};
                // add: of small integers, to an array that starts zeroed, so every sum is exact whatever the order.
                sharedAtomicFloatOp = pick("min", "max", "add");
                // Its length may differ between CTAs (the same within one), and an SM reuses shared memory across CTAs.
                line("int[] shA = t.sharedInts(nt + " + pick(String.valueOf(r.nextInt(0, 3)), "t.blockIdxX() % 3", "(t.blockIdxY() & 1)") + ");");
                line("float[] shAF = t.sharedFloats(2 * nt);");
            }
            uniformControl = true;
        } else {
            line("if (gid >= n) {");
            line("    return;");
            line("}");
            // Threads that returned are inactive: a warp operation reached by all the others is well defined.
            uniformControl = options.warpOps;
        }
        block(0);
        if (options.faults && faultsPlaced == 0) {
            faultStatement();
        }
        if (options.barriers) {
            // At least one exchange in every barrier kernel.
            exchange();
            if (options.extras) {
                line("t.syncThreads();");
                line(output(T.INT, r.nextInt(4)) + " ^= shA[" + slot() + "];");
                line(output(T.FLOAT, r.nextInt(4)) + " += shAF[" + slot() + " + " + pick("0", "nt") + "];");
            }
        }
        if (options.more && options.barriers && r.nextBoolean()) {
            // After the last barrier, threads may return on their own.
            line("if (" + expr(T.BOOL, 2) + ") {");
            indent++;
            storeMaybeThenReturn();
            indent--;
            line("}");
        }
        if (options.more) {
            line(reversed(T.INT, r.nextInt(SLOTS)) + " += " + expr(T.INT, maxDepth) + ";");
            line(reversed(T.DOUBLE, r.nextInt(SLOTS)) + " = " + expr(T.DOUBLE, maxDepth) + ";");
        }
        line(output(T.INT, 0) + " += " + expr(T.INT, maxDepth) + ";");
        line(output(T.LONG, 0) + " ^= " + expr(T.LONG, maxDepth) + ";");
        line(output(T.FLOAT, 1) + " = " + expr(T.FLOAT, maxDepth) + ";");
        line(output(T.DOUBLE, 1) + " = " + expr(T.DOUBLE, maxDepth) + ";");
        dumpLocals(scopes.peek());
        scopes.pop();
        indent--;
        line("};");
        indent--;
        line("}");
        indent--;
        line("}");
        return new Program(seed, name, out.toString(), grid, block, n, options.faults);
    }

    // ---- helpers -------------------------------------------------------------------------------

    private void helper(int index) {
        T result = numeric();
        helperResult = result;
        List<T> params = new ArrayList<>();
        int count = r.nextInt(1, 4);
        List<Var> scope = new ArrayList<>();
        StringBuilder sig = new StringBuilder();
        for (int p = 0; p < count; p++) {
            T type = numeric();
            params.add(type);
            String pn = "p" + p;
            scope.add(new Var(pn, type, true));
            sig.append(p == 0 ? "" : ", ").append(type.java).append(' ').append(pn);
        }
        String name = "h" + index;
        line("static " + result.java + " " + name + "(" + sig + ") {");
        indent++;
        inKernel = false;
        budget = 6;
        scopes.push(scope);
        block(1);
        line("return " + expr(result, 2) + ";");
        scopes.pop();
        indent--;
        line("}");
        line("");
        // Registered after its body, so helpers call only earlier helpers: no recursion.
        helpers.add(new Helper(name, result, params));
    }

    // ---- statements ----------------------------------------------------------------------------

    private void block(int depth) {
        // The top level of the kernel takes whatever budget the nested blocks leave.
        int count = depth == 0 && inKernel ? Integer.MAX_VALUE : r.nextInt(1, 4);
        for (int i = 0; i < count && budget > 0; i++) {
            statement(depth);
        }
    }

    private void nested(String header, int depth, String footer) {
        nested(header, null, depth, footer);
    }

    /** A block with a header and footer; {@code first}, if not null, is its first statement. */
    private void nested(String header, String first, int depth, String footer) {
        line(header);
        indent++;
        if (first != null) {
            line(first);
        }
        body(depth);
        indent--;
        line(footer);
    }

    /**
     * Two times in three, a store that records the loop's iterations in an output, so that a loop that
     * runs too often or too rarely in some lane (a break or continue mishandled) shows.
     */
    private String trace(String counter) {
        if (!inKernel || r.nextInt(3) == 0) {
            return null;
        }
        String slot = output(T.INT, r.nextInt(4));
        return slot + " = " + slot + " * 3 + " + counter + ";";
    }

    /** A block in a scope of its own, observed at its end. */
    private void body(int depth) {
        scopes.push(new ArrayList<>());
        block(depth + 1);
        observe(scopes.peek());
        scopes.pop();
    }

    private void statement(int depth) {
        budget--;
        boolean canNest = depth < 3;
        if (options.faults && inKernel && faultsPlaced < 2 && r.nextInt(100) < 8) {
            faultStatement();
            return;
        }
        if (options.narrowArrays && inKernel && r.nextInt(100) < 12) {
            narrowStore();
            return;
        }
        if (options.extras && r.nextInt(100) < 14) {
            extraStatement(depth, canNest);
            return;
        }
        if (options.more && r.nextInt(100) < 16) {
            moreStatement(depth, canNest);
            return;
        }
        if (options.barriers && inKernel && uniformControl && r.nextInt(100) < 22) {
            barrierStatement(depth, canNest);
            return;
        }
        if (options.warpOps && inKernel && uniformControl && r.nextInt(100) < 12) {
            warpStatement(depth, canNest);
            return;
        }
        if (inKernel && r.nextInt(100) < 3) {
            globalAtomic();
            return;
        }
        int roll = r.nextInt(100);
        if (roll < 28) {
            T type = numeric();
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + expr(type, maxDepth) + ";");
            scopes.peek().add(new Var(name, type, true));
        } else if (roll < 46) {
            assignment();
        } else if (roll < 54 && inKernel) {
            if (options.barriers && r.nextInt(4) == 0) {
                // A shared store under any control flow, divergent included: each thread to its own slot of shP,
                // which others read only in an exchange's read phase, between two barriers.
                line("shP[tid] " + pick("=", "+=", "^=") + " " + expr(T.INT, maxDepth) + ";");
            } else {
                store();
            }
        } else if (roll < 68 && canNest) {
            ifStatement(depth);
        } else if (roll < 80 && canNest && loopDepth < 2) {
            loop(depth);
        } else if (roll < 86 && (loopDepth > 0 || switchInnermost) && !((options.barriers || options.warpOps) && innermostLoopUniform)) {
            line("if (" + expr(T.BOOL, 2) + ") {");
            line("    " + jump() + ";");
            line("}");
        } else if (roll < 88 && inKernel && !options.barriers) {
            line("if (" + expr(T.BOOL, 2) + ") {");
            indent++;
            storeMaybeThenReturn();
            indent--;
            line("}");
        } else if (roll < 94 && !inKernel) {
            line("if (" + expr(T.BOOL, 2) + ") {");
            line("    return " + expr(helperResult, 2) + ";");
            line("}");
        } else if (roll < 100 && inKernel && options.tolerantMath) {
            transcendentalStore();
        } else {
            assignment();
        }
    }

    /** A break or continue: of the innermost loop, of the switch, or (extras) of an enclosing loop by label. */
    private String jump() {
        if (!options.extras) {
            return r.nextBoolean() ? "break" : "continue";
        }
        List<Loop> targets = new ArrayList<>();
        for (Loop l : loops) {
            // A divergent jump may not leave a loop that holds barriers or warp operations.
            if ((options.barriers || options.warpOps) && l.uniform) {
                break;
            }
            targets.add(l);
        }
        if (switchInnermost && (targets.isEmpty() || r.nextBoolean())) {
            return "break";
        }
        if (targets.isEmpty()) {
            return r.nextBoolean() ? "break" : "continue";
        }
        Loop target = targets.get(r.nextInt(targets.size()));
        boolean innermost = target == loops.peek() && !switchInnermost;
        String kind = r.nextBoolean() ? "break" : "continue";
        return innermost && r.nextBoolean() ? kind : kind + " " + target.label;
    }

    private void assignment() {
        List<Var> targets = new ArrayList<>();
        for (List<Var> scope : scopes) {
            for (Var v : scope) {
                if (v.assignable) {
                    targets.add(v);
                }
            }
        }
        if (targets.isEmpty()) {
            if (inKernel) {
                store();
            } else {
                T type = numeric();
                String name = "v" + nextName++;
                line(type.java + " " + name + " = " + expr(type, 2) + ";");
                scopes.peek().add(new Var(name, type, true));
            }
            return;
        }
        Var v = targets.get(r.nextInt(targets.size()));
        if (v.type == T.BOOL) {
            line(v.name + " " + pick("=", "&=", "|=", "^=") + " " + condition(2) + ";");
            return;
        }
        if (v.decl != null && r.nextBoolean()) {
            line(v.name + " = (" + v.decl + ") " + expr(T.INT, maxDepth) + ";");
            return;
        }
        String op = switch (v.type) {
            case INT, LONG -> pick("=", "=", "+=", "-=", "*=", "^=", "|=", "<<=", ">>=", ">>>=");
            default -> pick("=", "=", "+=", "-=", "*=", "/=");
        };
        if (v.decl != null && op.equals("=")) {
            line(v.name + " = (" + v.decl + ") " + expr(v.type, maxDepth) + ";");
            return;
        }
        line(v.name + " " + op + " " + expr(v.type, maxDepth) + ";");
    }

    private void store() {
        T type = numeric();
        if (r.nextInt(10) == 0) {
            ownAtomic(type);
            return;
        }
        String op = switch (type) {
            case INT, LONG -> pick("=", "+=", "^=");
            default -> pick("=", "+=");
        };
        line(output(type, r.nextInt(4)) + " " + op + " " + expr(type, maxDepth) + ";");
    }

    /**
     * An atomic on one of the thread's own output elements, any kind (exchange, compare-and-swap and float add
     * included), its old value used: no other thread touches the element, so the old value is defined. Sometimes
     * into a compound assignment of the same element, whose load Java makes before the atomic's update.
     */
    private void ownAtomic(T type) {
        int slot = r.nextInt(4);
        String element = output(type, slot);
        String array = element.substring(0, element.indexOf('['));
        String index = "gid * " + SLOTS + " + " + slot;
        String op = type == T.INT || type == T.LONG
                ? pick("add", "exchange", "compareAndSwap", "min", "max", "and", "or", "xor", "inc", "dec")
                : pick("add", "exchange", "compareAndSwap", "min", "max");
        String operands = switch (op) {
            case "compareAndSwap" -> (r.nextBoolean() ? element : expr(type, 1)) + ", " + expr(type, maxDepth - 1);
            case "inc", "dec" -> literal(type);
            default -> expr(type, maxDepth - 1);
        };
        String call = "Atomics." + op + "(" + array + ", " + index + ", " + operands + ")";
        if (r.nextBoolean()) {
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + call + ";");
            scopes.peek().add(new Var(name, type, true));
        } else {
            String op2 = type == T.INT || type == T.LONG ? pick("=", "+=", "^=") : pick("=", "+=");
            line(output(type, r.nextInt(4)) + " " + op2 + " " + call + ";");
        }
    }

    /** Half the time a store, then {@code return;}: an early exit for some threads. */
    private void storeMaybeThenReturn() {
        if (r.nextBoolean()) {
            // a scope of its own: the store may declare a local (an atomic's old value)
            scopes.push(new ArrayList<>());
            store();
            scopes.pop();
        }
        line("return;");
    }

    /** The next unused slice of the global atomic array of {@code type}, claimed; -1 once they are used up. */
    private int claimAtomicSlice(T type) {
        int slice = atomicSlices[type.ordinal()];
        if (slice >= ATOMIC_LENGTH / ATOMIC_SLICE) {
            return -1;
        }
        atomicSlices[type.ordinal()]++;
        return slice;
    }

    /** The kernel's global atomic array of {@code type}. */
    private static String atomicArray(T type) {
        return switch (type) {
            case INT -> "ai";
            case LONG -> "al";
            case FLOAT -> "af";
            default -> "ad";
        };
    }

    /**
     * An atomic update of a global array, at an index that may be the same for the whole warp, one per lane or
     * chosen by data (lanes of a warp that meet at one address must all count). Falls back to a store once the
     * type's slices are used up.
     */
    private void globalAtomic() {
        T type = numeric();
        int slice = claimAtomicSlice(type);
        if (slice < 0) {
            store();
            return;
        }
        String array = atomicArray(type);
        String offset = switch (r.nextInt(5)) {
            case 0 -> String.valueOf(r.nextInt(ATOMIC_SLICE));
            case 1 -> "(t.laneId() & " + (ATOMIC_SLICE - 1) + ")";
            case 2 -> "(si & " + (ATOMIC_SLICE - 1) + ")";
            default -> "(" + expr(T.INT, 1) + " & " + (ATOMIC_SLICE - 1) + ")";
        };
        String index = slice * ATOMIC_SLICE + " + " + offset;
        if (type == T.INT || type == T.LONG) {
            String op = pick("add", "min", "max", "and", "or", "xor", "add", "inc", "dec");
            String operand = op.equals("inc") || op.equals("dec") ? literal(type) : expr(type, maxDepth - 1);
            line("Atomics." + op + "(" + array + ", " + index + ", " + operand + ");");
        } else {
            line("Atomics." + pick("min", "max") + "(" + array + ", " + index + ", " + expr(type, maxDepth - 1) + ");");
        }
    }

    /** The thread's element {@code slot} of the output array of {@code type}. */
    private static String output(T type, int slot) {
        String array = switch (type) {
            case INT -> "io";
            case LONG -> "lo";
            case FLOAT -> "fo";
            default -> "dout";
        };
        return array + "[gid * " + SLOTS + " + " + slot + "]";
    }

    /** Stores one local of a block that ends here (a value a bug inside the block would change). */
    private void observe(List<Var> scope) {
        if (!inKernel || scope.isEmpty() || r.nextInt(3) == 0) {
            return;
        }
        Var v = scope.get(r.nextInt(scope.size()));
        if (v.type == T.BOOL) {
            line(output(T.INT, r.nextInt(4)) + " ^= (" + v.name + " ? " + r.nextInt(1, 1000) + " : 0);");
            return;
        }
        String op = v.type == T.INT || v.type == T.LONG ? "^=" : "+=";
        line(output(v.type, r.nextInt(4)) + " " + op + " " + v.name + ";");
    }

    /** Stores every top-level local in slots 4-7 of its type's output. */
    private void dumpLocals(List<Var> scope) {
        int[] used = new int[4];
        for (Var v : scope) {
            if (v.type == T.BOOL) {
                int k = used[T.INT.ordinal()]++;
                line(output(T.INT, 4 + k % 4) + " ^= (" + v.name + " ? 0x1000 : 0x2000);");
                continue;
            }
            int k = used[v.type.ordinal()]++;
            String op = k < 4 ? "=" : v.type == T.INT || v.type == T.LONG ? "^=" : "+=";
            line(output(v.type, 4 + k % 4) + " " + op + " " + v.name + ";");
        }
    }

    private void transcendentalStore() {
        String f = options.extras && r.nextBoolean()
                ? pick("asin", "acos", "atan", "expm1", "log1p", "cbrt", "log10", "hypot")
                : pick("sin", "cos", "tan", "exp", "log", "pow");
        if (f.equals("hypot")) {
            if (r.nextBoolean()) {
                line("fm[gid] = (float) Math.hypot(" + expr(T.FLOAT, 2) + ", " + expr(T.FLOAT, 1) + ");");
            } else {
                line("dm[gid] = Math.hypot(" + expr(T.DOUBLE, 2) + ", " + expr(T.DOUBLE, 1) + ");");
            }
            return;
        }
        if (r.nextBoolean()) {
            String arg = f.equals("pow") ? expr(T.FLOAT, 2) + ", " + expr(T.FLOAT, 1) : expr(T.FLOAT, 2);
            line("fm[gid] = (float) Math." + f + "(" + arg + ");");
        } else {
            String arg = f.equals("pow") ? expr(T.DOUBLE, 2) + ", " + expr(T.DOUBLE, 1) : expr(T.DOUBLE, 2);
            line("dm[gid] = Math." + f + "(" + arg + ");");
        }
    }

    private void ifStatement(int depth) {
        // A condition on per-thread values: no barriers below it.
        boolean wasUniform = uniformControl;
        uniformControl = false;
        ifBranches(depth);
        uniformControl = wasUniform;
    }

    private void ifBranches(int depth) {
        nested("if (" + expr(T.BOOL, maxDepth) + ") {", depth, "}");
        int tail = r.nextInt(3);
        if (tail == 1) {
            // Turn the closing brace into an else branch.
            out.setLength(out.length() - (indentOf(indent) + "}\n").length());
            nested("} else {", depth, "}");
        } else if (tail == 2) {
            out.setLength(out.length() - (indentOf(indent) + "}\n").length());
            nested("} else if (" + expr(T.BOOL, 2) + ") {", depth, "}");
        }
    }

    private void loop(int depth) {
        // Trip counts and while conditions may differ per thread, and break/continue inside may be divergent.
        boolean wasUniform = uniformControl;
        boolean wasUniformLoop = innermostLoopUniform;
        uniformControl = false;
        innermostLoopUniform = false;
        anyLoop(depth);
        uniformControl = wasUniform;
        innermostLoopUniform = wasUniformLoop;
    }

    private void anyLoop(int depth) {
        loopDepth++;
        String bound = tripCount();
        String label = "L" + nextName;
        String prefix = options.extras ? label + ": " : "";
        boolean wasSwitch = switchInnermost;
        switchInnermost = false;
        loops.push(new Loop(label, false));
        switch (r.nextInt(4)) {
            case 0, 1 -> {
                String k = "k" + nextName++;
                scopes.push(new ArrayList<>(List.of(new Var(k, T.INT, false))));
                if (options.extras && r.nextInt(5) == 0) {
                    // A long or float counter (not a Var: the body does not read it).
                    scopes.pop();
                    scopes.push(new ArrayList<>());
                    if (r.nextBoolean()) {
                        nested(prefix + "for (long " + k + " = " + bound + "; " + k + " > 0L; " + k + " -= " + pick("1L", "2L") + ") {",
                                null, depth, "}");
                    } else {
                        nested(prefix + "for (float " + k + " = 0.5f; " + k + " < " + bound + "; " + k + " += " + pick("1f", "0.75f") + ") {",
                                null, depth, "}");
                    }
                } else if (options.extras && inKernel && r.nextInt(3) == 0) {
                    // A step that differs per thread, or a bound that moves with an enclosing counter.
                    String step = pick("1 + (ia[gid] & 1)", "2", "1 + (t.laneId() & 1)", "(gid & 3) + 1");
                    nested(prefix + "for (int " + k + " = " + r.nextInt(0, 2) + "; " + k + " < " + bound + "; " + k + " += " + step + ") {",
                            trace(k), depth, "}");
                } else if (r.nextBoolean()) {
                    nested(prefix + "for (int " + k + " = 0; " + k + " < " + bound + "; " + k + "++) {", trace(k), depth, "}");
                } else {
                    nested(prefix + "for (int " + k + " = " + bound + "; " + k + " > 0; " + k + "--) {", trace(k), depth, "}");
                }
                scopes.pop();
            }
            case 2 -> {
                String c = "c" + nextName++;
                line("int " + c + " = 0;");
                scopes.peek().add(new Var(c, T.INT, false));
                line(prefix + "while (" + c + " < " + bound + " && " + expr(T.BOOL, 2) + ") {");
                indent++;
                line(c + "++;");
                String first = trace(c);
                if (first != null) {
                    line(first);
                }
                body(depth);
                indent--;
                line("}");
            }
            default -> {
                String c = "c" + nextName++;
                line("int " + c + " = 0;");
                scopes.peek().add(new Var(c, T.INT, false));
                line(prefix + "do {");
                indent++;
                line(c + "++;");
                String first = trace(c);
                if (first != null) {
                    line(first);
                }
                body(depth);
                indent--;
                line("} while (" + c + " < " + bound + " && " + expr(T.BOOL, 2) + ");");
            }
        }
        loops.pop();
        switchInnermost = wasSwitch;
        loopDepth--;
    }

    /** A trip count: uniform (a constant or a captured scalar) or per thread (from data or ids). */
    private String tripCount() {
        if (!inKernel) {
            return String.valueOf(r.nextInt(0, 6));
        }
        if (options.more && r.nextInt(5) == 0) {
            // The same in every thread of a row (of a register, with register rows), different between rows.
            return pick("(t.threadIdxY() & 3)", "(t.threadIdxZ() + 1)", "((t.threadIdxY() + t.blockIdxY()) % 4)", "(t.threadIdxY() * t.blockDimX() % 5)",
                    "(t.threadIdxX() / 8 & 3)");
        }
        if (options.extras && r.nextInt(5) == 0) {
            // Triangular nests: a bound from an enclosing loop's counter, or from data in long or float.
            for (List<Var> scope : scopes) {
                for (Var v : scope) {
                    if (!v.assignable && v.type == T.INT && r.nextBoolean()) {
                        return "(" + v.name + " + " + r.nextInt(0, 2) + ")";
                    }
                }
            }
            return pick("((int) (la[gid] >>> 61))", "((int) Math.abs(fa[gid]) & 7)", "(Integer.bitCount(ia[gid]) & 7)");
        }
        return switch (r.nextInt(7)) {
            case 0 -> String.valueOf(r.nextInt(0, 7));
            case 1 -> "(si & 7)";
            case 2 -> "(n % 5)";
            case 3 -> "(ia[gid] & 7)";
            case 4 -> "(gid % 6)";
            case 5 -> "(t.laneId() & 3)";
            default -> "((int) la[gid] & 5)";
        };
    }

    // ---- extras (Options.extras) -----------------------------------------------------------------

    private void extraStatement(int depth, boolean canNest) {
        if (inKernel && canNest && loopDepth < 2 && r.nextInt(100) < 30) {
            strideLoop(depth);
            return;
        }
        if (inKernel && loopDepth < 2 && r.nextInt(100) < 12) {
            accumulatorLoop();
            return;
        }
        int roll = r.nextInt(100);
        if (roll < 30 && canNest) {
            switchStatement(depth);
        } else if (roll < 45 && inKernel) {
            extraGlobalAtomic();
        } else if (roll < 65 && inKernel && options.barriers) {
            // Divergent code too: one operation per kernel, so the updates of a phase commute.
            if (r.nextBoolean()) {
                line(sharedAtomic("(" + expr(T.INT, 1) + " & 0x7fffffff) % nt", expr(T.INT, 2)) + ";");
            } else {
                line("Atomics." + sharedAtomicFloatOp + "(shAF, (" + expr(T.INT, 1) + " & 0x7fffffff) % (2 * nt), "
                        + (sharedAtomicFloatOp.equals("add") ? "(float) (" + expr(T.INT, 2) + " & 15)" : expr(T.FLOAT, 2)) + ");");
            }
        } else if (roll < 75 && inKernel && options.warpOps && !options.barriers && uniformControl && canNest) {
            // A warp operation in a divergent branch whose other side returns: the threads that meet it are all the
            // warp has left, so it is well defined, and the control after the branch is warp-uniform again.
            boolean wasUniform = uniformControl;
            line("if (" + expr(T.BOOL, 2) + ") {");
            indent++;
            scopes.push(new ArrayList<>());
            uniformControl = true;
            warpStatement(depth + 1, false);
            observe(scopes.peek());
            scopes.pop();
            indent--;
            line("} else {");
            indent++;
            storeMaybeThenReturn();
            indent--;
            line("}");
            uniformControl = wasUniform;
        } else if (roll < 82) {
            // A flag (a mask when varying) or a narrow int, assigned later like any local.
            String name = "v" + nextName++;
            if (r.nextBoolean()) {
                line("boolean " + name + " = " + condition(2) + ";");
                scopes.peek().add(new Var(name, T.BOOL, true));
            } else {
                String decl = pick("byte", "short", "char");
                line(decl + " " + name + " = (" + decl + ") " + expr(T.INT, maxDepth - 1) + ";");
                scopes.peek().add(new Var(name, T.INT, true, decl));
            }
        } else if (roll < 88 && inKernel && options.warpOps && uniformControl) {
            // A warp reduction or vote in a static helper that takes the thread context (inlined).
            String name = "v" + nextName++;
            line("int " + name + " = " + pick("warpSum", "warpMax", "warpCount") + "(t, " + expr(T.INT, 1) + ");");
            scopes.peek().add(new Var(name, T.INT, true));
        } else {
            T type = numeric();
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + extraExpr(type, maxDepth - 1) + ";");
            scopes.peek().add(new Var(name, type, true));
        }
    }

    /**
     * A grid-, block- or warp-stride loop over the inputs, as CUDA reductions and histograms run them: the backend's
     * fast path (whole iterations without masks while every thread of the group stays in) takes those whose body is
     * one straight block, and in kernels with barriers may interleave them across groups. Half the bodies are that
     * (accumulations into locals and an order-free histogram atomic), half any statements.
     */
    private void strideLoop(int depth) {
        String i = "i" + nextName++;
        // Computed before the loop: the fast path wants a header that only compares (no call, no division).
        String bound = "m" + i;
        // Over the CTA's shared arrays (written by the last exchange) or over the inputs. A loop that reads only shared
        // memory in a phase that writes only global memory may run interleaved across the CTA's groups.
        // Only in CTA-uniform control, in a phase of its own: an exchange's write phase would race with its reads.
        boolean shared = options.barriers && uniformControl && r.nextBoolean();
        // Or over the inputs with a histogram in shared memory (shA, the kernel's one shared atomic), as CUDA's
        // shared-memory histograms do, also in a phase of its own.
        boolean histogram = !shared && options.barriers && options.extras && uniformControl && r.nextBoolean();
        boolean phase = shared || histogram;
        if (phase) {
            line("t.syncThreads();");
        }
        // With index faults, a bound one past the end for some launches (si is the same for every thread).
        String past = options.faults && faultKind == FaultKind.INDEX && faultsPlaced < 2 && r.nextBoolean() ? " + (si & 1)" : "";
        if (!past.isEmpty()) {
            faultsPlaced++;
        }
        line("int " + bound + " = " + (shared ? pick("nt", "Math.min(nt, " + r.nextInt(8, 200) + ")")
                : r.nextBoolean() ? "Math.min(n, " + r.nextInt(16, 400) + ")" : r.nextInt(1, 300) + " % (n + 1)") + past + ";");
        String header = switch (r.nextInt(options.barriers ? 6 : 5)) {
            case 0 -> "for (int " + i + " = t.threadIdxX(); " + i + " < " + bound + "; " + i + " += t.blockDimX())";
            case 1 -> twoD || threeD ? "for (int " + i + " = t.threadIdxX(); " + i + " < " + bound + "; " + i + " += t.blockDimX())"
                    : "for (int " + i + " = t.globalIdX(); " + i + " < " + bound + "; " + i + " += t.blockDimX() * t.gridDimX())";
            case 2 -> "for (int " + i + " = t.laneId(); " + i + " < " + bound + "; " + i + " += t.warpSize())";
            case 3 -> "for (int " + i + " = " + bound + " - 1 - t.threadIdxX(); " + i + " >= 0; " + i + " -= t.blockDimX())";
            case 4 -> "for (int " + i + " = t.threadIdxX() * 2; " + i + " < " + bound + "; " + i + " += 2 * t.blockDimX())";
            default -> "for (int " + i + " = tid; " + i + " < " + bound + "; " + i + " += nt)";
        };
        List<Var> accumulators = new ArrayList<>();
        for (int a = r.nextInt(1, 3); a > 0; a--) {
            T type = numeric();
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + literal(type) + ";");
            Var v = new Var(name, type, true);
            scopes.peek().add(v);
            accumulators.add(v);
        }
        boolean wasUniform = uniformControl;
        boolean wasUniformLoop = innermostLoopUniform;
        boolean wasSwitch = switchInnermost;
        uniformControl = false;
        innermostLoopUniform = false;
        switchInnermost = false;
        loopDepth++;
        String label = "L" + i;
        loops.push(new Loop(label, false));
        line(label + ": " + header + " {");
        indent++;
        scopes.push(new ArrayList<>(List.of(new Var(i, T.INT, false))));
        for (Var acc : accumulators) {
            String prefix = switch (acc.type) {
                case INT -> "i";
                case LONG -> "l";
                case FLOAT -> "f";
                default -> "d";
            };
            String x = shared ? "sh" + prefix.toUpperCase() + "[" + i + "]" : prefix + "a[" + i + "]";
            line(switch (acc.type) {
                case INT -> acc.name + " " + pick("+=", "^=", "|=") + " " + x + pick("", " * " + r.nextInt(1, 9), " >>> " + r.nextInt(0, 8)) + ";";
                case LONG -> pick(acc.name + " += " + x + " ^ " + i + ";", acc.name + " = Math.max(" + acc.name + ", " + x + ");");
                case FLOAT -> pick(acc.name + " += " + x + ";", acc.name + " = Math.fma(" + x + ", sf, " + acc.name + ");",
                        acc.name + " = Math.min(" + acc.name + ", " + x + ");");
                default -> pick(acc.name + " += " + x + " * " + i + ";", acc.name + " = Math.max(" + acc.name + ", " + x + ");");
            });
        }
        if (options.more && !phase && header.contains("t.gridDimX()") && r.nextInt(3) != 0) {
            // A 1D grid-stride loop visits each element once across the grid: stores at its index (go, of the
            // session-15 outputs) are contiguous per group and race-free, as saxpy's are.
            Var acc = accumulators.get(0);
            String value = switch (acc.type) {
                case LONG -> acc.name;
                case INT -> "(long) " + acc.name + " * " + i;
                case FLOAT -> "(long) " + acc.name;
                default -> "Double.doubleToRawLongBits(" + acc.name + ")";
            };
            line("go[" + i + "] " + pick("=", "+=", "^=", "=") + " " + pick(value, "la[" + i + "] ^ " + i, "la[" + i + "] * 3L + " + value) + ";");
        }
        if (!phase && r.nextInt(3) == 0) {
            // A store in the straight body: the fast path must not store for threads that returned before the loop.
            line(output(T.INT, r.nextInt(4)) + " " + pick("^=", "+=", "=") + " ia[" + i + "] + " + i + ";");
        }
        if (histogram) {
            line(sharedAtomic(pick("(ia[" + i + "] & 15) % nt", "(ia[" + i + "] & 0x7fffffff) % nt", i + " % nt"), pick("1", "ia[" + i + "]", i)) + ";");
        } else if (!shared && r.nextBoolean()) {
            int slice = atomicSlices[T.INT.ordinal()];
            if (slice < ATOMIC_LENGTH / ATOMIC_SLICE) {
                atomicSlices[T.INT.ordinal()]++;
                line("Atomics." + pick("add", "max", "or") + "(ai, " + slice * ATOMIC_SLICE + " + (ia[" + i + "] & " + (ATOMIC_SLICE - 1) + "), "
                        + pick("1", i, "ia[" + i + "]") + ");");
            }
        }
        if (!phase && r.nextBoolean()) {
            block(depth + 1);
        }
        scopes.pop();
        indent--;
        line("}");
        if (phase) {
            line("t.syncThreads();");
        }
        loops.pop();
        loopDepth--;
        uniformControl = wasUniform;
        innermostLoopUniform = wasUniformLoop;
        switchInnermost = wasSwitch;
    }

    /** The kernel's one atomic on {@code shA}, in a form whose final values do not depend on the threads' order. */
    private String sharedAtomic(String index, String operand) {
        return switch (sharedAtomicOp) {
            case "exchange" -> "Atomics.exchange(shA, " + index + ", " + sharedAtomicConstants[0] + ")";
            case "compareAndSwap" -> "Atomics.compareAndSwap(shA, " + index + ", " + sharedAtomicConstants[0] + ", " + sharedAtomicConstants[1] + ")";
            case "inc" -> "Atomics.inc(shA, " + index + ", " + sharedAtomicConstants[2] + ")";
            default -> "Atomics." + sharedAtomicOp + "(shA, " + index + ", " + operand + ")";
        };
    }

    /**
     * A loop of one straight block carrying many independent accumulators, as a register-blocked matmul's: the
     * backend splits such loops into several (LoopFission) when they carry more than 12 units with 16 vector registers
     * (the module's AVX2 test run), 24 with AVX-512's 32. With faults, one chain may divide by zero or index out of
     * bounds, which the split loops must keep where it was.
     */
    private void accumulatorLoop() {
        String k = "k" + nextName++;
        String bound = pick("(ia[gid] & 7)", String.valueOf(r.nextInt(1, 9)), "(si & 7)", "(gid % 5)");
        List<Var> accumulators = new ArrayList<>();
        for (int a = r.nextInt(5, 15); a > 0; a--) {
            T type = numeric();
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + literal(type) + ";");
            Var v = new Var(name, type, true);
            scopes.peek().add(v);
            accumulators.add(v);
        }
        line("for (int " + k + " = 0; " + k + " < " + bound + "; " + k + "++) {");
        indent++;
        int faultAt = options.faults && faultKind != FaultKind.CONVERGENCE && faultsPlaced < 2 && r.nextBoolean()
                ? r.nextInt(accumulators.size()) : -1;
        if (faultAt >= 0) {
            faultsPlaced++;
        }
        for (int j = 0; j < accumulators.size(); j++) {
            Var acc = accumulators.get(j);
            String idx = "(" + k + " * " + r.nextInt(1, 8) + " + gid) % n";
            if (j == faultAt && faultKind == FaultKind.INDEX) {
                idx = k + " + gid + " + r.nextInt(0, 3);
            }
            String prefix = switch (acc.type) {
                case INT -> "i";
                case LONG -> "l";
                case FLOAT -> "f";
                default -> "d";
            };
            String x = prefix + "a[" + idx + "]";
            if (j == faultAt && faultKind == FaultKind.DIVIDE) {
                x = acc.type == T.LONG ? "(la[gid] / (la[" + idx + "] & 3))" : acc.type == T.INT ? "(ia[gid] / (ia[" + idx + "] & 3))"
                        : "(" + x + " + ia[gid] / (ia[(" + k + " + gid) % n] & 3))";
            }
            // Now and then a chain reads another's accumulator: the split must keep such groups together.
            Var other = accumulators.get(r.nextInt(accumulators.size()));
            String mix = other != acc && other.type == acc.type && r.nextInt(4) == 0 ? " + " + other.name : "";
            line(switch (acc.type) {
                case INT -> acc.name + " = " + acc.name + " * " + pick("31", "3", "-1") + " + " + x + mix + ";";
                case LONG -> acc.name + " += " + x + " * " + k + mix + ";";
                case FLOAT -> pick(acc.name + " = Math.fma(" + x + ", sf, " + acc.name + ")" + mix + ";", acc.name + " += " + x + mix + ";");
                default -> acc.name + " = " + acc.name + " * 0.5d + " + x + mix + ";";
            });
        }
        indent--;
        line("}");
    }

    /**
     * A switch statement (dense cases: tableswitch; sparse: lookupswitch), cases falling through or not, on a
     * per-thread value, or on a CTA-uniform one where barriers and warp operations may sit in the cases.
     */
    private void switchStatement(int depth) {
        boolean uniform = (options.barriers || options.warpOps) && inKernel && uniformControl && r.nextBoolean();
        String selector = uniform ? pick("(si & 3)", "(t.blockIdxX() % 3)", "(n & 7)", "(int) (sl & 3)")
                : switch (r.nextInt(4)) {
                    case 0 -> "(" + expr(T.INT, 2) + " & 3)";
                    case 1 -> "(" + expr(T.INT, 1) + " % 5)";
                    case 2 -> inKernel ? "t.laneId()" : "(" + expr(T.INT, 1) + " >>> 29)";
                    default -> expr(T.INT, 2);
                };
        if (uniform && !uniformCounters.isEmpty() && r.nextBoolean()) {
            selector = uniformCounters.peek();
        }
        boolean dense = r.nextBoolean();
        int cases = r.nextInt(1, 5);
        List<Integer> keys = new ArrayList<>();
        while (keys.size() < cases) {
            int k = dense ? r.nextInt(-1, 6) : pickInt(-7, 0, 1, 3, 31, 100, 1000, -1000, 65536, Integer.MIN_VALUE, Integer.MAX_VALUE);
            if (!keys.contains(k)) {
                keys.add(k);
            }
        }
        boolean wasUniform = uniformControl;
        boolean wasUniformLoop = innermostLoopUniform;
        boolean wasSwitch = switchInnermost;
        uniformControl = uniform;
        // A conditional break of a uniform switch would make the rest of the case divergent.
        innermostLoopUniform = uniform;
        switchInnermost = true;
        // As an int: a narrowing cast in the selector would make it a short switch, whose large cases do not compile.
        line("switch ((int) " + selector + ") {");
        indent++;
        boolean hasDefault = r.nextBoolean();
        for (int i = 0; i <= keys.size(); i++) {
            if (i == keys.size() && !hasDefault) {
                break;
            }
            int key = i < keys.size() ? keys.get(i) : 0;
            line(i == keys.size() ? "default: {" : "case " + (key == Integer.MIN_VALUE ? "Integer.MIN_VALUE" : key == Integer.MAX_VALUE
                    ? "Integer.MAX_VALUE" : String.valueOf(key)) + ": {");
            indent++;
            scopes.push(new ArrayList<>());
            block(depth + 1);
            observe(scopes.peek());
            scopes.pop();
            if (r.nextInt(3) != 0) {
                line("break;");
            }
            indent--;
            line("}");
        }
        indent--;
        line("}");
        uniformControl = wasUniform;
        innermostLoopUniform = wasUniformLoop;
        switchInnermost = wasSwitch;
    }

    /**
     * A global atomic whose final value does not depend on the order of the threads: an exchange to one constant,
     * a compare-and-swap from one constant to another (float and double too), increments and decrements.
     */
    private void extraGlobalAtomic() {
        T type = numeric();
        int slice = claimAtomicSlice(type);
        if (slice < 0) {
            store();
            return;
        }
        String array = atomicArray(type);
        String index = slice * ATOMIC_SLICE + " + (" + pick("t.laneId()", "gid", expr(T.INT, 1), "t.warpId()") + " & " + (ATOMIC_SLICE - 1) + ")";
        String guard = r.nextBoolean() ? null : expr(T.BOOL, 2);
        if (guard != null) {
            line("if (" + guard + ") {");
            indent++;
        }
        if (r.nextBoolean()) {
            line("Atomics.exchange(" + array + ", " + index + ", " + literal(type) + ");");
        } else {
            // From a value the arrays hold (their inputs include small integers) to another.
            String from = switch (type) {
                case INT -> String.valueOf(r.nextInt(-2, 3));
                case LONG -> r.nextInt(-2, 3) + "L";
                case FLOAT -> r.nextInt(-2, 3) + "f";
                default -> r.nextInt(-2, 3) + "d";
            };
            line("Atomics.compareAndSwap(" + array + ", " + index + ", " + from + ", " + literal(type) + ");");
        }
        if (guard != null) {
            indent--;
            line("}");
        }
    }

    /** Functions the compiler lowers that the base generator does not call: bit counts and rotations, rounding, bits. */
    private String extraExpr(T type, int d) {
        int e = Math.max(0, d);
        String i1 = expr(T.INT, e);
        return switch (type) {
            case INT -> switch (r.nextInt(22)) {
                case 0 -> "Integer.bitCount(" + i1 + ")";
                case 1 -> "Integer.numberOfLeadingZeros(" + i1 + ")";
                case 2 -> "Integer.numberOfTrailingZeros(" + i1 + ")";
                case 3 -> "Integer." + pick("reverse", "reverseBytes", "highestOneBit", "lowestOneBit", "signum") + "(" + i1 + ")";
                case 4 -> "Integer." + pick("rotateLeft", "rotateRight") + "(" + i1 + ", " + expr(T.INT, e) + ")";
                case 5 -> "Integer." + pick("compare", "compareUnsigned", "min", "max", "sum") + "(" + i1 + ", " + expr(T.INT, e) + ")";
                case 6 -> "Long." + pick("bitCount", "numberOfLeadingZeros", "numberOfTrailingZeros", "signum") + "(" + expr(T.LONG, e) + ")";
                case 7 -> "Long." + pick("compare", "compareUnsigned") + "(" + expr(T.LONG, e) + ", " + expr(T.LONG, e) + ")";
                case 8 -> "Math.round(" + expr(T.FLOAT, e) + ")";
                case 9 -> "Math.getExponent(" + expr(r.nextBoolean() ? T.FLOAT : T.DOUBLE, e) + ")";
                case 10 -> "Float.floatToIntBits(" + expr(T.FLOAT, e) + ")";
                case 11 -> pick("Float", "Double") .equals("Float") ? "Float.compare(" + expr(T.FLOAT, e) + ", " + expr(T.FLOAT, e) + ")"
                        : "Double.compare(" + expr(T.DOUBLE, e) + ", " + expr(T.DOUBLE, e) + ")";
                case 12, 13 -> guardedDivision(T.INT, e);
                case 14, 15 -> guardedGather(T.INT);
                case 16, 17 -> switchExpression(T.INT, e);
                case 18 -> "((" + pick("byte", "short", "char") + ") (" + i1 + " " + pick("+", "*", "-") + " " + expr(T.INT, e) + "))";
                case 19 -> "(int) Math.signum(" + expr(T.FLOAT, e) + ")";
                case 20 -> "(" + i1 + " " + pick("<<", ">>", ">>>") + " " + pick("31", "32", "33", "-1", "(-33)", "63", "64") + ")";
                default -> "(" + condition(e) + " " + pick("&", "|", "^") + " " + condition(e) + " ? " + i1 + " : " + expr(T.INT, e) + ")";
            };
            case LONG -> switch (r.nextInt(13)) {
                case 0 -> "Long." + pick("reverse", "reverseBytes", "highestOneBit", "lowestOneBit") + "(" + expr(T.LONG, e) + ")";
                case 1 -> "Long." + pick("rotateLeft", "rotateRight") + "(" + expr(T.LONG, e) + ", " + i1 + ")";
                case 2 -> "Math.multiplyHigh(" + expr(T.LONG, e) + ", " + expr(T.LONG, e) + ")";
                case 3 -> "Math.round(" + expr(T.DOUBLE, e) + ")";
                case 4 -> "Double.doubleToLongBits(" + expr(T.DOUBLE, e) + ")";
                case 5 -> "Integer.toUnsignedLong(" + i1 + ")";
                case 6 -> "Long." + pick("min", "max", "sum") + "(" + expr(T.LONG, e) + ", " + expr(T.LONG, e) + ")";
                case 7, 8 -> guardedDivision(T.LONG, e);
                case 9 -> guardedGather(T.LONG);
                case 10 -> switchExpression(T.LONG, e);
                case 11 -> "(" + expr(T.LONG, e) + " " + pick("<<", ">>", ">>>") + " " + pick("63", "64", "65", "-1", "(-65)", "32") + ")";
                default -> "((long) " + i1 + " * " + i1 + ")";
            };
            case FLOAT -> switch (r.nextInt(12)) {
                case 0 -> "Math." + pick("signum", "ulp", "nextUp", "nextDown") + "(" + expr(T.FLOAT, e) + ")";
                case 1 -> "Math.scalb(" + expr(T.FLOAT, e) + ", " + pick(i1, "(" + i1 + " % 300)", String.valueOf(r.nextInt(-160, 160))) + ")";
                case 2 -> "Math.nextAfter(" + expr(T.FLOAT, e) + ", " + expr(T.DOUBLE, e) + ")";
                case 3 -> "Float.intBitsToFloat(" + i1 + ")";
                case 4 -> "Float." + pick("min", "max", "sum") + "(" + expr(T.FLOAT, e) + ", " + expr(T.FLOAT, e) + ")";
                case 5, 6 -> "dev.weft.Sfu." + pick("rcp", "rsqrt", "ex2", "lg2", "sin", "cos") + "(" + expr(T.FLOAT, e) + ")";
                // FastMath is not compiled (the backend declines its calls), so its SFU calls are written out here.
                case 7 -> "dev.weft.Sfu.ex2(" + expr(T.FLOAT, e) + " * 1.442695f)";
                case 8 -> "(" + expr(T.FLOAT, e) + " * dev.weft.Sfu.rcp(" + expr(T.FLOAT, e) + "))";
                case 9 -> guardedGather(T.FLOAT);
                case 10 -> switchExpression(T.FLOAT, e);
                default -> "((float) " + expr(T.LONG, e) + " + (float) " + i1 + ")";
            };
            default -> switch (r.nextInt(10)) {
                case 0 -> "Math." + pick("signum", "ulp", "nextUp", "nextDown", "toRadians", "toDegrees") + "(" + expr(T.DOUBLE, e) + ")";
                case 1 -> "Math.scalb(" + expr(T.DOUBLE, e) + ", " + pick(i1, "(" + i1 + " % 2200)", String.valueOf(r.nextInt(-1100, 1100))) + ")";
                case 2 -> "Math.nextAfter(" + expr(T.DOUBLE, e) + ", " + expr(T.DOUBLE, e) + ")";
                case 3 -> "Math.IEEEremainder(" + expr(T.DOUBLE, e) + ", " + expr(T.DOUBLE, e) + ")";
                case 4 -> "Double.longBitsToDouble(" + expr(T.LONG, e) + ")";
                case 5 -> "Double." + pick("min", "max", "sum") + "(" + expr(T.DOUBLE, e) + ", " + expr(T.DOUBLE, e) + ")";
                case 6 -> guardedGather(T.DOUBLE);
                case 7 -> switchExpression(T.DOUBLE, e);
                case 8 -> "((double) " + expr(T.FLOAT, e) + " * " + expr(T.LONG, e) + ")";
                default -> "((double) " + expr(T.LONG, e) + " / " + i1 + ")";
            };
        };
    }

    /** A division whose divisor may be zero (or -1 under MIN_VALUE), taken only where it is not zero. */
    private String guardedDivision(T type, int e) {
        // The divisor is written twice (test and use), and the dividend is evaluated between them: no side effects in
        // either (a dividend's v -= v could zero the divisor after its test).
        pure++;
        String divisor = r.nextBoolean() ? expr(type, e) : "(" + expr(type, e) + " " + pick("& 3", "% 3", ">> 30") + ")";
        String a = r.nextInt(4) == 0 ? (type == T.INT ? "Integer.MIN_VALUE" : "Long.MIN_VALUE") : expr(type, e);
        pure--;
        String zero = type == T.INT ? "0" : "0L";
        String op = pick("/", "%");
        return r.nextBoolean()
                ? "(" + divisor + " != " + zero + " ? " + a + " " + op + " " + divisor + " : " + expr(type, e) + ")"
                : "(" + divisor + " == " + zero + " ? " + expr(type, e) + " : " + a + " " + op + " " + divisor + ")";
    }

    /** A load at an index that may be out of bounds, taken only where it is in bounds. */
    private String guardedGather(T type) {
        if (!inKernel) {
            return literal(type);
        }
        String array = switch (type) {
            case INT -> "ia";
            case LONG -> "la";
            case FLOAT -> "fa";
            default -> "da";
        };
        pure++;
        String i = pick("(gid + " + r.nextInt(-3, 40) + ")", "(gid - t.laneId() * " + r.nextInt(1, 3) + ")", expr(T.INT, 1), "(ia[gid] + gid)");
        pure--;
        String inBounds = r.nextBoolean() ? i + " >= 0 && " + i + " < n" : "Integer.compareUnsigned(" + i + ", n) < 0";
        return "(" + inBounds + " ? " + array + "[" + i + "] : " + literal(type) + ")";
    }

    /** A switch expression over a few cases. */
    private String switchExpression(T type, int e) {
        String selector = pick("(" + expr(T.INT, e) + " & 3)", inKernel ? "t.laneId() % 3" : "7", expr(T.INT, e), "(int) (" + expr(T.LONG, e) + " >>> 62)");
        int a = r.nextInt(-1, 3);
        int b = a + r.nextInt(1, 3);
        return "(switch ((int) " + selector + ") { case " + a + " -> " + expr(type, e) + "; case " + b + ", " + (b + 7) + " -> " + expr(type, e)
                + "; default -> " + expr(type, e) + "; })";
    }

    // ---- session-15 constructs (Options.more) ---------------------------------------------------------

    /**
     * The thread's element {@code slot} of the int ({@code ro}) or double ({@code rd}) output laid out in reverse thread
     * order: thread {@code gid} owns {@code [(n - 1 - gid) * SLOTS, (n - 1 - gid) * SLOTS + SLOTS)}, so consecutive threads
     * store with a negative stride.
     */
    private static String reversed(T type, int slot) {
        return (type == T.INT ? "ro" : "rd") + "[(n - 1 - gid) * " + SLOTS + " + " + slot + "]";
    }

    private void moreStatement(int depth, boolean canNest) {
        int roll = r.nextInt(100);
        if (inKernel && (options.barriers || options.warpOps) && uniformControl && canNest && loopDepth < 2 && roll < 14) {
            uniformLoopMore(depth);
        } else if (inKernel && (options.barriers || options.warpOps) && uniformControl && roll < 18) {
            // A return of the whole CTA: every thread of it leaves together, so no barrier or warp operation misses one.
            line("if (" + uniformCondition() + ") {");
            line("    return;");
            line("}");
        } else if (inKernel && canNest && loopDepth < 2 && roll < 34) {
            exitValueLoop(depth);
        } else if (inKernel && canNest && loopDepth < 2 && roll < 40) {
            strideLoop(depth);
        } else if (inKernel && roll < 46) {
            // Stack shapes: chained assignments (dup_x1/dup_x2, dup2_x2 for long and double), an index with a side effect.
            T type = numeric();
            List<Var> ints = new ArrayList<>();
            List<Var> same = new ArrayList<>();
            for (List<Var> scope : scopes) {
                for (Var v : scope) {
                    if (v.assignable && v.type == T.INT && v.decl == null) {
                        ints.add(v);
                    }
                    if (v.assignable && v.type == type && v.decl == null) {
                        same.add(v);
                    }
                }
            }
            String first = output(type, r.nextInt(4));
            if (!ints.isEmpty() && r.nextBoolean()) {
                String counter = ints.get(r.nextInt(ints.size())).name;
                String array = first.substring(0, first.indexOf('['));
                String element = array + "[gid * " + SLOTS + " + (" + counter + pick("++", "--") + " & 3)]";
                line(element + (r.nextBoolean() ? pick("++;", "--;") : " " + pick("+=", "-=", "*=") + " " + expr(type, maxDepth - 1) + ";"));
            } else {
                String middle = !same.isEmpty() && r.nextBoolean() ? same.get(r.nextInt(same.size())).name : output(type, r.nextInt(4));
                line(first + " = " + middle + " = " + expr(type, maxDepth - 1) + ";");
            }
        } else if (inKernel && roll < 50) {
            T type = numeric();
            boolean reverse = (type == T.INT || type == T.DOUBLE) && r.nextInt(3) == 0;
            compound(reverse ? reversed(type, r.nextInt(SLOTS)) : output(type, r.nextInt(4)), type);
        } else if (roll < 72) {
            List<Var> targets = new ArrayList<>();
            for (List<Var> scope : scopes) {
                for (Var v : scope) {
                    if (v.assignable && v.type != T.BOOL) {
                        targets.add(v);
                    }
                }
            }
            if (targets.isEmpty()) {
                narrowLocal();
            } else {
                Var v = targets.get(r.nextInt(targets.size()));
                compound(v.name, v.type);
            }
        } else if (roll < 82) {
            narrowLocal();
        } else if (roll < 90 && inKernel) {
            int slot = r.nextInt(4);
            switch (r.nextInt(3)) {
                case 0 -> line("bump(" + (r.nextBoolean() ? "io, gid * " + SLOTS : "ro, (n - 1 - gid) * " + SLOTS) + " + " + slot + ", " + expr(T.INT, maxDepth - 1) + ");");
                case 1 -> {
                    String name = "v" + nextName++;
                    line("double " + name + " = mix(" + (r.nextBoolean() ? "dout, gid * " + SLOTS : "rd, (n - 1 - gid) * " + SLOTS) + " + " + slot + ", "
                            + expr(T.DOUBLE, maxDepth - 1) + ");");
                    scopes.peek().add(new Var(name, T.DOUBLE, true));
                }
                default -> line(output(T.LONG, r.nextInt(4)) + " ^= step(lo, gid * " + SLOTS + " + " + slot + ", " + condition(1) + ");");
            }
        } else {
            T type = numeric();
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + moreExpr(type, maxDepth - 1) + ";");
            scopes.peek().add(new Var(name, type, true));
        }
    }

    /**
     * A loop that threads leave at different iterations (a divergent break or while condition) while locals change the
     * same way in every thread inside it: uniform in the loop, each thread's exit value after it. Those values are then
     * used every way a kernel may use a value: as an index, a shift count, a branch, switch, loop bound, atomic index,
     * divisor and conversion.
     */
    private void exitValueLoop(int depth) {
        String u = "v" + nextName++;
        String w = "v" + nextName++;
        String k = "k" + nextName++;
        line("int " + u + " = " + r.nextInt(-3, 5) + ";");
        line("long " + w + " = " + r.nextInt(0, 9) + "L;");
        boolean wasUniform = uniformControl;
        boolean wasUniformLoop = innermostLoopUniform;
        boolean wasSwitch = switchInnermost;
        uniformControl = false;
        innermostLoopUniform = false;
        switchInnermost = false;
        loopDepth++;
        String label = "L" + k;
        loops.push(new Loop(label, false));
        String bound = pick(String.valueOf(r.nextInt(1, 9)), "(si & 7) + 1", "(n & 3) + 2", "(ia[gid] & 7)");
        boolean whileLoop = r.nextInt(3) == 0;
        if (whileLoop) {
            line("int " + k + " = 0;");
            line(label + ": while (" + k + " < " + bound + " && " + pick("ia[(gid + " + k + ") % n] " + pick(">", "<", "!=") + " " + r.nextInt(-50, 50),
                    "(gid + " + k + ") % " + r.nextInt(2, 6) + " != 0", "fa[gid] * " + k + " < " + r.nextInt(1, 40) + "f") + ") {");
            indent++;
            line(k + "++;");
        } else {
            line(label + ": for (int " + k + " = 0; " + k + " < " + bound + "; " + k + "++) {");
            indent++;
        }
        scopes.push(new ArrayList<>(List.of(new Var(k, T.INT, false))));
        line(u + " " + pick("+= 3;", "= " + u + " * 3 + " + k + ";", "^= 1 << " + k + ";", "-= " + k + " * " + k + ";"));
        line(w + " " + pick("+= (long) " + u + " << 20;", "= " + w + " * 31L + " + k + ";", "^= Long.MIN_VALUE >>> " + k + ";"));
        if (!whileLoop || r.nextBoolean()) {
            line("if (" + pick("ia[(gid + " + k + ") % n] " + pick(">", "<", "==") + " " + r.nextInt(-50, 50), "(gid & " + pickInt(1, 3, 7) + ") == " + k,
                    "t.laneId() < " + k + " * " + r.nextInt(2, 9), expr(T.BOOL, 1)) + ") {");
            line("    " + pick("break;", "continue;", "break;") + "");
            line("}");
        }
        if (r.nextBoolean()) {
            block(depth + 1);
        }
        scopes.pop();
        indent--;
        line("}");
        loops.pop();
        loopDepth--;
        uniformControl = wasUniform;
        innermostLoopUniform = wasUniformLoop;
        switchInnermost = wasSwitch;
        // The exit values, used.
        for (int i = r.nextInt(1, 4); i > 0; i--) {
            switch (r.nextInt(10)) {
                case 0 -> line(output(T.INT, r.nextInt(4)) + " ^= ia[(" + u + " & 0x7fffffff) % n];");
                case 1 -> line(output(T.LONG, r.nextInt(4)) + " += " + w + " >> (" + u + " & 63);");
                case 2 -> line(output(T.FLOAT, r.nextInt(4)) + " += (float) " + w + " + " + u + ";");
                case 3 -> {
                    line("if (" + u + " " + pick(">", "<", "==") + " " + r.nextInt(-3, 12) + ") {");
                    line("    " + output(T.INT, r.nextInt(4)) + " += " + u + ";");
                    line("} else {");
                    line("    " + output(T.LONG, r.nextInt(4)) + " ^= " + w + ";");
                    line("}");
                }
                case 4 -> line(output(T.INT, r.nextInt(4)) + " = (" + u + " & 1) == 0 ? " + u + " : (int) " + w + ";");
                case 5 -> {
                    String j = "j" + nextName++;
                    line("for (int " + j + " = 0; " + j + " < (" + u + " & 3); " + j + "++) {");
                    line("    " + output(T.DOUBLE, r.nextInt(4)) + " += " + j + " * 0.5d + " + w + ";");
                    line("}");
                }
                case 6 -> {
                    int slice = claimAtomicSlice(T.INT);
                    line(slice < 0 ? output(T.INT, r.nextInt(4)) + " -= " + u + ";"
                            : "Atomics.add(ai, " + slice * ATOMIC_SLICE + " + (" + u + " & " + (ATOMIC_SLICE - 1) + "), " + pick("1", u) + ");");
                }
                case 7 -> line(output(T.INT, r.nextInt(4)) + " += ia[gid] / (" + u + " | 1) + (int) (" + w + " % (" + u + " | 1));");
                case 8 -> line(output(T.DOUBLE, r.nextInt(4)) + " = (double) " + w + " * " + u + ";");
                default -> line(output(T.INT, r.nextInt(4)) + " += switch (" + u + " & 3) { case 0 -> 7; case 1 -> (int) " + w + "; default -> " + u + "; };");
            }
        }
        scopes.peek().add(new Var(u, T.INT, true));
        scopes.peek().add(new Var(w, T.LONG, true));
    }

    /** A byte, short or char local from any numeric type (narrowing from float and double included). */
    private void narrowLocal() {
        String decl = pick("byte", "short", "char");
        String name = "v" + nextName++;
        line(decl + " " + name + " = (" + decl + ") " + expr(numeric(), maxDepth - 1) + ";");
        scopes.peek().add(new Var(name, T.INT, true, decl));
    }

    /**
     * A compound assignment or increment of {@code target} (a local, narrow ones included, or an array element), its
     * right-hand side sometimes of another type, so that Java's implicit narrowing ({@code i += 2.5f} is
     * {@code i = (int) (i + 2.5f)}) applies.
     */
    private void compound(String target, T type) {
        boolean integral = type == T.INT || type == T.LONG;
        String op = integral ? pick("+=", "-=", "*=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "/=", "%=", "++", "--", "pre")
                : pick("+=", "-=", "*=", "/=", "%=", "++", "--", "pre");
        switch (op) {
            case "++", "--" -> line(target + op + ";");
            case "pre" -> line(pick("++", "--") + target + ";");
            case "&=", "|=", "^=", "<<=", ">>=", ">>>=" -> line(target + " " + op + " " + expr(r.nextInt(3) == 0 ? T.LONG : T.INT, maxDepth - 1) + ";");
            default -> {
                T rhs = r.nextInt(3) == 0 ? numeric() : type;
                String value = expr(rhs, maxDepth - 1);
                if ((op.equals("/=") || op.equals("%=")) && (rhs == T.INT || rhs == T.LONG)) {
                    value = "(" + value + " | " + pick("1", "Integer.MIN_VALUE", "(-1)") + ")";
                }
                line(target + " " + op + " " + value + ";");
            }
        }
    }

    /** A loop with a CTA-uniform trip count written as a do-while or while (barriers and warp operations may sit in it). */
    private void uniformLoopMore(int depth) {
        String bound = switch (r.nextInt(4)) {
            case 0, 1 -> String.valueOf(r.nextInt(0, 4));
            case 2 -> "(si & 3)";
            default -> "(t.blockIdxX() % 3)";
        };
        String k = "k" + nextName++;
        boolean wasUniformLoop = innermostLoopUniform;
        boolean wasSwitch = switchInnermost;
        switchInnermost = false;
        innermostLoopUniform = true;
        loopDepth++;
        line("int " + k + " = 0;");
        scopes.peek().add(new Var(k, T.INT, false));
        uniformCounters.push(k);
        loops.push(new Loop("L" + k, true));
        String label = options.extras ? "L" + k + ": " : "";
        // The counter counts at the top, so a continue cannot skip it.
        if (r.nextBoolean()) {
            nested(label + "do {", k + "++;", depth, "} while (" + k + " < " + bound + ");");
        } else {
            nested(label + "while (" + k + " < " + bound + ") {", k + "++;", depth, "}");
        }
        loops.pop();
        uniformCounters.pop();
        loopDepth--;
        switchInnermost = wasSwitch;
        innermostLoopUniform = wasUniformLoop;
    }

    /** The session-15 expressions: mixed-type ternaries, floor division, overflow at MIN_VALUE, large shifts, casts. */
    private String moreExpr(T type, int d) {
        int e = Math.max(0, d);
        boolean integral = type == T.INT || type == T.LONG;
        String zero = type == T.LONG ? "L" : "";
        String min = type == T.LONG ? "Long.MIN_VALUE" : "Integer.MIN_VALUE";
        String sign = type == T.LONG ? "63" : "31";
        switch (r.nextInt(14)) {
            case 0, 1 -> {
                return mixedTernary(type, e);
            }
            case 13 -> {
                if (!inKernel) {
                    return mixedTernary(type, e);
                }
                // Values uniform in a row of the CTA: threadIdx.y and what a 2D kernel computes from it.
                String row = pick("t.threadIdxY()", "(t.blockIdxY() * t.blockDimY() + t.threadIdxY())", "(t.threadIdxY() * t.blockDimX())",
                        "t.threadIdxZ()", "(t.threadIdxZ() * t.blockDimY() + t.threadIdxY())", "t.globalIdY()");
                return switch (type) {
                    case INT -> pick(row, "(" + row + " * " + expr(T.INT, e) + ")", "(" + row + " + t.threadIdxX())", "ia[(" + row + " * 16 + t.threadIdxX()) % n]");
                    case LONG -> "((long) " + row + " << " + r.nextInt(0, 40) + ")";
                    case FLOAT -> pick("fa[" + row + " % n]", "(float) " + row);
                    default -> "da[(" + row + " + " + expr(T.INT, e) + " & 0x7fffffff) % n]";
                };
            }
            case 11, 12 -> {
                if (!inKernel) {
                    return mixedTernary(type, e);
                }
                // Masks and shifts of thread indices, which the uniformity analysis may find contiguous (base + lane) & mask
                // or uniform (base + lane) >> k: loads at indices at most gid, so in bounds.
                String prefix = switch (type) {
                    case INT -> "i";
                    case LONG -> "l";
                    case FLOAT -> "f";
                    default -> "d";
                };
                String id = options.barriers && r.nextBoolean() ? pick("tid", "t.threadIdxX()") : pick("gid", "gid", "t.threadIdxX()", "t.laneId()");
                // (threadIdx.x <= the linear thread id <= gid, and laneId <= the linear thread id.)
                String index = switch (r.nextInt(5)) {
                    case 0 -> "(" + id + " & " + pick("7", "15", "31", "63", "255", "0x7fffffff", "(-1)", "(-16)", "(-32)", "0xF0F", "(-8)") + ")";
                    case 1 -> "(" + id + " " + pick(">>", ">>>") + " " + r.nextInt(0, 9) + ")";
                    case 2 -> "((" + id + " " + pick(">>", ">>>") + " " + r.nextInt(1, 7) + ") << " + r.nextInt(0, 7) + ")";
                    case 3 -> "(" + id + " - (" + id + " & " + pick("1", "3", "15", "31") + "))";
                    default -> "((" + id + " + " + pick("16", "32", "64", "8", "48", "(-32)", "1") + ") & " + pick("31", "15", "63", "0x7fffffff", "(-16)") + ")";
                };
                // In bounds: at most the id (a shifted-back value too), and below n for threads that did not return.
                String guard = index.contains("<<") || index.contains("+ ") ? index + " < n && " + index + " >= 0" : null;
                return guard == null ? prefix + "a[" + index + "]" : "(" + guard + " ? " + prefix + "a[" + index + "] : " + literal(type) + ")";
            }
            case 2 -> {
                if (!integral || r.nextInt(3) != 0) {
                    // Rounding toward zero with negative operands and divisors.
                    return integral ? "(" + expr(type, e) + " " + pick("/", "%") + " " + pick("(-" + r.nextInt(2, 9) + zero + ")",
                            pickInt(2, 4, 8, 16, 1024, 3, 5) + zero, "(-" + pickInt(2, 4, 16, 1 << 20) + zero + ")",
                            "(" + expr(type, e) + " | " + min + ")") + ")" : mixedTernary(type, e);
                }
                if (type == T.INT && r.nextInt(3) == 0) {
                    return "Math.floorMod(" + expr(T.LONG, e) + ", (" + expr(T.INT, e) + " | " + pick("1", "Integer.MIN_VALUE") + "))";
                }
                return "Math." + pick("floorDiv", "floorMod") + "(" + expr(type, e) + ", " + pick("(" + expr(type, e) + " | 1" + zero + ")",
                        "(-1" + zero + ")", "(" + expr(type, e) + " | " + min + ")", String.valueOf(r.nextInt(2, 9)) + zero, "(-" + r.nextInt(2, 9) + zero + ")") + ")";
            }
            case 3 -> {
                if (!integral) {
                    return "((" + type.java + ") " + pick(min, "(" + min + " / ((" + expr(T.INT, e) + " >> 31) | 1))") + ")";
                }
                // Division overflow: MIN_VALUE / -1 is MIN_VALUE, MIN_VALUE % -1 is 0.
                String x = expr(type, e);
                String minusOne = "((" + expr(type, e) + " >> " + sign + ") | 1" + zero + ")";
                return pick("((" + min + " + (" + x + " & 1" + zero + ")) / " + minusOne + ")", "(" + x + " / (-1" + zero + "))",
                        "(" + x + " % (-1" + zero + "))", "(" + min + " % " + minusOne + ")", "Math.abs(" + min + " + (" + x + " & 1" + zero + "))",
                        "(-(" + x + " | " + min + "))", "(" + x + " * " + min + ")", "((" + x + " | " + min + ") / " + minusOne + ")");
            }
            case 4 -> {
                if (!integral) {
                    return "((" + type.java + ") (" + expr(T.LONG, e) + " " + pick("<<", ">>", ">>>") + " " + expr(T.INT, e) + "))";
                }
                String x = expr(type, e);
                String count = pick("(" + expr(T.INT, e) + " & 127)", "(" + expr(T.INT, e) + " | 32)", "(" + expr(T.INT, e) + " | 64)", expr(T.LONG, e),
                        pick("40L", "(-1)", "200", "0x7fffffff", "Integer.MIN_VALUE", "65", "33", "(-33)"));
                return "(" + x + " " + pick("<<", ">>", ">>>") + " " + count + ")";
            }
            case 5 -> {
                // Float to integer casts of NaN, infinities and values out of range; narrowing through int.
                String f = expr(r.nextBoolean() ? T.FLOAT : T.DOUBLE, e);
                String big = pick("(" + f + " * 1e30f)", "(" + f + " / 0f)", "(" + f + " * 0f)", f, "(" + f + " * Float.POSITIVE_INFINITY)",
                        "(" + f + " / 0d)");
                return switch (type) {
                    case INT -> "((" + pick("int", "int", "char", "short", "byte") + ") " + big + ")";
                    case LONG -> "((long) " + big + ")";
                    case FLOAT -> "((float) " + pick("((double) " + expr(T.DOUBLE, e) + " * 1e300)", "(" + expr(T.LONG, e) + ")",
                            "((long) " + big + ")", "((int) " + big + ")") + ")";
                    default -> "((double) (float) " + expr(T.DOUBLE, e) + ")";
                };
            }
            case 6 -> {
                if (!inKernel) {
                    return mixedTernary(type, e);
                }
                String prefix = switch (type) {
                    case INT -> "i";
                    case LONG -> "l";
                    case FLOAT -> "f";
                    default -> "d";
                };
                // Negative strides: the mirror thread's element, the thread's own reversed output, every other element down.
                int k = r.nextInt(1, 4);
                return switch (r.nextInt(4)) {
                    case 0 -> prefix + "a[n - 1 - " + pick("gid", "t.threadIdxX()") + "]";
                    case 1 -> type == T.INT || type == T.DOUBLE ? reversed(type, r.nextInt(SLOTS)) : prefix + "a[n - 1 - gid]";
                    case 2 -> "(n - 1 - " + k + " * gid >= 0 ? " + prefix + "a[n - 1 - " + k + " * gid] : " + literal(type) + ")";
                    default -> "(gid - " + k + " >= 0 ? " + prefix + "a[gid - " + k + "] : " + literal(type) + ")";
                };
            }
            case 7 -> {
                if (pure > 0) {
                    return mixedTernary(type, e);
                }
                // Increments and compound assignments as expressions: of a local, or of one of the thread's own outputs.
                List<Var> vars = new ArrayList<>();
                for (List<Var> scope : scopes) {
                    for (Var v : scope) {
                        if (v.assignable && v.type == type) {
                            vars.add(v);
                        }
                    }
                }
                String target = !vars.isEmpty() && (r.nextBoolean() || !inKernel) ? vars.get(r.nextInt(vars.size())).name
                        : inKernel ? output(type, r.nextInt(4)) : null;
                if (target == null) {
                    return mixedTernary(type, e);
                }
                return switch (r.nextInt(4)) {
                    case 0 -> "(" + target + pick("++", "--") + ")";
                    case 1 -> "(" + pick("++", "--") + target + ")";
                    default -> "(" + target + " " + pick("+=", "-=", "*=") + " " + expr(type, Math.min(e, 1)) + ")";
                };
            }
            case 8 -> {
                return switch (type) {
                    case INT -> pick("Integer.bitCount(", "Integer.numberOfLeadingZeros(", "Integer.numberOfTrailingZeros(", "Long.bitCount(",
                            "Long.numberOfLeadingZeros(", "Long.numberOfTrailingZeros(") + pick(expr(T.INT, e), "(" + expr(T.INT, e) + " >>> 31)", "0",
                            "(" + expr(T.INT, e) + " & 0)", "(-1)") + ")";
                    case LONG -> "((long) " + pick("Long.bitCount(", "Long.numberOfLeadingZeros(") + expr(T.LONG, e) + ") << " + r.nextInt(0, 70) + ")";
                    case FLOAT -> "((float) Integer.bitCount(" + expr(T.INT, e) + "))";
                    default -> "((double) Long.numberOfTrailingZeros(" + expr(T.LONG, e) + "))";
                };
            }
            case 9 -> {
                // Narrow types in arithmetic: a char is unsigned, byte and short are signed.
                return switch (type) {
                    case INT -> pick("((char) (" + expr(T.INT, e) + " + 65536))", "((short) " + expr(T.LONG, e) + ")",
                            "((byte) (char) " + expr(T.INT, e) + ")", "('a' + (char) " + expr(T.INT, e) + ")", "((char) " + expr(T.FLOAT, e) + ")",
                            "((short) (byte) " + expr(T.DOUBLE, e) + ")");
                    case LONG -> pick("((long) (char) " + expr(T.INT, e) + ")", "((long) (short) " + expr(T.LONG, e) + ")");
                    case FLOAT -> "((float) (short) " + expr(T.INT, e) + ")";
                    default -> "((double) (byte) " + expr(T.LONG, e) + ")";
                };
            }
            default -> {
                return mixedTernary(type, e);
            }
        }
    }

    /**
     * A conditional whose arms have different types, promoted to {@code type} as Java's conditional rules say (an int and
     * a long arm give a long, a long and a float a float), nested once in a while; for int, arms of narrow types.
     */
    private String mixedTernary(T type, int e) {
        String a = ternaryArm(type, e);
        String b = ternaryArm(type, e);
        return "(" + condition(Math.max(0, e - 1)) + " ? " + a + " : " + b + ")";
    }

    private String ternaryArm(T type, int e) {
        if (e > 0 && r.nextInt(4) == 0) {
            return mixedTernary(type, e - 1);
        }
        if (type == T.INT) {
            return r.nextBoolean() ? expr(T.INT, e) : "((" + pick("byte", "short", "char") + ") " + expr(T.INT, e) + ")";
        }
        T narrower = T.NUMERIC[r.nextInt(type.ordinal() + 1)];
        return expr(narrower, e);
    }

    // ---- faults (Options.faults) -------------------------------------------------------------------

    /**
     * A statement that faults in some threads, or none, depending on data: of the kernel's one kind, so that which
     * thread fails first (a race between the SMs) cannot change the kind of the failure.
     */
    private void faultStatement() {
        faultsPlaced++;
        switch (faultKind) {
            case DIVIDE -> {
                T type = r.nextBoolean() ? T.INT : T.LONG;
                String divisor = switch (r.nextInt(4)) {
                    case 0 -> "(" + expr(type, 2) + " & " + pick("3", "255", "0x10000") + ")";
                    case 1 -> "(" + leaf(type) + " " + pick("& 7", "% 4", ">>> 29") + ")";
                    case 2 -> type == T.INT ? "(si & 1)" : "(sl & 1)";
                    default -> type == T.INT ? "(t.laneId() " + pick("- 31", "& 15", "- 5") + ")" : "(long) (gid - " + r.nextInt(0, 300) + ")";
                };
                String name = "v" + nextName++;
                line(type.java + " " + name + " = " + expr(type, 1) + " " + pick("/", "%") + " " + divisor + ";");
                scopes.peek().add(new Var(name, type, true));
            }
            case INDEX -> {
                T type = numeric();
                String prefix = switch (type) {
                    case INT -> "i";
                    case LONG -> "l";
                    case FLOAT -> "f";
                    default -> "d";
                };
                String bit = "(" + expr(T.INT, 1) + " & " + pick("1", "64", "1024") + ")";
                int choice = r.nextInt(options.barriers ? 6 : 4);
                switch (choice) {
                    case 0 -> {
                        // A load past the end of the input.
                        String name = "v" + nextName++;
                        line(type.java + " " + name + " = " + prefix + "a[gid + " + pick(bit + " * n", "(" + bit + " == 0 ? 0 : n - gid)",
                                String.valueOf(r.nextInt(1, 64))) + "];");
                        scopes.peek().add(new Var(name, type, true));
                    }
                    case 1 -> {
                        // A negative index.
                        String name = "v" + nextName++;
                        line(type.java + " " + name + " = " + prefix + "a[gid - (" + bit + " == 0 ? 0 : gid + " + r.nextInt(1, 3) + ")];");
                        scopes.peek().add(new Var(name, type, true));
                    }
                    case 2 -> {
                        // A store to the thread's own element, or far past the end of the output.
                        String slot = output(type, r.nextInt(4));
                        String array = slot.substring(0, slot.indexOf('['));
                        line(array + "[gid * " + SLOTS + " + " + r.nextInt(4) + " + " + bit + " * n * " + SLOTS + "] = " + expr(type, 1) + ";");
                    }
                    case 3 -> {
                        // A gather whose index may be n.
                        String name = "v" + nextName++;
                        line(type.java + " " + name + " = " + prefix + "a[(" + expr(T.INT, 1) + " & 0x7fffffff) % (n + 1)];");
                        scopes.peek().add(new Var(name, type, true));
                    }
                    case 4 -> line("shP[tid + " + bit + " * nt] = " + expr(T.INT, 1) + ";");
                    default -> {
                        String name = "v" + nextName++;
                        line("int " + name + " = shP[tid - (" + bit + " == 0 ? 0 : nt)];");
                        scopes.peek().add(new Var(name, T.INT, true));
                    }
                }
            }
            default -> {
                // A convergence error where threads diverge: a barrier or warp operation in a branch, or a return before a barrier.
                if (options.barriers && (!options.warpOps || r.nextBoolean())) {
                    int variant = r.nextInt(options.extras ? 3 : 2);
                    if (variant == 2) {
                        // A barrier in a loop whose trip count may differ between the threads of a CTA.
                        String k = "k" + nextName++;
                        line("for (int " + k + " = 0; " + k + " < " + pick("(" + expr(T.INT, 1) + " & 1) + 1", "(ia[gid] & 1)",
                                "(gid / 5 & 1) + 1", "(t.laneId() >> 4) + 1", "(ia[0] & 3)") + "; " + k + "++) {");
                        line("    t.syncThreads();");
                        line("}");
                    } else if (variant == 0) {
                        line("if (" + expr(T.BOOL, 2) + ") {");
                        line("    t.syncThreads();");
                        line("}");
                    } else {
                        line("if (" + expr(T.BOOL, 2) + ") {");
                        line("    return;");
                        line("}");
                        line("t.syncThreads();");
                    }
                } else {
                    String v = "v" + nextName++;
                    line("int " + v + " = 0;");
                    scopes.peek().add(new Var(v, T.INT, true));
                    line("if (" + expr(T.BOOL, 2) + ") {");
                    line("    " + v + " = t." + pick("ballot(" + condition(1) + ")", "shfl(" + expr(T.INT, 1) + ", " + r.nextInt(0, 32) + ")",
                            "shflXor(" + expr(T.INT, 1) + ", 1)") + ";");
                    line("}");
                    if (r.nextBoolean()) {
                        // Threads that skipped it meet a second warp operation: an error unless the branch was uniform.
                        line(output(T.INT, r.nextInt(4)) + " ^= t.ballot(" + condition(1) + ");");
                    }
                }
            }
        }
    }

    // ---- barriers (barrier mode, CTA-uniform control only) ----------------------------------------

    private void barrierStatement(int depth, boolean canNest) {
        int roll = r.nextInt(100);
        if (roll < 55 || !canNest) {
            exchange();
        } else if (roll < 72 && loopDepth < 2) {
            uniformLoop(depth);
        } else if (roll < 88) {
            uniformIf(depth);
        } else if (innermostLoopUniform && loopDepth > 0) {
            line("if (" + uniformCondition() + ") {");
            line("    " + (r.nextBoolean() ? "break;" : "continue;"));
            line("}");
        } else {
            exchange();
        }
    }

    /**
     * One exchange through shared memory: a write phase (a plain store to the thread's own slot, or a
     * shared atomic at a computed slot), a barrier, a read of some other slot into an output or a local,
     * and a barrier before anyone writes the array again.
     */
    private void exchange() {
        T type = numeric();
        String array = switch (type) {
            case INT -> "shI";
            case LONG -> "shL";
            case FLOAT -> "shF";
            default -> "shD";
        };
        if (r.nextInt(4) == 0) {
            // One operation per phase, and one whose result does not depend on the order of the threads' updates.
            String op = type == T.INT || type == T.LONG ? pick("add", "add", "min", "max", "and", "or", "xor") : pick("min", "max");
            line("Atomics." + op + "(" + array + ", (" + expr(T.INT, 1) + " & 0x7fffffff) % nt, " + expr(type, 2) + ");");
        } else if (options.extras && r.nextInt(3) == 0) {
            // One writer per warp (a warp's total from its last lane, as a block scan does) or per run of threads.
            String writer = pick("t.laneId() == t.warpSize() - 1", "t.laneId() == 0", "tid % 3 == 0", "t.laneId() == (si & (t.warpSize() - 1))");
            String at = writer.startsWith("tid") ? "tid / 3" : pick("t.warpId()", "tid / t.warpSize()");
            line("if (" + writer + ") {");
            line("    " + array + "[" + at + "] = " + expr(type, maxDepth) + ";");
            line("}");
        } else {
            if (options.more && r.nextInt(3) == 0) {
                // A read-modify-write of the thread's own slot: what earlier exchanges left there, read by no one now.
                line(array + "[tid]" + pick("++;", "--;", " += " + expr(type, maxDepth) + ";", " *= " + expr(type, maxDepth - 1) + ";"));
            } else {
                line(array + "[tid] = " + expr(type, maxDepth) + ";");
            }
        }
        line(options.extras && r.nextInt(4) == 0 ? "barrier(t);" : "t.syncThreads();");
        String read = options.extras && type == T.INT && r.nextInt(3) == 0 ? "read(shI, " + slot() + ")" : array + "[" + slot() + "]";
        if (r.nextBoolean()) {
            String op = type == T.INT || type == T.LONG ? pick("=", "+=", "^=") : pick("=", "+=");
            line(output(type, r.nextInt(4)) + " " + op + " " + read + ";");
        } else {
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + read + ";");
            scopes.peek().add(new Var(name, type, true));
            // Into an output now, so the value read is observed even if nothing uses the local later.
            String op = type == T.INT || type == T.LONG ? "^=" : "+=";
            line(output(type, r.nextInt(4)) + " " + op + " " + name + ";");
        }
        if (r.nextInt(4) == 0) {
            line(output(T.INT, r.nextInt(4)) + " ^= shP[" + slot() + "];");
        }
        line("t.syncThreads();");
    }

    /** Another thread's slot: a neighbour, one a warp or half a CTA away, the mirror, or one chosen by data. */
    private String slot() {
        if (options.extras && (twoD || threeD) && r.nextInt(3) == 0) {
            // By coordinates: the next row, the next plane, the transposed position within the CTA.
            String z = threeD ? "t.threadIdxZ()" : "0";
            return switch (r.nextInt(3)) {
                case 0 -> "((" + z + " * t.blockDimY() + (t.threadIdxY() + 1) % t.blockDimY()) * t.blockDimX() + t.threadIdxX())";
                case 1 -> "((((" + z + " + 1) % t.blockDimZ()) * t.blockDimY() + t.threadIdxY()) * t.blockDimX() + t.threadIdxX())";
                default -> "((" + z + " * t.blockDimY() + t.threadIdxX() % t.blockDimY()) * t.blockDimX() + t.threadIdxY() % t.blockDimX())";
            };
        }
        String k = uniformCounters.isEmpty() || r.nextBoolean() ? String.valueOf(r.nextInt(1, 40)) : uniformCounters.peek() + " + 1";
        return switch (r.nextInt(7)) {
            case 0, 1 -> "(tid + " + k + ") % nt";
            case 2 -> "(tid + t.warpSize()) % nt";
            case 3 -> "(tid + nt / 2) % nt";
            case 4 -> "nt - 1 - tid";
            case 5 -> "(tid + (si & 63)) % nt";
            default -> "(" + expr(T.INT, 1) + " & 0x7fffffff) % nt";
        };
    }

    // ---- warp operations (warp-uniform control only) -----------------------------------------------

    /**
     * A warp vote or shuffle, or a uniform loop or branch that may hold more. Only where every thread of the warp
     * that has not returned arrives (the reference executor's rule), so early returns before it make lanes
     * inactive, as in a partial warp: ballots must leave their bits clear and shuffles from them return the
     * lane's own value.
     */
    private void warpStatement(int depth, boolean canNest) {
        int roll = r.nextInt(100);
        if (canNest && loopDepth < 2 && roll < 12) {
            uniformLoop(depth);
            return;
        }
        if (canNest && roll < 22) {
            uniformIf(depth);
            return;
        }
        if (innermostLoopUniform && loopDepth > 0 && roll < 26) {
            line("if (" + uniformCondition() + ") {");
            line("    " + (r.nextBoolean() ? "break;" : "continue;"));
            line("}");
            return;
        }
        if (roll < 34) {
            warpScan();
            return;
        }
        String value = switch (r.nextInt(8)) {
            case 0 -> "t.ballot(" + condition(2) + ")";
            case 1 -> "(t." + pick("any", "all") + "(" + condition(2) + ") ? " + expr(T.INT, 1) + " : " + expr(T.INT, 1) + ")";
            default -> null;
        };
        T type = T.INT;
        if (value == null) {
            type = r.nextInt(3) == 0 ? T.FLOAT : T.INT;
            String f = pick("shfl", "shflUp", "shflDown", "shflXor");
            String lane = switch (r.nextInt(5)) {
                case 0 -> String.valueOf(pickInt(0, 1, 2, 3, 5, 8, 16, 17, 31, 32, 33, -1));
                case 1 -> "t.laneId() + " + r.nextInt(1, 34);
                case 2 -> "(si & 31)";
                default -> expr(T.INT, 1);
            };
            String width = r.nextInt(3) == 0 ? "" : ", " + (r.nextInt(4) == 0 ? "t.warpSize()" : String.valueOf(pickInt(1, 2, 4, 8, 16, 32)));
            value = "t." + f + "(" + expr(type, maxDepth - 1) + ", " + lane + width + ")";
        }
        if (r.nextInt(3) == 0) {
            String op = type == T.INT ? pick("=", "+=", "^=") : pick("=", "+=");
            line(output(type, r.nextInt(4)) + " " + op + " " + value + ";");
        } else {
            String name = "v" + nextName++;
            line(type.java + " " + name + " = " + value + ";");
            scopes.peek().add(new Var(name, type, true));
        }
    }

    /**
     * The CUDA warp inclusive scan (a loop of {@code shflUp} by 1, 2, 4, .. and adds where {@code laneId >= d}),
     * which the backend folds into one operation (WarpScans), half the time exactly, half the time with one
     * change that must keep it a loop: another bound, width, first distance, comparison or operator.
     */
    private void warpScan() {
        String v = "v" + nextName++;
        String d = "d" + nextName++;
        String below = "b" + nextName++;
        String start = "1";
        String bound = "t.warpSize()";
        String width = "";
        String cmp = ">=";
        String op = "+=";
        String shfl = "shflUp";
        switch (r.nextBoolean() ? -1 : r.nextInt(6)) {
            case 0 -> bound = String.valueOf(pickInt(8, 16, 32));
            case 1 -> width = ", " + pickInt(8, 16, 32);
            case 2 -> start = "2";
            case 3 -> cmp = ">";
            case 4 -> op = pick("^=", "-=", "|=");
            case 5 -> shfl = "shflDown";
            default -> { }
        }
        line("int " + v + " = " + expr(T.INT, maxDepth - 1) + ";");
        line("for (int " + d + " = " + start + "; " + d + " < " + bound + "; " + d + " <<= 1) {");
        line("    int " + below + " = t." + shfl + "(" + v + ", " + d + width + ");");
        line("    if (t.laneId() " + cmp + " " + d + ") {");
        line("        " + v + " " + op + " " + below + ";");
        line("    }");
        line("}");
        scopes.peek().add(new Var(v, T.INT, true));
    }

    /** A loop whose trip count is the same for every thread of the CTA (it may differ between CTAs). */
    private void uniformLoop(int depth) {
        String bound = switch (r.nextInt(5)) {
            case 0, 1 -> String.valueOf(r.nextInt(0, 4));
            case 2 -> "(si & 3)";
            case 3 -> "(t.blockIdxX() % 3)";
            default -> "(n % 4)";
        };
        if (options.extras && !uniformCounters.isEmpty() && r.nextInt(3) == 0) {
            bound = "(" + uniformCounters.peek() + " + 1)";
        }
        String k = "k" + nextName++;
        boolean wasUniformLoop = innermostLoopUniform;
        boolean wasSwitch = switchInnermost;
        switchInnermost = false;
        innermostLoopUniform = true;
        loopDepth++;
        uniformCounters.push(k);
        loops.push(new Loop("L" + k, true));
        scopes.push(new ArrayList<>(List.of(new Var(k, T.INT, false))));
        nested((options.extras ? "L" + k + ": " : "") + "for (int " + k + " = 0; " + k + " < " + bound + "; " + k + "++) {",
                trace(k), depth, "}");
        scopes.pop();
        loops.pop();
        uniformCounters.pop();
        loopDepth--;
        switchInnermost = wasSwitch;
        innermostLoopUniform = wasUniformLoop;
    }

    /** A branch on a value that is the same for every thread of the CTA. */
    private void uniformIf(int depth) {
        nested("if (" + uniformCondition() + ") {", depth, "}");
        if (r.nextBoolean()) {
            out.setLength(out.length() - (indentOf(indent) + "}\n").length());
            nested("} else {", depth, "}");
        }
    }

    private String uniformCondition() {
        int choices = uniformCounters.isEmpty() ? 5 : 6;
        return switch (r.nextInt(choices)) {
            case 0 -> "((si & 1) == 0)";
            case 1 -> "((t.blockIdxX() & 1) == " + r.nextInt(2) + ")";
            case 2 -> "(sl > " + literal(T.LONG) + ")";
            case 3 -> "(n > " + r.nextInt(1, 200) + ")";
            case 4 -> "(sd < " + literal(T.DOUBLE) + ")";
            default -> "(" + uniformCounters.peek() + " == " + r.nextInt(0, 3) + ")";
        };
    }

    // ---- expressions ---------------------------------------------------------------------------

    private String expr(T type, int depth) {
        if (type == T.BOOL) {
            return condition(depth);
        }
        if (depth <= 0 || r.nextInt(10) < 3) {
            return leaf(type);
        }
        int d = depth - 1;
        if (options.extras && r.nextInt(100) < 12) {
            return extraExpr(type, d);
        }
        if (options.more && r.nextInt(100) < 12) {
            return moreExpr(type, d);
        }
        int roll = r.nextInt(100);
        if (roll < 40) {
            return binary(type, d);
        } else if (roll < 50) {
            return unary(type, d);
        } else if (roll < 62) {
            return conversion(type, d);
        } else if (roll < 78) {
            return mathCall(type, d);
        } else if (roll < 88) {
            return "(" + condition(d) + " ? " + expr(type, d) + " : " + expr(type, d) + ")";
        } else {
            String call = helperCall(type, d);
            return call != null ? call : binary(type, d);
        }
    }

    private String binary(T type, int d) {
        String a = expr(type, d);
        return switch (type) {
            case INT, LONG -> {
                String op = pick("+", "-", "*", "&", "|", "^", "<<", ">>", ">>>", "/", "%", "+", "*");
                if (op.equals("/") || op.equals("%")) {
                    String divisor = r.nextInt(4) == 0 ? literal(type) + " | 1" : expr(type, d) + " | 1";
                    yield "(" + a + " " + op + " (" + divisor + "))";
                }
                if (op.startsWith("<<") || op.startsWith(">>")) {
                    T countType = r.nextInt(4) == 0 ? (type == T.INT ? T.LONG : T.INT) : type;
                    yield "(" + a + " " + op + " " + expr(countType, d) + ")";
                }
                yield "(" + a + " " + op + " " + expr(type, d) + ")";
            }
            default -> "(" + a + " " + pick("+", "-", "*", "/", "%", "+", "*") + " " + expr(type, d) + ")";
        };
    }

    private String unary(T type, int d) {
        return switch (type) {
            case INT, LONG -> "(" + pick("-", "~") + expr(type, d) + ")";
            default -> "(-" + expr(type, d) + ")";
        };
    }

    private String conversion(T type, int d) {
        T from = T.NUMERIC[r.nextInt(4)];
        return switch (type) {
            case INT -> r.nextInt(4) == 0
                    ? "((" + pick("byte", "short", "char") + ") " + expr(T.INT, d) + ")"
                    : "((int) " + expr(from, d) + ")";
            case LONG -> "((long) " + expr(from, d) + ")";
            case FLOAT -> "((float) " + expr(from, d) + ")";
            default -> "((double) " + expr(from, d) + ")";
        };
    }

    private String mathCall(T type, int d) {
        return switch (type) {
            case INT, LONG -> switch (r.nextInt(3)) {
                case 0 -> "Math.abs(" + expr(type, d) + ")";
                case 1 -> "Math.min(" + expr(type, d) + ", " + expr(type, d) + ")";
                default -> "Math.max(" + expr(type, d) + ", " + expr(type, d) + ")";
            };
            case FLOAT -> switch (r.nextInt(9)) {
                case 0 -> "Math.abs(" + expr(type, d) + ")";
                case 1 -> "Math.min(" + expr(type, d) + ", " + expr(type, d) + ")";
                case 2 -> "Math.max(" + expr(type, d) + ", " + expr(type, d) + ")";
                case 3 -> "Math.fma(" + expr(type, d) + ", " + expr(type, d) + ", " + expr(type, d) + ")";
                case 4 -> "((float) Math.sqrt(" + expr(type, d) + "))";
                case 5 -> "((float) Math.floor(" + expr(type, d) + "))";
                case 6 -> "((float) Math.ceil(" + expr(type, d) + "))";
                case 7 -> "((float) Math.rint(" + expr(type, d) + "))";
                default -> copySign(type, d);
            };
            default -> switch (r.nextInt(9)) {
                case 0 -> "Math.abs(" + expr(type, d) + ")";
                case 1 -> "Math.min(" + expr(type, d) + ", " + expr(type, d) + ")";
                case 2 -> "Math.max(" + expr(type, d) + ", " + expr(type, d) + ")";
                case 3 -> "Math.fma(" + expr(type, d) + ", " + expr(type, d) + ", " + expr(type, d) + ")";
                case 4 -> "Math.sqrt(" + expr(type, d) + ")";
                case 5 -> "Math.floor(" + expr(type, d) + ")";
                case 6 -> "Math.ceil(" + expr(type, d) + ")";
                case 7 -> "Math.rint(" + expr(type, d) + ")";
                default -> copySign(type, d);
            };
        };
    }

    /**
     * {@code Math.copySign} with a NaN sign argument read as positive (as {@code StrictMath.copySign} does):
     * Java leaves the sign of a NaN that arithmetic produces unspecified, and it differs between the
     * interpreter and C2 (which may commute the operands of a multiply of two NaNs), so copying it into a
     * number would make the reference executor disagree with itself.
     */
    private String copySign(T type, int d) {
        String magnitude = expr(type, d);
        pure++;
        String sign = expr(type, d);
        pure--;
        return "Math.copySign(" + magnitude + ", (" + sign + " != " + sign + " ? " + (type == T.FLOAT ? "1f" : "1d") + " : " + sign + "))";
    }

    private String helperCall(T type, int d) {
        List<Helper> fit = helpers.stream().filter(h -> h.result == type).toList();
        if (fit.isEmpty()) {
            return null;
        }
        Helper h = fit.get(r.nextInt(fit.size()));
        StringBuilder sb = new StringBuilder(h.name).append('(');
        for (int i = 0; i < h.params.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(expr(h.params.get(i), Math.min(d, 1)));
        }
        return sb.append(')').toString();
    }

    private String condition(int depth) {
        if (options.narrowArrays && inKernel && r.nextInt(100) < 10) {
            String a = pick("za", "za", "zo");
            return (r.nextBoolean() ? "!" : "") + a + narrowIndex(a.equals("zo"));
        }
        if (options.extras && r.nextInt(100) < 10) {
            List<Var> flags = new ArrayList<>();
            for (List<Var> scope : scopes) {
                for (Var v : scope) {
                    if (v.type == T.BOOL) {
                        flags.add(v);
                    }
                }
            }
            if (!flags.isEmpty() && r.nextBoolean()) {
                return (r.nextBoolean() ? "!" : "") + flags.get(r.nextInt(flags.size())).name;
            }
            return switch (r.nextInt(5)) {
                case 0 -> "Float." + pick("isNaN", "isInfinite", "isFinite") + "(" + expr(T.FLOAT, Math.max(0, depth - 1)) + ")";
                case 1 -> "Double." + pick("isNaN", "isInfinite", "isFinite") + "(" + expr(T.DOUBLE, Math.max(0, depth - 1)) + ")";
                case 2 -> "(Integer.compareUnsigned(" + expr(T.INT, Math.max(0, depth - 1)) + ", " + expr(T.INT, Math.max(0, depth - 1)) + ") < 0)";
                default -> "(" + condition(depth - 1) + " " + pick("&", "|", "^") + " " + condition(depth - 1) + ")";
            };
        }
        int roll = depth <= 0 ? r.nextInt(60) : r.nextInt(100);
        if (roll < 60) {
            T type = T.NUMERIC[r.nextInt(4)];
            String cmp = pick("<", "<=", ">", ">=", "==", "!=");
            return "(" + expr(type, Math.max(0, depth - 1)) + " " + cmp + " " + expr(type, Math.max(0, depth - 1)) + ")";
        } else if (roll < 70) {
            return "((" + expr(T.INT, depth - 1) + " & 1) == 0)";
        } else if (roll < 78) {
            return "(!" + condition(depth - 1) + ")";
        } else if (roll < 89) {
            return "(" + condition(depth - 1) + " && " + condition(depth - 1) + ")";
        } else {
            return "(" + condition(depth - 1) + " || " + condition(depth - 1) + ")";
        }
    }

    private String leaf(T type) {
        List<Var> vars = new ArrayList<>();
        for (List<Var> scope : scopes) {
            for (Var v : scope) {
                if (v.type == type) {
                    vars.add(v);
                }
            }
        }
        int roll = r.nextInt(100);
        if (!vars.isEmpty() && roll < 40) {
            return vars.get(r.nextInt(vars.size())).name;
        }
        if (!inKernel || roll >= 80) {
            return literal(type);
        }
        if (options.narrowArrays && type == T.INT && r.nextInt(100) < 30) {
            String a = pick("ba", "sa", "ca", "ba", "sa", "ca", "bo", "so", "co");
            return a + narrowIndex(a.endsWith("o"));
        }
        String prefix = switch (type) {
            case INT -> "i";
            case LONG -> "l";
            case FLOAT -> "f";
            default -> "d";
        };
        int which = r.nextInt(10);
        if (which < 3) {
            return prefix + "a[gid]";
        } else if (which < 5) {
            return prefix + "a[(" + expr(T.INT, 1) + " & 0x7fffffff) % n]";
        } else if (which < 6) {
            return output(type, r.nextInt(SLOTS));
        } else if (which < 8) {
            return "s" + prefix;
        } else if (type == T.INT) {
            return pick("gid", "t.threadIdxX()", "t.blockIdxX()", "t.blockDimX()", "t.laneId()", "t.warpId()", "n",
                    threeD ? "t.threadIdxZ()" : twoD ? "t.threadIdxY()" : "t.gridDimX()");
        } else {
            return literal(type);
        }
    }

    /**
     * An index into a narrow input (the thread's element, the reversed one, or a gather) or, for an output, one of the
     * thread's own elements (slots 0-3, or 4-7 of the reversed row, which only this thread writes).
     */
    private String narrowIndex(boolean output) {
        if (output) {
            return r.nextBoolean() ? "[gid * " + SLOTS + " + " + r.nextInt(4) + "]" : "[(n - 1 - gid) * " + SLOTS + " + " + r.nextInt(4, 8) + "]";
        }
        return switch (r.nextInt(4)) {
            case 0, 1 -> "[gid]";
            case 2 -> "[n - 1 - gid]";
            default -> "[(" + pick("ia[gid]", "gid * 7 + si", "si", "t.threadIdxX() * 3", "gid >> 1") + " & 0x7fffffff) % n]";
        };
    }

    /**
     * A store to a narrow output ({@link Options#narrowArrays}): a cast value, a compound assignment or increment (Java
     * narrows implicitly), or a boolean.
     */
    private void narrowStore() {
        String at = narrowIndex(true);
        switch (r.nextInt(8)) {
            case 0 -> line("bo" + at + " = (byte) (" + expr(T.INT, maxDepth) + ");");
            case 1 -> line("so" + at + " = (short) (" + expr(T.INT, maxDepth) + ");");
            case 2 -> line("co" + at + " = (char) (" + expr(T.INT, maxDepth) + ");");
            case 3, 4 -> line(pick("bo", "so", "co") + at + " " + pick("+=", "^=", "*=", "-=", ">>=", "|=") + " " + expr(T.INT, maxDepth - 1) + ";");
            case 5 -> line("zo" + at + " = " + condition(2) + ";");
            case 6 -> line("zo" + at + " " + pick("^=", "|=", "&=") + " " + condition(2) + ";");
            default -> line(pick("bo", "so", "co") + at + pick("++", "--") + ";");
        }
    }

    private String literal(T type) {
        return switch (type) {
            case INT -> {
                int v = switch (r.nextInt(4)) {
                    case 0 -> pickInt(0, 1, -1, 2, 7, 31, 32, 33, -32, 1000, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x55555555, 65535);
                    case 1 -> r.nextInt();
                    case 2 -> r.nextInt(-100, 100);
                    default -> r.nextInt(-8, 9);
                };
                yield v == Integer.MIN_VALUE ? "Integer.MIN_VALUE" : v < 0 ? "(" + v + ")" : String.valueOf(v);
            }
            case LONG -> {
                long v = switch (r.nextInt(4)) {
                    case 0 -> pick(0L, 1L, -1L, 63L, 64L, 65L, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32, 0x5555555555555555L);
                    case 1 -> r.nextLong();
                    default -> r.nextLong(-1000, 1000);
                };
                yield v == Long.MIN_VALUE ? "Long.MIN_VALUE" : v < 0 ? "(" + v + "L)" : v + "L";
            }
            case FLOAT -> {
                float v = switch (r.nextInt(4)) {
                    case 0 -> pick(0f, -0f, 1f, -1f, 0.5f, 1.5f, 2.5f, -2.5f, 1e-3f, 3e9f, 1e10f, Float.MAX_VALUE,
                            Float.MIN_VALUE, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 16777217f);
                    case 1 -> (float) Math.scalb(r.nextDouble(-2, 2), r.nextInt(-20, 40));
                    default -> (float) r.nextDouble(-100, 100);
                };
                yield floatLiteral(v);
            }
            default -> {
                double v = switch (r.nextInt(4)) {
                    case 0 -> pick(0d, -0d, 1d, -1d, 0.5d, 2.5d, -2.5d, 1e-3, 3e9, 1e19, Double.MAX_VALUE,
                            Double.MIN_VALUE, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 9007199254740993d);
                    case 1 -> Math.scalb(r.nextDouble(-2, 2), r.nextInt(-60, 80));
                    default -> r.nextDouble(-100, 100);
                };
                yield doubleLiteral(v);
            }
        };
    }

    private static String floatLiteral(float v) {
        if (Float.isNaN(v)) {
            return "Float.NaN";
        }
        if (Float.isInfinite(v)) {
            return v > 0 ? "Float.POSITIVE_INFINITY" : "Float.NEGATIVE_INFINITY";
        }
        if (v == Float.MIN_VALUE) {
            return "Float.MIN_VALUE";
        }
        String s = Float.toString(v) + "f";
        return s.startsWith("-") ? "(" + s + ")" : s;
    }

    private static String doubleLiteral(double v) {
        if (Double.isNaN(v)) {
            return "Double.NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY";
        }
        if (v == Double.MIN_VALUE) {
            return "Double.MIN_VALUE";
        }
        String s = Double.toString(v) + "d";
        return s.startsWith("-") ? "(" + s + ")" : s;
    }

    // ---- plumbing ------------------------------------------------------------------------------

    private T numeric() {
        if (options.wideTypes) {
            return WIDE[r.nextInt(WIDE.length)];
        }
        return T.NUMERIC[r.nextInt(4)];
    }

    /** {@link Options#wideTypes}: long and double three times as likely as int and float. */
    private static final T[] WIDE = {T.INT, T.LONG, T.LONG, T.LONG, T.FLOAT, T.DOUBLE, T.DOUBLE, T.DOUBLE};

    @SafeVarargs
    private <E> E pick(E... choices) {
        return choices[r.nextInt(choices.length)];
    }

    private int pickInt(int... choices) {
        return choices[r.nextInt(choices.length)];
    }

    private void line(String s) {
        out.append(indentOf(indent)).append(s).append('\n');
    }

    private static String indentOf(int level) {
        return "    ".repeat(level);
    }
}
