package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.LaunchProfile;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Lesson 12: SIMT beside SIMD. The same computation written per thread (SIMT, a Weft kernel) and per
 * vector (SIMD, hand-written Vector API code), and what the compiler made of the first.
 *
 * <p>The kernel has a branch: positive inputs are scaled, the others negated. A SIMT programmer writes an
 * {@code if}; each thread takes its own path. A SIMD programmer cannot branch per lane: they compute a mask
 * from the comparison, compute both results, and blend them under the mask. That is exactly what Weft's
 * SIMD backend does with the kernel: its compile report lists the per-warp code, where the {@code if}
 * became a "divergent branch" with a mask for each side, the two sides run under their masks, and the
 * values meet again in a {@code phi} "merged under masks". Loads indexed by {@code globalIdX()} are
 * recognised as contiguous (base + lane) and become vector loads, not gathers.
 *
 * <p>The price of the branch is the same on both sides of the comparison: with random signs nearly every warp
 * has threads on both paths, so the warp runs both, each under its mask, as the SIMD loop computes both
 * results and blends them. The profile ({@link Device#profile}) says so: the sign test splits nearly every
 * warp, and the warp execution efficiency (the average fraction of a warp's threads active in the
 * instructions it issued) is well under 100%.
 *
 * <p>Run it: {@code mvn -q -pl samples -am compile exec:exec -Dtour.args=12}. You should see the same
 * output from all three versions, three timings, the warp execution efficiency with the sign test splitting
 * nearly every warp, and the listing.
 */
public final class Sample12_SimtVersusSimd {

    private Sample12_SimtVersusSimd() {
    }

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    public static void main(String[] args) {
        Lessons.title("Lesson 12: SIMT beside SIMD");
        int n = 1 << 20;
        float s = 2f;
        float[] x = Lessons.random(n, 11);
        float[] ySimt = new float[n];
        float[] ySimd = new float[n];
        float[] yRef = new float[n];

        Kernel simt = t -> {
            int i = t.globalIdX();
            if (i < n) {
                float v = x[i];
                if (v > 0) {
                    ySimt[i] = s * v;
                } else {
                    ySimt[i] = -v;
                }
            }
        };
        Runnable simd = () -> {
            int i = 0;
            for (; i < S.loopBound(n); i += S.length()) {
                FloatVector v = FloatVector.fromArray(S, x, i);
                VectorMask<Float> positive = v.compare(VectorOperators.GT, 0f);
                v.neg().blend(v.mul(s), positive).intoArray(ySimd, i);
            }
            for (; i < n; i++) {
                ySimd[i] = x[i] > 0 ? s * x[i] : -x[i];
            }
        };
        Kernel reference = t -> {
            int i = t.globalIdX();
            if (i < n) {
                float v = x[i];
                yRef[i] = v > 0 ? s * v : -v;
            }
        };

        Dim3 grid = Dim3.of((n + 255) / 256);
        Dim3 block = Dim3.of(256);
        try (Device device = Device.create();
                Device ref = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE))) {
            device.launch(grid, block, simt);
            simd.run();
            ref.launch(grid, block, reference);
            Lessons.check(java.util.Arrays.equals(ySimt, ySimd), "SIMT kernel and SIMD loop agree");
            Lessons.check(java.util.Arrays.equals(ySimt, yRef), "compiled kernel and reference executor agree");

            double tSimt = Lessons.bestMillis(10, () -> device.launch(grid, block, simt));
            double tSimd = Lessons.bestMillis(10, simd);
            double tRef = Lessons.bestMillis(3, () -> ref.launch(grid, block, reference));
            // The report for this launch's CTA shape: the one variant of the code its 256-thread CTAs run.
            CompileReport report = device.compileReport(simt, block);
            LaunchProfile profile = device.profile(grid, block, simt);
            System.out.println("  " + n + " elements; the three outputs are identical, bit for bit");
            System.out.println(Lessons.row("SIMT: Weft kernel (" + report.executor() + ")", tSimt));
            System.out.println(Lessons.row("SIMD: hand-written Vector API, 1 thread", tSimd));
            System.out.println(Lessons.row("SIMT on the reference executor", tRef));
            System.out.println();
            // The kernel's inner if splits nearly every warp (random signs), so each side runs at about half
            // the warp: what the SIMD loop's blend pays too, computing both results for every lane.
            LaunchProfile.Branch sign = profile.branches().stream()
                    .max(java.util.Comparator.comparingLong(LaunchProfile.Branch::splits)).orElseThrow();
            System.out.printf("  Its profile: warp execution efficiency %.1f%%; the sign test split %,d of %,d warps%n",
                    100 * profile.warpExecutionEfficiency(), sign.splits(), sign.evaluations());
            System.out.println("  (both sides of a split branch run, each under its mask: lesson 3)");
            System.out.println();
            System.out.println("  What the SIMD backend made of the kernel for these CTAs (its compile report for blockDim " + block + "):");
            for (String line : report.listing().split("\n")) {
                System.out.println("  | " + line);
            }
        }
        System.out.println("  ok: one program written per thread, run as vectors with masks");
    }
}
