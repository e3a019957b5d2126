package dev.weft.simd.internal.ir;

/** The thread context's coordinates, as PTX names its special registers. */
public enum SReg {
    TID_X("threadIdx.x"), TID_Y("threadIdx.y"), TID_Z("threadIdx.z"),
    CTAID_X("blockIdx.x"), CTAID_Y("blockIdx.y"), CTAID_Z("blockIdx.z"),
    NTID_X("blockDim.x"), NTID_Y("blockDim.y"), NTID_Z("blockDim.z"),
    NCTAID_X("gridDim.x"), NCTAID_Y("gridDim.y"), NCTAID_Z("gridDim.z"),
    /** The linear thread id within the CTA. */
    LINEAR_TID("linearThreadIdx"),
    LANE_ID("laneId"),
    WARP_ID("warpId"),
    WARP_SIZE("warpSize");

    private final String text;

    SReg(String text) {
        this.text = text;
    }

    /** Whether every thread of a CTA sees the same value. */
    public boolean isCtaUniform() {
        return switch (this) {
            case CTAID_X, CTAID_Y, CTAID_Z, NTID_X, NTID_Y, NTID_Z, NCTAID_X, NCTAID_Y, NCTAID_Z, WARP_SIZE -> true;
            default -> false;
        };
    }

    public String text() {
        return text;
    }
}
