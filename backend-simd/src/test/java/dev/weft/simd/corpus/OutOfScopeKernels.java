package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Kernels outside the compiler's scope so far: shared memory and barriers come with issue 5 (atomics and warp
 * operations have moved to {@link CtaKernels}). Until then the SIMD backend must decline each with a reason naming the construct, and the AUTO
 * device must still give the reference's results (it runs them on the reference executor). When that
 * later issue lands, these cases move to the in-scope corpus.
 */
final class OutOfScopeKernels {

    private static final String GROUP = "out-of-scope";

    private OutOfScopeKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.outOfScope("sharedMemoryNoBarrier", GROUP, Shapes.LINE, List.of("shared"), (in, s) -> {
                    // Each thread uses only its own slot of the shared array, so no barrier is needed.
                    int n = in.sizeFor(s.threads());
                    int[] x = in.intsSpecial(n);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int[] scratch = t.sharedInts(t.blockDimX());
                        int i = t.globalIdX();
                        if (i < n) {
                            scratch[t.threadIdxX()] = x[i] * 3;
                            out[i] = scratch[t.threadIdxX()] + 1;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.outOfScope("barrierReverse", GROUP, Shapes.LINE, List.of("syncThreads", "barrier"), (in, s) -> {
                    int threads = s.threads();
                    float[] x = in.floats(threads, -1f, 1f);
                    float[] out = new float[threads];
                    Kernel k = t -> {
                        float[] tile = t.sharedFloats(t.blockDimX());
                        int i = t.globalIdX();
                        tile[t.threadIdxX()] = x[i];
                        t.syncThreads();
                        out[i] = tile[t.blockDimX() - 1 - t.threadIdxX()];
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
