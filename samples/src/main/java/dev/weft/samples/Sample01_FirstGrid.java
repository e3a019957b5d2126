package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;

/**
 * Lesson 1: a first grid. SAXPY, {@code y = a·x + y}, with one thread per element.
 *
 * <p>A CUDA kernel is the code of one thread. The launch says how many threads: a grid of CTAs (thread
 * blocks), each of {@code blockDim} threads. Each thread computes its global index from {@code blockIdx},
 * {@code blockDim} and {@code threadIdx}, and handles that one element. The grid is rounded up to whole
 * CTAs, so the last CTA has threads past the end of the array: the {@code if (i < n)} guard is not
 * optional, it is how every CUDA kernel handles a size that is not a multiple of the CTA.
 *
 * <p>The captured values {@code a}, {@code x}, {@code y} and {@code n} are the kernel's parameters, the same
 * for every thread.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=1}. You should see the Weft time next
 * to a plain Java loop, and "ok". A memory-bound kernel like this one is limited by bandwidth, so expect
 * the two to be close once the kernel is compiled; on the reference executor (every thread a Java
 * continuation), expect it to be far slower: that executor is the specification, not the fast path.
 */
public final class Sample01_FirstGrid {

    private Sample01_FirstGrid() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 1: a first grid (SAXPY)");
        int n = 1 << 20;
        float a = 2.5f;
        float[] x = Lessons.random(n, 1);
        float[] y0 = Lessons.random(n, 2);
        float[] y = Lessons.copy(y0);

        try (Device device = Device.create()) {
            Kernel saxpy = t -> {
                int i = t.blockIdxX() * t.blockDimX() + t.threadIdxX(); // t.globalIdX() says the same
                if (i < n) {
                    y[i] = a * x[i] + y[i];
                }
            };
            Dim3 block = Dim3.of(256);
            Dim3 grid = Dim3.of((n + block.x() - 1) / block.x());
            device.launch(grid, block, saxpy);

            float[] expect = Lessons.copy(y0);
            for (int i = 0; i < n; i++) {
                expect[i] = a * x[i] + expect[i];
            }
            Lessons.check(java.util.Arrays.equals(y, expect), "saxpy differs from the plain loop");

            double weft = Lessons.bestMillis(5, () -> device.launch(grid, block, saxpy));
            double plain = Lessons.bestMillis(5, () -> {
                for (int i = 0; i < n; i++) {
                    y[i] = a * x[i] + y[i];
                }
            });
            System.out.println("  n = " + n + ", grid " + grid + " x block " + block + "; "
                    + device.compileReport(saxpy).summary());
            System.out.println(Lessons.row("Weft launch", weft));
            System.out.println(Lessons.row("plain Java loop", plain));
            System.out.println("  ok: every element equals the plain loop's");
        }
    }
}
