package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Kernels outside the compiler's scope so far: shared memory, barriers and warp operations come with issue 5
 * (atomics have moved to {@link CtaKernels}). Until then the SIMD backend must decline each with a reason naming the construct, and the AUTO
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
                }),

                CorpusCase.outOfScope("warpBallot", GROUP, Shapes.LINE, List.of("ballot", "warp"), (in, s) -> {
                    int threads = s.threads();
                    int[] x = in.ints(threads, -4, 4);
                    int[] out = new int[threads];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        out[i] = Integer.bitCount(t.ballot(x[i] > 0));
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.outOfScope("warpShuffleReduce", GROUP, Shapes.LINE, List.of("shfl", "shuffle", "warp"), (in, s) -> {
                    int threads = s.threads();
                    int[] x = in.ints(threads, -1000, 1000);
                    int[] out = new int[threads];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        int v = x[i];
                        for (int d = t.warpSize() / 2; d > 0; d /= 2) {
                            v += t.shflDown(v, d);
                        }
                        out[i] = v;
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
