package dev.weft.simd.internal;

import dev.weft.Kernel;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Param;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a launch's {@link CtaProgram} from a kernel object: reads its captured values (and the static fields
 * the kernel reads) and passes them to the generated class's constructor.
 *
 * <p>Implementation notes. The reflective work is done once per lambda class: a method handle of type
 * {@code (Kernel) CtaProgram} that reads the lambda's fields {@code arg$1 ... arg$n} (the JDK's lambda
 * metafactory names them so) and static fields, and calls the constructor; a launch costs one
 * {@code invokeExact}. Where the fields cannot be read (a lambda in a named module that does not open its
 * package to Weft), each launch serializes the kernel to get the captured values, some 30 µs.
 *
 * <p>That direct handle is a chain of one argument filter per parameter, and each link is a new lambda form
 * the JDK spins a class for, specific to the constructor's signature: measured here, some half of a
 * black-scholes compile (8 parameters) after the warm-up. So it is built on a background thread; until it is
 * there, launches read the fields through one handle each into an array and pass it to the generated class's
 * static factory {@code fromArray} (see {@code CodeGen.FROM_ARRAY}): a few hundred nanoseconds a launch more, for
 * the first launches only. That factory replaced a spreader of the constructor, whose set-up (the constructor's
 * handle adapted to {@code CtaProgram}, spread, adapted to {@code Object[]}) spun forms specific to the
 * constructor's signature: measured here (compiling thread's CPU, fresh JVM, 0.7 s after the device was created),
 * 3 to 10 ms per kernel with a signature not seen before (saxpy, black-scholes, n-body), against one handle of a
 * type every kernel shares.
 */
final class Binder {

    /** The {@code (Kernel) CtaProgram} chain, once built; null before, or where the fields cannot be read. */
    private volatile MethodHandle direct;
    /** Per parameter, {@code (Kernel) Object} reading it; null where the fields cannot be read. */
    private final MethodHandle[] getters;
    /** The generated class's {@code (Object[]) CtaProgram} factory. */
    private final MethodHandle fromArray;
    private final List<Param> params;
    private final List<MethodHandle> statics;

    private Binder(MethodHandle[] getters, MethodHandle fromArray, List<Param> params, List<MethodHandle> statics) {
        this.getters = getters;
        this.fromArray = fromArray;
        this.params = params;
        this.statics = statics;
    }

    /**
     * A binder for kernels of {@code kernelClass} whose compiled class is entered through {@code entry} (its
     * constructor and its factory {@code fromArray}), taking {@code params} in order (captured values first, then static fields).
     */
    static Binder create(Class<?> kernelClass, SerializedLambda lambda, Compiler.Entry entry, List<Param> params, ClassLoader loader) {
        MethodHandle ctor = entry.constructor();
        MethodHandle fromArray = entry.fromArray();
        int captured = lambda.getCapturedArgCount();
        List<MethodHandle> staticGetters = new ArrayList<>();
        for (Param p : params) {
            if (p.isStatic()) {
                staticGetters.add(staticGetter(p, loader));
            }
        }
        try {
            MethodHandle[] getters = new MethodHandle[params.size()];
            for (Param p : params) {
                MethodHandle getter;
                if (p.isStatic()) {
                    getter = MethodHandles.dropArguments(staticGetters.get(staticIndex(params, p)), 0, Kernel.class);
                } else {
                    Field f = kernelClass.getDeclaredField("arg$" + (p.index() + 1));
                    if (Modifier.isStatic(f.getModifiers())) {
                        throw new NoSuchFieldException(f.getName());
                    }
                    f.setAccessible(true);
                    getter = MethodHandles.lookup().unreflectGetter(f);
                    getter = getter.asType(MethodType.methodType(f.getType(), Kernel.class));
                }
                getters[p.index()] = MethodHandles.explicitCastArguments(getter,
                        MethodType.methodType(ctor.type().parameterType(p.index()), Kernel.class));
            }
            if (captured != countCaptured(params)) {
                throw new NoSuchFieldException("captured count");
            }
            MethodHandle[] erased = new MethodHandle[getters.length];
            for (int i = 0; i < getters.length; i++) {
                erased[i] = getters[i].asType(MethodType.methodType(Object.class, Kernel.class));
            }
            Binder binder = new Binder(erased, fromArray, params, staticGetters);
            if (getters.length == 0) {
                binder.direct = MethodHandles.dropArguments(generic(ctor), 0, Kernel.class);
            } else {
                Background.start("weft-binder", new ChainJob(binder, ctor, getters));
            }
            return binder;
        } catch (ReflectiveOperationException | RuntimeException e) {
            // Fields not readable here: fall back to serializing each kernel object.
            return new Binder(null, fromArray, params, staticGetters);
        }
    }

    /** Builds the direct handle in the background, after any user compile under way (see {@link Background}). */
    private static final class ChainJob implements Runnable {
        private final Binder binder;
        private final MethodHandle ctor;
        private final MethodHandle[] getters;

        ChainJob(Binder binder, MethodHandle ctor, MethodHandle[] getters) {
            this.binder = binder;
            this.ctor = ctor;
            this.getters = getters;
        }

        @Override
        public void run() {
            Background.yieldToForeground();
            binder.direct = chain(generic(ctor), getters);
        }
    }

    /** The constructor as returning a {@code CtaProgram}. */
    private static MethodHandle generic(MethodHandle ctor) {
        return ctor.asType(ctor.type().changeReturnType(CtaProgram.class));
    }

    /** The direct handle: each parameter read from the kernel object, then the constructor. */
    private static MethodHandle chain(MethodHandle generic, MethodHandle[] getters) {
        MethodHandle mh = MethodHandles.filterArguments(generic, 0, getters);
        return MethodHandles.permuteArguments(mh, MethodType.methodType(CtaProgram.class, Kernel.class), new int[getters.length]);
    }

    private static int countCaptured(List<Param> params) {
        int n = 0;
        for (Param p : params) {
            if (!p.isStatic()) {
                n++;
            }
        }
        return n;
    }

    private static int staticIndex(List<Param> params, Param p) {
        int i = 0;
        for (Param q : params) {
            if (q == p) {
                return i;
            }
            if (q.isStatic()) {
                i++;
            }
        }
        throw new IllegalStateException();
    }

    private static MethodHandle staticGetter(Param p, ClassLoader loader) {
        try {
            Class<?> owner = Class.forName(p.staticOwner(), false, loader);
            Field f = owner.getDeclaredField(p.staticField());
            f.setAccessible(true);
            return MethodHandles.lookup().unreflectGetter(f);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new Decline("static field " + p.staticOwner() + "." + p.staticField()
                    + " read by the kernel is not accessible to Weft (" + e + "): runs on the reference executor");
        }
    }

    /** Whether launches already go through the direct handle (for tests). */
    boolean directReady() {
        return direct != null;
    }

    /** The program for one launch of {@code kernel}. */
    CtaProgram bind(Kernel kernel) {
        try {
            MethodHandle d = direct;
            if (d != null) {
                return (CtaProgram) d.invokeExact(kernel);
            }
            if (getters != null) {
                return bindThroughArray(kernel);
            }
            SerializedLambda l = LambdaSource.serializedLambda(kernel);
            Object[] args = new Object[params.size()];
            int s = 0;
            for (Param p : params) {
                Object v = p.isStatic() ? statics.get(s++).invoke() : l.getCapturedArg(p.index());
                if (v instanceof Boolean b && p.kind() == Kind.INT) {
                    v = b ? 1 : 0;
                } else if (v instanceof Character c) {
                    v = (int) c;
                } else if ((v instanceof Byte || v instanceof Short) && p.kind() == Kind.INT) {
                    v = ((Number) v).intValue();
                }
                args[p.index()] = v;
            }
            return (CtaProgram) fromArray.invokeExact(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("internal error in Weft (please report): binding a compiled kernel: " + t, t);
        }
    }

    /** Until the direct handle is built: the parameters read one handle each, into the factory. */
    CtaProgram bindThroughArray(Kernel kernel) throws Throwable {
        Object[] args = new Object[getters.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = (Object) getters[i].invokeExact(kernel);
        }
        return (CtaProgram) fromArray.invokeExact(args);
    }
}
