package dev.weft.runtime.internal.reference;

import dev.weft.Dim3;
import dev.weft.ThreadContext;
import dev.weft.internal.WarpLanes;

/**
 * One kernel thread of the reference executor: its coordinates, and the operation it is suspended in.
 * Reused from CTA to CTA by its SM's scheduler.
 */
final class RefThread implements ThreadContext {

    enum State { RUNNABLE, AT_BARRIER, AT_WARP_OP, DONE, FAILED }

    /** Warp operations, as the scheduler resolves them. */
    enum WarpOp { BALLOT, ANY, ALL, SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR }

    private final CtaScheduler cta;
    final int linear;
    final int lane;
    final int warp;
    int x;
    int y;
    int z;
    Fiber fiber;
    State state;
    Throwable failure;
    Site site;
    int sharedAllocations;

    // The warp operation this thread waits in, and its result once resolved.
    WarpOp op;
    boolean isFloat;
    int operand;
    int laneArg;
    int width;
    int result;

    RefThread(CtaScheduler cta, int linear, int warpSize) {
        this.cta = cta;
        this.linear = linear;
        this.lane = linear % warpSize;
        this.warp = linear / warpSize;
    }

    void reset(int x, int y, int z) {
        this.x = x;
        this.y = y;
        this.z = z;
        this.state = State.RUNNABLE;
        this.failure = null;
        this.site = null;
        this.sharedAllocations = 0;
    }

    Dim3 threadIdx() {
        return new Dim3(x, y, z);
    }

    @Override public int threadIdxX() { return x; }
    @Override public int threadIdxY() { return y; }
    @Override public int threadIdxZ() { return z; }
    @Override public int blockIdxX() { return cta.cta.blockIdxX(); }
    @Override public int blockIdxY() { return cta.cta.blockIdxY(); }
    @Override public int blockIdxZ() { return cta.cta.blockIdxZ(); }
    @Override public int blockDimX() { return cta.blockX; }
    @Override public int blockDimY() { return cta.blockY; }
    @Override public int blockDimZ() { return cta.blockZ; }
    @Override public int gridDimX() { return cta.cta.gridDim().x(); }
    @Override public int gridDimY() { return cta.cta.gridDim().y(); }
    @Override public int gridDimZ() { return cta.cta.gridDim().z(); }
    @Override public int linearThreadIdx() { return linear; }
    @Override public int laneId() { return lane; }
    @Override public int warpId() { return warp; }
    @Override public int warpSize() { return cta.warpSize; }

    @Override
    public int[] sharedInts(int length) {
        return cta.cta.sharedMemory().ints(sharedAllocations++, length);
    }

    @Override
    public long[] sharedLongs(int length) {
        return cta.cta.sharedMemory().longs(sharedAllocations++, length);
    }

    @Override
    public float[] sharedFloats(int length) {
        return cta.cta.sharedMemory().floats(sharedAllocations++, length);
    }

    @Override
    public double[] sharedDoubles(int length) {
        return cta.cta.sharedMemory().doubles(sharedAllocations++, length);
    }

    @Override
    public void syncThreads() {
        syncThreadsAt(Site.ofCaller());
    }

    void syncThreadsAt(Site at) {
        checkFiber();
        site = at;
        state = State.AT_BARRIER;
        fiber.suspend();
    }

    private void checkFiber() {
        if (fiber == null) {
            throw dev.weft.runtime.internal.Checks.bug("a kernel judged never to wait reached a barrier or warp operation");
        }
    }

    Site taggedSite(int id) {
        return cta.sites[id];
    }

    @Override
    public int ballot(boolean predicate) {
        return warpOp(Site.ofCaller(), WarpOp.BALLOT, false, predicate ? 1 : 0, 0, cta.warpSize);
    }

    @Override
    public boolean any(boolean predicate) {
        return warpOp(Site.ofCaller(), WarpOp.ANY, false, predicate ? 1 : 0, 0, cta.warpSize) != 0;
    }

    @Override
    public boolean all(boolean predicate) {
        return warpOp(Site.ofCaller(), WarpOp.ALL, false, predicate ? 1 : 0, 0, cta.warpSize) != 0;
    }

    @Override
    public int shfl(int value, int srcLane, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_IDX, false, value, srcLane, width);
    }

    @Override
    public int shflUp(int value, int delta, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_UP, false, value, delta, width);
    }

    @Override
    public int shflDown(int value, int delta, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_DOWN, false, value, delta, width);
    }

    @Override
    public int shflXor(int value, int laneMask, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_XOR, false, value, laneMask, width);
    }

    @Override
    public float shfl(float value, int srcLane, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_IDX, value, srcLane, width);
    }

    @Override
    public float shflUp(float value, int delta, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_UP, value, delta, width);
    }

    @Override
    public float shflDown(float value, int delta, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_DOWN, value, delta, width);
    }

    @Override
    public float shflXor(float value, int laneMask, int width) {
        return shuffle(Site.ofCaller(), WarpOp.SHFL_XOR, value, laneMask, width);
    }

    float shuffle(Site at, WarpOp kind, float value, int laneArg, int width) {
        return Float.intBitsToFloat(shuffle(at, kind, true, Float.floatToRawIntBits(value), laneArg, width));
    }

    int shuffle(Site at, WarpOp kind, boolean isFloat, int bits, int laneArg, int width) {
        WarpLanes.checkWidth(width, cta.warpSize);
        return warpOp(at, kind, isFloat, bits, laneArg, width);
    }

    int warpOp(Site at, WarpOp kind, boolean isFloat, int operand, int laneArg, int width) {
        checkFiber();
        this.site = at;
        this.op = kind;
        this.isFloat = isFloat;
        this.operand = operand;
        this.laneArg = laneArg;
        this.width = width;
        this.state = State.AT_WARP_OP;
        fiber.suspend();
        return result;
    }

    /** How messages name an operation. */
    String describeWait() {
        return switch (state) {
            case AT_BARRIER -> "syncThreads() at " + site;
            case AT_WARP_OP -> opName() + " at " + site;
            case DONE -> "returned";
            default -> state.name().toLowerCase();
        };
    }

    String opName() {
        return switch (op) {
            case BALLOT -> "ballot()";
            case ANY -> "any()";
            case ALL -> "all()";
            case SHFL_IDX -> "shfl(" + (isFloat ? "float" : "int") + ", width " + width + ")";
            case SHFL_UP -> "shflUp(" + (isFloat ? "float" : "int") + ", width " + width + ")";
            case SHFL_DOWN -> "shflDown(" + (isFloat ? "float" : "int") + ", width " + width + ")";
            case SHFL_XOR -> "shflXor(" + (isFloat ? "float" : "int") + ", width " + width + ")";
        };
    }
}
