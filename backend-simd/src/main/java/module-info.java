/**
 * The SIMD backend: compiles kernel lambdas to Vector API code, warps on vector lanes and masks for
 * divergence; and the vectorised special function unit.
 */
module dev.weft.simd {
    requires transitive dev.weft.runtime;
    requires jdk.incubator.vector;
    // The compiler directive that keeps C1 away from generated kernels (gen.C1Exclusion): the platform MBean
    // server, and the DiagnosticCommand MBean jdk.management registers in it.
    requires java.management;
    requires jdk.management;
    exports dev.weft.simd.sfu;
    provides dev.weft.runtime.spi.KernelBackend with dev.weft.simd.internal.SimdBackend;
}
