package dev.weft.simd.internal;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.runtime.spi.KernelBackend;
import dev.weft.runtime.spi.ProfiledProgram;
import dev.weft.simd.internal.Compiler.Code;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.gen.C1Exclusion;
import dev.weft.simd.internal.gen.Profiling;
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

    /** Not a record: a record's equals and hashCode link through a bootstrap method on first use, in every first compile. */
    private static final class Key {
        private final String method;
        private final String descriptor;
        private final int warpSize;
        private final boolean profiled;

        Key(String method, String descriptor, int warpSize, boolean profiled) {
            this.method = method;
            this.descriptor = descriptor;
            this.warpSize = warpSize;
            this.profiled = profiled;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.method.equals(method) && k.descriptor.equals(descriptor)
                    && k.warpSize == warpSize && k.profiled == profiled;
        }

        @Override
        public int hashCode() {
            return ((method.hashCode() * 31 + descriptor.hashCode()) * 31 + warpSize) * 2 + (profiled ? 1 : 0);
        }
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
        // A user's compile: the background work (warm-up, methods per resume point) waits meanwhile.
        boolean foreground = !Background.isBackground();
        if (foreground) {
            Background.foregroundBegin();
        }
        try {
            return compile0(kernel, device);
        } finally {
            if (foreground) {
                Background.foregroundEnd();
            }
        }
    }

    private Compilation compile0(Kernel kernel, DeviceShape device) {
        LambdaSource src;
        try {
            src = LambdaSource.of(kernel);
        } catch (Decline d) {
            return new Compilation.Declined(d.reasons());
        }
        Class<?> owner;
        try {
            owner = Class.forName(src.implClass.replace('/', '.'), false, src.loader);
        } catch (ClassNotFoundException | LinkageError e) {
            owner = kernel.getClass();
        }
        Outcome o = outcome(owner, src, device.warpSize(), false);
        if (o.code() == null) {
            return new Compilation.Declined(o.reasons());
        }
        try {
            Binder binder = Binder.create(kernel.getClass(), src.lambda, o.code().entry(), o.code().params(), src.loader);
            SimdKernel compiled = new SimdKernel(o.code(), binder, kernel.getClass(), owner, src, device.warpSize());
            if (o.code().resumed() != null) {
                o.code().resumed().whenReady(compiled);
            }
            return new Compilation.Compiled(compiled);
        } catch (Decline d) {
            return new Compilation.Declined(d.reasons());
        }
    }

    /** The cached compilation of the kernel (or its profiling variant), compiling it on first use. */
    private static Outcome outcome(Class<?> owner, LambdaSource src, int warpSize, boolean profiled) {
        Key key = new Key(src.implMethod, src.implDescriptor, warpSize, profiled);
        // Not a lambda: each lambda spins a class the first time it runs, a cost of every first compile.
        return CACHE.get(owner).computeIfAbsent(key, new Compile(src, warpSize, profiled));
    }

    /** Compiles a kernel into its cache entry (see {@link #outcome}). */
    private static final class Compile implements java.util.function.Function<Key, Outcome> {
        private final LambdaSource src;
        private final int warpSize;
        private final boolean profiled;

        Compile(LambdaSource src, int warpSize, boolean profiled) {
            this.src = src;
            this.warpSize = warpSize;
            this.profiled = profiled;
        }

        @Override
        public Outcome apply(Key key) {
            try {
                return new Outcome(Compiler.compile(src, warpSize, profiled), null);
            } catch (Decline d) {
                return new Outcome(null, d.reasons());
            }
        }
    }

    /** Compiles the profiling variant and its binder; throws UnsupportedOperationException saying why not. */
    private static Profiled profilingBinder(Class<?> kernelClass, Class<?> owner, LambdaSource src, int warpSize) {
        Outcome o = outcome(owner, src, warpSize, true);
        try {
            if (o.code() != null) {
                Code code = o.code();
                return new Profiled(Binder.create(kernelClass, src.lambda, code.entry(), code.params(), src.loader),
                        code.profiling());
            }
        } catch (Decline d) {
            o = new Outcome(null, d.reasons());
        }
        throw new UnsupportedOperationException("simd backend: no profiling variant of this kernel: " + String.join("; ", o.reasons()));
    }

    /** The profiling variant of a kernel class: its binder and its counters. */
    private record Profiled(Binder binder, Profiling profiling) {
    }

    /** One profiled launch: the profiling variant's program, and what its counters mean. */
    private record ProfiledLaunch(CtaProgram program, Profiling profiling) implements ProfiledProgram {

        @Override
        public void runCta(Cta cta) {
            program.runCta(cta);
        }

        @Override
        public int counterCount() {
            return profiling.counterCount();
        }

        @Override
        public Counts decode(long[] totals) {
            return profiling.decode(totals);
        }
    }

    /** One kernel class compiled: the shared code and this class's binder. */
    private static final class SimdKernel implements CompiledKernel, Compiler.Upgradable {
        private final Compiler.Code code;
        /** The binder of the kernel's class; replaced once by the second tier's (see {@link Compiler.Resumed}). */
        private volatile Binder binder;
        private final Class<?> kernelClass;
        /** The class of the implementation method, whose cache holds the profiling variant. */
        private final Class<?> implOwner;
        private final LambdaSource src;
        private final int warpSize;
        private volatile Profiled profiled;
        private volatile boolean directiveChecked;

        SimdKernel(Compiler.Code code, Binder binder, Class<?> kernelClass, Class<?> implOwner, LambdaSource src, int warpSize) {
            this.code = code;
            this.binder = binder;
            this.kernelClass = kernelClass;
            this.implOwner = implOwner;
            this.src = src;
            this.warpSize = warpSize;
        }

        /** The second tier is defined: launches bind its class from now on (the same parameters, the same results). */
        @Override
        public void upgrade(Compiler.Entry entry) {
            try {
                binder = Binder.create(kernelClass, src.lambda, entry, code.params(), src.loader);
            } catch (RuntimeException e) {
                // The first class's binder was built from the same parameters, so this does not happen; if it did,
                // the first class would stay, with the same results.
            }
        }

        /** Compiles the profiling variant on the first profiled launch (the backend caches it per method). */
        @Override
        public ProfiledProgram bindProfiled(Kernel kernel) {
            Profiled p = profiled;
            if (p == null) {
                p = profilingBinder(kernelClass, implOwner, src, warpSize);
                profiled = p;
            }
            C1Exclusion.ensure();
            return new ProfiledLaunch(p.binder().bind(kernel), p.profiling());
        }

        @Override
        public CompileReport report() {
            // The listing is written on the first call (a launch never needs it), then kept by the code.
            return new CompileReport("simd", true, List.of(), code.listing().get());
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
