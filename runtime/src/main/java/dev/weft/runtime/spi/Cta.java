package dev.weft.runtime.spi;

import dev.weft.Dim3;

/**
 * The CTA an SM is running: its coordinates, the launch's dimensions, its shared memory, and whether the
 * launch has been cancelled. One per SM worker, refilled for every CTA: valid only during
 * {@link CtaProgram#runCta}.
 */
public final class Cta {

    private final SharedMemory sharedMemory = new SharedMemory();
    private int blockIdxX;
    private int blockIdxY;
    private int blockIdxZ;
    private Dim3 gridDim = Dim3.of(1);
    private Dim3 blockDim = Dim3.of(1);
    private int warpSize = 32;
    private CancelSource cancelSource;
    private long[] counters;

    /** Says whether a launch was cancelled; implemented by the runtime. */
    public interface CancelSource {
        /** Whether the launch has failed or been cancelled, so its CTAs should stop. */
        boolean cancelled();
    }

    /**
     * Refills this CTA; called by the runtime before each {@link CtaProgram#runCta}.
     */
    public void start(int bx, int by, int bz, Dim3 grid, Dim3 block, int warpSize, CancelSource cancel,
            int sharedLimitBytes, String sharedLimitName) {
        this.blockIdxX = bx;
        this.blockIdxY = by;
        this.blockIdxZ = bz;
        // References only when they change (once per launch, not per CTA): this object lives as long as its SM,
        // so it is soon in the old generation, and there a reference store to another region (a launch's young
        // Dim3s) takes G1's post-write barrier slow path, a StoreLoad fence included (seen in runOne's code).
        if (this.gridDim != grid) {
            this.gridDim = grid;
        }
        if (this.blockDim != block) {
            this.blockDim = block;
        }
        this.warpSize = warpSize;
        if (this.cancelSource != cancel) {
            this.cancelSource = cancel;
        }
        sharedMemory.reset(sharedLimitBytes, sharedLimitName);
    }

    /**
     * Moves to the next CTA of the same grid row ({@code blockIdx.x + 1}, the rest unchanged) with fresh shared
     * memory; called by a {@link CtaProgram#runCtaRow} between the CTAs it runs.
     */
    public void nextX() {
        blockIdxX++;
        sharedMemory.reset();
    }

    /** CUDA: {@code blockIdx.x}. */
    public int blockIdxX() {
        return blockIdxX;
    }

    /** CUDA: {@code blockIdx.y}. */
    public int blockIdxY() {
        return blockIdxY;
    }

    /** CUDA: {@code blockIdx.z}. */
    public int blockIdxZ() {
        return blockIdxZ;
    }

    /** This CTA's coordinates. CUDA: {@code blockIdx}. */
    public Dim3 blockIdx() {
        return new Dim3(blockIdxX, blockIdxY, blockIdxZ);
    }

    /** CUDA: {@code gridDim}. */
    public Dim3 gridDim() {
        return gridDim;
    }

    /** CUDA: {@code blockDim}. */
    public Dim3 blockDim() {
        return blockDim;
    }

    /** Threads per warp on this device. PTX: {@code WARP_SZ}. */
    public int warpSize() {
        return warpSize;
    }

    /** Threads in this CTA. */
    public int threadCount() {
        return blockDim.x() * blockDim.y() * blockDim.z();
    }

    /** This CTA's shared memory, reset for it. */
    public SharedMemory sharedMemory() {
        return sharedMemory;
    }

    /** Whether the launch failed elsewhere; a long-running program polls this between warps or steps. */
    public boolean cancelled() {
        return cancelSource != null && cancelSource.cancelled();
    }

    /**
     * This CTA's profiling counters, zeroed for it, or {@code null} when its launch is not profiled: a
     * {@link ProfiledProgram} adds to them, the runtime sums them over the launch.
     */
    public long[] counters() {
        return counters;
    }

    /** Sets the counters of the CTA about to run ({@code null} after it); called by the runtime. */
    public void useCounters(long[] counters) {
        this.counters = counters;
    }
}
