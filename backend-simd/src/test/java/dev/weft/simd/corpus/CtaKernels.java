package dev.weft.simd.corpus;

import dev.weft.Atomics;
import dev.weft.Kernel;
import java.util.List;

/**
 * Issue 5's kernels that the compiler now handles: atomics on global arrays (threads of a warp on one address
 * serialised in lane order). Each is in scope, so the corpus asserts it compiles. Results compared are those
 * that do not depend on the order of threads across CTAs (counts, extrema).
 */
final class CtaKernels {

    private static final String GROUP = "cta";

    private CtaKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("atomicCounter", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, 0, 16);
                    int[] histogram = new int[16];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            Atomics.add(histogram, x[i], 1);
                        }
                    };
                    return Instance.of(k).check("histogram", histogram);
                }),

                CorpusCase.of("atomicHistogramAllLanesOneBin", GROUP, Shapes.VOLUME, (in, s) -> {
                    // Every thread of every warp on one address: no update may be lost.
                    int[] bins = new int[2];
                    long[] extrema = {Long.MAX_VALUE, Long.MIN_VALUE};
                    Kernel k = t -> {
                        int id = t.globalIdX() + 7 * t.globalIdY() + 13 * t.globalIdZ();
                        Atomics.add(bins, 0, 1);
                        if ((id & 1) == 0) {
                            Atomics.add(bins, 1, id);
                        }
                        Atomics.min(extrema, 0, (long) id * 3 - 50);
                        Atomics.max(extrema, 1, (long) id * 3 - 50);
                    };
                    return Instance.of(k).check("bins", bins).check("extrema", extrema);
                }),

                CorpusCase.of("atomicFloatSumOfSmallIntegers", GROUP, Shapes.PLANE, (in, s) -> {
                    // Sums of small integers are exact in float, so any order of the adds gives the same bits.
                    int w = s.extentX();
                    int h = s.extentY();
                    int[] x = in.ints(w * h, -8, 8);
                    float[] sums = new float[4];
                    Kernel k = t -> {
                        int col = t.globalIdX();
                        int row = t.globalIdY();
                        if (col < w && row < h) {
                            int v = x[row * w + col];
                            Atomics.add(sums, v & 3, (float) v);
                        }
                    };
                    return Instance.of(k).check("sums", sums);
                }));
    }
}
