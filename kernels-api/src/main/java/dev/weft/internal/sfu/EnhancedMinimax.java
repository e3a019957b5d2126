package dev.weft.internal.sfu;

/**
 * Generates the SFU's coefficient tables by enhanced minimax (Piñeiro, Oberman, Muller and Bruguera,
 * IEEE TC 2005), tuned for the largest error of the rounded coefficients.
 *
 * <p>For each segment [a, a + h) of a {@link TableSpec}:
 * <ol>
 *   <li>Fit the minimax quadratic to the function over the segment's inputs ({@link Remez}, on 33
 *       points from the segment's first input to its last).</li>
 *   <li>Round C1 to its width; fold C1's rounding error into C2 by refitting C0 + C2·x² (minimax) to
 *       what C1 leaves; round C2.</li>
 *   <li>Choose C0 to centre the remaining error, including the mean loss of the datapath's two
 *       truncating products, and round it.</li>
 * </ol>
 * Plain enhanced minimax rounds C1 and C2 to nearest. We also try one neighbour on each side of each
 * (9 pairs, each with C2 refitted to its C1) and keep the pair whose rounded table errs least at its
 * worst point: the nearest pair is often not the best, and this is what gains the tenths of a bit by
 * which 2^x and log2 beat the paper's tables with the same widths (a reach of two changes no table).
 *
 * <p>A second pass spends the slack. A function's accuracy is set by its worst segment, so every other
 * segment may err up to that bound; within it, each takes the pair and C0 with the smallest mean
 * absolute error (C0 centred on the mean error, clamped to the bound). The worst case stays where it
 * was, and the share of exactly rounded results rises: 1/x from 87.3% to 88.7%, 1/sqrt(x) from 77.0% to
 * 81.6%, 2^x on the grid from 85.1% to 86.5% and over the floats of [1/16, 1) from 72.4% to 73.4% (the
 * paper's 74% needs this pass to be met within its tolerance).
 *
 * <p>The second pass also takes constraints on C0, which is the whole sum at a segment's first input:
 * <ul>
 *   <li>monotonic functions: the first input of a segment must not step against the function from the
 *       last input of the previous segment, evaluated on the real {@link Datapath} (the first pass
 *       knows nothing of its neighbours, and without this 1/sqrt(x) steps backwards at 3 of its
 *       boundaries, where the function falls by a quarter of an ulp per input);</li>
 *   <li>{@linkplain TableSpec#pinned() pinned} tables: the first input gives the exact output
 *       (rcp(1) = 1, 2^0 = 1, log2(1) = 0, sin(0) = 0).</li>
 * </ul>
 *
 * <h2>Implementation notes</h2>
 * Deterministic: {@link TableSpec#exact} uses StrictMath and everything else is plain double arithmetic
 * in a fixed order, so the tables are the same bits on every JVM. Generation runs at class
 * initialisation (see {@link SfuTables}): 448 segments × 33 function values, six small Remez fits and
 * 9 candidate pairs, about 30 ms of CPU in a cold JVM. The alternative, a build step that writes the
 * tables into a resource, would make the unit depend on the build having run; a table made by the code
 * beside it cannot drift from its generator, and is as deterministic.
 */
public final class EnhancedMinimax {

    /** Sample intervals per segment: the error is evaluated at INTERVALS + 1 points. */
    static final int INTERVALS = 32;

    /** How far from round-to-nearest the C1 and C2 candidates reach, in units of their last bit. */
    static final int REACH = 1;

    private static final double[][] QUADRATIC = basis(new int[] {0, 1, 2});
    private static final double[][] EVEN = basis(new int[] {0, 2});

    private EnhancedMinimax() {
    }

    /**
     * Generates the table for one function, or for a function whose table has several parts (the two
     * halves of the reciprocal square root), concatenated in order.
     *
     * @param parts specs with the same widths; consecutive in the function's argument
     */
    public static Datapath generate(TableSpec... parts) {
        TableSpec spec = parts[0];
        for (TableSpec p : parts) {
            if (p.segmentBits() != spec.segmentBits() || p.c0Bits() != spec.c0Bits()
                    || p.c1Bits() != spec.c1Bits() || p.c2Bits() != spec.c2Bits()
                    || p.sumBits() != spec.sumBits() || p.squareShift() != spec.squareShift()
                    || p.direction() != spec.direction()) {
                throw new IllegalArgumentException("table parts must share their widths: " + spec + ", " + p);
            }
        }
        int perPart = spec.segments();
        int n = perPart * parts.length;
        Segment[] segments = new Segment[n];
        double bound = 0;
        for (int k = 0; k < n; k++) {
            TableSpec p = parts[k / perPart];
            segments[k] = new Segment(p, k % perPart);
            Choice c = segments[k].choose(Double.NaN, Long.MIN_VALUE, Long.MAX_VALUE);
            bound = Math.max(bound, c.maxError + p.outputHalfUlp(segments[k].peak));
        }
        int[] c0 = new int[n];
        int[] c1 = new int[n];
        int[] c2 = new int[n];
        int c0Shift = spec.sumBits() - spec.c0Bits();
        int lastLow = (1 << spec.lowBits()) - 1;
        for (int k = 0; k < n; k++) {
            Segment s = segments[k];
            // C0 stays in [0, 2^integerBits] (so 1/x's first segment may hold 1.0 exactly: its
            // minimax C0 lies just above 1, and capping it below costs 0.07 ulp); a pinned first value
            // narrows it further.
            long min = Math.max(0, s.anchorMin);
            long max = Math.min(1L << (spec.c0Bits() + spec.c0IntegerBits()), s.anchorMax);
            if (k > 0 && spec.direction() != 0) {
                // The first input of this segment must not step against the function from the last
                // input of the previous one: a bound on C0, as the sum at x_l = 0 is C0 alone.
                long previousEnd = Datapath.sum(spec, c0[k - 1], c1[k - 1], c2[k - 1], lastLow);
                long monotone = spec.direction() > 0
                        ? Math.ceilDiv(previousEnd, 1L << c0Shift)
                        : Math.floorDiv(previousEnd, 1L << c0Shift);
                if (spec.direction() > 0) {
                    min = Math.max(min, monotone);
                    max = Math.max(max, min);
                } else {
                    max = Math.min(max, monotone);
                    min = Math.min(min, max);
                }
            }
            Choice c = s.choose(bound - s.spec.outputHalfUlp(s.peak), min, max);
            c0[k] = c.c0;
            c1[k] = c.c1;
            c2[k] = c.c2;
        }
        return new Datapath(spec, c0, c1, c2);
    }

    /** One segment's rounded coefficients, their largest error and their cost. */
    record Choice(int c0, int c1, int c2, double maxError, double cost) {
    }

    /**
     * One segment: the function at its sample points, and for each candidate (C1, C2) pair the extremes
     * and mean of the error that C0 must centre.
     */
    static final class Segment {
        final TableSpec spec;
        final double peak;
        final long anchorMin;
        final long anchorMax;
        private final double[] x;
        private final double[] g;
        private final int candidates;
        private final int[] c1;
        private final int[] c2;
        private final double[] high;
        private final double[] low;
        private final double[] mean;

        Segment(TableSpec spec, int segment) {
            this.spec = spec;
            double h = Math.scalb(1.0, -spec.segmentBits());
            double a = segment * h;
            double span = h - Math.scalb(1.0, -TableSpec.ARGUMENT_BITS);
            x = new double[INTERVALS + 1];
            g = new double[INTERVALS + 1];
            for (int i = 0; i <= INTERVALS; i++) {
                x[i] = span * i / INTERVALS;
                g[i] = spec.exact(a + x[i]);
            }
            peak = Math.max(Math.abs(g[0]), Math.abs(g[INTERVALS]));
            long[] anchor = segment == 0 && spec.pinned() ? anchor(spec, g[0]) : new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
            anchorMin = anchor[0];
            anchorMax = anchor[1];

            int side = 2 * REACH + 1;
            candidates = side * side;
            c1 = new int[candidates];
            c2 = new int[candidates];
            high = new double[candidates];
            low = new double[candidates];
            mean = new double[candidates];
            double[] quadratic = Remez.fit(QUADRATIC, g);
            long c1Nearest = Math.round(Math.scalb(quadratic[1] / span, spec.c1Bits()));
            double[] r = new double[INTERVALS + 1];
            double[] e = new double[INTERVALS + 1];
            int k = 0;
            for (long c1r = c1Nearest - REACH; c1r <= c1Nearest + REACH; c1r++) {
                double c1v = Math.scalb((double) c1r, -spec.c1Bits());
                for (int i = 0; i <= INTERVALS; i++) {
                    r[i] = g[i] - c1v * x[i];
                }
                double[] even = Remez.fit(EVEN, r);
                long c2Nearest = Math.round(Math.scalb(even[1] / (span * span), spec.c2Bits()));
                for (long c2r = c2Nearest - REACH; c2r <= c2Nearest + REACH; c2r++, k++) {
                    double c2v = Math.scalb((double) c2r, -spec.c2Bits());
                    for (int i = 0; i <= INTERVALS; i++) {
                        e[i] = r[i] - c2v * x[i] * x[i];
                    }
                    c1[k] = (int) c1r;
                    c2[k] = (int) c2r;
                    high[k] = peak(e, 1);
                    low[k] = -peak(e, -1);
                    mean[k] = mean(e);
                }
            }
        }

        /**
         * The best rounded coefficients with C0 in [c0Min, c0Max]: with {@code limit} NaN, those with the
         * smallest largest error; otherwise those with the smallest mean absolute error among those whose
         * largest error is within {@code limit}, or if none is, the smallest largest error.
         */
        Choice choose(double limit, long c0Min, long c0Max) {
            double truncationBias = Math.scalb(1.0, -spec.sumBits());
            Choice best = null;
            boolean bestFits = false;
            double[] e = new double[INTERVALS + 1];
            for (int k = 0; k < candidates; k++) {
                double centre = (high[k] + low[k]) / 2;
                if (!Double.isNaN(limit) && high[k] - limit <= low[k] + limit) {
                    centre = Math.min(Math.max(mean[k], high[k] - limit), low[k] + limit);
                }
                double scaled = Math.scalb(centre + truncationBias, spec.c0Bits());
                long lo = Math.min(Math.max((long) Math.floor(scaled), c0Min), c0Max);
                long hi = Math.min(Math.max((long) Math.ceil(scaled), c0Min), c0Max);
                for (long c0 = lo; c0 <= hi; c0++) {
                    double c0v = Math.scalb((double) c0, -spec.c0Bits()) - truncationBias;
                    double maxError = Math.max(high[k] - c0v, c0v - low[k]);
                    boolean fits = !Double.isNaN(limit) && maxError <= limit;
                    double cost = maxError;
                    if (fits) {
                        double c1v = Math.scalb((double) c1[k], -spec.c1Bits());
                        double c2v = Math.scalb((double) c2[k], -spec.c2Bits());
                        for (int i = 0; i <= INTERVALS; i++) {
                            e[i] = g[i] - c1v * x[i] - c2v * x[i] * x[i];
                        }
                        cost = meanAbs(e, c0v);
                    }
                    if (best == null || (fits && !bestFits) || (fits == bestFits && cost < best.cost)) {
                        best = new Choice((int) c0, c1[k], c2[k], maxError, cost);
                        bestFits = fits;
                    }
                }
            }
            return best;
        }
    }

    /**
     * The C0 values (in units of its last bit) for which a segment's first input, where the sum is C0
     * alone, gives the exact value's output: so that rcp(1) = 1, 2^0 = 1, log2(1) = 0, sin(0) = 0.
     * If none is within reach, no constraint.
     */
    private static long[] anchor(TableSpec spec, double exact) {
        int c0Shift = spec.sumBits() - spec.c0Bits();
        double target = spec.output((int) Math.round(Math.scalb(exact, spec.sumBits())));
        long nearest = Math.round(Math.scalb(exact, spec.c0Bits()));
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long c0 = nearest - 16; c0 <= nearest + 16; c0++) {
            if (spec.output((int) (c0 << c0Shift)) == target) {
                min = Math.min(min, c0);
                max = Math.max(max, c0);
            }
        }
        return min <= max ? new long[] {min, max} : new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
    }

    /** The largest of {@code sign·e}, refined between samples by the parabola through the top three. */
    private static double peak(double[] e, double sign) {
        int k = 0;
        for (int i = 1; i < e.length; i++) {
            if (sign * e[i] > sign * e[k]) {
                k = i;
            }
        }
        double top = sign * e[k];
        if (k > 0 && k < e.length - 1) {
            double left = sign * e[k - 1];
            double right = sign * e[k + 1];
            double curvature = 2 * top - left - right;
            if (curvature > 0) {
                top += (right - left) * (right - left) / (8 * curvature);
            }
        }
        return top;
    }

    /** Mean over the segment (trapezoid rule on the samples). */
    private static double mean(double[] e) {
        double s = (e[0] + e[e.length - 1]) / 2;
        for (int i = 1; i < e.length - 1; i++) {
            s += e[i];
        }
        return s / (e.length - 1);
    }

    private static double meanAbs(double[] e, double centre) {
        double s = (Math.abs(e[0] - centre) + Math.abs(e[e.length - 1] - centre)) / 2;
        for (int i = 1; i < e.length - 1; i++) {
            s += Math.abs(e[i] - centre);
        }
        return s / (e.length - 1);
    }

    /** Powers {@code s^p}, p in 0..2, at the sample points {@code s = i / INTERVALS}. */
    private static double[][] basis(int[] powers) {
        double[][] b = new double[powers.length][INTERVALS + 1];
        for (int k = 0; k < powers.length; k++) {
            for (int i = 0; i <= INTERVALS; i++) {
                double s = (double) i / INTERVALS;
                b[k][i] = powers[k] == 0 ? 1 : powers[k] == 1 ? s : s * s;
            }
        }
        return b;
    }
}
