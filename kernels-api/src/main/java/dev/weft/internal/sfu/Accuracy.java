package dev.weft.internal.sfu;

import java.util.function.DoubleUnaryOperator;

/**
 * Accuracy sweeps as Table 1 of the Tesla paper measures them (shared/SFU.md): over every input of a
 * set, the largest absolute error against the exact function (computed in double, whose own error of
 * about 2^-52 does not matter here), that error in units of the output's last place, the share of
 * results equal to the exact value rounded to the nearest float, and whether consecutive inputs ever
 * move the result against the function's direction.
 */
public final class Accuracy {

    /** A float function under test. */
    @FunctionalInterface
    public interface FloatFunction {
        /** The function's result for {@code x}. */
        float apply(float x);
    }

    /** The unit's result at a point of the fixed-point grid. */
    @FunctionalInterface
    public interface GridFunction {
        /** The result at {@code index / 2^23}. */
        float at(int index);
    }

    /**
     * What a sweep measured.
     *
     * @param inputs number of inputs
     * @param maxError largest absolute error
     * @param worstInput the input of the largest error (the argument, or the grid point's value)
     * @param ulp the unit in the last place the ULP error is counted in (NaN: not defined)
     * @param exactlyRounded inputs whose result is the exact value rounded to nearest
     * @param monotonic whether no consecutive pair of inputs moved the result against the direction
     */
    public record Stats(long inputs, double maxError, double worstInput, double ulp, long exactlyRounded,
                        boolean monotonic) {

        /** −log2 of the largest absolute error. */
        public double goodBits() {
            return -Math.log(maxError) / Math.log(2);
        }

        /** The largest error in units of {@link #ulp}; NaN if no unit is defined. */
        public double maxUlp() {
            return maxError / ulp;
        }

        /** Share of exactly rounded results, in percent. */
        public double exactPercent() {
            return 100.0 * exactlyRounded / inputs;
        }

        /** Both sweeps as one: the larger error, all inputs, monotonic only if both were. */
        public Stats merge(Stats other) {
            boolean firstWorse = maxError >= other.maxError;
            return new Stats(inputs + other.inputs, firstWorse ? maxError : other.maxError,
                    firstWorse ? worstInput : other.worstInput, ulp, exactlyRounded + other.exactlyRounded,
                    monotonic && other.monotonic);
        }
    }

    private Accuracy() {
    }

    /**
     * Sweeps every float in [lo, hi) (both of the same sign), in increasing order.
     *
     * @param direction +1 increasing, -1 decreasing, 0 monotonicity not checked (reported as true)
     */
    public static Stats overFloats(float lo, float hi, FloatFunction f, DoubleUnaryOperator exact, double ulp,
                                   int direction) {
        int from = Float.floatToRawIntBits(lo);
        int to = Float.floatToRawIntBits(hi);
        if (lo < 0 || hi <= lo) {
            throw new IllegalArgumentException("interval must be non-negative and non-empty: [" + lo + ", " + hi + ")");
        }
        Sweep s = new Sweep(direction);
        for (int bits = from; bits < to; bits++) {
            float x = Float.intBitsToFloat(bits);
            s.add(x, f.apply(x), exact.applyAsDouble(x));
        }
        return s.stats(ulp);
    }

    /**
     * Sweeps the 2^23 points {@code i / 2^23} of the fixed-point grid of [0, 1), in order.
     *
     * @param f the unit's result at grid index i
     * @param exact the exact function at {@code u = i / 2^23}
     */
    public static Stats overGrid(GridFunction f, DoubleUnaryOperator exact, double ulp, int direction) {
        Sweep s = new Sweep(direction);
        for (int i = 0; i < 1 << TableSpec.ARGUMENT_BITS; i++) {
            double u = Math.scalb((double) i, -TableSpec.ARGUMENT_BITS);
            s.add(u, f.at(i), exact.applyAsDouble(u));
        }
        return s.stats(ulp);
    }

    /** Running statistics of one sweep. */
    private static final class Sweep {
        private final int direction;
        private long n;
        private double maxError = -1;
        private double worstInput;
        private long exact;
        private boolean monotonic = true;
        private float previous = Float.NaN;

        Sweep(int direction) {
            this.direction = direction;
        }

        void add(double input, float y, double expected) {
            double error = Math.abs(y - expected);
            if (!(error <= maxError)) {
                maxError = error;
                worstInput = input;
            }
            if (y == (float) expected) {
                exact++;
            }
            if (direction != 0 && n > 0 && Math.signum(y - previous) == -direction) {
                monotonic = false;
            }
            previous = y;
            n++;
        }

        Stats stats(double ulp) {
            return new Stats(n, maxError, worstInput, ulp, exact, monotonic);
        }
    }
}
