package dev.weft.runtime.spi;

import java.util.List;

/** A backend's answer to a kernel: compiled, or declined with reasons. */
public sealed interface Compilation {

    /** The backend compiled the kernel. */
    record Compiled(CompiledKernel kernel) implements Compilation {
    }

    /**
     * The backend cannot compile the kernel.
     *
     * @param reasons one line per construct it cannot handle, naming the construct and its source line
     */
    record Declined(List<String> reasons) implements Compilation {

        /** Copies {@code reasons}. */
        public Declined {
            reasons = List.copyOf(reasons);
        }
    }
}
