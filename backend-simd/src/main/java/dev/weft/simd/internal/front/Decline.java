package dev.weft.simd.internal.front;

import java.util.List;

/**
 * Thrown when a kernel cannot be compiled; carries one line per construct, each naming it and its source line.
 */
public final class Decline extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> reasons;

    public Decline(List<String> reasons) {
        super(String.join("; ", reasons), null, false, false);
        this.reasons = List.copyOf(reasons);
    }

    public Decline(String reason) {
        this(List.of(reason));
    }

    public List<String> reasons() {
        return reasons;
    }
}
