package dev.weft.simd.internal.gen;

import java.lang.invoke.MethodHandles;

/** Defines generated kernel classes as hidden classes in this package, beside {@link Lanes} which they call. */
public final class HiddenClasses {

    /** The package prefix generated class names must use. */
    public static final String PACKAGE = "dev/weft/simd/internal/gen/";

    private HiddenClasses() {
    }

    /**
     * Defines a hidden class; it can be unloaded with its kernel's compiled code.
     *
     * @return a lookup on the new class
     */
    public static MethodHandles.Lookup define(byte[] bytes) throws IllegalAccessException {
        return MethodHandles.lookup().defineHiddenClass(bytes, true);
    }
}
