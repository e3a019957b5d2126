package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.List;

/**
 * Classic data-parallel kernels: the programs a SIMT compiler exists for. Each is written as a CUDA
 * programmer would write it, one thread per output element, with the usual {@code if (i < n)} guard.
 */
final class ClassicKernels {

    private static final String GROUP = "classic";

    private ClassicKernels() {
    }

    static List<CorpusCase> cases() {
        return List.of(
                CorpusCase.of("saxpy", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] x = in.floats(n, -1000f, 1000f);
                    float[] y = in.floats(n, -1000f, 1000f);
                    float a = in.nextFloat(-4f, 4f);
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            y[i] = a * x[i] + y[i];
                        }
                    };
                    return Instance.of(k).check("y", y);
                }),

                CorpusCase.of("vectorAddInt", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.intsSpecial(n);
                    int[] b = in.intsSpecial(n);
                    int[] c = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            c[i] = a[i] + b[i];
                        }
                    };
                    return Instance.of(k).check("c", c);
                }),

                CorpusCase.of("scaleDouble", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] x = in.doublesSpecial(n);
                    double[] y = new double[n];
                    double alpha = in.nextDouble(-3, 3);
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            y[i] = alpha * x[i];
                        }
                    };
                    return Instance.of(k).check("y", y);
                }),

                CorpusCase.of("dotPerThread", GROUP, Shapes.LINE, (in, s) -> {
                    // Thread i forms the dot product of row i of an n x m matrix with v: a uniform loop.
                    int n = in.sizeFor(s.threads());
                    int m = in.nextInt(1, 24);
                    float[] a = in.floats(n * m, -10f, 10f);
                    float[] v = in.floats(m, -10f, 10f);
                    float[] out = new float[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            float sum = 0f;
                            for (int j = 0; j < m; j++) {
                                sum += a[i * m + j] * v[j];
                            }
                            out[i] = sum;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("polynomialHorner", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    double[] x = in.doubles(n, -2, 2);
                    double[] coeff = in.doubles(9, -5, 5);
                    double[] out = new double[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            double xi = x[i];
                            double p = coeff[8];
                            for (int j = 7; j >= 0; j--) {
                                p = p * xi + coeff[j];
                            }
                            out[i] = p;
                        }
                    };
                    return Instance.of(k).check("out", out);
                }),

                CorpusCase.of("mandelbrot", GROUP, Shapes.PLANE, (in, s) -> {
                    // The divergent loop: neighbouring lanes leave it after very different iteration counts.
                    int w = Math.max(1, s.extentX() - in.nextInt(0, 3));
                    int h = Math.max(1, s.extentY() - in.nextInt(0, 3));
                    float x0 = -2.2f + in.nextFloat(-0.1f, 0.1f);
                    float y0 = -1.2f + in.nextFloat(-0.1f, 0.1f);
                    float dx = 3.2f / w;
                    float dy = 2.4f / h;
                    int maxIter = 256;
                    int[] out = new int[w * h];
                    Kernel k = t -> {
                        int px = t.globalIdX();
                        int py = t.globalIdY();
                        if (px < w && py < h) {
                            float cx = x0 + px * dx;
                            float cy = y0 + py * dy;
                            float zx = 0f;
                            float zy = 0f;
                            int it = 0;
                            while (it < maxIter && zx * zx + zy * zy <= 4f) {
                                float nx = zx * zx - zy * zy + cx;
                                zy = 2f * zx * zy + cy;
                                zx = nx;
                                it++;
                            }
                            out[py * w + px] = it;
                        }
                    };
                    return Instance.of(k).check("iterations", out);
                }),

                CorpusCase.of("julia", GROUP, Shapes.PLANE, (in, s) -> {
                    int w = s.extentX();
                    int h = s.extentY();
                    float cr = -0.8f + in.nextFloat(-0.05f, 0.05f);
                    float ci = 0.156f + in.nextFloat(-0.05f, 0.05f);
                    int[] out = new int[w * h];
                    float[] last = new float[w * h];
                    Kernel k = t -> {
                        int px = t.globalIdX();
                        int py = t.globalIdY();
                        float zr = -1.6f + 3.2f * px / w;
                        float zi = -1.0f + 2.0f * py / h;
                        int it = 0;
                        for (; it < 200; it++) {
                            float r2 = zr * zr;
                            float i2 = zi * zi;
                            if (r2 + i2 > 4f) {
                                break;
                            }
                            zi = 2f * zr * zi + ci;
                            zr = r2 - i2 + cr;
                        }
                        out[py * w + px] = it;
                        last[py * w + px] = zr;
                    };
                    return Instance.of(k).check("iterations", out).check("lastReal", last);
                }),

                CorpusCase.of("blackScholes", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    float[] price = in.floats(n, 5f, 100f);
                    float[] strike = in.floats(n, 1f, 100f);
                    float[] years = in.floats(n, 0.25f, 10f);
                    float r = 0.02f;
                    float v = 0.30f;
                    float[] call = new float[n];
                    float[] put = new float[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            float sp = price[i];
                            float x = strike[i];
                            float tt = years[i];
                            float sqrtT = (float) Math.sqrt(tt);
                            float d1 = ((float) Math.log(sp / x) + (r + 0.5f * v * v) * tt) / (v * sqrtT);
                            float d2 = d1 - v * sqrtT;
                            float cndD1 = cnd(d1);
                            float cndD2 = cnd(d2);
                            float expRT = (float) Math.exp(-r * tt);
                            call[i] = sp * cndD1 - x * expRT * cndD2;
                            put[i] = x * expRT * (1f - cndD2) - sp * (1f - cndD1);
                        }
                    };
                    // Error analysis: log and exp differ by at most 1 float ulp (MATH_1ULP). log(S/X) is at
                    // most |log 100| = 4.6, so 1 ulp is < 5e-7; divided by v*sqrt(T) >= 0.15 it moves d1 and d2
                    // by < 4e-6, which moves CND by < 0.4 * 4e-6 (its slope is at most 1/sqrt(2 pi)); times
                    // S, X <= 100 that is < 2e-4. exp(-rT) moves by 1 ulp (< 1.2e-7) times X <= 100: 1.2e-5.
                    // CND's own exp adds < 100 * 1.2e-7. Later roundings may each flip by an ulp of 100 (7.6e-6).
                    // Sum < 3e-4: allow 1e-3, against prices up to 100.
                    Tolerance tol = Tolerance.absolute(1e-3, "Black-Scholes: Math.log/exp 1 ulp each, propagated");
                    return Instance.of(k).check("call", call, tol).check("put", put, tol);
                }),

                CorpusCase.of("nbodyStep", GROUP, Shapes.LINE_SMALL, (in, s) -> {
                    // One step of the all-pairs n-body method straight from global memory (no tiles in
                    // shared memory). 1/sqrt via Math.sqrt, which is correctly rounded: bit for bit.
                    int n = in.sizeFor(s.threads());
                    float[] px = in.floats(n, -10f, 10f);
                    float[] py = in.floats(n, -10f, 10f);
                    float[] pz = in.floats(n, -10f, 10f);
                    float[] mass = in.floats(n, 0.1f, 2f);
                    float[] vx = in.floats(n, -1f, 1f);
                    float[] vy = in.floats(n, -1f, 1f);
                    float[] vz = in.floats(n, -1f, 1f);
                    float[] nx = new float[n];
                    float[] ny = new float[n];
                    float[] nz = new float[n];
                    float dt = 0.01f;
                    float softening = 1e-3f;
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i >= n) {
                            return;
                        }
                        float xi = px[i];
                        float yi = py[i];
                        float zi = pz[i];
                        float ax = 0f;
                        float ay = 0f;
                        float az = 0f;
                        for (int j = 0; j < n; j++) {
                            float dx = px[j] - xi;
                            float dy = py[j] - yi;
                            float dz = pz[j] - zi;
                            float d2 = dx * dx + dy * dy + dz * dz + softening;
                            float inv = 1f / (float) Math.sqrt(d2);
                            float s3 = mass[j] * inv * inv * inv;
                            ax += dx * s3;
                            ay += dy * s3;
                            az += dz * s3;
                        }
                        vx[i] += ax * dt;
                        vy[i] += ay * dt;
                        vz[i] += az * dt;
                        nx[i] = xi + vx[i] * dt;
                        ny[i] = yi + vy[i] * dt;
                        nz[i] = zi + vz[i] * dt;
                    };
                    return Instance.of(k).check("vx", vx).check("vy", vy).check("vz", vz)
                            .check("x", nx).check("y", ny).check("z", nz);
                }),

                CorpusCase.of("stencil2d", GROUP, Shapes.PLANE, (in, s) -> {
                    // Five-point stencil reading global memory, edges clamped.
                    int w = s.extentX();
                    int h = s.extentY();
                    float[] src = in.floats(w * h, -1f, 1f);
                    float[] dst = new float[w * h];
                    float c0 = in.nextFloat(0f, 1f);
                    float c1 = in.nextFloat(0f, 0.25f);
                    Kernel k = t -> {
                        int x = t.globalIdX();
                        int y = t.globalIdY();
                        int xl = Math.max(x - 1, 0);
                        int xr = Math.min(x + 1, w - 1);
                        int yu = Math.max(y - 1, 0);
                        int yd = Math.min(y + 1, h - 1);
                        dst[y * w + x] = c0 * src[y * w + x]
                                + c1 * (src[y * w + xl] + src[y * w + xr] + src[yu * w + x] + src[yd * w + x]);
                    };
                    return Instance.of(k).check("dst", dst);
                }),

                CorpusCase.of("matmulNaive", GROUP, Shapes.PLANE_SMALL, (in, s) -> {
                    int rows = Math.max(1, s.extentY() - in.nextInt(0, 2));
                    int cols = Math.max(1, s.extentX() - in.nextInt(0, 2));
                    int inner = in.nextInt(1, 33);
                    float[] a = in.floats(rows * inner, -2f, 2f);
                    float[] b = in.floats(inner * cols, -2f, 2f);
                    float[] c = new float[rows * cols];
                    Kernel k = t -> {
                        int col = t.globalIdX();
                        int row = t.globalIdY();
                        if (row < rows && col < cols) {
                            float acc = 0f;
                            for (int q = 0; q < inner; q++) {
                                acc += a[row * inner + q] * b[q * cols + col];
                            }
                            c[row * cols + col] = acc;
                        }
                    };
                    return Instance.of(k).check("c", c);
                }),

                CorpusCase.of("transposeNaive", GROUP, Shapes.PLANE, (in, s) -> {
                    int w = Math.max(1, s.extentX() - in.nextInt(0, 4));
                    int h = Math.max(1, s.extentY() - in.nextInt(0, 2));
                    double[] src = in.doublesSpecial(w * h);
                    double[] dst = new double[w * h];
                    Kernel k = t -> {
                        int x = t.globalIdX();
                        int y = t.globalIdY();
                        if (x < w && y < h) {
                            dst[x * h + y] = src[y * w + x];
                        }
                    };
                    return Instance.of(k).check("dst", dst);
                }),

                CorpusCase.of("boxBlurRgb", GROUP, Shapes.PLANE, (in, s) -> {
                    // 3x3 box blur of packed 0xRRGGBB pixels: shifts, masks, integer division.
                    int w = s.extentX();
                    int h = s.extentY();
                    int[] src = in.ints(w * h, 0, 1 << 24);
                    int[] dst = new int[w * h];
                    Kernel k = t -> {
                        int x = t.globalIdX();
                        int y = t.globalIdY();
                        int r = 0;
                        int g = 0;
                        int b = 0;
                        int count = 0;
                        for (int dy = -1; dy <= 1; dy++) {
                            for (int dx = -1; dx <= 1; dx++) {
                                int sx = x + dx;
                                int sy = y + dy;
                                if (sx >= 0 && sx < w && sy >= 0 && sy < h) {
                                    int p = src[sy * w + sx];
                                    r += (p >> 16) & 0xff;
                                    g += (p >> 8) & 0xff;
                                    b += p & 0xff;
                                    count++;
                                }
                            }
                        }
                        dst[y * w + x] = (r / count) << 16 | (g / count) << 8 | (b / count);
                    };
                    return Instance.of(k).check("dst", dst);
                }),

                CorpusCase.of("rgbToGrayBytes", GROUP, Shapes.PLANE, (in, s) -> {
                    // An image kernel over bytes: interleaved 8-bit RGB (unsigned, read with & 0xFF) to 8-bit luma,
                    // three strided loads and a contiguous store per pixel; a second output darkens the bright pixels.
                    int w = s.extentX();
                    int h = s.extentY();
                    byte[] rgb = new byte[3 * w * h];
                    for (int i = 0; i < rgb.length; i++) {
                        rgb[i] = (byte) in.nextInt(-128, 128);
                    }
                    byte[] gray = new byte[w * h];
                    byte[] dark = new byte[w * h];
                    Kernel k = t -> {
                        int x = t.globalIdX();
                        int y = t.globalIdY();
                        if (x < w && y < h) {
                            int p = y * w + x;
                            int r = rgb[3 * p] & 0xFF;
                            int g = rgb[3 * p + 1] & 0xFF;
                            int b = rgb[3 * p + 2] & 0xFF;
                            int luma = (77 * r + 150 * g + 29 * b) >> 8;
                            gray[p] = (byte) luma;
                            if (luma > 128) {
                                dark[p] = (byte) (luma - 128);
                            }
                        }
                    };
                    return Instance.of(k).check("gray", gray).check("dark", dark);
                }),

                CorpusCase.of("dnaReverseComplement", GROUP, Shapes.LINE, (in, s) -> {
                    // A genome kernel over chars: the reverse complement (a scatter in reverse order, a switch per
                    // base) and a boolean mask of the G and C bases.
                    int n = in.sizeFor(s.threads());
                    char[] seq = new char[n];
                    for (int i = 0; i < n; i++) {
                        seq[i] = "ACGTNacgt".charAt(in.nextInt(0, 9));
                    }
                    char[] rc = new char[n];
                    boolean[] gc = new boolean[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            char c = seq[i];
                            char m = switch (c) {
                                case 'A', 'a' -> 'T';
                                case 'C', 'c' -> 'G';
                                case 'G', 'g' -> 'C';
                                case 'T', 't' -> 'A';
                                default -> 'N';
                            };
                            rc[n - 1 - i] = m;
                            gc[i] = m == 'G' || m == 'C';
                        }
                    };
                    return Instance.of(k).check("rc", rc).check("gc", gc);
                }),

                CorpusCase.of("binningPerThread", GROUP, Shapes.LINE_SMALL, (in, s) -> {
                    // Each thread bins its own chunk of values into its own row of counters: a histogram
                    // without atomics, scattered stores to varying addresses.
                    int threads = s.threads();
                    int chunk = in.nextInt(1, 20);
                    int bins = 8;
                    float[] values = in.floats(threads * chunk, -1f, 1.2f);
                    int[] counts = new int[threads * bins];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        for (int j = 0; j < chunk; j++) {
                            float v = values[i * chunk + j];
                            int bin = (int) ((v + 1f) * 4f);
                            bin = Math.min(Math.max(bin, 0), bins - 1);
                            counts[i * bins + bin] += 1;
                        }
                    };
                    return Instance.of(k).check("counts", counts);
                }),

                CorpusCase.of("segmentPrefixSum", GROUP, Shapes.LINE, (in, s) -> {
                    // Each thread writes the running sums of its own segment of k elements.
                    int n = in.sizeFor(s.threads());
                    int seg = in.nextInt(1, 12);
                    long[] src = in.longs(n * seg, -1_000_000_000_000L, 1_000_000_000_000L);
                    long[] dst = new long[n * seg];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            long acc = 0;
                            for (int j = 0; j < seg; j++) {
                                acc += src[i * seg + j];
                                dst[i * seg + j] = acc;
                            }
                        }
                    };
                    return Instance.of(k).check("dst", dst);
                }),

                CorpusCase.of("collatzSteps", GROUP, Shapes.LINE, (in, s) -> {
                    // Per-thread trip counts on long arithmetic.
                    int n = in.sizeFor(s.threads());
                    long[] start = in.longs(n, 1, 1_000_000_000L);
                    int[] steps = new int[n];
                    long[] peak = new long[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            long v = start[i];
                            long top = v;
                            int c = 0;
                            while (v != 1) {
                                v = (v & 1) == 0 ? v >> 1 : 3 * v + 1;
                                top = Math.max(top, v);
                                c++;
                            }
                            steps[i] = c;
                            peak[i] = top;
                        }
                    };
                    return Instance.of(k).check("steps", steps).check("peak", peak);
                }),

                CorpusCase.of("gcdEuclid", GROUP, Shapes.LINE, (in, s) -> {
                    int n = in.sizeFor(s.threads());
                    int[] a = in.ints(n, -1_000_000, 1_000_000);
                    int[] b = in.ints(n, -1_000_000, 1_000_000);
                    int[] g = new int[n];
                    int[] rounds = new int[n];
                    Kernel k = t -> {
                        int i = t.globalIdX();
                        if (i < n) {
                            int x = Math.abs(a[i]);
                            int y = Math.abs(b[i]);
                            int r = 0;
                            while (y != 0) {
                                int tmp = x % y;
                                x = y;
                                y = tmp;
                                r++;
                            }
                            g[i] = x;
                            rounds[i] = r;
                        }
                    };
                    return Instance.of(k).check("gcd", g).check("rounds", rounds);
                }),

                CorpusCase.of("sumOfSquaresStrided", GROUP, Shapes.LINE, (in, s) -> {
                    // A grid-stride loop: each thread sums every (gridDim.x * blockDim.x)-th element.
                    int n = in.nextInt(1, 3 * s.threads() + 5);
                    double[] x = in.doubles(n, -100, 100);
                    double[] partial = new double[s.threads()];
                    Kernel k = t -> {
                        int stride = t.gridDimX() * t.blockDimX();
                        double acc = 0;
                        for (int i = t.globalIdX(); i < n; i += stride) {
                            acc += x[i] * x[i];
                        }
                        partial[t.globalIdX()] = acc;
                    };
                    return Instance.of(k).check("partial", partial);
                }));
    }

    /** The cumulative normal distribution, polynomial approximation (Abramowitz and Stegun 26.2.17). */
    static float cnd(float d) {
        final float a1 = 0.31938153f;
        final float a2 = -0.356563782f;
        final float a3 = 1.781477937f;
        final float a4 = -1.821255978f;
        final float a5 = 1.330274429f;
        final float rsqrt2pi = 0.39894228040143267793994605993438f;
        float k = 1f / (1f + 0.2316419f * Math.abs(d));
        float c = rsqrt2pi * (float) Math.exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
        return d > 0 ? 1f - c : c;
    }
}
