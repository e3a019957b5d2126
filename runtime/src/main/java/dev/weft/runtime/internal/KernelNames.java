package dev.weft.runtime.internal;

import dev.weft.Kernel;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/** A kernel's name for messages: its lambda's implementation method where it can be found, else its class. */
public final class KernelNames {

    private KernelNames() {
    }

    /** E.g. {@code "SaxpyTest.lambda$saxpy$0"}. Reflective: for messages, not for hot paths. */
    public static String of(Kernel kernel) {
        Class<?> c = kernel.getClass();
        if (c.isSynthetic() || c.isHidden()) {
            try {
                Method m = c.getDeclaredMethod("writeReplace");
                m.setAccessible(true);
                if (m.invoke(kernel) instanceof SerializedLambda l) {
                    String owner = l.getImplClass();
                    return owner.substring(owner.lastIndexOf('/') + 1) + "." + l.getImplMethodName();
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // a lambda in a module that does not open its package to us: fall back to the class name
            }
        }
        return c.getName();
    }
}
