package dev.weft;

/**
 * What one thread of a kernel sees: its coordinates, its CTA's shared memory and barrier, and the warp
 * operations. The runtime hands each thread its own context; kernels never implement this interface.
 *
 * <h2>Threads, warps, CTAs</h2>
 * A launch runs a grid of CTAs (thread blocks); every CTA has {@code blockDim} threads. The threads of a
 * CTA are numbered by their linear id {@code x + y·blockDim.x + z·blockDim.x·blockDim.y} and grouped, in
 * that order, into warps of {@link #warpSize()} threads; the last warp of a CTA may be partial. A warp's
 * threads are its lanes.
 *
 * <h2>Convergence rules</h2>
 * {@link #syncThreads()} must be reached by every thread of the CTA, at the same call site; the warp
 * operations ({@link #ballot}, {@link #any}, {@link #all}, the shuffles) by every thread of the warp that
 * has not returned, at the same call site. Anything else fails the launch with an error that names the
 * CTA and the threads that arrived; it never hangs.
 *
 * <h2>Shared memory</h2>
 * The k-th shared allocation a thread makes returns the same array to every thread of its CTA, zeroed when
 * the CTA starts; CTAs never see each other's arrays. Every thread of a CTA must make the same sequence of
 * allocations (same element type and length), as CUDA's {@code __shared__} declarations are.
 *
 * <p>Methods of this interface are called only by the thread whose context it is, only during its kernel.
 */
public interface ThreadContext {

    // ---- coordinates -------------------------------------------------------------------------

    /** This thread's x index within its CTA. CUDA: {@code threadIdx.x}. */
    int threadIdxX();

    /** This thread's y index within its CTA. CUDA: {@code threadIdx.y}. */
    int threadIdxY();

    /** This thread's z index within its CTA. CUDA: {@code threadIdx.z}. */
    int threadIdxZ();

    /** This CTA's x index within the grid. CUDA: {@code blockIdx.x}. */
    int blockIdxX();

    /** This CTA's y index within the grid. CUDA: {@code blockIdx.y}. */
    int blockIdxY();

    /** This CTA's z index within the grid. CUDA: {@code blockIdx.z}. */
    int blockIdxZ();

    /** Threads per CTA along x. CUDA: {@code blockDim.x}. */
    int blockDimX();

    /** Threads per CTA along y. CUDA: {@code blockDim.y}. */
    int blockDimY();

    /** Threads per CTA along z. CUDA: {@code blockDim.z}. */
    int blockDimZ();

    /** CTAs per grid along x. CUDA: {@code gridDim.x}. */
    int gridDimX();

    /** CTAs per grid along y. CUDA: {@code gridDim.y}. */
    int gridDimY();

    /** CTAs per grid along z. CUDA: {@code gridDim.z}. */
    int gridDimZ();

    /** {@code blockIdx.x * blockDim.x + threadIdx.x}. CUDA: the same expression. */
    default int globalIdX() {
        return blockIdxX() * blockDimX() + threadIdxX();
    }

    /** {@code blockIdx.y * blockDim.y + threadIdx.y}. CUDA: the same expression. */
    default int globalIdY() {
        return blockIdxY() * blockDimY() + threadIdxY();
    }

    /** {@code blockIdx.z * blockDim.z + threadIdx.z}. CUDA: the same expression. */
    default int globalIdZ() {
        return blockIdxZ() * blockDimZ() + threadIdxZ();
    }

    /** This thread's id within its CTA: {@code x + y·blockDim.x + z·blockDim.x·blockDim.y}. PTX: the linear {@code %tid}. */
    default int linearThreadIdx() {
        return threadIdxX() + blockDimX() * (threadIdxY() + blockDimY() * threadIdxZ());
    }

    /** This thread's lane within its warp, in {@code [0, warpSize)}. PTX: {@code %laneid}. */
    int laneId();

    /** This thread's warp within its CTA. PTX: {@code %warpid} (stable here: threads do not migrate). */
    int warpId();

    /** Threads per warp: 32 unless the device was configured otherwise. PTX: {@code WARP_SZ}. */
    int warpSize();

    // ---- shared memory -----------------------------------------------------------------------

    /**
     * The CTA's next shared array of {@code length} ints, zeroed at CTA start.
     *
     * @throws IllegalArgumentException if {@code length} is negative, if the CTA's shared memory would
     *         exceed its limit, or if another thread's allocation at this position differs
     * CUDA: {@code __shared__ int a[length];}
     */
    int[] sharedInts(int length);

    /** As {@link #sharedInts}, for longs. CUDA: {@code __shared__ long long a[length];} */
    long[] sharedLongs(int length);

    /** As {@link #sharedInts}, for floats. CUDA: {@code __shared__ float a[length];} */
    float[] sharedFloats(int length);

    /** As {@link #sharedInts}, for doubles. CUDA: {@code __shared__ double a[length];} */
    double[] sharedDoubles(int length);

    // ---- barrier -----------------------------------------------------------------------------

    /**
     * Waits until every thread of this CTA has reached this call; memory written before it by any thread
     * of the CTA is visible to all of them after it.
     *
     * <p>A thread that returns, or reaches a different {@code syncThreads()}, while others wait here fails
     * the launch naming the CTA and the threads that arrived.
     * CUDA: {@code __syncthreads()}; PTX: {@code bar.sync 0}.
     */
    void syncThreads();

    // ---- warp vote ---------------------------------------------------------------------------

    /**
     * Bit {@code i} of the result is set when lane {@code i} of this warp is active and its
     * {@code predicate} is true. Lanes that returned, and lanes past the end of a partial warp, are inactive.
     * CUDA: {@code __ballot_sync(__activemask(), predicate)}.
     */
    int ballot(boolean predicate);

    /** Whether {@code predicate} is true on any active lane of this warp. CUDA: {@code __any_sync(__activemask(), predicate)}. */
    boolean any(boolean predicate);

    /** Whether {@code predicate} is true on every active lane of this warp. CUDA: {@code __all_sync(__activemask(), predicate)}. */
    boolean all(boolean predicate);

    // ---- warp shuffle ------------------------------------------------------------------------
    // A shuffle divides the warp into segments of `width` lanes (a power of two, at most warpSize).
    // A lane whose source falls outside the range the rule allows, or whose source lane is inactive,
    // gets its own value back. As in PTX, only the low log2(warpSize) bits of srcLane, delta and
    // laneMask count: shflUp(v, 33) on a 32-lane warp is shflUp(v, 1).

    /**
     * The {@code value} of lane {@code srcLane mod width} of this lane's segment.
     * CUDA: {@code __shfl_sync(mask, value, srcLane, width)}.
     */
    int shfl(int value, int srcLane, int width);

    /** The {@code value} of lane {@code laneId - delta}, if that is within this lane's segment. CUDA: {@code __shfl_up_sync(mask, value, delta, width)}. */
    int shflUp(int value, int delta, int width);

    /** The {@code value} of lane {@code laneId + delta}, if that is within this lane's segment. CUDA: {@code __shfl_down_sync(mask, value, delta, width)}. */
    int shflDown(int value, int delta, int width);

    /**
     * The {@code value} of lane {@code laneId ^ laneMask}, unless that lane lies in a later segment.
     * CUDA: {@code __shfl_xor_sync(mask, value, laneMask, width)}.
     */
    int shflXor(int value, int laneMask, int width);

    /** As {@link #shfl(int, int, int)}, for floats (bits are moved unchanged). CUDA: {@code __shfl_sync}. */
    float shfl(float value, int srcLane, int width);

    /** As {@link #shflUp(int, int, int)}, for floats. CUDA: {@code __shfl_up_sync}. */
    float shflUp(float value, int delta, int width);

    /** As {@link #shflDown(int, int, int)}, for floats. CUDA: {@code __shfl_down_sync}. */
    float shflDown(float value, int delta, int width);

    /** As {@link #shflXor(int, int, int)}, for floats. CUDA: {@code __shfl_xor_sync}. */
    float shflXor(float value, int laneMask, int width);

    /** {@code shfl(value, srcLane, warpSize())}. CUDA: {@code __shfl_sync(mask, value, srcLane)}. */
    default int shfl(int value, int srcLane) {
        return shfl(value, srcLane, warpSize());
    }

    /** {@code shflUp(value, delta, warpSize())}. CUDA: {@code __shfl_up_sync(mask, value, delta)}. */
    default int shflUp(int value, int delta) {
        return shflUp(value, delta, warpSize());
    }

    /** {@code shflDown(value, delta, warpSize())}. CUDA: {@code __shfl_down_sync(mask, value, delta)}. */
    default int shflDown(int value, int delta) {
        return shflDown(value, delta, warpSize());
    }

    /** {@code shflXor(value, laneMask, warpSize())}. CUDA: {@code __shfl_xor_sync(mask, value, laneMask)}. */
    default int shflXor(int value, int laneMask) {
        return shflXor(value, laneMask, warpSize());
    }

    /** {@code shfl(value, srcLane, warpSize())}. CUDA: {@code __shfl_sync(mask, value, srcLane)}. */
    default float shfl(float value, int srcLane) {
        return shfl(value, srcLane, warpSize());
    }

    /** {@code shflUp(value, delta, warpSize())}. CUDA: {@code __shfl_up_sync(mask, value, delta)}. */
    default float shflUp(float value, int delta) {
        return shflUp(value, delta, warpSize());
    }

    /** {@code shflDown(value, delta, warpSize())}. CUDA: {@code __shfl_down_sync(mask, value, delta)}. */
    default float shflDown(float value, int delta) {
        return shflDown(value, delta, warpSize());
    }

    /** {@code shflXor(value, laneMask, warpSize())}. CUDA: {@code __shfl_xor_sync(mask, value, laneMask)}. */
    default float shflXor(float value, int laneMask) {
        return shflXor(value, laneMask, warpSize());
    }
}
