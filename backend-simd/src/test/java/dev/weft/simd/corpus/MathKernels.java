package dev.weft.simd.corpus;

import dev.weft.Kernel;
import dev.weft.Sfu;
import java.util.List;

/**
 * {@link Math} and {@link Sfu} functions, static helper methods of the kernel's own class, and captured
 * values of every type.
 *
 * <p>Functions with an exact specification (abs, min, max, sqrt, fma, floor, ceil, rint, copySign) are
 * compared bit for bit; the transcendentals under {@link Tolerance#MATH_1ULP}, whose class comment
 * derives the bound from the Vector API's and {@code Math}'s javadoc. {@link Sfu} results are compared
 * bit for bit: the vectorised SFU must reproduce the scalar one exactly.
 */
final class MathKernels {

    private static final String GROUP = "math";

    private MathKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                // The exact Math functions, in three kernels: as one, the generated code is over C2's
                // 8000-byte limit and the compiler (rightly) declines it.
                CorpusCase.of("mathExactIntegral", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    long[] b = in.longsSpecial(n);
                    int[] iout = new int[n * 3];
                    long[] lout = new long[n * 3];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            iout[3 * i] = Math.abs(a[i]);                // abs(MIN_VALUE) == MIN_VALUE
                            iout[3 * i + 1] = Math.min(a[i], a[n - 1 - i]);
                            iout[3 * i + 2] = Math.max(a[i], -a[i]);
                            lout[3 * i] = Math.abs(b[i]);
                            lout[3 * i + 1] = Math.min(b[i], b[n - 1 - i]);
                            lout[3 * i + 2] = Math.max(b[i], 17L);
                        }
                    };
                    return Instance.of(k).check("ints", iout).check("longs", lout);
                }),

                CorpusCase.of("mathExactFloat", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] f = in.floatsSpecial(n);
                    float[] g = in.floatsSpecial(n);
                    float[] fout = new float[n * 9];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            fout[9 * i] = Math.abs(f[i]);
                            fout[9 * i + 1] = Math.min(f[i], g[i]);      // NaN wins; -0.0 < +0.0
                            fout[9 * i + 2] = Math.max(f[i], g[i]);
                            fout[9 * i + 3] = (float) Math.sqrt(f[i]);
                            fout[9 * i + 4] = Math.fma(f[i], g[i], 1.5f); // one rounding
                            fout[9 * i + 5] = (float) Math.floor(f[i]);
                            fout[9 * i + 6] = (float) Math.ceil(g[i]);
                            fout[9 * i + 7] = (float) Math.rint(f[i]);    // ties to even
                            fout[9 * i + 8] = Math.copySign(f[i], g[i]);
                        }
                    };
                    return Instance.of(k).check("floats", fout);
                }),

                CorpusCase.of("mathExactDouble", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] d = in.doublesSpecial(n);
                    double[] e = in.doublesSpecial(n);
                    double[] dout = new double[n * 9];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            dout[9 * i] = Math.abs(d[i]);
                            dout[9 * i + 1] = Math.min(d[i], e[i]);
                            dout[9 * i + 2] = Math.max(d[i], e[i]);
                            dout[9 * i + 3] = Math.sqrt(d[i]);
                            dout[9 * i + 4] = Math.fma(d[i], e[i], -d[i]);
                            dout[9 * i + 5] = Math.floor(d[i]);
                            dout[9 * i + 6] = Math.ceil(e[i]);
                            dout[9 * i + 7] = Math.rint(d[i]);
                            dout[9 * i + 8] = Math.copySign(d[i], e[i]);
                        }
                    };
                    return Instance.of(k).check("doubles", dout);
                }),

                CorpusCase.of("mathTranscendentalFloat", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = mixed(in, in.floats(n, -10f, 10f), in.floatsSpecial(n));
                    float[] pos = mixed(in, in.floats(n, 0f, 50f), in.floatsSpecial(n));
                    float[] y = in.floats(n, -4f, 4f);
                    float[] out = new float[n * 6];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[6 * i] = (float) Math.sin(x[i]);
                            out[6 * i + 1] = (float) Math.cos(x[i]);
                            out[6 * i + 2] = (float) Math.tan(x[i]);
                            out[6 * i + 3] = (float) Math.exp(x[i]);
                            out[6 * i + 4] = (float) Math.log(pos[i]);
                            out[6 * i + 5] = (float) Math.pow(pos[i], y[i]);
                        }
                    };
                    return Instance.of(k).check("out", out, Tolerance.MATH_1ULP);
                }),

                CorpusCase.of("mathTranscendentalDouble", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] x = mixed(in, in.doubles(n, -20, 20), in.doublesSpecial(n));
                    double[] pos = mixed(in, in.doubles(n, 0, 1000), in.doublesSpecial(n));
                    double[] y = in.doubles(n, -8, 8);
                    double[] out = new double[n * 6];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[6 * i] = Math.sin(x[i]);
                            out[6 * i + 1] = Math.cos(x[i]);
                            out[6 * i + 2] = Math.tan(x[i]);
                            out[6 * i + 3] = Math.exp(x[i]);
                            out[6 * i + 4] = Math.log(pos[i]);
                            out[6 * i + 5] = Math.pow(pos[i], y[i]);
                        }
                    };
                    return Instance.of(k).check("out", out, Tolerance.MATH_1ULP);
                }),

                CorpusCase.of("sfuFunctions", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = mixed(in, in.floats(n, 0.01f, 100f), in.floatsSpecial(n));
                    float[] angle = in.floats(n, -7f, 7f);
                    float[] out = new float[n * 6];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[6 * i] = Sfu.rcp(x[i]);
                            out[6 * i + 1] = Sfu.rsqrt(x[i]);
                            out[6 * i + 2] = Sfu.ex2(angle[i]);
                            out[6 * i + 3] = Sfu.lg2(x[i]);
                            out[6 * i + 4] = Sfu.sin(angle[i]);
                            out[6 * i + 5] = Sfu.cos(angle[i]);
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("staticHelpers", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = in.floats(n, -2f, 3f);
                    int[] m = in.ints(n, -10, 95);
                    double[] d = in.doublesSpecial(n);
                    float[] smooth = new float[n];
                    long[] fibs = new long[n];
                    int[] signs = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            smooth[i] = smoothstep(0f, 1f, x[i]);   // a helper calling a helper
                            fibs[i] = fib(clampInt(m[i], 0, 90));   // a helper with a loop
                            signs[i] = sign(d[i]);                  // a helper with several returns
                        }
                    };
                    return Instance.of(k).check("smooth", smooth).check("fib", fibs).check("sign", signs);
                }),

                CorpusCase.of("staticHelperWithArrays", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] a = in.floats(3 * n, -5f, 5f);
                    float[] b = in.floats(3 * n, -5f, 5f);
                    float[] out = new float[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[i] = dot3(a, b, 3 * i);
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("capturedAllTypes", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int ci = in.nextInt();
                    long cl = in.nextLong();
                    float cf = in.nextFloat(-100f, 100f);
                    double cd = in.nextDouble(-1e6, 1e6);
                    int[] ai = in.intsSpecial(n);
                    long[] al = in.longsSpecial(n);
                    float[] af = in.floats(n, -1f, 1f);
                    double[] ad = in.doubles(n, -1, 1);
                    int[] oi = new int[n];
                    long[] ol = new long[n];
                    float[] of = new float[n];
                    double[] od = new double[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            oi[i] = ai[i] * ci + i;
                            ol[i] = al[i] ^ cl;
                            of[i] = af[i] * cf;
                            od[i] = ad[i] + cd * i;
                        }
                    };
                    return Instance.of(k).check("oi", oi).check("ol", ol).check("of", of).check("od", od);
                }),

                CorpusCase.of("capturedBooleanAndNarrowScalars", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    boolean negate = in.chance(0.5);
                    byte by = (byte) in.nextInt();
                    short sh = (short) in.nextInt();
                    char ch = (char) in.nextInt();
                    int[] x = in.intsSpecial(n);
                    int[] out = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int v = x[i] + by * sh - ch;
                            out[i] = negate ? -v : v;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }));
    }

    /** Each element of {@code ordinary}, or with probability 1/8 the same element of {@code special}. */
    private static float[] mixed(Inputs in, float[] ordinary, float[] special) {
        for (int i = 0; i < ordinary.length; i++) {
            if (in.chance(0.125)) {
                ordinary[i] = special[i];
            }
        }
        return ordinary;
    }

    private static double[] mixed(Inputs in, double[] ordinary, double[] special) {
        for (int i = 0; i < ordinary.length; i++) {
            if (in.chance(0.125)) {
                ordinary[i] = special[i];
            }
        }
        return ordinary;
    }

    static float clamp(float v, float lo, float hi) {
        return Math.min(Math.max(v, lo), hi);
    }

    static float smoothstep(float edge0, float edge1, float x) {
        float u = clamp((x - edge0) / (edge1 - edge0), 0f, 1f);
        return u * u * (3f - 2f * u);
    }

    static int clampInt(int v, int lo, int hi) {
        return v < lo ? lo : v > hi ? hi : v;
    }

    static long fib(int n) {
        long a = 0;
        long b = 1;
        for (int i = 0; i < n; i++) {
            long c = a + b;
            a = b;
            b = c;
        }
        return a;
    }

    static int sign(double d) {
        if (d > 0) {
            return 1;
        }
        if (d < 0) {
            return -1;
        }
        return d == d ? 0 : 2;
    }

    static float dot3(float[] a, float[] b, int at) {
        return a[at] * b[at] + a[at + 1] * b[at + 1] + a[at + 2] * b[at + 2];
    }
}
