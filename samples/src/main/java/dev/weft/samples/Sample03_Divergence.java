package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.LaunchProfile;

/**
 * Lesson 3: divergence, and what it costs. The threads of a warp share one instruction stream; when they
 * disagree at a branch, the warp runs both sides.
 *
 * <p>A warp issues each instruction once for all its 32 threads, with a mask saying which of them take part.
 * When a branch sends some threads one way and the rest the other, the warp is <em>split</em>: it runs the
 * first side with the first group's threads active and the others idle, then the second side the other way
 * round, and the threads meet again after the branch. Nothing is wrong with the result; the price is time:
 * the warp spends the time of both sides. (Weft's SIMD backend does exactly this: a warp is a few vector
 * registers, each side runs under its mask, and a side no thread of the warp takes is skipped.)
 *
 * <p>The kernel below gives each thread one of two kinds of work, chosen by an input array: kind 0 runs 256
 * steps of one recurrence, kind 1 of another. It is launched twice over the same number of each kind, and
 * only the arrangement differs. <em>Interleaved</em>: the kinds alternate from thread to thread, so every warp
 * has threads of both kinds and runs both sides. <em>Grouped by warp</em>: each run of 32 threads has one
 * kind, so all threads of a warp agree and each warp runs one side only.
 *
 * <p>A profiler shows it without a stopwatch. {@link Device#profile} runs a launch with counters and reports,
 * as Nsight and nvprof do, the <em>warp execution efficiency</em>: the average fraction of a warp's threads
 * active in the instructions it issued; and for each divergent branch, how often it split a warp. The
 * interleaved launch runs its two sides at 50% (16 of 32 threads) and splits every warp; the grouped one runs
 * at 100% and splits none, issuing half the warp instructions for the same thread instructions. The clock
 * says the same: the interleaved launch takes about twice as long.
 *
 * <p>The cure is in the data, not the code: sort or bin the work so that the threads of a warp agree (here,
 * group kinds by 32), or make the two sides cheap. A branch that a whole warp takes the same way is free.
 *
 * <p>Run it: {@code mvn -q -pl samples -am compile exec:exec -Dtour.args=3}. You should see about 50%
 * against 100% efficiency, every warp split in the interleaved launch and none in the grouped one, the
 * interleaved launch about 2x slower, and the interleaved launch's profile line by line. Times are
 * indicative: the best of a few runs on a shared machine, both arrangements run by the same compiled code.
 */
public final class Sample03_Divergence {

    private Sample03_Divergence() {
    }

    private static final int STEPS = 256;

    public static void main(String[] args) {
        Lessons.title("Lesson 3: divergence, and what it costs");
        int n = 1 << 18;
        float[] x = Lessons.random(n, 3);
        float[] y = new float[n];
        int[] interleaved = new int[n];
        int[] grouped = new int[n];
        for (int i = 0; i < n; i++) {
            interleaved[i] = i & 1;        // 0, 1, 0, 1, ...: both kinds in every warp
            grouped[i] = (i >> 5) & 1;     // 32 zeros, 32 ones, ...: one kind per warp
        }
        int[] kind = new int[n];

        Kernel work = t -> {
            int i = t.globalIdX();
            float v = x[i];
            if (kind[i] == 0) {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.999f + 0.25f;
                }
            } else {
                for (int k = 0; k < STEPS; k++) {
                    v = v * 0.998f - 0.5f;
                }
            }
            y[i] = v;
        };

        Dim3 grid = Dim3.of(n / 256);
        Dim3 block = Dim3.of(256);
        try (Device device = Device.create()) {
            System.arraycopy(interleaved, 0, kind, 0, n);
            LaunchProfile split = device.profile(grid, block, work);
            checkResults(x, kind, y);
            System.arraycopy(grouped, 0, kind, 0, n);
            LaunchProfile whole = device.profile(grid, block, work);
            checkResults(x, kind, y);

            // Time the ordinary (unprofiled) launches, alternating the arrangements so that both run the same
            // compiled code under the same conditions; keep the best of each.
            double tSplit = Double.MAX_VALUE;
            double tWhole = Double.MAX_VALUE;
            for (int rep = 0; rep < 12; rep++) {
                System.arraycopy(interleaved, 0, kind, 0, n);
                tSplit = Math.min(tSplit, Lessons.bestMillis(1, () -> device.launch(grid, block, work)));
                System.arraycopy(grouped, 0, kind, 0, n);
                tWhole = Math.min(tWhole, Lessons.bestMillis(1, () -> device.launch(grid, block, work)));
            }

            System.out.println("  " + n + " threads in " + split.warps() + " warps; half of them of each kind; each thread runs "
                    + STEPS + " steps");
            System.out.println();
            System.out.println("                                      kinds interleaved     kinds grouped by warp");
            System.out.printf("  warp execution efficiency           %14.1f%% %22.1f%%%n",
                    100 * split.warpExecutionEfficiency(), 100 * whole.warpExecutionEfficiency());
            System.out.printf("  warp instructions issued            %15s %23s%n",
                    String.format("%,d", split.warpInstructions()), String.format("%,d", whole.warpInstructions()));
            System.out.printf("  thread instructions                 %15s %23s%n",
                    String.format("%,d", split.threadInstructions()), String.format("%,d", whole.threadInstructions()));
            LaunchProfile.Branch splitBranch = onlyBranch(split);
            LaunchProfile.Branch wholeBranch = onlyBranch(whole);
            System.out.printf("  warps split at the branch           %15s %23s%n",
                    String.format("%,d of %,d", splitBranch.splits(), splitBranch.evaluations()),
                    String.format("%,d of %,d", wholeBranch.splits(), wholeBranch.evaluations()));
            System.out.printf("  time (best of 12)                   %12.2f ms %20.2f ms%n", tSplit, tWhole);
            System.out.printf("  divergence costs %.1fx here (indicative: a shared machine; the profiles say 2x the warp instructions)%n",
                    tSplit / tWhole);
            System.out.println();
            System.out.println("  The interleaved launch's profile, line by line (the two sides run at 50%):");
            for (String line : split.toString().split("\n")) {
                System.out.println("  | " + line);
            }

            Lessons.check(splitBranch.splits() == splitBranch.evaluations() && splitBranch.evaluations() == split.warps(),
                    "every warp splits when kinds are interleaved");
            Lessons.check(wholeBranch.splits() == 0, "no warp splits when kinds are grouped by warp");
            Lessons.check(whole.warpExecutionEfficiency() == 1.0, "100% efficiency without divergence");
            Lessons.check(split.warpExecutionEfficiency() < 0.6, "about 50% efficiency with divergence");
            Lessons.check(split.threadInstructions() == whole.threadInstructions(), "the same work by the threads");
        }
        System.out.println("  ok: same kernel, same work; the split warps issued twice the warp instructions");
    }

    /**
     * The kernel's one divergent branch; none (a count of zero) when the compiler proved the condition the same
     * for a whole warp, which then is not a divergent branch at all.
     */
    private static LaunchProfile.Branch onlyBranch(LaunchProfile p) {
        Lessons.check(p.branches().size() <= 1, "one divergent branch at most: " + p.branches());
        return p.branches().isEmpty() ? new LaunchProfile.Branch("(uniform)", p.warps(), 0) : p.branches().get(0);
    }

    /** The kernel computed every element as plain Java does (the same float operations, in order). */
    private static void checkResults(float[] x, int[] kind, float[] y) {
        for (int i = 0; i < x.length; i++) {
            Lessons.check(y[i] == recurrence(x[i], kind[i] == 0), "element " + i);
        }
    }

    private static float recurrence(float v, boolean first) {
        for (int k = 0; k < STEPS; k++) {
            v = first ? v * 0.999f + 0.25f : v * 0.998f - 0.5f;
        }
        return v;
    }
}
