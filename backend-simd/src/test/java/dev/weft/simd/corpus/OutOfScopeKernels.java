package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Kernels outside the compiler's scope: the SIMD backend must decline each with a reason naming the construct,
 * and the AUTO device must still give the reference's results (it runs them on the reference executor).
 * Shared memory and barriers were here until issue 5; those cases ({@code sharedMemoryNoBarrier},
 * {@code barrierReverse}) are now in-scope cases of {@link SharedKernels}. What is left: arrays of a type the
 * backend does not vectorise (byte, short, char, boolean).
 */
final class OutOfScopeKernels {

    private static final String GROUP = "out-of-scope";

    private OutOfScopeKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.outOfScope("byteArrayCaptured", GROUP, Shapes.LINE, List.of("captured value"), (in, s) -> {
                    // Kernels over byte data are written over int[] for the compiler (as the histogram benchmark is).
                    int n = in.sizeFor(s.threads());
                    int[] source = in.ints(n, -128, 128);
                    byte[] x = new byte[n];
                    for (int i = 0; i < n; i++) {
                        x[i] = (byte) source[i];
                    }
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[i] = (x[i] & 0xFF) * 3 + 1;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
