package dev.weft.simd.internal.ir;

/** IR operations. Operands are listed with each; {@link Node#aux} carries the extra datum where noted. */
public enum Op {
    /** A constant; aux: the boxed value (Integer, Long, Float, Double). */
    CONST,
    /** A kernel parameter (captured value or static field read at launch); aux: {@link Param}. */
    PARAM,
    /** A special register (thread and CTA coordinates); aux: {@link SReg}. */
    SREG,
    /** A value never defined on this path (a Java local read only where dead); behaves as zero. */
    UNDEF,
    /** An SSA phi; operands in the order of the block's predecessors. */
    PHI,
    ADD, SUB, MUL, DIV, REM, NEG, SHL, SHR, USHR, AND, OR, XOR,
    /** A numeric conversion; aux: {@link Conv}. */
    CONV,
    /** lcmp, fcmpl, fcmpg, dcmpl, dcmpg: -1, 0 or 1; aux: Boolean "NaN gives 1" (the g variants). */
    CMP,
    /** A condition on two numbers; aux: {@link Cond}. Kind BOOL. */
    TEST,
    /** Array element load (array, index). */
    LOAD,
    /** Array element store (array, index, value); kind VOID. */
    STORE,
    /** Array length (array). */
    LENGTH,
    /** A call to a known pure function; aux: {@link Fn}. */
    CALL,
    /**
     * A {@link dev.weft.Atomics} call (array, index, operands...); aux: {@link Atomic}. Varying whatever its
     * operands: each thread gets its own old value. Has a side effect and can fault.
     */
    ATOMIC,
    /**
     * A warp operation: a vote (predicate) or a shuffle (value, lane argument, width); aux: {@link Warp}. Votes
     * are uniform across the warp, shuffles varying. Synchronises the warp: never dropped or moved.
     */
    WARP,
    /**
     * A shared-memory allocation (length); aux: its ordinal among the kernel's allocations (an Integer, set by
     * the compiler once it has checked that every thread makes them in one static order). Kind: the array.
     * Uniform across the CTA: every thread's k-th allocation is the CTA's k-th array.
     */
    SHARED,
    /**
     * {@code syncThreads()}; aux: {@link Barrier}. Always the last node of its block, which ends in a GOTO: the
     * code generator splits the CTA's run there. Kind VOID.
     */
    BARRIER
}
