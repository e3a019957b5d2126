package dev.weft.simd.internal;

import dev.weft.Dim3;
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
 * cached too. A launch compiles only the CTA-shape variant its CTAs run ({@link Compiler.Menu}); a launch in CTAs
 * of a shape that runs another variant compiles that one on first use, and a report compiles them all.
 */
public final class SimdBackend implements KernelBackend {

    /** Not a record: a record's equals and hashCode link through a bootstrap method on first use, in every first compile. */
    private static final class Key {
        private final String method;
        private final String descriptor;
        private final int warpSize;
        private final boolean profiled;
        /** The CTA-shape variant compiled ({@link Compiler.Menu}); {@link #ALL} for a class with every variant. */
        private final String variant;

        Key(String method, String descriptor, int warpSize, boolean profiled, String variant) {
            this.method = method;
            this.descriptor = descriptor;
            this.warpSize = warpSize;
            this.profiled = profiled;
            this.variant = variant;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.method.equals(method) && k.descriptor.equals(descriptor)
                    && k.warpSize == warpSize && k.profiled == profiled && k.variant.equals(variant);
        }

        @Override
        public int hashCode() {
            return (((method.hashCode() * 31 + descriptor.hashCode()) * 31 + warpSize) * 31 + variant.hashCode()) * 2
                    + (profiled ? 1 : 0);
        }
    }

    /** {@link Key#variant} of a compilation with every CTA-shape variant. */
    private static final String ALL = "";

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

    /** Each kernel's menu of CTA-shape variants, by the key of its class with every variant, once one compiled. */
    private static final ClassValue<ConcurrentHashMap<Key, Compiler.Menu>> MENUS = new ClassValue<>() {
        @Override
        protected ConcurrentHashMap<Key, Compiler.Menu> computeValue(Class<?> type) {
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
        return compile(kernel, device, null);
    }

    /** With a {@code block}, compiles only the variant CTAs of that shape run; null: every variant. */
    @Override
    public Compilation compile(Kernel kernel, DeviceShape device, Dim3 block) {
        // A user's compile: the background work (warm-up, methods per resume point) waits meanwhile.
        boolean foreground = Background.compileBegin();
        try {
            return compile0(kernel, device, block);
        } finally {
            Background.compileEnd(foreground);
        }
    }

    private Compilation compile0(Kernel kernel, DeviceShape device, Dim3 block) {
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
        Outcome o = outcome(owner, src, device.warpSize(), false, block);
        if (o.code() == null) {
            return new Compilation.Declined(o.reasons());
        }
        try {
            SimdKernel compiled = new SimdKernel(kernel.getClass(), owner, src, device.warpSize(), o.code().menu());
            compiled.add(o.code(), block);
            return new Compilation.Compiled(compiled);
        } catch (Decline d) {
            return new Compilation.Declined(d.reasons());
        }
    }

    /**
     * The cached compilation of the kernel (or its profiling variant), compiling it on first use: with a
     * {@code block}, of the variant CTAs of that shape run; null, of every variant.
     */
    private static Outcome outcome(Class<?> owner, LambdaSource src, int warpSize, boolean profiled, Dim3 block) {
        Key all = new Key(src.implMethod, src.implDescriptor, warpSize, profiled, ALL);
        ConcurrentHashMap<Key, Outcome> cache = CACHE.get(owner);
        if (block == null) {
            // Not a lambda: each lambda spins a class the first time it runs, a cost of every first compile.
            return remember(owner, all, cache.computeIfAbsent(all, new Compile(src, warpSize, profiled, null)));
        }
        // Not short-cut by a cached decline of every variant: where one variant's method is too large for C2,
        // the others may still compile.
        Compiler.Menu menu = MENUS.get(owner).get(all);
        if (menu == null) {
            // The kernel's first compile: its menu is known once it has been parsed, so the outcome is filed under
            // the variant chosen then (two threads racing here may both compile it).
            Outcome o = new Compile(src, warpSize, profiled, block).apply(all);
            if (o.code() == null) {
                cache.putIfAbsent(all, o);
                return o;
            }
            remember(owner, all, o);
            Outcome first = cache.putIfAbsent(variantKey(all, o.code().menu().choose(block)), o);
            return first != null ? first : o;
        }
        return cache.computeIfAbsent(variantKey(all, menu.choose(block)), new Compile(src, warpSize, profiled, block));
    }

    /** {@link #outcome} for a launch or a report: background work waits meanwhile, as for {@link #compile}. */
    private static Outcome userOutcome(Class<?> owner, LambdaSource src, int warpSize, Dim3 block) {
        boolean foreground = Background.compileBegin();
        try {
            return outcome(owner, src, warpSize, false, block);
        } finally {
            Background.compileEnd(foreground);
        }
    }

    /**
     * The cached compilation for CTAs of shape {@code block} where the class of their variant does not serve them
     * ({@link SimdKernel#forShape}): filed under the shape, not the variant, as a launch's compile.
     */
    private static Outcome shapeOutcome(Class<?> owner, LambdaSource src, int warpSize, Dim3 block) {
        Key shape = new Key(src.implMethod, src.implDescriptor, warpSize, false, "blockDim " + block);
        boolean foreground = Background.compileBegin();
        try {
            return CACHE.get(owner).computeIfAbsent(shape, new Compile(src, warpSize, false, block));
        } finally {
            Background.compileEnd(foreground);
        }
    }

    private static Key variantKey(Key all, String variant) {
        return new Key(all.method, all.descriptor, all.warpSize, all.profiled, variant);
    }

    /** Files the menu of a compiled outcome (see {@link #MENUS}). */
    private static Outcome remember(Class<?> owner, Key all, Outcome o) {
        if (o.code() != null) {
            MENUS.get(owner).putIfAbsent(all, o.code().menu());
        }
        return o;
    }

    /** Compiles a kernel into its cache entry (see {@link #outcome}). */
    private static final class Compile implements java.util.function.Function<Key, Outcome> {
        private final LambdaSource src;
        private final int warpSize;
        private final boolean profiled;
        private final Dim3 block;

        Compile(LambdaSource src, int warpSize, boolean profiled, Dim3 block) {
            this.src = src;
            this.warpSize = warpSize;
            this.profiled = profiled;
            this.block = block;
        }

        @Override
        public Outcome apply(Key key) {
            try {
                return new Outcome(Compiler.compile(src, warpSize, profiled, block), null);
            } catch (Decline d) {
                return new Outcome(null, d.reasons());
            }
        }
    }

    /** Compiles the profiling variant and its binder; throws UnsupportedOperationException saying why not. */
    private static Profiled profilingBinder(Class<?> kernelClass, Class<?> owner, LambdaSource src, int warpSize) {
        Outcome o = outcome(owner, src, warpSize, true, null);
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

    /** One compiled class of a kernel and this kernel class's binder for it. */
    private static final class Bound implements Compiler.Upgradable {
        final Compiler.Code code;
        /** Replaced once by the second tier's (see {@link Compiler.Resumed}). */
        private volatile Binder binder;
        private final Class<?> kernelClass;
        private final LambdaSource src;

        /** {@link #NONE}. */
        private Bound() {
            this.code = null;
            this.kernelClass = null;
            this.src = null;
        }

        Bound(Compiler.Code code, Class<?> kernelClass, LambdaSource src) {
            this.code = code;
            this.kernelClass = kernelClass;
            this.src = src;
            this.binder = Binder.create(kernelClass, src.lambda, code.entry(), code.params(), src.loader);
            if (code.resumed() != null) {
                code.resumed().whenReady(this);
            }
        }

        /** The second tier is defined: launches bind its class from now on (the same parameters, the same results). */
        @Override
        public void upgrade(Compiler.Entry entry) {
            try {
                binder = Binder.create(kernelClass, src.lambda, entry, code.params(), src.loader);
            } catch (RuntimeException e) {
                // The first class's binder was built from the same parameters, so this does not happen; if it did,
                // the first class would stay, with the same results: counted and logged, as a failed background job.
                Background.internalError("binding the methods per resume point of " + kernelClass.getName()
                        + " failed; the kernel keeps its general methods", e);
            }
        }
    }

    /**
     * One kernel class compiled: its classes (one with every CTA-shape variant, one per variant a launch needed, and
     * one per CTA shape that the class of its variant does not serve) and their binders.
     */
    private static final class SimdKernel implements CompiledKernel {
        private final Class<?> kernelClass;
        /** The class of the implementation method, whose cache holds the kernel's compilations. */
        private final Class<?> implOwner;
        private final LambdaSource src;
        private final int warpSize;
        private final Compiler.Menu menu;
        /** The class with every variant, once compiled: it serves every CTA shape. */
        private volatile Bound all;
        /** The classes of one variant, by the menu's name; {@link #NONE} where that variant did not compile. */
        private final ConcurrentHashMap<String, Bound> byVariant = new ConcurrentHashMap<>();
        /** The classes of one CTA shape (see {@link #forShape}); {@link #NONE} where it did not compile. */
        private final ConcurrentHashMap<Dim3, Bound> byShape = new ConcurrentHashMap<>();
        private volatile Profiled profiled;
        private volatile boolean directiveChecked;

        SimdKernel(Class<?> kernelClass, Class<?> implOwner, LambdaSource src, int warpSize, Compiler.Menu menu) {
            this.kernelClass = kernelClass;
            this.implOwner = implOwner;
            this.src = src;
            this.warpSize = warpSize;
            this.menu = menu;
        }

        /** Takes this kernel's class compiled for CTAs of shape {@code block} (null: for every shape). */
        void add(Compiler.Code code, Dim3 block) {
            Bound b = new Bound(code, kernelClass, src);
            if (code.own() == null) {
                all = b;
            } else {
                byVariant.putIfAbsent(menu.choose(block), b);
            }
        }

        /**
         * The class of the variant CTAs of shape {@code block} run, compiling it on first use, even where the class
         * with every variant exists (a report's): launches always run the class of their variant, the code
         * measured and tested. Null if neither compiles.
         *
         * <p>A variant too large for the menu's group compiles in a smaller one, where the variant that serves the
         * compile's shape may not serve every shape of the menu's choice: in groups of 32 threads, 16 x 2 and 8 x 2
         * CTAs both run the general variant; in groups of 16, 16 x 2 runs the row-aligned one, which does not serve
         * 8 x 2. Such a shape compiles a class of its own, which may fit where the class with every variant does not
         * (with 8-lane registers, 8 x 2 in groups of 8, where the general variant may still be too large): one
         * compile per such shape, where a kernel too large for the menu's group is launched in several.
         */
        private Bound forShape(Dim3 block) {
            String variant = menu.choose(block);
            Bound b = byVariant.get(variant);
            if (b == null) {
                b = byVariant.computeIfAbsent(variant, new CompileFor(block, false));
            }
            if (b == NONE) {
                return withAll();
            }
            if (b.code.serves(block)) {
                return b;
            }
            Bound own = byShape.get(block);
            if (own == null) {
                own = byShape.computeIfAbsent(block, new CompileFor(block, true));
            }
            return own == NONE ? null : own;
        }

        /** Compiles the variant for a shape, or with {@code alone} the class of that shape (see {@link #forShape}). */
        private final class CompileFor implements java.util.function.Function<Object, Bound> {
            private final Dim3 block;
            private final boolean alone;

            CompileFor(Dim3 block, boolean alone) {
                this.block = block;
                this.alone = alone;
            }

            @Override
            public Bound apply(Object key) {
                Outcome o = alone ? shapeOutcome(implOwner, src, warpSize, block) : userOutcome(implOwner, src, warpSize, block);
                if (o.code() == null) {
                    return NONE;
                }
                try {
                    return new Bound(o.code(), kernelClass, src);
                } catch (Decline d) {
                    return NONE;
                }
            }
        }

        /** The class with every variant, compiling it on first use; null if it does not compile. */
        private Bound withAll() {
            Bound a = all;
            if (a == null) {
                synchronized (this) {
                    a = all;
                    if (a == null) {
                        Outcome o = userOutcome(implOwner, src, warpSize, null);
                        if (o.code() == null) {
                            return null;
                        }
                        try {
                            a = new Bound(o.code(), kernelClass, src);
                        } catch (Decline d) {
                            return null;
                        }
                        all = a;
                    }
                }
            }
            return a;
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

        /**
         * The listing of the class with every variant (compiled now if launches compiled only theirs). Where that
         * class does not compile (too large, where the variants a launch needed fit), the listing of those.
         */
        @Override
        public CompileReport report() {
            Bound a = withAll();
            if (a != null) {
                // The listing is written on the first call (a launch never needs it), then kept by the code.
                return new CompileReport("simd", true, List.of(), a.code.listing().get());
            }
            List<String> reasons = outcome(implOwner, src, warpSize, false, null).reasons();
            StringBuilder listing = new StringBuilder();
            for (Bound b : byVariant.values()) {
                if (b != NONE) {
                    listing.append(b.code.listing().get()).append('\n');
                }
            }
            for (Bound b : byShape.values()) {
                if (b != NONE) {
                    listing.append(b.code.listing().get()).append('\n');
                }
            }
            return new CompileReport("simd", true, reasons, listing + "CTA shapes that run no variant above may not compile: "
                    + String.join("; ", reasons));
        }

        /** The listing of the class a launch in CTAs of shape {@code block} runs (compiled now if need be). */
        @Override
        public CompileReport report(Dim3 block) {
            Bound b = forShape(block);
            return b == null ? null : new CompileReport("simd", true, List.of(), b.code.listing().get());
        }

        @Override
        public String executor() {
            return "simd";
        }

        @Override
        public CtaProgram bind(Kernel kernel) {
            Bound a = withAll();
            if (a == null) {
                throw new UnsupportedOperationException("simd backend: compiled this kernel only for some CTA shapes;"
                        + " bind it with the launch's blockDim");
            }
            return bind(kernel, a);
        }

        @Override
        public CtaProgram bind(Kernel kernel, Dim3 block) {
            Bound b = forShape(block);
            return b == null ? null : bind(kernel, b);
        }

        private CtaProgram bind(Kernel kernel, Bound b) {
            if (!directiveChecked) {
                // Before the kernel first runs: C1 must never compile it (C1Exclusion).
                C1Exclusion.ensure();
                directiveChecked = true;
            }
            return b.binder.bind(kernel);
        }
    }

    /** {@link SimdKernel}'s mark of a variant that does not compile. */
    private static final Bound NONE = new Bound();
}
