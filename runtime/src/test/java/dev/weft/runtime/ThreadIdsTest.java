package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Atomics;
import dev.weft.Dim3;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every thread of a launch runs exactly once and sees the coordinates CUDA would give it: 1D, 2D and 3D
 * grids and CTAs, partial warps, 1-thread and 1024-thread CTAs, and warps of other sizes than 32.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThreadIdsTest {

    // Fields each thread records, at slot (global linear thread) * FIELDS.
    private static final int TX = 0, TY = 1, TZ = 2, BX = 3, BY = 4, BZ = 5, BDX = 6, BDY = 7, BDZ = 8,
            GDX = 9, GDY = 10, GDZ = 11, GIX = 12, GIY = 13, GIZ = 14, LINEAR = 15, LANE = 16, WARP = 17,
            WARP_SIZE = 18, FIELDS = 19;

    static Stream<Arguments> shapes() {
        return Stream.of(
                Arguments.of(Dim3.of(7), Dim3.of(100), 32),          // 1D, last warp of each CTA partial (4 lanes)
                Arguments.of(Dim3.of(5), Dim3.of(1), 32),            // 1-thread CTAs
                Arguments.of(Dim3.of(3), Dim3.of(1024), 32),         // largest CTA
                Arguments.of(Dim3.of(3, 4), Dim3.of(16, 8), 32),     // 2D
                Arguments.of(Dim3.of(2, 3), Dim3.of(5, 7), 32),      // 2D, 35 threads: partial warp
                Arguments.of(Dim3.of(2, 3, 4), Dim3.of(4, 3, 5), 32),// 3D, 60 threads
                Arguments.of(Dim3.of(1, 2, 2), Dim3.of(8, 8, 16), 32),// 3D, 1024 threads
                Arguments.of(Dim3.of(1, 1, 3), Dim3.of(1, 1, 64), 32),// z-only CTA at its limit
                Arguments.of(Dim3.of(3, 2), Dim3.of(5, 3, 2), 8),     // warps of 8, 30 threads
                Arguments.of(Dim3.of(4), Dim3.of(1024), 8),
                Arguments.of(Dim3.of(2, 2), Dim3.of(7, 3), 1),        // every thread its own warp
                Arguments.of(Dim3.of(2), Dim3.of(50), 16));
    }

    @ParameterizedTest(name = "grid {0} block {1} warpSize {2}")
    @MethodSource("shapes")
    void launch_everyThreadRunsOnce_withCudaCoordinates(Dim3 grid, Dim3 block, int warpSize) {
        int threadsPerCta = (int) block.volume();
        int total = (int) (grid.volume() * threadsPerCta);
        int[] runs = new int[total];
        int[] seen = new int[total * FIELDS];
        try (Device device = TestDevices.reference(2, warpSize)) {
            device.launch(grid, block, t -> {
                int cta = (t.blockIdxZ() * t.gridDimY() + t.blockIdxY()) * t.gridDimX() + t.blockIdxX();
                int tid = (t.threadIdxZ() * t.blockDimY() + t.threadIdxY()) * t.blockDimX() + t.threadIdxX();
                int slot = cta * t.blockDimX() * t.blockDimY() * t.blockDimZ() + tid;
                Atomics.add(runs, slot, 1);
                int o = slot * FIELDS;
                seen[o + TX] = t.threadIdxX();
                seen[o + TY] = t.threadIdxY();
                seen[o + TZ] = t.threadIdxZ();
                seen[o + BX] = t.blockIdxX();
                seen[o + BY] = t.blockIdxY();
                seen[o + BZ] = t.blockIdxZ();
                seen[o + BDX] = t.blockDimX();
                seen[o + BDY] = t.blockDimY();
                seen[o + BDZ] = t.blockDimZ();
                seen[o + GDX] = t.gridDimX();
                seen[o + GDY] = t.gridDimY();
                seen[o + GDZ] = t.gridDimZ();
                seen[o + GIX] = t.globalIdX();
                seen[o + GIY] = t.globalIdY();
                seen[o + GIZ] = t.globalIdZ();
                seen[o + LINEAR] = t.linearThreadIdx();
                seen[o + LANE] = t.laneId();
                seen[o + WARP] = t.warpId();
                seen[o + WARP_SIZE] = t.warpSize();
            });
        }
        for (int slot = 0; slot < total; slot++) {
            int cta = slot / threadsPerCta;
            int tid = slot % threadsPerCta;
            int bx = cta % grid.x(), by = cta / grid.x() % grid.y(), bz = cta / grid.x() / grid.y();
            int tx = tid % block.x(), ty = tid / block.x() % block.y(), tz = tid / block.x() / block.y();
            String at = "blockIdx " + Dim3.of(bx, by, bz) + " threadIdx " + Dim3.of(tx, ty, tz);
            assertEquals(1, runs[slot], at + " runs exactly once");
            int o = slot * FIELDS;
            int[] want = new int[FIELDS];
            want[TX] = tx;
            want[TY] = ty;
            want[TZ] = tz;
            want[BX] = bx;
            want[BY] = by;
            want[BZ] = bz;
            want[BDX] = block.x();
            want[BDY] = block.y();
            want[BDZ] = block.z();
            want[GDX] = grid.x();
            want[GDY] = grid.y();
            want[GDZ] = grid.z();
            want[GIX] = bx * block.x() + tx;
            want[GIY] = by * block.y() + ty;
            want[GIZ] = bz * block.z() + tz;
            want[LINEAR] = tx + block.x() * (ty + block.y() * tz);
            want[LANE] = want[LINEAR] % warpSize;
            want[WARP] = want[LINEAR] / warpSize;
            want[WARP_SIZE] = warpSize;
            for (int f = 0; f < FIELDS; f++) {
                assertEquals(want[f], seen[o + f], at + " field " + f);
            }
        }
    }
}
