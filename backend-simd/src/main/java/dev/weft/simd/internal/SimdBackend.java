package dev.weft.simd.internal;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.runtime.spi.KernelBackend;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.gen.C1Exclusion;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SIMD backend: compiles kernel lambdas to Vector API code, a warp's threads on vector lanes. Found by the
 * runtime through {@link java.util.ServiceLoader} under the name {@code "simd"}.
 *
 * <p>Compilations are cached per implementation method and warp size, so a second launch, or another lambda
 * class with the same implementation method (a method reference used twice), compiles nothing; declines are
 * cached too.
 */
public final class SimdBackend implements KernelBackend {

    private record Key(String method, String descriptor, int warpSize) {
    }

    /** A compilation, or the reasons there is none. */
    private record Outcome(Compiler.Code code, List<String> reasons) {
    }

    /**
     * Compilations per implementation class: a ClassValue, so that a kernel class's compiled code goes when its
     * class loader does.
     */
    private static final ClassValue<ConcurrentHashMap<Key, Outcome>> CACHE = new ClassValue<>() {
        @Override
        protected ConcurrentHashMap<Key, Outcome> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** For the ServiceLoader. Starts excluding C1 from generated kernels (see {@link C1Exclusion}). */
    public SimdBackend() {
        C1Exclusion.start();
    }

    @Override
    public void warmUp() {
        WarmUp.start(this);
    }

    @Override
    public String name() {
        return "simd";
    }

    @Override
    public Compilation compile(Kernel kernel, DeviceShape device) {
        LambdaSource src;
        try {
            src = LambdaSource.of(kernel);
        } catch (Decline d) {
            return new Compilation.Declined(d.reasons());
        }
        Key key = new Key(src.implMethod, src.implDescriptor, device.warpSize());
        Class<?> owner;
        try {
            owner = Class.forName(src.implClass.replace('/', '.'), false, src.loader);
        } catch (ClassNotFoundException | LinkageError e) {
            owner = kernel.getClass();
        }
        Outcome o = CACHE.get(owner).computeIfAbsent(key, k -> {
            try {
                return new Outcome(Compiler.compile(src, device.warpSize()), null);
            } catch (Decline d) {
                return new Outcome(null, d.reasons());
            }
        });
        if (o.code() == null) {
            return new Compilation.Declined(o.reasons());
        }
        try {
            Binder binder = Binder.create(kernel.getClass(), src.lambda, o.code().constructor(), o.code().params(), src.loader);
            return new Compilation.Compiled(new SimdKernel(o.code(), binder));
        } catch (Decline d) {
            return new Compilation.Declined(d.reasons());
        }
    }

    /** One kernel class compiled: the shared code and this class's binder. */
    private static final class SimdKernel implements CompiledKernel {
        private final CompileReport report;
        private final Binder binder;
        private volatile boolean directiveChecked;

        SimdKernel(Compiler.Code code, Binder binder) {
            this.report = new CompileReport("simd", true, List.of(), code.listing());
            this.binder = binder;
        }

        @Override
        public CompileReport report() {
            return report;
        }

        @Override
        public CtaProgram bind(Kernel kernel) {
            if (!directiveChecked) {
                // Before the kernel first runs: C1 must never compile it (C1Exclusion).
                C1Exclusion.ensure();
                directiveChecked = true;
            }
            return binder.bind(kernel);
        }
    }
}
