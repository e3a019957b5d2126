package dev.weft.internal.sfu;

import java.util.Arrays;

/**
 * Minimax fits on a finite set of points by the Remez exchange algorithm: the linear combination of a few
 * basis functions whose largest error over the points is smallest.
 *
 * <p>Given the values {@code basis[k][i]} of n basis functions at sorted points i, and the target values
 * {@code g[i]}, {@link #fit} returns the n coefficients and the levelled error. The best approximation
 * on a finite set equioscillates on n + 1 of its points (a Chebyshev system); the algorithm keeps such a
 * reference, solves for the coefficients that level the error on it, and swaps in the point of largest
 * error until no point errs more than the reference (single-point exchange, de la Vallée Poussin).
 *
 * <p>Deterministic: plain double arithmetic in a fixed order.
 */
public final class Remez {

    private static final int MAX_ITERATIONS = 64;

    private Remez() {
    }

    /**
     * The minimax coefficients of {@code basis} for {@code g} over the points.
     *
     * @param basis {@code basis[k][i]}: basis function k at point i; points in increasing order
     * @param g target values at the points
     * @return n + 1 values: the n coefficients, then the levelled error E (signed; the error at the
     *     first reference point is {@code +E})
     */
    public static double[] fit(double[][] basis, double[] g) {
        int n = basis.length;
        int points = g.length;
        if (points < n + 1) {
            throw new IllegalArgumentException("a minimax fit of " + n + " functions needs at least "
                    + (n + 1) + " points: " + points);
        }
        int[] ref = new int[n + 1];
        for (int r = 0; r <= n; r++) {
            // Chebyshev-like spread: denser towards the ends, where the extrema of smooth errors sit.
            double c = 0.5 - 0.5 * StrictMath.cos(Math.PI * r / n);
            ref[r] = (int) Math.round(c * (points - 1));
        }
        dedupe(ref, points);
        double[] solution = null;
        double[] error = new double[points];
        for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
            solution = level(basis, g, ref);
            double levelled = Math.abs(solution[n]);
            int worst = 0;
            double worstAbs = -1;
            for (int i = 0; i < points; i++) {
                double e = g[i];
                for (int k = 0; k < n; k++) {
                    e -= solution[k] * basis[k][i];
                }
                error[i] = e;
                if (Math.abs(e) > worstAbs) {
                    worstAbs = Math.abs(e);
                    worst = i;
                }
            }
            if (worstAbs <= levelled * (1 + 1e-12) + 1e-300 || !exchange(ref, error, worst)) {
                break;
            }
        }
        return solution;
    }

    /** Solves {@code sum_k a_k B_k(x_r) + (-1)^r E = g(x_r)} on the reference points. */
    private static double[] level(double[][] basis, double[] g, int[] ref) {
        int n = basis.length;
        double[][] m = new double[n + 1][n + 2];
        for (int r = 0; r <= n; r++) {
            for (int k = 0; k < n; k++) {
                m[r][k] = basis[k][ref[r]];
            }
            m[r][n] = (r & 1) == 0 ? 1 : -1;
            m[r][n + 1] = g[ref[r]];
        }
        return solve(m);
    }

    /** Gauss-Jordan elimination with partial pivoting on an augmented (n)x(n+1) matrix. */
    static double[] solve(double[][] m) {
        int n = m.length;
        for (int c = 0; c < n; c++) {
            int pivot = c;
            for (int r = c + 1; r < n; r++) {
                if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) {
                    pivot = r;
                }
            }
            double[] row = m[c];
            m[c] = m[pivot];
            m[pivot] = row;
            for (int r = 0; r < n; r++) {
                if (r != c && m[r][c] != 0) {
                    double f = m[r][c] / m[c][c];
                    for (int k = c; k <= n; k++) {
                        m[r][k] -= f * m[c][k];
                    }
                }
            }
        }
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = m[i][n] / m[i][i];
        }
        return x;
    }

    /**
     * Puts point {@code z} into the reference, keeping the signs of the error alternating; false if it
     * is already there (the reference cannot improve).
     */
    private static boolean exchange(int[] ref, double[] error, int z) {
        int last = ref.length - 1;
        double sz = Math.signum(error[z]);
        for (int r : ref) {
            if (r == z) {
                return false;
            }
        }
        if (z < ref[0]) {
            if (Math.signum(error[ref[0]]) == sz) {
                ref[0] = z;
            } else {
                System.arraycopy(ref, 0, ref, 1, last);
                ref[0] = z;
            }
        } else if (z > ref[last]) {
            if (Math.signum(error[ref[last]]) == sz) {
                ref[last] = z;
            } else {
                System.arraycopy(ref, 1, ref, 0, last);
                ref[last] = z;
            }
        } else {
            int r = 0;
            while (ref[r + 1] < z) {
                r++;
            }
            if (Math.signum(error[ref[r]]) == sz) {
                ref[r] = z;
            } else {
                ref[r + 1] = z;
            }
        }
        return true;
    }

    /** Makes the initial reference strictly increasing (small point sets round onto the same index). */
    private static void dedupe(int[] ref, int points) {
        for (int r = 1; r < ref.length; r++) {
            if (ref[r] <= ref[r - 1]) {
                ref[r] = ref[r - 1] + 1;
            }
        }
        for (int r = ref.length - 1; r >= 0 && ref[r] > points - (ref.length - r); r--) {
            ref[r] = points - (ref.length - r);
        }
        if (!isIncreasing(ref)) {
            throw new IllegalStateException("internal: Remez reference not increasing " + Arrays.toString(ref));
        }
    }

    private static boolean isIncreasing(int[] a) {
        for (int i = 1; i < a.length; i++) {
            if (a[i] <= a[i - 1]) {
                return false;
            }
        }
        return true;
    }
}
