package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Kernels outside the compiler's scope: the SIMD backend must decline each with a reason naming the construct,
 * and the AUTO device must still give the reference's results (it runs them on the reference executor).
 * Shared memory and barriers were here until issue 5; those cases ({@code sharedMemoryNoBarrier},
 * {@code barrierReverse}) are now in-scope cases of {@link SharedKernels}, and arrays of byte, short, char and
 * boolean cases of {@link ClassicKernels} ({@code rgbToGrayBytes}, {@code dnaReverseComplement}). What is left:
 * captured values of other types, as an array of arrays.
 */
final class OutOfScopeKernels {

    private static final String GROUP = "out-of-scope";

    private OutOfScopeKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.outOfScope("arrayOfRowsCaptured", GROUP, Shapes.LINE, List.of("captured value"), (in, s) -> {
                    // A matrix as an array of rows: each row is an object of its own, not a flat parameter.
                    int n = in.sizeFor(s.threads());
                    int[][] rows = new int[2][];
                    rows[0] = in.ints(n, -1000, 1000);
                    rows[1] = in.ints(n, -1000, 1000);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[i] = rows[0][i] * 3 + rows[1][i];
                        }
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
