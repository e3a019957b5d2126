package dev.weft.runtime.internal;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.internal.reference.ReferenceKernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.runtime.spi.KernelBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Chooses, once per kernel class, the executor that runs it: the first backend that compiles it, else the
 * reference executor with a one-line diagnostic naming why.
 */
public final class KernelSelector {

    private static final List<KernelBackend> BACKENDS = loadBackends();
    /** Whether the backends were asked to warm up: once per JVM, by the first device that may compile. */
    private static final AtomicBoolean WARMED = new AtomicBoolean();

    private final ExecutorChoice choice;
    private final DeviceShape shape;
    private final List<KernelBackend> backends;
    private final ConcurrentHashMap<Class<?>, CompiledKernel> cache = new ConcurrentHashMap<>();
    /** The reference executor for kernel classes whose chosen executor declined some launch's CTA shape. */
    private final ConcurrentHashMap<Class<?>, CompiledKernel> fallbacks = new ConcurrentHashMap<>();

    public KernelSelector(ExecutorChoice choice, DeviceShape shape) {
        this(choice, shape, BACKENDS);
        if (choice != ExecutorChoice.REFERENCE && WARMED.compareAndSet(false, true)) {
            for (KernelBackend b : BACKENDS) {
                b.warmUp();
            }
        }
    }

    /** With the given backends instead of those the ServiceLoader finds (tests). */
    KernelSelector(ExecutorChoice choice, DeviceShape shape, List<KernelBackend> backends) {
        this.choice = choice;
        this.shape = shape;
        this.backends = backends;
    }

    /** The executor for {@code kernel}'s class, compiling on first use (for every CTA shape). */
    public CompiledKernel select(Kernel kernel) {
        return select(kernel, null);
    }

    /** The executor for {@code kernel}'s class; a first compile is for CTAs of shape {@code block} (null: every shape). */
    private CompiledKernel select(Kernel kernel, Dim3 block) {
        CompiledKernel k = cache.get(kernel.getClass());
        return k != null ? k : cache.computeIfAbsent(kernel.getClass(), new Choose(kernel, block));
    }

    /**
     * One launch's program for {@code kernel} in CTAs of shape {@code block}: a first compile of the class
     * compiles for that shape (see {@link KernelBackend#compile(Kernel, DeviceShape, Dim3)}); where the executor
     * chosen cannot run that shape, the reference executor runs the launch.
     */
    public CtaProgram bind(Kernel kernel, Dim3 block) {
        CompiledKernel k = select(kernel, block);
        CtaProgram p = k.bind(kernel, block);
        if (p != null) {
            return p;
        }
        return fallback(kernel, k, block).bind(kernel);
    }

    /** The reference executor for launches of {@code kernel} in CTAs of a shape its executor {@code k} cannot run. */
    private CompiledKernel fallback(Kernel kernel, CompiledKernel k, Dim3 block) {
        CompiledKernel reference = fallbacks.get(kernel.getClass());
        if (reference == null) {
            String why = k.executor() + " compiles this kernel for other CTA shapes, not for blockDim " + block;
            System.getLogger("dev.weft").log(System.Logger.Level.INFO, "weft: kernel " + KernelNames.of(kernel)
                    + " runs on the reference executor in CTAs of this shape: " + why);
            reference = new ReferenceKernel(kernel, List.of(why));
            fallbacks.putIfAbsent(kernel.getClass(), reference);
        }
        return reference;
    }

    /**
     * Chooses for a kernel's class (see {@link #select}). Not a lambda (nor, in choose, a pattern switch): each such
     * site spins a class the first time it runs, a cost of a device's first launch.
     */
    private final class Choose implements java.util.function.Function<Class<?>, CompiledKernel> {
        private final Kernel kernel;
        private final Dim3 block;

        Choose(Kernel kernel, Dim3 block) {
            this.kernel = kernel;
            this.block = block;
        }

        @Override
        public CompiledKernel apply(Class<?> c) {
            return choose(kernel, block);
        }
    }

    /** {@code block}: the first launch's CTA shape, or null to compile for every shape (a report). */
    private CompiledKernel choose(Kernel kernel, Dim3 block) {
        if (choice == ExecutorChoice.REFERENCE) {
            return new ReferenceKernel(kernel, List.of());
        }
        List<String> reasons = new ArrayList<>();
        for (KernelBackend backend : backends) {
            Compilation c;
            try {
                c = block == null ? backend.compile(kernel, shape) : backend.compile(kernel, shape, block);
            } catch (RuntimeException | LinkageError e) {
                c = new Compilation.Declined(List.of(backend.name() + " backend failed: " + e));
            }
            if (c instanceof Compilation.Compiled compiled) {
                return compiled.kernel();
            }
            reasons.addAll(((Compilation.Declined) c).reasons());
        }
        if (!backends.isEmpty()) {
            // The logger got here, not at class initialisation: System.getLogger loads some 100 classes.
            System.getLogger("dev.weft").log(System.Logger.Level.INFO, "weft: kernel " + KernelNames.of(kernel)
                    + " runs on the reference executor: " + String.join("; ", reasons));
        }
        return new ReferenceKernel(kernel, reasons);
    }

    /** The report for {@code kernel}: which executor, why, and the listing. */
    public CompileReport report(Kernel kernel) {
        return select(kernel).report();
    }

    /** The report for {@code kernel} launched in CTAs of shape {@code block}, compiled as that launch compiles it. */
    public CompileReport report(Kernel kernel, Dim3 block) {
        CompiledKernel k = select(kernel, block);
        CompileReport r = k.report(block);
        return r != null ? r : fallback(kernel, k, block).report();
    }

    private static List<KernelBackend> loadBackends() {
        List<KernelBackend> list = new ArrayList<>();
        for (KernelBackend b : ServiceLoader.load(KernelBackend.class, KernelSelector.class.getClassLoader())) {
            list.add(b);
        }
        return List.copyOf(list);
    }
}
