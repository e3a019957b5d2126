package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Java's arithmetic at its edges, per type: wrapping overflow, division and remainder rounding toward
 * zero with negative operands, {@code MIN_VALUE / -1}, shift counts taken modulo the width, float-to-int
 * conversions that saturate (NaN to 0), narrowing that truncates, and comparisons with NaN. Inputs come
 * from the "special" generators so every edge is hit in every run.
 */
final class ArithmeticKernels {

    private static final String GROUP = "arithmetic";

    private ArithmeticKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("intArithmetic", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    int[] b = in.intsSpecial(n);
                    int[] out = new int[n * 12];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int x = a[i];
                            int y = b[i];
                            int d = y == 0 ? 1 : y;         // division by zero would throw: see FaultTest
                            int o = i * 12;
                            out[o] = x + y;
                            out[o + 1] = x - y;
                            out[o + 2] = x * y;
                            out[o + 3] = x / d;             // rounds toward zero; MIN_VALUE / -1 == MIN_VALUE
                            out[o + 4] = x % d;             // sign of the dividend
                            out[o + 5] = x << y;            // shift count is y & 31
                            out[o + 6] = x >> y;
                            out[o + 7] = x >>> y;
                            out[o + 8] = x & y | ~x ^ y;
                            out[o + 9] = -x;
                            out[o + 10] = x / -7 + x % -7;
                            out[o + 11] = (x << 33) + (y >>> 32) + (x >> -1);
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("longArithmetic", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    long[] a = in.longsSpecial(n);
                    long[] b = in.longsSpecial(n);
                    int[] sh = in.intsSpecial(n);
                    long[] out = new long[n * 12];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            long x = a[i];
                            long y = b[i];
                            long d = y == 0 ? 3 : y;
                            int o = i * 12;
                            out[o] = x + y;
                            out[o + 1] = x - y;
                            out[o + 2] = x * y;                  // wraps
                            out[o + 3] = x / d;
                            out[o + 4] = x % d;
                            out[o + 5] = x << sh[i];             // count is sh & 63
                            out[o + 6] = x >> sh[i];
                            out[o + 7] = x >>> sh[i];
                            out[o + 8] = x & y ^ ~x | y;
                            out[o + 9] = -x;
                            out[o + 10] = x / -1000000007L + x % -1000000007L;
                            out[o + 11] = (x << 65) + (y >>> 64) + (x >> y);
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("floatArithmetic", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] a = in.floatsSpecial(n);
                    float[] b = in.floatsSpecial(n);
                    float[] out = new float[n * 7];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            float x = a[i];
                            float y = b[i];
                            int o = i * 7;
                            out[o] = x + y;
                            out[o + 1] = x - y;
                            out[o + 2] = x * y;
                            out[o + 3] = x / y;             // division by zero gives infinities and NaN
                            out[o + 4] = x % y;             // fmod: truncating remainder
                            out[o + 5] = -x;
                            out[o + 6] = x * y + x;         // two roundings: must not be fused into an fma
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("doubleArithmetic", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] a = in.doublesSpecial(n);
                    double[] b = in.doublesSpecial(n);
                    double[] out = new double[n * 7];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            double x = a[i];
                            double y = b[i];
                            int o = i * 7;
                            out[o] = x + y;
                            out[o + 1] = x - y;
                            out[o + 2] = x * y;
                            out[o + 3] = x / y;
                            out[o + 4] = x % y;
                            out[o + 5] = -x;
                            out[o + 6] = x * y - y;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("floatToIntConversions", GROUP, Shapes.LINE, (in, s) -> {
                    // JLS 5.1.3: NaN -> 0, values beyond the range saturate, others round toward zero.
                    int n = in.sizeFor(s.threads());
                    float[] f = in.floatsSpecial(n);
                    double[] d = in.doublesSpecial(n);
                    int[] ints = new int[n * 2];
                    long[] longs = new long[n * 2];
                    int[] narrow = new int[n * 3];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            ints[2 * i] = (int) f[i];
                            ints[2 * i + 1] = (int) d[i];
                            longs[2 * i] = (long) f[i];
                            longs[2 * i + 1] = (long) d[i];
                            narrow[3 * i] = (byte) f[i];        // f2i then i2b
                            narrow[3 * i + 1] = (short) d[i];   // d2i then i2s
                            narrow[3 * i + 2] = (char) f[i];    // f2i then i2c
                        }
                    };
                    return Instance.of(k).check("ints", ints).check("longs", longs).check("narrow", narrow);
                }),

                CorpusCase.of("widenNarrowConversions", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    long[] b = in.longsSpecial(n);
                    double[] d = in.doublesSpecial(n);
                    long[] wide = new long[n];
                    int[] narrowed = new int[n * 4];
                    float[] floats = new float[n * 3];
                    double[] doubles = new double[n * 3];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            wide[i] = a[i];                     // sign extension
                            narrowed[4 * i] = (int) b[i];       // keeps the low 32 bits
                            narrowed[4 * i + 1] = (byte) a[i];
                            narrowed[4 * i + 2] = (short) a[i];
                            narrowed[4 * i + 3] = (char) a[i];
                            floats[3 * i] = a[i];               // i2f rounds to nearest
                            floats[3 * i + 1] = b[i];           // l2f
                            floats[3 * i + 2] = (float) d[i];   // d2f: overflow to infinity, underflow to 0
                            doubles[3 * i] = a[i];              // exact
                            doubles[3 * i + 1] = b[i];          // l2d rounds
                            doubles[3 * i + 2] = (float) d[i];  // d2f2d
                        }
                    };
                    return Instance.of(k).check("wide", wide).check("narrowed", narrowed)
                            .check("floats", floats).check("doubles", doubles);
                }),

                CorpusCase.of("nanComparisons", GROUP, Shapes.LINE, (in, s) -> {
                    // Every comparison with NaN is false except !=; the bytecode uses fcmpl or fcmpg
                    // depending on the operator, and a lowering must keep the difference.
                    int n = in.sizeFor(s.threads());
                    float[] a = in.floatsSpecial(n);
                    float[] b = in.floatsSpecial(n);
                    double[] c = in.doublesSpecial(n);
                    double[] d = in.doublesSpecial(n);
                    int[] bits = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int r = 0;
                            if (a[i] < b[i]) r |= 1;
                            if (a[i] <= b[i]) r |= 2;
                            if (a[i] > b[i]) r |= 4;
                            if (a[i] >= b[i]) r |= 8;
                            if (a[i] == b[i]) r |= 16;
                            if (a[i] != b[i]) r |= 32;
                            if (!(a[i] < b[i])) r |= 64;
                            if (!(a[i] >= b[i])) r |= 128;
                            if (c[i] < d[i]) r |= 256;
                            if (c[i] <= d[i]) r |= 512;
                            if (c[i] > d[i]) r |= 1024;
                            if (c[i] >= d[i]) r |= 2048;
                            if (c[i] == d[i]) r |= 4096;
                            if (c[i] != d[i]) r |= 8192;
                            if (!(c[i] > d[i])) r |= 16384;
                            r |= (a[i] < c[i] ? 1 : 0) << 15;   // float widened to double
                            bits[i] = r;
                        }
                    };
                    return Instance.of(k).check("bits", bits);
                }),

                CorpusCase.of("mixedPromotions", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    long[] b = in.longsSpecial(n);
                    float[] f = in.floatsSpecial(n);
                    double[] d = in.doublesSpecial(n);
                    long[] lout = new long[n];
                    double[] dout = new double[n];
                    float[] fout = new float[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            lout[i] = a[i] * b[i] + a[i] * a[i] + (long) a[i] * a[i];   // int*int wraps before widening
                            dout[i] = f[i] + d[i] * a[i];
                            fout[i] = f[i] * a[i] + b[i];
                        }
                    };
                    return Instance.of(k).check("lout", lout).check("dout", dout).check("fout", fout);
                }),

                CorpusCase.of("integerBitMethods", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    long[] b = in.longsSpecial(n);
                    int[] out = new int[n * 6];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            out[6 * i] = Integer.bitCount(a[i]);
                            out[6 * i + 1] = Integer.numberOfLeadingZeros(a[i]);
                            out[6 * i + 2] = Integer.numberOfTrailingZeros(a[i]);
                            out[6 * i + 3] = Long.bitCount(b[i]);
                            out[6 * i + 4] = Integer.rotateLeft(a[i], i);
                            out[6 * i + 5] = Integer.reverse(a[i]);
                        }
                    };
                    return Instance.of(k).check("out", out);
                }));
    }
}
