package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;

/**
 * Lesson 6: tiled matrix multiply. Shared memory as a cache the program manages itself.
 *
 * <p>{@code C = A·B} with one thread per element of C. A naive kernel reads a row of A and a column of B from
 * global memory for every element: each input is read N times. The tiled kernel lets a 16×16 CTA load a
 * 16×16 tile of A and one of B into shared memory together, synchronise, and then every thread uses the 16
 * values of each tile from there: global reads drop sixteenfold. Two barriers per tile: after the load
 * (the tile is complete) and after the use (nobody still reads it when the next load overwrites it).
 *
 * <p>The matrices here are 100×75 and 75×130: not multiples of 16. Threads whose element is outside C still
 * help load tiles (loading zeros past the edges), because every thread must reach every barrier. Each thread
 * accumulates its dot product in the same k order as the plain triple loop, so the results are identical to
 * the last bit.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=6}.
 */
public final class Sample06_TiledMatmul {

    private Sample06_TiledMatmul() {
    }

    static final int TILE = 16;

    public static void main(String[] args) {
        Lessons.title("Lesson 6: 16x16 tiled matrix multiply");
        int m = 100;
        int k = 75;
        int n = 130;
        float[] a = Lessons.random(m * k, 5);
        float[] b = Lessons.random(k * n, 6);
        float[] c = new float[m * n];

        Kernel matmul = t -> {
            float[] as = t.sharedFloats(TILE * TILE);
            float[] bs = t.sharedFloats(TILE * TILE);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * TILE + ty;
            int col = t.blockIdxX() * TILE + tx;
            float acc = 0f;
            for (int k0 = 0; k0 < k; k0 += TILE) {
                as[ty * TILE + tx] = row < m && k0 + tx < k ? a[row * k + k0 + tx] : 0f;
                bs[ty * TILE + tx] = k0 + ty < k && col < n ? b[(k0 + ty) * n + col] : 0f;
                t.syncThreads();
                for (int kk = 0; kk < TILE && k0 + kk < k; kk++) {
                    acc += as[ty * TILE + kk] * bs[kk * TILE + tx];
                }
                t.syncThreads();
            }
            if (row < m && col < n) {
                c[row * n + col] = acc;
            }
        };

        Dim3 block = Dim3.of(TILE, TILE);
        Dim3 grid = Dim3.of((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
        float[] expect = new float[m * n];
        Runnable plainLoop = () -> {
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    float acc = 0f;
                    for (int kk = 0; kk < k; kk++) {
                        acc += a[i * k + kk] * b[kk * n + j];
                    }
                    expect[i * n + j] = acc;
                }
            }
        };
        try (Device device = Device.create()) {
            device.launch(grid, block, matmul);
            plainLoop.run();
            Lessons.check(java.util.Arrays.equals(c, expect), "tiled matmul differs from the triple loop");
            double weft = Lessons.bestMillis(3, () -> device.launch(grid, block, matmul));
            double plain = Lessons.bestMillis(3, plainLoop);
            System.out.println("  C[" + m + "x" + n + "] = A[" + m + "x" + k + "] B[" + k + "x" + n + "], grid " + grid
                    + "; " + device.compileReport(matmul).summary());
            System.out.println(Lessons.row("Weft launch", weft));
            System.out.println(Lessons.row("plain Java triple loop", plain));
        }
        System.out.println("  ok: every element equals the triple loop's, bit for bit");
    }
}
