package dev.weft.samples;

import dev.weft.runtime.CompileReport;
import java.util.Arrays;

/** Small helpers the lessons share: timing, checking, printing. Not part of any lesson's idea. */
final class Lessons {

    private Lessons() {
    }

    /** Best of {@code reps} runs of {@code work}, in milliseconds: the first runs include JIT warm-up. */
    static double bestMillis(int reps, Runnable work) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            work.run();
            best = Math.min(best, System.nanoTime() - t0);
        }
        return best / 1e6;
    }

    /** "compiled", or the executor that ran the kernel instead: for a lesson's timing lines. */
    static String executor(CompileReport report) {
        return report.compiled() ? "compiled" : report.executor() + " executor";
    }

    /** Throws unless {@code ok}: a lesson that computes a wrong answer must fail loudly. */
    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError("wrong result: " + what);
        }
    }

    /** Largest |a[i] - b[i]| relative to max(1, |b[i]|). */
    static double maxRelError(float[] a, float[] b) {
        double worst = 0;
        for (int i = 0; i < a.length; i++) {
            worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1.0, Math.abs(b[i])));
        }
        return worst;
    }

    static float[] random(int n, long seed) {
        java.util.Random r = new java.util.Random(seed);
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextFloat() * 2 - 1;
        }
        return a;
    }

    static void title(String s) {
        System.out.println();
        System.out.println("== " + s + " " + "=".repeat(Math.max(0, 70 - s.length())));
    }

    static String row(String what, double ms) {
        return String.format("  %-34s %9.3f ms", what, ms);
    }

    static float[] copy(float[] a) {
        return Arrays.copyOf(a, a.length);
    }
}
