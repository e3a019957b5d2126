package dev.weft.samples;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;

/**
 * Lesson 7: atomics and a histogram. When many threads update the same memory, plain {@code +=} loses
 * updates; atomics do not.
 *
 * <p>Every thread classifies one byte into one of 64 bins. The first kernel updates the global histogram
 * with {@link Atomics#add(int[], int, int)}: correct, but all threads of all SMs contend for 64 counters.
 * The second is how GPU code does it: each CTA builds a private histogram in shared memory (atomics there
 * only contend within the CTA), then adds its 64 bins to the global one, one atomic per bin per CTA.
 * The third uses a plain {@code +=} on the global array, and loses counts as soon as two SMs update the
 * same bin at once.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=7}. You should see the first two
 * totals equal to the input size, and the plain one, run on several SMs, short of it (how much varies).
 */
public final class Sample07_AtomicsHistogram {

    private Sample07_AtomicsHistogram() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 7: atomics and a histogram");
        int n = 1 << 20;
        byte[] bytes = new byte[n];
        new java.util.Random(6).nextBytes(bytes);
        int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = bytes[i] & 0xff;
        }
        int[] expect = new int[64];
        for (int v : data) {
            expect[v >> 2]++;
        }

        int[] global = new int[64];
        Kernel globalAtomics = t -> {
            int i = t.globalIdX();
            if (i < n) {
                Atomics.add(global, data[i] >> 2, 1);
            }
        };
        int[] viaShared = new int[64];
        Kernel sharedAtomics = t -> {
            int[] bins = t.sharedInts(64);
            int i = t.globalIdX();
            if (i < n) {
                Atomics.add(bins, data[i] >> 2, 1);
            }
            t.syncThreads();
            int tid = t.threadIdxX();
            if (tid < 64) {
                Atomics.add(viaShared, tid, bins[tid]);
            }
        };
        int[] racy = new int[64];
        Kernel plainAdd = t -> {
            int i = t.globalIdX();
            if (i < n) {
                racy[data[i] >> 2] += 1;
            }
        };

        Dim3 grid = Dim3.of(n / 256);
        Dim3 block = Dim3.of(256);
        try (Device device = Device.create()) {
            device.launch(grid, block, globalAtomics);
            device.launch(grid, block, sharedAtomics);
            device.launch(grid, block, plainAdd);
        }
        System.out.println("  global atomics:        total " + java.util.Arrays.stream(global).sum() + " of " + n);
        System.out.println("  shared, then global:   total " + java.util.Arrays.stream(viaShared).sum() + " of " + n);
        System.out.println("  plain +=, no atomics:  total " + java.util.Arrays.stream(racy).sum() + " of " + n
                + "  (lost updates: a data race)");
        Lessons.check(java.util.Arrays.equals(global, expect), "histogram with global atomics");
        Lessons.check(java.util.Arrays.equals(viaShared, expect), "histogram with shared atomics");
        System.out.println("  ok: both atomic histograms match a sequential count exactly");
    }
}
