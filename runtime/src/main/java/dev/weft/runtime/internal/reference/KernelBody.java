package dev.weft.runtime.internal.reference;

import dev.weft.ThreadContext;

/** One launch's kernel as the reference executor calls it, once per thread. */
@FunctionalInterface
interface KernelBody {
    void run(ThreadContext t) throws Throwable;
}
