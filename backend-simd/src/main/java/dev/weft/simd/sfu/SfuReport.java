package dev.weft.simd.sfu;

import dev.weft.Sfu;
import dev.weft.internal.sfu.Accuracy;
import dev.weft.internal.sfu.Datapath;
import dev.weft.internal.sfu.FastMathBounds;
import dev.weft.internal.sfu.SfuTables;
import dev.weft.internal.sfu.Table1;
import dev.weft.internal.sfu.TableSpec;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * Prints, in Markdown, the accuracy of Weft's special function unit measured as Table 1 of the Tesla
 * paper measures it, beside the paper's numbers; 2^x over the input sets shared/SFU.md names; sine and
 * cosine over [-100π, 100π]; the fast-math layer beside CUDA's documented bounds; and the tables' sizes
 * beside the 22.75 Kb of the hardware.
 *
 * <p>Run it with {@code mvn -q -pl backend-simd -am compile exec:exec@sfu-report -Dexec.skip
 * -Dexec.executable=java}. Every number comes from a sweep run now; the sweeps over every float of a
 * large set run one binade per task on all cores (about a minute on two).
 */
public final class SfuReport {

    private SfuReport() {
    }

    /** Prints the report to standard output, section by section as each is measured. */
    public static void main(String[] args) {
        long start = System.nanoTime();
        print("# Weft SFU accuracy, measured as Table 1 of the Tesla paper\n");
        print(String.format(Locale.ROOT, "Java %s on %s, %d-lane vectors (%s). Every number below is from a sweep "
                        + "made by this run.%n", System.getProperty("java.version"), System.getProperty("os.arch"),
                VectorSfu.SPECIES.length(), VectorSfu.SPECIES));
        print(table1());
        print(ex2InputSets());
        print(sinCosLargeArguments());
        print(fastMath());
        print(tableSizes());
        print(String.format(Locale.ROOT, "%n_Report made in %.0f s._%n", (System.nanoTime() - start) / 1e9));
    }

    private static void print(String s) {
        System.out.print(s);
        System.out.flush();
    }

    static String table1() {
        StringBuilder out = new StringBuilder();
        out.append("\n## Table 1: ours beside the paper's\n\n");
        out.append("Every float of the interval for 1/x, 1/sqrt(x) and log2 x; for 2^x and sin/cos the 2^23 points "
                + "of the 23-bit fixed-point grid that range reduction produces (sin/cos: both functions, every "
                + "grid point of the quarter turn). Good bits = −log2 of the largest absolute error; ULP error in "
                + "units of 2^-24 (1/x, 1/sqrt) and 2^-23 (2^x). In brackets: the paper's value, then ours minus "
                + "the paper's.\n\n");
        out.append("| function | interval | inputs | good bits | ULP error | % exactly rounded | monotonic |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        for (Table1 row : Table1.values()) {
            Accuracy.Stats s = row.measure();
            out.append(String.format(Locale.ROOT, "| %s | %s | %,d | %.2f (%.2f, %+.2f) | %s | %s | %s (%s) |%n",
                    row.function(), row.interval(), s.inputs(), s.goodBits(), row.paperGoodBits(),
                    s.goodBits() - row.paperGoodBits(),
                    Double.isNaN(row.paperUlp()) ? "n/a"
                            : String.format(Locale.ROOT, "%.2f (%.2f, %+.2f)", s.maxUlp(), row.paperUlp(),
                                    s.maxUlp() - row.paperUlp()),
                    Double.isNaN(row.paperExactPercent()) ? String.format(Locale.ROOT, "%.1f (n/a)", s.exactPercent())
                            : String.format(Locale.ROOT, "%.1f (%.0f, %+.1f)%s", s.exactPercent(),
                                    row.paperExactPercent(), s.exactPercent() - row.paperExactPercent(),
                                    row == Table1.EX2 ? " on the grid; see below" : ""),
                    s.monotonic() ? "yes" : "no", row.paperMonotonic() ? "yes" : "no"));
        }
        return out.toString();
    }

    static String ex2InputSets() {
        StringBuilder out = new StringBuilder();
        out.append("\n## 2^x: exactly rounded results by input set\n\n");
        out.append("The unit rounds x to the 23-bit grid first, so the share of exactly rounded results depends on "
                + "the inputs. shared/SFU.md: a bit-exact model of the hardware gives 61% on the grid, 74% over the "
                + "floats of [1/16, 1) (the set that matches the paper's 74%) and 78% over the floats of (0, 1).\n\n");
        out.append("| inputs | count | % exactly rounded (hardware model) | largest error (ULP 2^-23) |\n");
        out.append("|---|---|---|---|\n");
        Accuracy.Stats grid = Table1.EX2.measure();
        Accuracy.Stats sixteenth = Table1.ex2OverFloats(0x1p-4f);
        Accuracy.Stats all = overBinades(-149, -1, k -> Accuracy.overFloats(Math.scalb(1f, k), Math.scalb(1f, k + 1),
                Sfu::ex2, x -> Math.pow(2.0, x), 0x1p-23, 0));
        out.append(row2("the 2^23 grid points of [0, 1)", grid, "61"));
        out.append(row2("every float of [1/16, 1)", sixteenth, "74 (paper)"));
        out.append(row2("every float of (0, 1)", all, "78"));
        return out.toString();
    }

    private static String row2(String set, Accuracy.Stats s, String hardware) {
        return String.format(Locale.ROOT, "| %s | %,d | %.1f (%s) | %.3f |%n", set, s.inputs(), s.exactPercent(), hardware,
                s.maxUlp());
    }

    static String sinCosLargeArguments() {
        float hi = (float) (100 * Math.PI);
        int top = Math.getExponent(hi);
        Accuracy.Stats sin = overBinades(-24, top, k -> Accuracy.overFloats(Math.scalb(1f, k),
                Math.min(Math.scalb(1f, k + 1), Math.nextUp(hi)), Sfu::sin, Math::sin, Double.NaN, 0));
        Accuracy.Stats cos = overBinades(-24, top, k -> Accuracy.overFloats(Math.scalb(1f, k),
                Math.min(Math.scalb(1f, k + 1), Math.nextUp(hi)), Sfu::cos, Math::cos, Double.NaN, 0));
        double worst = Math.max(sin.maxError(), cos.maxError());
        return String.format(Locale.ROOT, "%n## sin and cos for large arguments%n%n"
                        + "An argument is reduced to quarter turns, x·2/π, as a 32-bit fixed-point number with 23 "
                        + "fractional bits (the table's grid): k = rint(x·2/π), r = x − k·P1 − k·P2 with P1 + P2 = π/2 "
                        + "to 48 bits and FMAs (the first step exact, the second rounding once), then r·2^23·2/π "
                        + "rounded to the nearest grid point with the product's rounding error recovered by an FMA. "
                        + "The grid costs at most half a step (2^-24 quarter turns, 9.4e-8 in x) and r's rounding at "
                        + "most 0.16 of one, for any |x| up to about 4·10^7; the absolute error does not grow with "
                        + "|x| until then.%n%n"
                        + "**Largest absolute error over [-100π, 100π]: 2^%.2f = %.3g** (sin 2^%.2f at %s, cos 2^%.2f "
                        + "at %s; every float of [2^-24, 100π], %,d each; sin is odd and cos even bit for bit, so the "
                        + "negative half is the same; below 2^-24 the reduced argument is 0 and sin returns ±0, cos "
                        + "1, errors under 2^-24).%n",
                log2(worst), worst, log2(sin.maxError()), sin.worstInput(), log2(cos.maxError()), cos.worstInput(),
                sin.inputs());
    }

    static String fastMath() {
        StringBuilder out = new StringBuilder();
        out.append("\n## Fast-math layer beside CUDA's documented bounds\n\n");
        out.append("`dev.weft.FastMath` builds CUDA's intrinsics on the SFU as nvcc does: `__expf(x)` = ex2(x·log2 e), "
                + "`__logf(x)` = lg2(x)·ln 2, `__fdividef(x, y)` = x·rcp(y), sqrt = rcp(rsqrt(x)). Ulps as CUDA "
                + "counts them: floats between the result and the correctly rounded value.\n\n");
        out.append("| intrinsic | CUDA's bound | ours | inputs | within |\n");
        out.append("|---|---|---|---|---|\n");
        for (FastMathBounds b : FastMathBounds.values()) {
            FastMathBounds.Result r = b.measure();
            String ours = b.inUlps()
                    ? String.format(Locale.ROOT, "%.0f ulp", r.maxError())
                    : String.format(Locale.ROOT, "2^%.2f", log2(r.maxError()));
            if (b == FastMathBounds.EXPF) {
                ours += String.format(Locale.ROOT, "; at most %.2f of the bound", r.boundRatio());
            }
            out.append(String.format(Locale.ROOT, "| `%s` | %s | %s | %s | %s |%n", b.intrinsic(), b.cudaBound(), ours,
                    b.inputs(), Double.isNaN(r.boundRatio()) ? "n/a" : r.withinBound() ? "yes" : "**no**"));
        }
        return out.toString();
    }

    static String tableSizes() {
        StringBuilder out = new StringBuilder();
        out.append("\n## Tables\n\n");
        out.append("Segments selected by the leading m bits of the 23-bit argument; coefficient widths in fractional "
                + "bits (shared/SFU.md's); stored bits per column are what the generated entries need relative to "
                + "the column's smallest (an offset and sign the hardware hard-wires). Generated at class "
                + "initialisation by enhanced minimax (`dev.weft.internal.sfu.EnhancedMinimax`).\n\n");
        out.append("| table | segments | C0 / C1 / C2 fractional bits | stored bits C0 + C1 + C2 | bits |\n");
        out.append("|---|---|---|---|---|\n");
        int total = 0;
        int segments = 0;
        String[] names = {"1/x", "1/sqrt(x), [1, 2) and [2, 4)", "2^x", "log2 x", "sin/cos"};
        Datapath[] tables = SfuTables.all();
        for (int t = 0; t < tables.length; t++) {
            Datapath d = tables[t];
            TableSpec s = d.spec();
            int bits = d.segments() * d.storedBitsPerSegment();
            total += bits;
            segments += d.segments();
            out.append(String.format(Locale.ROOT, "| %s | %d (m = %d) | %d / %d / %d | %d + %d + %d = %d | %,d |%n",
                    names[t], d.segments(), s.segmentBits(), s.c0Bits(), s.c1Bits(), s.c2Bits(), d.storedBits(0),
                    d.storedBits(1), d.storedBits(2), d.storedBitsPerSegment(), bits));
        }
        out.append(String.format(Locale.ROOT, "| **all** | **%d** | | | **%,d bits = %.2f Kb** (hardware: 448 × 52 = "
                + "23,296 bits = 22.75 Kb) |%n", segments, total, total / 1024.0));
        return out.toString();
    }

    /** The merged sweeps of binades [2^k, 2^(k+1)) for k in [from, to], one task per binade. */
    private static Accuracy.Stats overBinades(int from, int to, java.util.function.IntFunction<Accuracy.Stats> sweep) {
        return IntStream.rangeClosed(from, to).parallel().mapToObj(sweep).reduce(Accuracy.Stats::merge).orElseThrow();
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }
}
