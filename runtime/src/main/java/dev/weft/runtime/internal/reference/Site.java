package dev.weft.runtime.internal.reference;

import java.util.Set;

/**
 * Where a kernel thread called a barrier or warp operation: the first stack frame outside Weft. Two threads
 * meet at a barrier only if they called it at the same site.
 *
 * <p>Found with a {@link StackWalker}: about 0.5 µs a call measured here, the larger part of a reference
 * barrier's cost, and the price of telling "every thread reached a barrier" from "every thread reached
 * this barrier".
 */
record Site(Class<?> type, String method, int bytecodeIndex, String file, int line) {

    private static final StackWalker WALKER = StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE));

    /** The caller of the Weft method that called this. */
    static Site ofCaller() {
        return WALKER.walk(frames -> frames
                .filter(f -> !f.getDeclaringClass().getName().startsWith("dev.weft.runtime.internal.reference.")
                        && f.getDeclaringClass() != dev.weft.ThreadContext.class)
                .findFirst()
                .map(f -> new Site(f.getDeclaringClass(), f.getMethodName(), f.getByteCodeIndex(),
                        f.getFileName(), f.getLineNumber()))
                .orElse(new Site(Object.class, "?", -1, null, -1)));
    }

    /** Same call site (file and line are only for messages). */
    boolean sameAs(Site o) {
        return type == o.type && bytecodeIndex == o.bytecodeIndex && method.equals(o.method);
    }

    @Override
    public String toString() {
        return type.getSimpleName() + "." + method + "(" + (file == null ? "?" : file) + ":" + line + ")";
    }
}
