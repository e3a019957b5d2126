package dev.weft.simd.internal.gen;

import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.KernelFault;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of a CTA of a kernel with barriers between its phases: where each group of threads stopped, and
 * the values it keeps across the barrier. Generated code calls it; one per SM worker thread, reused across CTAs.
 *
 * <p>A compiled kernel with {@code syncThreads()} runs a CTA as a sequence of phases. In a phase every group
 * runs, in linear order, from where it stopped (the kernel's start in the first phase) until it reaches a
 * barrier with all its threads, or returns. At a barrier it stores the values live across it (scalars, vectors,
 * masks: the locals of the generated code) in the arrays here, at its group's row, and records the barrier
 * node it stopped at ({@link #stop}). After the phase, {@link #next} decides, as the reference executor's
 * scheduler does after a round: if every group waits at one barrier (the same call instruction) with all its
 * threads, the next phase resumes each group after its barrier; if every group returned, the CTA is done;
 * otherwise the CTA fails with {@code KernelFault.inCta}, naming where the threads are.
 *
 * <p>Implementation notes. Vectors are kept as their bits in {@link #ints} (see {@code Lanes.spill}): a vector
 * stored as a reference came back as an object C2 knows nothing of, which made C2 box the vectors it met at phis
 * (the tiled sgemm allocated 1.64 GB per launch; 0.35 GB with lanes). Masks are still kept as references.
 * The arrays grow to the largest CTA seen and are never shrunk. A group's
 * row of each array is fetched once per group, so that a spilled value costs one constant-indexed store (the
 * generated code must stay under C2's 8000-byte limit).
 */
public final class Phases {

    /** Not {@code ThreadLocal.withInitial(Phases::new)}: a method reference spins a class on its first run. */
    private static final ThreadLocal<Phases> PER_SM = new ThreadLocal<>() {
        @Override
        protected Phases initialValue() {
            return new Phases();
        }
    };

    /**
     * Per group: 0 to start or returned; {@code id > 0}: stopped at barrier node {@code id} with all its threads;
     * {@code -id}: with some; {@link #YIELD}{@code  + k}: paused in interleaved stride loop {@code k} (see
     * {@link #interleaved}); {@link #WAIT}: not to run in this phase.
     */
    public int[] stop = new int[32];
    /**
     * The or of the values a phase's touch pass read ({@code Touches}): written so that the JIT keeps the reads,
     * never read.
     */
    public int touched;
    /** Per group that stopped with some threads: those threads, lane i at bit i. */
    public long[] lanes = new long[32];
    /** Per group, a row of spilled values of each storage class. */
    public int[][] ints = new int[0][];
    public long[][] longs = new long[0][];
    public float[][] floats = new float[0][];
    public double[][] doubles = new double[0][];
    public Object[][] refs = new Object[0][];
    private int stride;

    private String parsedTable;
    private int[] siteOf;
    private String[] whereOf;

    /** {@link #stop}'s value for a group paused in the k-th interleaved stride loop: {@code YIELD + k}. */
    public static final int YIELD = 1 << 24;
    /** {@link #stop}'s value for a group that sits out a phase: other groups run their paused stride loops on. */
    public static final int WAIT = -(1 << 24);

    /** While groups wait (see {@link #WAIT}): where they stopped. */
    private int[] waiting = new int[32];
    /** A fault of a group that interleaved stride loops put ahead of earlier groups, and that group; see {@link #fault}. */
    private KernelFault pendingFault;
    private int pendingGroup;

    /**
     * The resume point {@link #next} found on its one pass (every group at one barrier node, or all at the start
     * after {@link #begin}), for the {@link #resumePoint} call that follows; {@link #UNKNOWN} when it must look.
     */
    private int knownResume = UNKNOWN;
    private static final int UNKNOWN = Integer.MIN_VALUE;

    /**
     * {@link #next} first makes one pass over the groups' stops and, when every group stopped at one node with all
     * its threads or every group returned (the common case), decides on that; the full checks run otherwise. The
     * pass also tells {@link #resumePoint} its answer. {@code -Dweft.simd.onePassNext=false} turns it off, to
     * compare. Why: per phase, the checks took four passes over the groups (the paused loops, returned, the
     * barrier's site, then the resume point), which a tree reduction's eight short phases per CTA pay each time.
     * Measured (the reduction's tree alone, 256 CTAs, CPU ms per launch): 0.54-0.60 with every switch of the session
     * on, 0.68-0.76 with only this one off.
     */
    static final boolean ONE_PASS_NEXT = !"false".equals(System.getProperty("weft.simd.onePassNext"));

    private int[] scratchInts = new int[0];
    private long[] scratchLongs = new long[0];
    private float[] scratchFloats = new float[0];
    private double[] scratchDoubles = new double[0];

    private Phases() {
    }

    // Scratch arrays of the generated code (gather maps, scatter values, per-lane calls), at least len long: the
    // SM's, reused by every CTA and phase it runs (a new one per CTA and phase was scan's largest allocation left,
    // three of 1 KiB per CTA). What one leaves there another never reads: the code writes before it reads, as
    // the groups of one CTA always shared one array.

    private int[] roundRobin = new int[0];

    private static final java.util.concurrent.atomic.LongAdder ROUND_ROBIN_RUNS = new java.util.concurrent.atomic.LongAdder();

    /** How many CTA phases ran a stride loop round-robin in this JVM: for tests that a kernel takes that path. */
    public static long roundRobinRuns() {
        return ROUND_ROBIN_RUNS.sum();
    }

    /**
     * The SM's array for a round-robin stride loop's groups (CodeGen's {@code roundRobinLoop}), at least
     * {@code groups} long; the generated code sets what it reads.
     */
    public int[] roundRobinGroups(int groups) {
        ROUND_ROBIN_RUNS.increment();
        if (roundRobin.length < groups) {
            roundRobin = new int[groups];
        }
        return roundRobin;
    }

    public int[] scratchInt(int len) {
        if (scratchInts.length < len) {
            scratchInts = new int[len];
        }
        return scratchInts;
    }

    public long[] scratchLong(int len) {
        if (scratchLongs.length < len) {
            scratchLongs = new long[len];
        }
        return scratchLongs;
    }

    public float[] scratchFloat(int len) {
        if (scratchFloats.length < len) {
            scratchFloats = new float[len];
        }
        return scratchFloats;
    }

    public double[] scratchDouble(int len) {
        if (scratchDoubles.length < len) {
            scratchDoubles = new double[len];
        }
        return scratchDoubles;
    }

    /** The calling SM's state, ready for a CTA of {@code threads} threads in groups of {@code group}: every group at the start. */
    public static Phases begin(int threads, int group) {
        Phases p = PER_SM.get();
        int groups = (threads + group - 1) / group;
        if (p.stop.length < groups) {
            p.stop = new int[groups];
            p.lanes = new long[groups];
            p.waiting = new int[groups];
        } else {
            Arrays.fill(p.stop, 0, groups, 0);
        }
        p.pendingFault = null;
        p.knownResume = ONE_PASS_NEXT && groups > 0 ? 0 : UNKNOWN;
        return p;
    }

    /** Makes room for {@code stride} values of each type per group, for {@code threads / group} groups. */
    public void reserve(int threads, int group, int stride) {
        int groups = (threads + group - 1) / group;
        if (refs.length < groups || this.stride < stride) {
            int g = Math.max(groups, refs.length);
            int s = Math.max(stride, this.stride);
            ints = new int[g][s];
            longs = new long[g][s];
            floats = new float[g][s];
            doubles = new double[g][s];
            refs = new Object[g][s];
            this.stride = s;
        }
    }

    /**
     * Called by a resume point's method when a group's flags are not those it expects, before it hands the rest
     * of the phase to the general method (correct, only slower); counted for tests.
     */
    public static void unexpectedResume() {
        UNEXPECTED_RESUMES.incrementAndGet();
    }

    /** How often {@link #unexpectedResume} happened in this JVM: for tests that a kernel's phases stay on the fast methods. */
    public static long unexpectedResumes() {
        return UNEXPECTED_RESUMES.get();
    }

    private static final java.util.concurrent.atomic.AtomicLong UNEXPECTED_RESUMES = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Before a phase: where every group resumes, when all resume at one point: 0 at the kernel's start (the first
     * phase), else the barrier node all stopped at; -1 when they stopped at different nodes of one call site
     * (a barrier in a helper inlined twice), which only the general method resumes; {@link #YIELD}{@code  + k} when
     * every group that runs is paused in the k-th interleaved stride loop. The generated code then
     * runs the method for that point (see {@code CodeGen.resumePoints}).
     */
    public int resumePoint(int threads, int group) {
        if (knownResume != UNKNOWN) {
            int r = knownResume;
            knownResume = UNKNOWN;
            return r;
        }
        int groups = (threads + group - 1) / group;
        int s = WAIT;
        for (int g = 0; g < groups; g++) {
            // A waiting group sits the phase out wherever the others resume (the method skips it).
            if (stop[g] != WAIT) {
                if (s != WAIT && stop[g] != s) {
                    return -1;
                }
                s = stop[g];
            }
        }
        return s;
    }

    /**
     * After a phase: whether to run another. Throws when the threads are not all at one barrier; returns false
     * when all returned, or the launch was cancelled.
     *
     * @param table the kernel's barrier nodes, {@code site|where} per line, node 1 first
     */
    public boolean next(Cta cta, int threads, int group, String table) {
        int groups = (threads + group - 1) / group;
        knownResume = UNKNOWN;
        if (ONE_PASS_NEXT && pendingFault == null && groups > 0) {
            // Every group at one stop: no group paused or waiting (those are above YIELD or at WAIT), so the
            // checks below would find none paused, then all returned (0) or all at one barrier node (a site).
            // A loop that leaves at the first difference, which C2 does not vectorize: its vector load of the stops
            // right after the groups' scalar stores of them could not take the stores' values (store forwarding)
            // and stalled. In the scan's profile runCta, where this inlines, fell from 9.8% to 6.5% of the kernel's
            // samples.
            int s0 = stop[0];
            boolean same = true;
            for (int g = 1; g < groups; g++) {
                if (stop[g] != s0) {
                    same = false;
                    break;
                }
            }
            if (same && s0 >= 0 && s0 < YIELD) {
                if (s0 == 0 || cta.cancelled()) {
                    return false;
                }
                knownResume = s0;
                return true;
            }
        }
        if (interleaved(cta, groups)) {
            return true;
        }
        boolean returned = true;
        for (int g = 0; g < groups; g++) {
            returned &= stop[g] == 0;
        }
        if (returned || cta.cancelled()) {
            return false;
        }
        parse(table);
        int s0 = stop[0];
        boolean met = true;
        for (int g = 0; g < groups && met; g++) {
            met = stop[g] > 0 && s0 > 0 && siteOf[stop[g]] == siteOf[s0];
        }
        if (met) {
            return true;
        }
        throw KernelFault.inCta("syncThreads() not reached by all threads of the CTA: " + describe(threads, group, groups));
    }

    /**
     * Interleaved stride loops (CodeGen's {@code interleavedStrideLoop}): a group runs a few iterations of such a
     * loop, then pauses ({@link #YIELD}) so that the next group runs its own, and the phases go round the groups
     * until none is paused. The groups that are not paused (at a barrier, returned) sit the phases out
     * ({@link #WAIT}) and get their places back when no group is paused. Whether another phase runs for that.
     *
     * <p>A fault is reported as the reference executor reports it, which runs each thread until it blocks: the
     * fault of the first group (in group order) that faults before the barrier. A group that faults while an
     * earlier group is paused therefore waits ({@link #fault}): the earlier paused groups run on first, alone;
     * the first of them to fault fails the CTA, and if none does, the waiting fault does.
     */
    private boolean interleaved(Cta cta, int groups) {
        if (cta.cancelled()) {
            return false;
        }
        boolean paused = false;
        int limit = pendingFault == null ? groups : pendingGroup;
        for (int g = 0; g < limit; g++) {
            if (stop[g] >= YIELD) {
                paused = true; // leaves at once, as next's first pass does (no vector load of the stops)
                break;
            }
        }
        if (!paused) {
            if (pendingFault != null) {
                throw pendingFault;
            }
            for (int g = 0; g < groups; g++) {
                if (stop[g] == WAIT) {
                    stop[g] = waiting[g];
                }
            }
            return false;
        }
        for (int g = 0; g < groups; g++) {
            if (stop[g] != WAIT && (stop[g] < YIELD || g >= limit)) {
                waiting[g] = stop[g];
                stop[g] = WAIT;
            }
        }
        return true;
    }

    /**
     * Called by generated code for a fault of group {@code g} in a kernel with interleaved stride loops: throws it
     * when no earlier group is paused in such a loop (the reference executor would have run those to their
     * barrier first); else keeps it, the group stops for good, and the caller ends the phase at once (the
     * reference never ran the later groups after the fault); see {@link #interleaved}.
     */
    public void fault(int g, KernelFault f) {
        for (int e = 0; e < g; e++) {
            if (stop[e] >= YIELD) {
                pendingFault = f;
                pendingGroup = g;
                stop[g] = WAIT;
                waiting[g] = 0;
                return;
            }
        }
        throw f;
    }

    private void parse(String table) {
        if (table == parsedTable) {
            return;
        }
        String[] lines = table.split("\n");
        siteOf = new int[lines.length + 1];
        whereOf = new String[lines.length + 1];
        for (int i = 0; i < lines.length; i++) {
            int bar = lines[i].indexOf('|');
            siteOf[i + 1] = Integer.parseInt(lines[i].substring(0, bar));
            whereOf[i + 1] = lines[i].substring(bar + 1);
        }
        parsedTable = table;
    }

    /** Where every thread is, grouped as the reference executor's message groups them. */
    private String describe(int threads, int group, int groups) {
        Map<String, List<Integer>> where = new LinkedHashMap<>();
        for (int g = 0; g < groups; g++) {
            int s = stop[g];
            for (int lane = 0; lane < group && g * group + lane < threads; lane++) {
                String w;
                if (s > 0 || (s < 0 && (lanes[g] >>> lane & 1) != 0)) {
                    w = "wait in syncThreads() at " + whereOf[Math.abs(s)];
                } else if (s == 0) {
                    w = "returned";
                } else {
                    w = "did not reach it with the rest of their warp (returned, or on another path)";
                }
                where.computeIfAbsent(w, k -> new ArrayList<>()).add(g * group + lane);
            }
        }
        StringBuilder sb = new StringBuilder();
        where.forEach((w, ids) -> {
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(ids.size()).append(ids.size() == 1 ? " thread " : " threads ").append(w)
                    .append(" (linear thread ids ").append(ranges(ids)).append(')');
        });
        return sb.toString();
    }

    /** {@code [0,1,2,5,7,8]} as {@code "0-2, 5, 7-8"}, as the reference executor writes them. */
    static String ranges(List<Integer> ids) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < ids.size(); ) {
            int start = ids.get(k);
            int j = k;
            while (j + 1 < ids.size() && ids.get(j + 1) == ids.get(j) + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(start);
            if (j > k) {
                sb.append('-').append(ids.get(j));
            }
            k = j + 1;
        }
        return sb.toString();
    }
}
