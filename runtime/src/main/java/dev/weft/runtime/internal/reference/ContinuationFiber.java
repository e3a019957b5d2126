package dev.weft.runtime.internal.reference;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A fiber on {@code jdk.internal.vm.Continuation}, reached through method handles so that Weft compiles
 * without the internal package and still runs (on {@link ThreadFiber}) when it is not exported.
 */
final class ContinuationFiber implements Fiber {

    /** Whether {@code jdk.internal.vm} is exported to us, so continuations can be used. */
    static final boolean AVAILABLE;
    private static final Object SCOPE;
    private static final MethodHandle NEW;
    private static final MethodHandle RUN;
    private static final MethodHandle YIELD;
    private static final MethodHandle IS_DONE;

    static {
        Object scope = null;
        MethodHandle make = null;
        MethodHandle run = null;
        MethodHandle yield = null;
        MethodHandle isDone = null;
        boolean ok;
        try {
            Class<?> scopeClass = Class.forName("jdk.internal.vm.ContinuationScope");
            Class<?> contClass = Class.forName("jdk.internal.vm.Continuation");
            MethodHandles.Lookup l = MethodHandles.lookup();
            scope = l.findConstructor(scopeClass, MethodType.methodType(void.class, String.class)).invoke("weft-reference");
            make = l.findConstructor(contClass, MethodType.methodType(void.class, scopeClass, Runnable.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
            run = l.findVirtual(contClass, "run", MethodType.methodType(void.class))
                    .asType(MethodType.methodType(void.class, Object.class));
            yield = l.findStatic(contClass, "yield", MethodType.methodType(boolean.class, scopeClass))
                    .asType(MethodType.methodType(boolean.class, Object.class));
            isDone = l.findVirtual(contClass, "isDone", MethodType.methodType(boolean.class))
                    .asType(MethodType.methodType(boolean.class, Object.class));
            ok = true;
        } catch (Throwable notExported) {
            ok = false;
        }
        AVAILABLE = ok;
        SCOPE = scope;
        NEW = make;
        RUN = run;
        YIELD = yield;
        IS_DONE = isDone;
    }

    private final Object continuation;

    ContinuationFiber(Runnable body) {
        try {
            continuation = (Object) NEW.invokeExact(SCOPE, body);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a continuation", t);
        }
    }

    @Override
    public void resume() {
        try {
            RUN.invokeExact(continuation);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public boolean isDone() {
        try {
            return (boolean) IS_DONE.invokeExact(continuation);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void suspend() {
        boolean yielded;
        try {
            yielded = (boolean) YIELD.invokeExact(SCOPE);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (!yielded) {
            throw new IllegalStateException("this kernel thread cannot be suspended here (pinned: "
                    + "a native frame or critical section is on its stack)");
        }
    }

    @Override
    public void cancel() {
        // An unfinished continuation holds only heap memory; dropping it is enough.
    }
}
