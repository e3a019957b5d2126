package dev.weft.simd.corpus;

import dev.weft.Dim3;
import java.util.List;

/**
 * The launch shapes the corpus runs its kernels over. Each list mixes full warps, a partial last warp
 * (CTAs whose thread count is not a multiple of 32), a 1-thread CTA and a 1024-thread CTA, so every kernel
 * meets the tails a compiler has to mask.
 */
public final class Shapes {

    private Shapes() {
    }

    /** 1D grids and CTAs. */
    public static final List<Shape> LINE = List.of(
            Shape.of(1, 1),        // a 1-thread CTA: a warp with one active lane
            Shape.of(3, 32),       // whole warps
            Shape.of(2, 100),      // 3 full warps and a 4-lane tail
            Shape.of(1, 1024),     // the largest CTA: 32 warps
            Shape.of(7, 45));      // many CTAs, each a full warp and a 13-lane tail

    /** A shorter 1D list for kernels whose per-thread work is long (loops over the whole input). */
    public static final List<Shape> LINE_SMALL = List.of(
            Shape.of(1, 1),
            Shape.of(2, 100),
            Shape.of(1, 256),
            Shape.of(3, 17));

    /** Many 1-thread CTAs: every warp has a single lane. */
    public static final List<Shape> ONE_THREAD_CTAS = List.of(
            Shape.of(1, 1),
            Shape.of(37, 1),
            Shape.of(Dim3.of(5, 3), Dim3.of(1)));

    /** Only 1024-thread CTAs, 1D, 2D and 3D. */
    public static final List<Shape> FULL_CTAS = List.of(
            Shape.of(1, 1024),
            Shape.of(Dim3.of(2), Dim3.of(32, 32)),
            Shape.of(Dim3.of(1, 2), Dim3.of(16, 4, 16)));

    /** 2D grids and CTAs. */
    public static final List<Shape> PLANE = List.of(
            Shape.of(Dim3.of(1, 1), Dim3.of(1, 1)),
            Shape.of(Dim3.of(3, 2), Dim3.of(16, 8)),       // 128-thread CTAs, rows of half a warp
            Shape.of(Dim3.of(2, 3), Dim3.of(5, 7)),        // 35 threads: a full warp and a 3-lane tail
            Shape.of(Dim3.of(1, 1), Dim3.of(32, 32)),      // 1024 threads
            Shape.of(Dim3.of(4, 1), Dim3.of(33, 3)));      // rows that straddle warps

    /** 2D shapes with fewer threads, for kernels that loop over whole rows or columns. */
    public static final List<Shape> PLANE_SMALL = List.of(
            Shape.of(Dim3.of(1, 1), Dim3.of(1, 1)),
            Shape.of(Dim3.of(2, 2), Dim3.of(8, 8)),
            Shape.of(Dim3.of(3, 2), Dim3.of(5, 7)),
            Shape.of(Dim3.of(1, 1), Dim3.of(24, 20)));

    /** 3D grids and CTAs. */
    public static final List<Shape> VOLUME = List.of(
            Shape.of(Dim3.of(1, 1, 1), Dim3.of(1, 1, 1)),
            Shape.of(Dim3.of(2, 2, 2), Dim3.of(4, 4, 4)),  // 64 threads: two whole warps
            Shape.of(Dim3.of(1, 2, 3), Dim3.of(3, 5, 7)),  // 105 threads: a 9-lane tail
            Shape.of(Dim3.of(1, 1, 2), Dim3.of(8, 8, 16)), // 1024 threads
            Shape.of(Dim3.of(3, 1, 1), Dim3.of(2, 3, 2)));  // 12 threads: less than a warp
}
