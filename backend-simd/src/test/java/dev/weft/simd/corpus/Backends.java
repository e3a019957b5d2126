package dev.weft.simd.corpus;

import dev.weft.runtime.spi.KernelBackend;
import java.util.ServiceLoader;

/** Which compiling backends are on the class path. */
public final class Backends {

    private static final boolean SIMD_PRESENT = find("simd");

    private Backends() {
    }

    /**
     * Whether a {@link KernelBackend} service named {@code "simd"} is on the class path: the runtime finds
     * backends the same way ({@link ServiceLoader}). Until the SIMD compiler is merged this is false and the
     * tests that demand compilation are skipped; from then on they are hard assertions.
     */
    public static boolean simdBackendPresent() {
        return SIMD_PRESENT;
    }

    private static boolean find(String name) {
        for (KernelBackend b : ServiceLoader.load(KernelBackend.class, Backends.class.getClassLoader())) {
            if (name.equals(b.name())) {
                return true;
            }
        }
        return false;
    }
}
