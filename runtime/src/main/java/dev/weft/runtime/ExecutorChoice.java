package dev.weft.runtime;

/** Which executor runs a device's kernels. */
public enum ExecutorChoice {
    /**
     * The first installed backend that compiles the kernel (the SIMD backend, when it is on the class
     * path); the reference executor for kernels no backend compiles, with a one-line diagnostic saying why.
     */
    AUTO,
    /**
     * Always the reference executor: every thread runs the kernel as ordinary Java. The specification
     * every backend is tested against, and the mode to debug a kernel in.
     */
    REFERENCE
}
