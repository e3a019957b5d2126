package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;

/**
 * Lesson 5: a tree reduction. Summing an array is the classic kernel that needs cooperation.
 *
 * <p>Each CTA of 256 threads loads 256 elements into shared memory, then halves the number of active
 * threads at every step: threads {@code 0..s-1} add element {@code tid + s} into element {@code tid}, and a
 * barrier separates the steps. After {@code log2(256) = 8} steps element 0 holds the CTA's sum, and thread 0
 * writes it out; the host (or a second launch) adds the per-CTA sums. The stride loop is uniform: every
 * thread runs the same number of iterations, so every thread reaches every barrier, as it must.
 *
 * <p>Floating-point addition is not associative, so the tree's sum differs from a left-to-right loop in
 * the last bits; the check compares against a sum in double with a tolerance.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=5}.
 */
public final class Sample05_TreeReduction {

    private Sample05_TreeReduction() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 5: a shared-memory tree reduction");
        int n = 100_000; // small: on the reference executor every barrier suspends every thread
        int block = 256;
        int ctas = (n + block - 1) / block;
        float[] x = Lessons.random(n, 4);
        float[] partial = new float[ctas];

        Kernel reduce = t -> {
            float[] s = t.sharedFloats(256);
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            s[tid] = i < n ? x[i] : 0f;
            t.syncThreads();
            for (int stride = t.blockDimX() / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    s[tid] += s[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                partial[t.blockIdxX()] = s[0];
            }
        };

        try (Device device = Device.create()) {
            device.launch(Dim3.of(ctas), Dim3.of(block), reduce);
            double sum = 0;
            for (float p : partial) {
                sum += p;
            }
            double exact = 0;
            for (float v : x) {
                exact += v;
            }
            System.out.printf("  sum of %d floats: Weft %.4f, plain Java (double) %.4f%n", n, sum, exact);
            Lessons.check(Math.abs(sum - exact) <= 1e-6 * n, "reduction sum");

            double weft = Lessons.bestMillis(3, () -> device.launch(Dim3.of(ctas), Dim3.of(block), reduce));
            float[] box = new float[1];
            double plain = Lessons.bestMillis(3, () -> {
                float acc = 0;
                for (float v : x) {
                    acc += v;
                }
                box[0] = acc;
            });
            System.out.println("  " + device.compileReport(reduce).summary());
            System.out.println(Lessons.row("Weft launch (" + ctas + " CTAs)", weft));
            System.out.println(Lessons.row("plain Java loop", plain));
        }
        System.out.println("  ok: the CTA sums add up to the array's sum");
    }
}
