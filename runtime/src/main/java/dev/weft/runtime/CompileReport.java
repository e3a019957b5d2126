package dev.weft.runtime;

import java.util.List;

/**
 * What became of a kernel: which executor runs it, why a backend declined it, and the code it runs.
 *
 * @param executor the executor's name: {@code "reference"} or a backend's, such as {@code "simd"}
 * @param compiled whether a backend compiled the kernel
 * @param reasons why backends declined it, one line each naming the construct and its source line; empty
 *        when compiled or when the reference executor was chosen by configuration, except for a kernel compiled
 *        for some CTA shapes only (its code for every shape too large), where they say why other shapes may not
 *        compile
 * @param listing a readable listing of the code one warp runs (the teaching view), or a one-line
 *        description when nothing was generated
 */
public record CompileReport(String executor, boolean compiled, List<String> reasons, String listing) {

    /** Copies {@code reasons}. */
    public CompileReport {
        reasons = List.copyOf(reasons);
    }

    /** One line: executor, and why not compiled if it was not. */
    public String summary() {
        return compiled ? "compiled by " + executor
                : "runs on the " + executor + " executor" + (reasons.isEmpty() ? "" : ": " + String.join("; ", reasons));
    }
}
