package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Divergence: branches, loops and exits whose direction differs from lane to lane, where a SIMD
 * compiler must run both paths under masks and reconverge, and must never let an inactive lane load,
 * store or fault.
 */
final class ControlFlowKernels {

    private static final String GROUP = "control";

    private ControlFlowKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("ifElse", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = in.floats(n, -1f, 1f);
                    float[] out = new float[n];
                    int[] side = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            if (x[i] > 0f) {
                                out[i] = x[i] * 2f;
                                side[i] = 1;
                            } else {
                                out[i] = -x[i] + 0.5f;
                                side[i] = -1;
                            }
                        }
                    };
                    return Instance.of(k).check("out", out).check("side", side);
                }),

                CorpusCase.of("nestedIf", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.ints(n, -100, 100);
                    int[] b = in.ints(n, -100, 100);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int v = 0;
                            if (a[i] > 0) {
                                if (b[i] > 0) {
                                    v = 1;
                                } else {
                                    if (b[i] == 0) {
                                        v = 2;
                                    } else {
                                        v = 3;
                                    }
                                }
                                v += 10;
                            } else if ((t.laneId() & 1) == 0) {
                                v = a[i] < -50 ? 4 : 5;
                            }
                            out[i] = v * 100 + i % 7;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("elseIfChain", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] x = in.doublesSpecial(n);
                    int[] cls = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            double v = x[i];
                            int c;
                            if (v != v) {
                                c = 0;                      // NaN
                            } else if (v == Double.POSITIVE_INFINITY) {
                                c = 1;
                            } else if (v == Double.NEGATIVE_INFINITY) {
                                c = 2;
                            } else if (v == 0.0) {
                                c = 1 / v > 0 ? 3 : 4;      // +0.0 and -0.0
                            } else if (Math.abs(v) < Double.MIN_NORMAL) {
                                c = 5;                      // subnormal
                            } else if (v > 0) {
                                c = 6;
                            } else {
                                c = 7;
                            }
                            cls[i] = c;
                        }
                    };
                    return Instance.of(k).check("class", cls);
                }),

                CorpusCase.of("ternaries", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    float[] f = in.floatsSpecial(n);
                    int[] out = new int[n];
                    float[] fout = new float[n];
                    long[] lout = new long[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int v = a[i];
                            out[i] = v > 0 ? (v > 1000 ? 3 : 2) : (v == 0 ? 1 : (v < -1000 ? -2 : -1));
                            fout[i] = f[i] > 0f ? f[i] : f[i] < 0f ? -f[i] : 42f;
                            lout[i] = (v & 1) == 0 ? (long) v * v : -(long) v;
                        }
                    };
                    return Instance.of(k).check("out", out).check("fout", fout).check("lout", lout);
                }),

                CorpusCase.of("shortCircuitAnd", GROUP, Shapes.LINE, (in, s) -> {
                    // i < n must guard the load: lanes past n must not read x[i].
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, -10, 10);
                    int[] out = new int[s.threads()];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n && x[i] > 0 && x[n - 1 - i] != 3) {
                            out[i] = 1;
                        } else {
                            out[i] = i < n ? 2 : 3;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("shortCircuitOr", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = in.floatsSpecial(n);
                    int[] out = new int[s.threads()];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        boolean skip = i >= n || x[i] != x[i] || x[i] < -1f || x[i] > 1f;
                        out[i] = skip ? -1 : (int) (x[i] * 1000f);
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("uniformLoop", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int iterations = in.nextInt(0, 40);
                    int[] seed = in.intsSpecial(n);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int h = seed[i];
                            for (int j = 0; j < iterations; j++) {
                                h ^= h << 13;
                                h ^= h >>> 17;
                                h ^= h << 5;
                            }
                            out[i] = h;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("perThreadTripCount", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] trips = in.ints(n, 0, 40);
                    double[] out = new double[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            double acc = 1.0;
                            for (int j = 0; j < trips[i]; j++) {
                                acc = acc * 1.0001 + j;
                            }
                            out[i] = acc;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("loopBreak", GROUP, Shapes.LINE, (in, s) -> {
                    // Find the first element over a threshold in each thread's row: lanes break at
                    // different iterations, some never.
                    int n = in.sizeFor(s.threads());
                    int m = in.nextInt(1, 30);
                    float[] rows = in.floats(n * m, 0f, 1f);
                    float threshold = in.nextFloat(0.8f, 1f);
                    int[] found = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int at = -1;
                            for (int j = 0; j < m; j++) {
                                if (rows[i * m + j] > threshold) {
                                    at = j;
                                    break;
                                }
                            }
                            found[i] = at;
                        }
                    };
                    return Instance.of(k).check("found", found);
                }),

                CorpusCase.of("loopContinue", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int m = in.nextInt(1, 30);
                    int[] data = in.ints(n * m, -50, 50);
                    long[] out = new long[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            long acc = 0;
                            for (int j = 0; j < m; j++) {
                                int v = data[i * m + j];
                                if ((v & 1) != 0) {
                                    continue;
                                }
                                if (v < -40) {
                                    continue;
                                }
                                acc = acc * 31 + v;
                            }
                            out[i] = acc;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("earlyReturn", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, -20, 20);
                    int[] out = in.ints(s.threads(), 0, 1);
                    int[] marker = new int[s.threads()];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i >= n) {
                            marker[i] = 7;
                            return;
                        }
                        out[i] = 1;
                        if (x[i] < 0) {
                            return;
                        }
                        out[i] = 2;
                        for (int j = 0; j < 10; j++) {
                            if (j == x[i]) {
                                marker[i] = j;
                                return;         // return from inside a loop
                            }
                        }
                        out[i] = 3;
                    };
                    return Instance.of(k).check("out", out).check("marker", marker);
                }),

                CorpusCase.of("nestedDivergentLoops", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] outer = in.ints(n, 0, 8);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int acc = 0;
                            for (int a = 0; a < outer[i]; a++) {
                                for (int b = 0; b < a + (i & 3); b++) {
                                    if (((a + b) & 3) == 3) {
                                        break;
                                    }
                                    acc += a * 10 + b;
                                }
                            }
                            out[i] = acc;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("doWhileAndWhile", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, 0, 100_000);
                    int[] digits = new int[n];
                    int[] halvings = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int v = x[i];
                            int d = 0;
                            do {
                                v /= 10;
                                d++;
                            } while (v != 0);
                            digits[i] = d;
                            int w = x[i];
                            int h = 0;
                            while (w > 1 && h < 12) {
                                w >>= 1;
                                h++;
                            }
                            halvings[i] = h;
                        }
                    };
                    return Instance.of(k).check("digits", digits).check("halvings", halvings);
                }),

                CorpusCase.of("switchOnInt", GROUP, Shapes.LINE, (in, s) -> {
                    // tableswitch and lookupswitch bytecodes.
                    int n = in.sizeFor(s.threads());
                    int[] x = in.ints(n, -3, 12);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int v;
                            switch (x[i]) {
                                case 0 -> v = 10;
                                case 1, 2 -> v = 20;
                                case 3 -> v = x[i] * 7;
                                case 5 -> v = -1;
                                default -> v = 99;
                            }
                            int w;
                            switch (x[i] * 1000) {
                                case -3000 -> w = 1;
                                case 4000 -> w = 2;
                                case 11000 -> w = 3;
                                default -> w = 0;
                            }
                            out[i] = v * 10 + w;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("inactiveLanesNeverFault", GROUP, Shapes.LINE, (in, s) -> {
                    // Every access is in bounds for the lanes that make it and out of bounds for the others.
                    int n = in.sizeFor(s.threads());
                    int[] small = in.ints(n, -5, 5);
                    int[] tail = in.ints(s.threads() - n + 1, -5, 5);
                    int[] out = new int[s.threads()];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        int v;
                        if (i < n) {
                            v = small[i];
                        } else {
                            v = tail[i - n] * 100;       // index negative for lanes below n
                        }
                        int w = i >= n ? 0 : small[n - 1 - i];
                        while (i < n && v > 0) {
                            v -= (i & 1) + 1;        // a loop only lanes below n may enter
                        }
                        out[i] = v + w;
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
