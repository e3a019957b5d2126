package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.runtime.Device;

/**
 * Lesson 8: warp vote and shuffle. The 32 threads of a warp can talk without shared memory.
 *
 * <p>A warp executes as one unit, so its threads can exchange registers directly. {@code ballot(p)} gives
 * every lane a 32-bit mask of which lanes have {@code p} true; {@code shflDown(v, d)} gives lane {@code i}
 * the value of lane {@code i + d}. Five shuffle steps (16, 8, 4, 2, 1) sum a value across a warp: after
 * them, lane 0 holds the warp's sum, with no shared memory and no barrier.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=8}. You should see, for one warp,
 * the ballot of "my value is odd" as bits, and the warp sums computed by shuffles equal to plain sums.
 */
public final class Sample08_WarpVoteAndShuffle {

    private Sample08_WarpVoteAndShuffle() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 8: warp vote and shuffle");
        int warps = 64;
        int n = warps * 32;
        int[] values = new int[n];
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < n; i++) {
            values[i] = r.nextInt(100);
        }
        int[] ballots = new int[warps];
        int[] sums = new int[warps];

        try (Device device = Device.create()) {
            device.launch(Dim3.of(n / 128), Dim3.of(128), t -> {
                int i = t.globalIdX();
                int v = values[i];
                int odd = t.ballot((v & 1) == 1);
                int sum = v;
                for (int offset = 16; offset > 0; offset >>= 1) {
                    sum += t.shflDown(sum, offset);
                }
                if (t.laneId() == 0) {
                    ballots[i / 32] = odd;
                    sums[i / 32] = sum;
                }
            });
        }
        for (int w = 0; w < warps; w++) {
            int expectBallot = 0;
            int expectSum = 0;
            for (int lane = 0; lane < 32; lane++) {
                int v = values[w * 32 + lane];
                expectBallot |= (v & 1) << lane;
                expectSum += v;
            }
            Lessons.check(ballots[w] == expectBallot, "ballot of warp " + w);
            Lessons.check(sums[w] == expectSum, "shuffle sum of warp " + w);
        }
        System.out.println("  warp 0 values: " + java.util.Arrays.toString(java.util.Arrays.copyOf(values, 32)));
        System.out.println("  ballot(odd):   " + String.format("%32s", Integer.toBinaryString(ballots[0])).replace(' ', '0')
                + "  (lane 31 ... lane 0)");
        System.out.println("  shuffle sum:   " + sums[0]);
        System.out.println("  ok: ballots and shuffle sums of all " + warps + " warps match plain loops");
    }
}
