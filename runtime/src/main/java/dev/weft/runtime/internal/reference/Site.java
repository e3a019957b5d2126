package dev.weft.runtime.internal.reference;

import java.util.Set;

/**
 * Where a kernel thread called a barrier or warp operation. Two threads meet at a barrier only if they
 * called it at the same site: "every thread reached a barrier" is not "every thread reached this barrier".
 *
 * <p>Most sites are known before the kernel runs: {@link SiteTagging} gives each barrier and warp-operation
 * call in the kernel's own method a number, so identifying one costs nothing at run time. Calls from other
 * methods (a helper that takes the {@code ThreadContext}) are found with a {@link StackWalker}, about 1 µs
 * and 900 bytes of garbage a call measured here: that was the whole cost of a barrier before tagging.
 *
 * @param key identifies the call instruction: a tag number, or the walked frame's class, method and bytecode index
 * @param where the call's source position, for messages
 */
record Site(Object key, String where) {

    private static final StackWalker WALKER = StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE));

    private record Frame(Class<?> type, String method, int bytecodeIndex) {
    }

    /** The site of the first frame outside Weft on the calling thread's stack. */
    static Site ofCaller() {
        return WALKER.walk(frames -> frames
                .filter(f -> !f.getDeclaringClass().getName().startsWith("dev.weft.runtime.internal.reference.")
                        && f.getDeclaringClass() != dev.weft.ThreadContext.class)
                .findFirst()
                .map(f -> new Site(new Frame(f.getDeclaringClass(), f.getMethodName(), f.getByteCodeIndex()),
                        describe(f.getDeclaringClass(), f.getMethodName(), f.getFileName(), f.getLineNumber())))
                .orElse(new Site("?", "?")));
    }

    static String describe(Class<?> type, String method, String file, int line) {
        return type.getSimpleName() + "." + method + "(" + (file == null ? "?" : file) + ":" + line + ")";
    }

    /** Same call instruction. */
    boolean sameAs(Site o) {
        return key.equals(o.key);
    }

    @Override
    public String toString() {
        return where;
    }
}
