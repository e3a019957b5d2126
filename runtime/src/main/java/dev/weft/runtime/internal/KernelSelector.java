package dev.weft.runtime.internal;

import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.internal.reference.ReferenceKernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
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
    private final ConcurrentHashMap<Class<?>, CompiledKernel> cache = new ConcurrentHashMap<>();

    public KernelSelector(ExecutorChoice choice, DeviceShape shape) {
        this.choice = choice;
        this.shape = shape;
        if (choice != ExecutorChoice.REFERENCE && WARMED.compareAndSet(false, true)) {
            for (KernelBackend b : BACKENDS) {
                b.warmUp();
            }
        }
    }

    /** The executor for {@code kernel}'s class, compiling on first use. */
    public CompiledKernel select(Kernel kernel) {
        CompiledKernel k = cache.get(kernel.getClass());
        return k != null ? k : cache.computeIfAbsent(kernel.getClass(), new Choose(kernel));
    }

    /**
     * Chooses for a kernel's class (see {@link #select}). Not a lambda (nor, in choose, a pattern switch): each such
     * site spins a class the first time it runs, a cost of a device's first launch.
     */
    private final class Choose implements java.util.function.Function<Class<?>, CompiledKernel> {
        private final Kernel kernel;

        Choose(Kernel kernel) {
            this.kernel = kernel;
        }

        @Override
        public CompiledKernel apply(Class<?> c) {
            return choose(kernel);
        }
    }

    private CompiledKernel choose(Kernel kernel) {
        if (choice == ExecutorChoice.REFERENCE) {
            return new ReferenceKernel(kernel, List.of());
        }
        List<String> reasons = new ArrayList<>();
        for (KernelBackend backend : BACKENDS) {
            Compilation c;
            try {
                c = backend.compile(kernel, shape);
            } catch (RuntimeException | LinkageError e) {
                c = new Compilation.Declined(List.of(backend.name() + " backend failed: " + e));
            }
            if (c instanceof Compilation.Compiled compiled) {
                return compiled.kernel();
            }
            reasons.addAll(((Compilation.Declined) c).reasons());
        }
        if (!BACKENDS.isEmpty()) {
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

    private static List<KernelBackend> loadBackends() {
        List<KernelBackend> list = new ArrayList<>();
        for (KernelBackend b : ServiceLoader.load(KernelBackend.class, KernelSelector.class.getClassLoader())) {
            list.add(b);
        }
        return List.copyOf(list);
    }
}
