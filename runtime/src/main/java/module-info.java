/**
 * Weft's runtime: devices, launches, streams and events, the work distributor and SM workers, the
 * reference executor, and the backend SPI through which compiling backends plug in.
 */
module dev.weft.runtime {
    requires transitive dev.weft.kernels;
    exports dev.weft.runtime;
    exports dev.weft.runtime.spi to dev.weft.simd;
    uses dev.weft.runtime.spi.KernelBackend;
}
