/**
 * The backend SPI: how a compiling executor plugs into the runtime. Exported only to Weft's own backends.
 *
 * <p>The runtime finds {@link dev.weft.runtime.spi.KernelBackend}s with {@link java.util.ServiceLoader}. For
 * each kernel class it asks them in turn to {@linkplain dev.weft.runtime.spi.KernelBackend#compile compile};
 * the first that does runs it, and a kernel no backend compiles runs on the reference executor, which
 * implements this same SPI. Per launch, the chosen {@link dev.weft.runtime.spi.CompiledKernel} is
 * {@linkplain dev.weft.runtime.spi.CompiledKernel#bind bound} to the kernel object (its captured values), and
 * the resulting {@link dev.weft.runtime.spi.CtaProgram} runs CTAs on SM worker threads. A profiled launch
 * binds with {@link dev.weft.runtime.spi.CompiledKernel#bindProfiled bindProfiled} instead: a
 * {@link dev.weft.runtime.spi.ProfiledProgram} that counts into each CTA's {@link
 * dev.weft.runtime.spi.Cta#counters() counters}, or a refusal that the profile reports.
 */
package dev.weft.runtime.spi;
