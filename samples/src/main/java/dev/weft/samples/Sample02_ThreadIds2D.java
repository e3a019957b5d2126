package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.runtime.Device;

/**
 * Lesson 2: thread ids in 2D. Grids and CTAs can be 2D (or 3D): images and matrices index naturally.
 *
 * <p>Here a 2D grid of 2D CTAs writes, for each pixel, which CTA and which thread computed it. Printed as a
 * small picture, you see the tiling: every CTA covers a {@code blockDim.x × blockDim.y} tile, and the tiles at
 * the right and bottom edges are partly outside the image, so their extra threads do nothing. Inside a CTA,
 * threads are numbered x first, then y, and consecutive groups of {@code warpSize} of them form warps
 * (PTX ISA 2.2.1): with 8×4 CTAs and 32-thread warps, each CTA is exactly one warp.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=2}. You should see a 20×10 map of
 * CTA letters and a map of lane numbers.
 */
public final class Sample02_ThreadIds2D {

    private Sample02_ThreadIds2D() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 2: thread ids in 2D");
        int width = 20;
        int height = 10;
        int[] cta = new int[width * height];
        int[] lane = new int[width * height];
        Dim3 block = Dim3.of(8, 4);
        Dim3 grid = Dim3.of((width + 7) / 8, (height + 3) / 4);

        try (Device device = Device.create()) {
            device.launch(grid, block, t -> {
                int col = t.globalIdX();
                int row = t.globalIdY();
                if (col < width && row < height) {
                    cta[row * width + col] = t.blockIdxY() * t.gridDimX() + t.blockIdxX();
                    lane[row * width + col] = t.laneId();
                }
            });
        }
        System.out.println("  grid " + grid + " of CTAs " + block + "; each letter is one CTA:");
        for (int row = 0; row < height; row++) {
            StringBuilder letters = new StringBuilder("    ");
            StringBuilder lanes = new StringBuilder("    ");
            for (int col = 0; col < width; col++) {
                int i = row * width + col;
                Lessons.check(cta[i] == (row / 4) * grid.x() + col / 8, "CTA of pixel (" + col + ", " + row + ")");
                Lessons.check(lane[i] == (row % 4) * 8 + col % 8, "lane of pixel (" + col + ", " + row + ")");
                letters.append((char) ('A' + cta[i]));
                lanes.append(String.format("%3d", lane[i]));
            }
            System.out.println(letters + "   " + lanes);
        }
        System.out.println("  ok: every pixel was computed by the CTA and lane its coordinates predict");
    }
}
