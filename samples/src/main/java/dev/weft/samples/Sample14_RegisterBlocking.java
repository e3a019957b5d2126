package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;

/**
 * Lesson 14: register blocking. More than one result per thread, so that a thread's work overlaps with itself.
 *
 * <p>Lesson 6's tiled multiply gives each thread one element of C. Per step of k a thread reads two shared
 * words ({@code as[ty][k]} and {@code bs[k][tx]}) for one multiply-add, and its sum is a single chain of
 * dependent adds. Fast GPU kernels give each thread several elements, held in registers: here four, rows
 * {@code ty}, {@code ty + 16}, {@code ty + 32} and {@code ty + 48} of a 64 × 16 tile of C. Per step a thread
 * then reads {@code bs[k][tx]} once for four multiply-adds (1.25 shared reads per multiply-add instead of 2),
 * and its four sums are four independent chains.
 *
 * <p>On a GPU the first point is the one that counts: shared memory's bandwidth limits the one-element kernel,
 * while the latency of each dependent add is hidden by switching to another warp, every cycle if need be. A CPU
 * core cannot switch warps: Weft runs a group's code, then the next group's, and hides latency only with
 * independent instructions within the code it runs. Java adds in program order, so each add waits for the
 * previous one of its chain (3 cycles or more), and the compiled k-loop of the one-element kernel has one
 * chain per vector register: the floating-point units sit mostly idle. With four elements per thread the same
 * loop has four times the chains, and the core overlaps them. So register blocking, a bandwidth optimisation
 * on a GPU, is a latency optimisation here, and the larger one of the two.
 *
 * <p>Both kernels add each element's products in the same k order as the plain triple loop, with a separate
 * multiply and add, so both results equal it to the last bit. The matrices are 256 × 256, a multiple of the
 * tiles, so that the kernels need no edge tests (lesson 6 has them). The timings are best-of-N wall times
 * after the JIT has compiled the kernels, there to show the order of magnitude; the benchmarks module measures
 * properly (JMH; {@code SgemmRegisterBlockedBenchmark} blocks 4 × 4 per thread).
 *
 * <p>Run it: {@code mvn -q -pl samples -am compile exec:exec -Dtour.args=14}. You should see both results
 * equal to the triple loop's, four times the add chains for the four-element kernel, and that kernel faster.
 */
public final class Sample14_RegisterBlocking {

    private Sample14_RegisterBlocking() {
    }

    static final int TILE = 16;
    /** Elements of C per thread in the blocked kernel: a column of them, 16 rows apart. */
    static final int PER_THREAD = 4;

    public static void main(String[] args) {
        Lessons.title("Lesson 14: register blocking, several results per thread");
        int n = 256;
        float[] a = Lessons.random(n * n, 41);
        float[] b = Lessons.random(n * n, 42);
        float[] one = new float[n * n];
        float[] four = new float[n * n];

        // Lesson 6's kernel: one element of C per thread, a 16 x 16 tile of C per CTA.
        Kernel oneElement = t -> {
            float[] as = t.sharedFloats(TILE * TILE);
            float[] bs = t.sharedFloats(TILE * TILE);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * TILE + ty;
            int col = t.blockIdxX() * TILE + tx;
            float acc = 0f;
            for (int k0 = 0; k0 < n; k0 += TILE) {
                as[ty * TILE + tx] = a[row * n + k0 + tx];
                bs[ty * TILE + tx] = b[(k0 + ty) * n + col];
                t.syncThreads();
                for (int k = 0; k < TILE; k++) {
                    acc += as[ty * TILE + k] * bs[k * TILE + tx];
                }
                t.syncThreads();
            }
            one[row * n + col] = acc;
        };

        // Four elements per thread, rows ty + 16 i of a 64 x 16 tile of C: the CTA loads a 64 x 16 slice of A.
        Kernel fourElements = t -> {
            float[] as = t.sharedFloats(PER_THREAD * TILE * TILE);
            float[] bs = t.sharedFloats(TILE * TILE);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row0 = t.blockIdxY() * PER_THREAD * TILE + ty;
            int col = t.blockIdxX() * TILE + tx;
            float acc0 = 0f;
            float acc1 = 0f;
            float acc2 = 0f;
            float acc3 = 0f;
            for (int k0 = 0; k0 < n; k0 += TILE) {
                for (int i = 0; i < PER_THREAD; i++) {
                    as[(ty + TILE * i) * TILE + tx] = a[(row0 + TILE * i) * n + k0 + tx];
                }
                bs[ty * TILE + tx] = b[(k0 + ty) * n + col];
                t.syncThreads();
                for (int k = 0; k < TILE; k++) {
                    float bk = bs[k * TILE + tx];
                    acc0 += as[ty * TILE + k] * bk;
                    acc1 += as[(ty + TILE) * TILE + k] * bk;
                    acc2 += as[(ty + 2 * TILE) * TILE + k] * bk;
                    acc3 += as[(ty + 3 * TILE) * TILE + k] * bk;
                }
                t.syncThreads();
            }
            four[row0 * n + col] = acc0;
            four[(row0 + TILE) * n + col] = acc1;
            four[(row0 + 2 * TILE) * n + col] = acc2;
            four[(row0 + 3 * TILE) * n + col] = acc3;
        };

        float[] expect = new float[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float acc = 0f;
                for (int k = 0; k < n; k++) {
                    acc += a[i * n + k] * b[k * n + j];
                }
                expect[i * n + j] = acc;
            }
        }

        Dim3 block = Dim3.of(TILE, TILE);
        Dim3 gridOne = Dim3.of(n / TILE, n / TILE);
        Dim3 gridFour = Dim3.of(n / TILE, n / (PER_THREAD * TILE));
        try (Device device = Device.create()) {
            device.launch(gridOne, block, oneElement);
            device.launch(gridFour, block, fourElements);
            Lessons.check(Arrays.equals(one, expect), "one element per thread differs from the triple loop");
            Lessons.check(Arrays.equals(four, expect), "four elements per thread differ from the triple loop");

            // Launches until the JIT has compiled the kernels' code (a few seconds), then the best of 20 each.
            long warm = System.nanoTime() + 4_000_000_000L;
            while (System.nanoTime() < warm) {
                device.launch(gridOne, block, oneElement);
                device.launch(gridFour, block, fourElements);
            }
            double msOne = Lessons.bestMillis(20, () -> device.launch(gridOne, block, oneElement));
            double msFour = Lessons.bestMillis(20, () -> device.launch(gridFour, block, fourElements));
            CompileReport reportOne = device.compileReport(oneElement);
            CompileReport reportFour = device.compileReport(fourElements);

            int lanes = FloatVector.SPECIES_PREFERRED.length();
            double gflop = 2.0 * n * n * n / 1e9;
            System.out.println("  C = A.B, " + n + " x " + n + ", 16 x 16 threads per CTA; " + lanes + " float lanes per vector register");
            System.out.printf("  %-26s %-22s %-26s %s%n", "", "GPU: shared reads", "Weft: add chains per", "Weft: time");
            System.out.printf("  %-26s %-22s %-26s%n", "", "per multiply-add", "register in the k-loop");
            System.out.printf("  %-26s %-22s %-26s %8.3f ms  %5.1f GFLOP/s  (%s)%n", "one element per thread", "2", "1", msOne,
                    gflop / msOne * 1e3, Lessons.executor(reportOne));
            System.out.printf("  %-26s %-22s %-26s %8.3f ms  %5.1f GFLOP/s  (%s)%n", "four elements per thread", "1.25", "4", msFour,
                    gflop / msFour * 1e3, Lessons.executor(reportFour));
            System.out.printf("  four elements per thread: %.1fx the one-element kernel's speed%n", msOne / msFour);
            Lessons.check(reportOne.compiled() && reportFour.compiled(), "both kernels compiled by the SIMD backend");
        }
        System.out.println("  ok: both equal the triple loop to the last bit; a GPU hides an add's latency with other");
        System.out.println("      warps, a CPU core only with independent work in the same code: more results per thread");
    }
}
