/**
 * What a kernel author sees: {@link dev.weft.Kernel}, its {@link dev.weft.ThreadContext},
 * {@link dev.weft.Dim3}, {@link dev.weft.Atomics} and the special function unit {@link dev.weft.Sfu}.
 */
module dev.weft.kernels {
    requires jdk.incubator.vector;
    exports dev.weft;
    exports dev.weft.internal to dev.weft.runtime, dev.weft.simd;
    exports dev.weft.internal.sfu to dev.weft.simd;
}
