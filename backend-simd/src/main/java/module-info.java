/**
 * The SIMD backend: compiles kernel lambdas to Vector API code, warps on vector lanes and masks for
 * divergence; and the vectorised special function unit.
 */
module dev.weft.simd {
    requires transitive dev.weft.runtime;
    requires jdk.incubator.vector;
    requires java.management;
    exports dev.weft.simd.sfu;
    provides dev.weft.runtime.spi.KernelBackend with dev.weft.simd.internal.SimdBackend;
}
