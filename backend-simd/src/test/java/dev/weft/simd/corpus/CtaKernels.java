package dev.weft.simd.corpus;

import dev.weft.Atomics;
import dev.weft.Kernel;
import java.util.List;

/**
 * Issue 5's kernels that the compiler now handles: atomics on global arrays (threads of a warp on one address
 * serialised in lane order), warp votes and shuffles. Each is in scope, so the corpus asserts it compiles. Results compared are those
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
                }),

                CorpusCase.of("warpBallot", GROUP, Shapes.LINE, (in, s) -> {
                    int threads = s.threads();
                    int[] x = in.ints(threads, -4, 4);
                    int[] out = new int[threads];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        out[i] = Integer.bitCount(t.ballot(x[i] > 0));
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("warpShuffleReduce", GROUP, Shapes.LINE, (in, s) -> {
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
                }),

                CorpusCase.of("warpInclusiveScanShflUp", GROUP, Shapes.VOLUME, (in, s) -> {
                    // Hillis-Steele scan of each warp with shflUp, guarded: threads past n return first.
                    int threads = s.threads();
                    int n = Math.max(1, threads - in.nextInt(0, 40));
                    int[] x = in.ints(threads, -1000, 1000);
                    int[] out = new int[threads];
                    Kernel k = t -> {
                        int cta = t.blockIdxX() + t.gridDimX() * (t.blockIdxY() + t.gridDimY() * t.blockIdxZ());
                        int i = cta * t.blockDimX() * t.blockDimY() * t.blockDimZ() + t.linearThreadIdx();
                        if (i >= n) {
                            return;
                        }
                        int v = x[i];
                        int lane = t.laneId();
                        for (int d = 1; d < t.warpSize(); d *= 2) {
                            int up = t.shflUp(v, d);
                            if (lane >= d) {
                                v += up;
                            }
                        }
                        out[i] = v;
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("warpVotesAndButterfly", GROUP, Shapes.PLANE, (in, s) -> {
                    // ballot/any/all and an xor butterfly in float, on 2D CTAs (warps spanning rows).
                    int threads = s.threads();
                    float[] x = in.floats(threads, -4f, 4f);
                    float[] sums = new float[threads];
                    int[] votes = new int[threads * 3];
                    Kernel k = t -> {
                        int cta = t.blockIdxX() + t.gridDimX() * t.blockIdxY();
                        int i = cta * t.blockDimX() * t.blockDimY() + t.linearThreadIdx();
                        float v = x[i];
                        votes[3 * i] = t.ballot(v > 0f);
                        votes[3 * i + 1] = t.any(v > 3.5f) ? 1 : 0;
                        votes[3 * i + 2] = t.all(v > -3.9f) ? 1 : 0;
                        for (int m = 1; m < t.warpSize(); m *= 2) {
                            v += t.shflXor(v, m);
                        }
                        sums[i] = v;
                    };
                    return Instance.of(k).check("sums", sums).check("votes", votes);
                }));
    }
}
