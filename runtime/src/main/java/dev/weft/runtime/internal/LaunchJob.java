package dev.weft.runtime.internal;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.KernelException;
import dev.weft.runtime.LaunchProfile;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.KernelFault;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One launch in flight: a stream of CTAs that SMs claim one at a time, and the future that completes when
 * the last claimed CTA has finished.
 *
 * <p>Implementation notes. {@code next} hands out linear CTA indices (x fastest, then y, then z, as the
 * hardware's work distributor walks a grid) in chunks of consecutive CTAs ({@link #chunkAt}); an index at or past
 * {@code ctaCount} means the launch is drained. {@code remaining} counts CTAs not yet finished or skipped; whoever brings it to zero completes
 * the future, so the future never completes while a CTA of this launch still runs on some SM (the next
 * launch on the stream cannot race a failed one's stragglers). On the first failure, {@link #fail} claims
 * every unclaimed CTA at once with one {@code getAndSet}, and running CTAs see {@link #cancelled()}.
 */
public final class LaunchJob implements Cta.CancelSource {

    /**
     * {@code next} once a launch failed or was skipped: past any grid's CTA count (at most (2^31 - 1) * 65535^2,
     * under 2^63), so every later claim finds nothing. Claims never add to it ({@link #runOne} compares first).
     */
    private static final long DRAINED = Long.MAX_VALUE;

    /** How many CTAs the calling thread is inside: a launch from there is a launch from inside a kernel. */
    private static final ThreadLocal<int[]> IN_CTA = new ThreadLocal<>() {
        // Not withInitial's lambda: a lambda spins a class the first time it runs, a cost of the first launch.
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    };

    private final Kernel kernel;
    private final CtaProgram program;
    private final Dim3 grid;
    private final Dim3 block;
    private final int warpSize;
    private final int sharedLimitBytes;
    private final String sharedLimitName;
    private final long ctaCount;
    /** The smallest chunk a claim takes (the last ones of a launch), see {@link #chunkAt}. */
    private final long minChunk;
    /** A claim takes the CTAs not yet claimed divided by this: 4 per SM. */
    private final long shareDivisor;
    /** Null unless the launch is profiled. */
    private final LaunchProfiler profiler;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong remaining;
    private volatile Throwable failure;
    final LaunchFuture done = new LaunchFuture();

    public LaunchJob(Kernel kernel, CtaProgram program, Dim3 grid, Dim3 block, int warpSize, int smCount,
            int sharedLimitBytes, String sharedLimitName) {
        this(kernel, program, null, grid, block, warpSize, smCount, sharedLimitBytes, sharedLimitName);
    }

    /** A profiled launch: runs {@code profiler}'s program, counting into it. */
    public LaunchJob(Kernel kernel, LaunchProfiler profiler, Dim3 grid, Dim3 block, int warpSize, int smCount,
            int sharedLimitBytes, String sharedLimitName) {
        this(kernel, profiler.program(), profiler, grid, block, warpSize, smCount, sharedLimitBytes, sharedLimitName);
    }

    private LaunchJob(Kernel kernel, CtaProgram program, LaunchProfiler profiler, Dim3 grid, Dim3 block, int warpSize,
            int smCount, int sharedLimitBytes, String sharedLimitName) {
        this.kernel = kernel;
        this.program = program;
        this.profiler = profiler;
        this.grid = grid;
        this.block = block;
        this.warpSize = warpSize;
        this.sharedLimitBytes = sharedLimitBytes;
        this.sharedLimitName = sharedLimitName;
        this.ctaCount = grid.volume();
        this.remaining = new AtomicLong(ctaCount);
        this.minChunk = Math.clamp(ctaCount / (16L * smCount), 1, 32);
        this.shareDivisor = 4L * smCount;
    }

    /** The profile of this launch, once done; only for a launch made with a profiler. */
    public LaunchProfile profile() {
        return profiler.result();
    }

    /** Whether the calling thread is running a CTA, i.e. is inside a kernel. */
    public static boolean callerIsInKernel() {
        return IN_CTA.get()[0] > 0;
    }

    /** The number of CTAs in the grid. */
    public long ctaCount() {
        return ctaCount;
    }

    /** Completes when every CTA has finished or was skipped; exceptionally on the first failure. */
    public LaunchFuture done() {
        return done;
    }

    @Override
    public boolean cancelled() {
        return failure != null;
    }

    /**
     * Claims a chunk of CTAs and runs them on the calling SM.
     *
     * @return false when no CTA was left to claim
     */
    boolean runOne(Cta cta) {
        long first;
        long end;
        do {
            first = next.get();
            if (first >= ctaCount) {
                return false;
            }
            end = first + chunkAt(first);
        } while (!next.compareAndSet(first, end));
        end = Math.min(end, ctaCount);
        int[] depth = IN_CTA.get();
        depth[0]++;
        // The chunk's first CTA's coordinates by division, the rest by stepping: 64-bit divisions per CTA
        // cost about as much as a small compiled CTA's work.
        int gx = grid.x();
        int gy = grid.y();
        int bx = (int) (first % gx);
        long rest = first / gx;
        int by = (int) (rest % gy);
        int bz = (int) (rest / gy);
        try {
            for (long i = first; i < end && failure == null; ) {
                // The chunk's CTAs of one grid row in one call (none with a profiler: it counts per CTA).
                int row = profiler == null ? (int) Math.min(end - i, gx - bx) : 1;
                runCtas(cta, bx, by, bz, row);
                i += row;
                bx += row;
                if (bx == gx) {
                    bx = 0;
                    if (++by == gy) {
                        by = 0;
                        bz++;
                    }
                }
            }
        } finally {
            depth[0]--;
        }
        finish(end - first); // CTAs of the chunk skipped after a failure count as finished too
        return true;
    }

    /**
     * The size of the chunk a claim starting at {@code first} (below {@code ctaCount}) takes. Guided self-scheduling: a
     * claim takes a quarter of an SM's share of the CTAs not yet claimed, and never fewer than {@code minChunk} (about
     * 1/16 of an SM's share of the grid, at most 32 CTAs: each claim is a cache miss on the shared counters when SMs
     * share them, about the cost of a small compiled CTA). So a big grid of small CTAs is handed out in a few dozen
     * claims, the first ones large, while the last chunks stay small enough for an uneven grid to balance. Why not
     * fixed chunks of at most 32 CTAs, as before: saxpy (4,096 CTAs, 128 claims) spent some 0.8 µs per claim beyond its
     * CTAs' work (weft/vectorApi 0.68-0.79 with them, 0.79-1.13 with guided claims, paired, alternating forks; how much
     * of it is the shared counters, the call into the generated CTA loop, or the prefetchers starting on a new stretch
     * of the arrays was not taken apart).
     */
    private long chunkAt(long first) {
        return Math.max(minChunk, (ctaCount - first) / shareDivisor);
    }

    /** Runs {@code count} CTAs of one grid row from {@code (bx, by, bz)}; a failure names the CTA it happened in. */
    private void runCtas(Cta cta, int bx, int by, int bz, int count) {
        cta.start(bx, by, bz, grid, block, warpSize, this, sharedLimitBytes, sharedLimitName);
        try {
            if (profiler != null) {
                profiler.run(cta);
            } else if (count == 1) {
                program.runCta(cta);
            } else {
                program.runCtaRow(cta, count);
            }
        } catch (KernelFault f) {
            fail(new KernelException(KernelNames.of(kernel), new Dim3(cta.blockIdxX(), by, bz), f.threadIdx(), f.getMessage(), f.getCause()));
        } catch (Throwable t) {
            fail(new KernelException(KernelNames.of(kernel), new Dim3(cta.blockIdxX(), by, bz), null, String.valueOf(t), t));
        }
    }

    /** Fails this launch with {@code t} unless it already failed, and skips every CTA not yet claimed. */
    void fail(Throwable t) {
        synchronized (this) {
            if (failure != null) {
                failure.addSuppressed(t);
                return;
            }
            failure = t;
        }
        long claimed = next.getAndSet(DRAINED);
        long unclaimed = Math.max(0, ctaCount - claimed);
        if (unclaimed > 0) {
            finish(unclaimed);
        }
    }

    /** Completes the launch without running it: a predecessor failed. */
    public void skip(Throwable cause) {
        next.set(DRAINED);
        done.failWith(cause);
    }

    private void finish(long ctas) {
        if (remaining.addAndGet(-ctas) == 0) {
            Throwable f = failure;
            if (f == null) {
                done.succeed();
            } else {
                done.failWith(f);
            }
        }
    }

    /** Whether every CTA has been claimed, so SMs should look elsewhere. */
    boolean drained() {
        return next.get() >= ctaCount;
    }
}
