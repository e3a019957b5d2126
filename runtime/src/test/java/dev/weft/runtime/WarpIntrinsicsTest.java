package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.ThreadContext;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Warp vote and shuffle against their CUDA definitions, written out here independently of the runtime:
 * full warps, partial warps, lanes that returned early, warps of 8 and of 1, every shuffle mode and width.
 * Public so that the reference executor's fiber fallback can run it again.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public class WarpIntrinsicsTest {

    private static final int SENTINEL = 0xDEADBEEF;

    /** The launch shapes: warp size, CTA size (the last warp partial in most), and which lanes return early. */
    private record Shape(int warpSize, int block, boolean someReturn) {
        /** Lanes that return before any warp operation, in the variants that have them. */
        boolean returns(int linear) {
            int lane = linear % warpSize;
            int warp = linear / warpSize;
            return someReturn && (lane * 5 + warp) % 7 == 3;
        }
    }

    private static final Shape[] SHAPES = {
        new Shape(32, 48, false), new Shape(32, 40, true), new Shape(8, 20, false), new Shape(8, 30, true),
        new Shape(16, 24, true), new Shape(1, 3, false),
    };

    // ---- vote --------------------------------------------------------------------------------

    @Test
    void ballotAnyAll_matchDefinitions_forFullPartialAndEarlyReturnedWarps() {
        for (Shape s : SHAPES) {
            int ctas = 2;
            int n = ctas * s.block();
            int[] ballot = filled(n);
            int[] any = filled(n);
            int[] all = filled(n);
            int[] allUniform = filled(n);
            int[] anyOneLane = filled(n);
            try (Device device = TestDevices.reference(2, s.warpSize())) {
                device.launch(Dim3.of(ctas), Dim3.of(s.block()), t -> {
                    int l = t.linearThreadIdx();
                    if (s.returns(l)) {
                        return;
                    }
                    int g = t.blockIdxX() * s.block() + l;
                    boolean p = predicate(t.blockIdxX(), l);
                    ballot[g] = t.ballot(p);
                    any[g] = t.any(p) ? 1 : 0;
                    all[g] = t.all(p) ? 1 : 0;
                    allUniform[g] = t.all(true) ? 1 : 0;
                    anyOneLane[g] = t.any(t.laneId() == 0 && t.warpId() == 1) ? 1 : 0;
                });
            }
            for (int b = 0; b < ctas; b++) {
                for (int l = 0; l < s.block(); l++) {
                    int g = b * s.block() + l;
                    String at = s + " CTA " + b + " thread " + l;
                    if (s.returns(l)) {
                        assertEquals(SENTINEL, ballot[g], at);
                        continue;
                    }
                    int first = l / s.warpSize() * s.warpSize();
                    int wantBallot = 0;
                    boolean wantAll = true;
                    for (int lane = 0; lane < s.warpSize(); lane++) {
                        int other = first + lane;
                        boolean active = other < s.block() && !s.returns(other);
                        if (active && predicate(b, other)) {
                            wantBallot |= 1 << lane;
                        }
                        wantAll &= !active || predicate(b, other);
                    }
                    boolean lane0OfWarp1Active = first == s.warpSize() && !s.returns(first);
                    assertEquals(wantBallot, ballot[g], at + " ballot");
                    assertEquals(wantBallot != 0 ? 1 : 0, any[g], at + " any");
                    assertEquals(wantAll ? 1 : 0, all[g], at + " all");
                    assertEquals(1, allUniform[g], at + " all(true)");
                    assertEquals(lane0OfWarp1Active ? 1 : 0, anyOneLane[g], at + " any(one lane)");
                }
            }
        }
    }

    /** Mostly true, false on a scattering of lanes, so that some warps vote all and some not. */
    private static boolean predicate(int cta, int linear) {
        return (linear * 7 + cta) % 11 != 4;
    }

    // ---- shuffle -----------------------------------------------------------------------------

    private enum Mode { IDX, UP, DOWN, XOR }

    /**
     * Source arguments: lane offsets below the warp size around every segment boundary, and for idx also
     * negative ones and ones past the width (read modulo the width).
     */
    private static int[] args(Mode mode, int warpSize) {
        IntStream below = IntStream.of(0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 30, 31).filter(a -> a < warpSize);
        return mode != Mode.IDX ? below.toArray()
                : IntStream.concat(below, IntStream.of(-1, -warpSize - 3, warpSize, warpSize + 1, 1000)).toArray();
    }

    private static int[] widths(int warpSize) {
        return IntStream.iterate(1, w -> w <= warpSize, w -> w * 2).toArray();
    }

    /** The CUDA Programming Guide's definitions: the lane a lane reads, before checking that it is active. */
    private static int sourceLane(Mode mode, int lane, int arg, int width) {
        int segmentStart = lane / width * width;
        int inSegment = lane % width;
        return switch (mode) {
            case IDX -> segmentStart + Math.floorMod(arg, width);
            case UP -> inSegment - arg >= 0 ? lane - arg : lane;
            case DOWN -> inSegment + arg < width ? lane + arg : lane;
            case XOR -> (lane ^ arg) / width > lane / width ? lane : lane ^ arg; // a later segment: own value
        };
    }

    /** Distinct per thread; floats include NaNs with payloads and -0.0, which must move bit for bit. */
    private static int intValue(int cta, int linear) {
        return cta * 100_000 + linear * 10 + 3;
    }

    private static int floatBits(int cta, int linear) {
        return switch (linear % 4) {
            case 0 -> 0x7fc00000 | (cta << 12) | linear;
            case 1 -> 0x80000000;
            case 2 -> Float.floatToRawIntBits(cta + linear * 1.5f);
            default -> Float.floatToRawIntBits(-linear - cta * 0.25f);
        };
    }

    @Test
    void shuffles_everyModeTypeWidthAndLaneArgument_matchCudaDefinitions() {
        for (Shape s : SHAPES) {
            int ctas = 2;
            int[] widths = widths(s.warpSize());
            int combos = 0;
            for (Mode m : Mode.values()) {
                combos += 2 * widths.length * args(m, s.warpSize()).length;
            }
            int n = ctas * s.block();
            int[] out = filled(combos * n);
            try (Device device = TestDevices.reference(2, s.warpSize())) {
                device.launch(Dim3.of(ctas), Dim3.of(s.block()), t -> {
                    int l = t.linearThreadIdx();
                    if (s.returns(l)) {
                        return;
                    }
                    int g = t.blockIdxX() * s.block() + l;
                    int v = intValue(t.blockIdxX(), l);
                    float f = Float.intBitsToFloat(floatBits(t.blockIdxX(), l));
                    int c = 0;
                    for (Mode m : Mode.values()) {
                        for (int w : widths) {
                            for (int a : args(m, t.warpSize())) {
                                out[c++ * n + g] = shuffle(t, m, v, a, w);
                                out[c++ * n + g] = Float.floatToRawIntBits(shuffle(t, m, f, a, w));
                            }
                        }
                    }
                });
            }
            for (int b = 0; b < ctas; b++) {
                for (int l = 0; l < s.block(); l++) {
                    int g = b * s.block() + l;
                    int c = 0;
                    for (Mode m : Mode.values()) {
                        for (int w : widths) {
                            for (int a : args(m, s.warpSize())) {
                                String at = s + " CTA " + b + " thread " + l + " " + m + "(arg " + a + ", width " + w + ")";
                                if (s.returns(l)) {
                                    assertEquals(SENTINEL, out[c++ * n + g], at);
                                    assertEquals(SENTINEL, out[c++ * n + g], at);
                                    continue;
                                }
                                int first = l / s.warpSize() * s.warpSize();
                                int src = first + sourceLane(m, l % s.warpSize(), a, w);
                                if (src >= s.block() || s.returns(src)) {
                                    src = l; // an inactive source lane: own value
                                }
                                assertEquals(intValue(b, src), out[c++ * n + g], at + " int");
                                assertEquals(floatBits(b, src), out[c++ * n + g], at + " float bits");
                            }
                        }
                    }
                }
            }
        }
    }

    private static int shuffle(ThreadContext t, Mode m, int v, int a, int w) {
        return switch (m) {
            case IDX -> t.shfl(v, a, w);
            case UP -> t.shflUp(v, a, w);
            case DOWN -> t.shflDown(v, a, w);
            case XOR -> t.shflXor(v, a, w);
        };
    }

    private static float shuffle(ThreadContext t, Mode m, float v, int a, int w) {
        return switch (m) {
            case IDX -> t.shfl(v, a, w);
            case UP -> t.shflUp(v, a, w);
            case DOWN -> t.shflDown(v, a, w);
            case XOR -> t.shflXor(v, a, w);
        };
    }

    @Test
    void shuffles_withoutWidth_useWholeWarp() {
        int n = 64;
        int[] out = new int[8 * n];
        try (Device device = TestDevices.reference(1, 16)) {
            device.launch(Dim3.of(1), Dim3.of(n), t -> {
                int l = t.linearThreadIdx();
                float f = l + 0.5f;
                out[l] = t.shfl(l, 5) - t.shfl(l, 5, 16);
                out[n + l] = t.shflUp(l, 3) - t.shflUp(l, 3, 16);
                out[2 * n + l] = t.shflDown(l, 3) - t.shflDown(l, 3, 16);
                out[3 * n + l] = t.shflXor(l, 9) - t.shflXor(l, 9, 16);
                out[4 * n + l] = Float.compare(t.shfl(f, 5), t.shfl(f, 5, 16));
                out[5 * n + l] = Float.compare(t.shflUp(f, 3), t.shflUp(f, 3, 16));
                out[6 * n + l] = Float.compare(t.shflDown(f, 3), t.shflDown(f, 3, 16));
                out[7 * n + l] = Float.compare(t.shflXor(f, 9), t.shflXor(f, 9, 16));
            });
        }
        assertEquals(0, Arrays.stream(out).filter(x -> x != 0).count(), Arrays.toString(out));
    }

    @Test
    void shflDown_warpReduction_sumsEachWarp() {
        int n = 256;
        int[] sums = new int[n / 32];
        float[] sumsF = new float[n / 32];
        try (Device device = TestDevices.reference(1)) {
            device.launch(Dim3.of(1), Dim3.of(n), t -> {
                int v = t.threadIdxX();
                float f = t.threadIdxX();
                for (int offset = 16; offset > 0; offset /= 2) {
                    v += t.shflDown(v, offset);
                    f += t.shflDown(f, offset);
                }
                if (t.laneId() == 0) {
                    sums[t.warpId()] = v;
                    sumsF[t.warpId()] = f;
                }
            });
        }
        for (int w = 0; w < n / 32; w++) {
            int want = IntStream.range(w * 32, w * 32 + 32).sum();
            assertEquals(want, sums[w]);
            assertEquals(want, sumsF[w]);
        }
    }

    @Test
    void shuffle_invalidWidth_rejectedWithMessage() {
        int[][] cases = {{32, 0}, {32, 3}, {32, -1}, {32, 64}, {32, 12}, {8, 16}, {1, 2}};
        for (int[] c : cases) {
            int warpSize = c[0];
            int width = c[1];
            for (Mode m : Mode.values()) {
                for (boolean isFloat : new boolean[] {false, true}) {
                    Kernel k = isFloat ? t -> shuffle(t, m, 1f, 0, width) : t -> shuffle(t, m, 1, 0, width);
                    try (Device device = TestDevices.reference(1, warpSize)) {
                        KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1), Dim3.of(4), k));
                        IllegalArgumentException cause = assertInstanceOf(IllegalArgumentException.class, e.getCause(), m + " " + width);
                        assertEquals("shuffle width must be a power of two in [1, " + warpSize + "]: " + width, cause.getMessage());
                        assertEquals(Dim3.of(0, 0, 0), e.threadIdx().orElseThrow());
                    }
                }
            }
        }
    }

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, SENTINEL);
        return a;
    }
}
