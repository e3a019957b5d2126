package dev.weft.runtime.internal.reference;

import dev.weft.internal.WarpLanes;
import dev.weft.runtime.internal.reference.RefThread.State;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.KernelFault;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one CTA of the reference executor: every thread is a {@link Fiber} running the kernel as ordinary
 * Java, and this scheduler is the SM's warp scheduler, on the SM worker's own thread.
 *
 * <p>Implementation notes. The schedule is a sequence of rounds. In a round every runnable thread runs, in
 * linear-id order, until it suspends (at a barrier or warp operation) or returns. Then the scheduler
 * resolves: a warp whose threads still alive all wait in the same warp operation at the same site gets its
 * results and runs again; failing that, if every live thread waits at the same {@code syncThreads()}
 * site, all of them go on. If neither applies, the CTA can make no progress: a barrier or warp operation
 * was not reached by all, and the CTA fails with a description of where every thread is, instead of
 * hanging. Because one thread runs at a time on one platform thread, shared memory needs no extra
 * ordering, and a run is deterministic. One scheduler per SM worker thread, reused across CTAs.
 */
final class CtaScheduler {

    private static final ThreadLocal<CtaScheduler> PER_SM = new ThreadLocal<>();

    final int warpSize;
    private final RefThread[] threads;
    Cta cta;
    Site[] sites;
    int blockX;
    int blockY;
    int blockZ;
    private int count;

    private CtaScheduler(int warpSize) {
        this.warpSize = warpSize;
        this.threads = new RefThread[1024];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new RefThread(this, i, warpSize);
        }
    }

    /** The calling SM's scheduler for this warp size. */
    static CtaScheduler forCurrentSm(int warpSize) {
        CtaScheduler s = PER_SM.get();
        if (s == null || s.warpSize != warpSize) {
            s = new CtaScheduler(warpSize);
            PER_SM.set(s);
        }
        return s;
    }

    void run(Cta cta, KernelBody kernel, Site[] sites, boolean neverWaits) {
        this.cta = cta;
        this.sites = sites;
        this.blockX = cta.blockDim().x();
        this.blockY = cta.blockDim().y();
        this.blockZ = cta.blockDim().z();
        this.count = cta.threadCount();
        if (neverWaits) {
            try {
                runDirect(kernel);
            } finally {
                this.cta = null;
                this.sites = null;
            }
            return;
        }
        for (int i = 0; i < count; i++) {
            RefThread t = threads[i];
            t.reset(i % blockX, (i / blockX) % blockY, i / (blockX * blockY));
            t.fiber = Fiber.create(() -> body(t, kernel));
        }
        try {
            schedule();
        } finally {
            for (int i = 0; i < count; i++) {
                RefThread t = threads[i];
                if (!t.fiber.isDone()) {
                    t.fiber.cancel();
                }
                t.fiber = null;
            }
            this.cta = null;
            this.sites = null;
        }
    }

    /**
     * Runs a kernel that provably never waits: each thread to completion in linear order, on this thread,
     * which is exactly the schedule the fibers would follow, without creating them.
     */
    private void runDirect(KernelBody kernel) {
        for (int i = 0; i < count; i++) {
            RefThread t = threads[i];
            t.reset(i % blockX, (i / blockX) % blockY, i / (blockX * blockY));
            try {
                kernel.run(t);
            } catch (Throwable e) {
                throw KernelFault.inThread(t.threadIdx(), e);
            }
            if ((i & 63) == 63 && cta.cancelled()) {
                return;
            }
        }
    }

    private static void body(RefThread t, KernelBody kernel) {
        try {
            kernel.run(t);
            t.state = State.DONE;
        } catch (Throwable e) {
            t.failure = e;
            t.state = State.FAILED;
        }
    }

    private void schedule() {
        while (true) {
            for (int i = 0; i < count; i++) {
                RefThread t = threads[i];
                if (t.state == State.RUNNABLE) {
                    t.fiber.resume();
                    if (t.state == State.FAILED) {
                        throw KernelFault.inThread(t.threadIdx(), t.failure);
                    }
                }
            }
            if (cta.cancelled()) {
                return;
            }
            int live = 0;
            for (int i = 0; i < count; i++) {
                if (threads[i].state != State.DONE) {
                    live++;
                }
            }
            if (live == 0) {
                return;
            }
            if (!resolveWarpOps() && !resolveBarrier(live)) {
                throw KernelFault.inCta(describeDeadlock());
            }
        }
    }

    /** Completes every warp operation all live threads of a warp wait in; true if any was. */
    private boolean resolveWarpOps() {
        boolean any = false;
        for (int first = 0; first < count; first += warpSize) {
            int end = Math.min(first + warpSize, count);
            RefThread leader = null;
            boolean ready = true;
            for (int i = first; i < end && ready; i++) {
                RefThread t = threads[i];
                if (t.state == State.DONE) {
                    continue;
                }
                if (t.state != State.AT_WARP_OP) {
                    ready = false;
                } else if (leader == null) {
                    leader = t;
                }
            }
            if (!ready || leader == null) {
                continue;
            }
            for (int i = first; i < end; i++) {
                RefThread t = threads[i];
                if (t.state == State.AT_WARP_OP && !(t.site.sameAs(leader.site) && t.op == leader.op
                        && t.isFloat == leader.isFloat && t.width == leader.width)) {
                    throw KernelFault.inCta("warp " + leader.warp + " diverged at a warp operation: "
                            + describeWarp(first, end));
                }
            }
            completeWarpOp(first, end, leader.op);
            any = true;
        }
        return any;
    }

    private void completeWarpOp(int first, int end, RefThread.WarpOp op) {
        int activeMask = 0;
        int votes = 0;
        for (int i = first; i < end; i++) {
            RefThread t = threads[i];
            if (t.state == State.AT_WARP_OP) {
                activeMask |= 1 << t.lane;
                if (t.operand != 0) {
                    votes |= 1 << t.lane;
                }
            }
        }
        for (int i = first; i < end; i++) {
            RefThread t = threads[i];
            if (t.state != State.AT_WARP_OP) {
                continue;
            }
            t.result = switch (op) {
                case BALLOT -> votes;
                case ANY -> votes != 0 ? 1 : 0;
                case ALL -> votes == activeMask ? 1 : 0;
                case SHFL_IDX -> source(first, end, t, WarpLanes.idx(t.lane, t.laneArg, t.width));
                case SHFL_UP -> source(first, end, t, WarpLanes.up(t.lane, t.laneArg, t.width, warpSize));
                case SHFL_DOWN -> source(first, end, t, WarpLanes.down(t.lane, t.laneArg, t.width, warpSize));
                case SHFL_XOR -> source(first, end, t, WarpLanes.xor(t.lane, t.laneArg, t.width, warpSize));
            };
        }
        for (int i = first; i < end; i++) {
            if (threads[i].state == State.AT_WARP_OP) {
                threads[i].state = State.RUNNABLE;
            }
        }
    }

    /** The operand of lane {@code srcLane} if it is active, else the reader's own. */
    private int source(int first, int end, RefThread reader, int srcLane) {
        int i = first + srcLane;
        return i < end && threads[i].state == State.AT_WARP_OP ? threads[i].operand : reader.operand;
    }

    /** Releases the barrier if every live thread waits at the same one and none has returned. */
    private boolean resolveBarrier(int live) {
        RefThread leader = null;
        for (int i = 0; i < count; i++) {
            RefThread t = threads[i];
            if (t.state == State.AT_BARRIER) {
                if (leader == null) {
                    leader = t;
                } else if (!t.site.sameAs(leader.site)) {
                    return false;
                }
            } else if (t.state != State.DONE) {
                return false;
            }
        }
        if (leader == null || live != count) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            threads[i].state = State.RUNNABLE;
        }
        return true;
    }

    /** Where every thread of the CTA is, grouped: the message of a convergence error. */
    private String describeDeadlock() {
        boolean barrier = false;
        for (int i = 0; i < count; i++) {
            barrier |= threads[i].state == State.AT_BARRIER;
        }
        String what = barrier ? "syncThreads() not reached by all threads of the CTA" : "a warp operation not reached by all threads of its warp";
        return what + ": " + describeRange(0, count);
    }

    private String describeWarp(int first, int end) {
        return describeRange(first, end);
    }

    private String describeRange(int first, int end) {
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = first; i < end; i++) {
            groups.computeIfAbsent(threads[i].describeWait(), k -> new ArrayList<>()).add(i);
        }
        StringBuilder sb = new StringBuilder();
        groups.forEach((where, ids) -> {
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(ids.size()).append(ids.size() == 1 ? " thread " : " threads ")
                    .append(where.equals("returned") ? "returned" : "wait in " + where)
                    .append(" (linear thread ids ").append(ranges(ids)).append(')');
        });
        return sb.toString();
    }

    /** {@code [0,1,2,5,7,8]} as {@code "0-2, 5, 7-8"}. */
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
