package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;

/**
 * Lesson 4: shared memory and barriers. Threads of one CTA share arrays, and meet at
 * {@code syncThreads()}.
 *
 * <p>Each CTA reverses its 256-element slice of an array: thread {@code i} writes element {@code i} into a
 * shared array, and then reads element {@code 255 - i}, which another thread wrote. The read is only
 * correct if that other thread has written already, which is what the barrier guarantees: no thread
 * passes {@code syncThreads()} until every thread of its CTA has reached it.
 *
 * <p>The second kernel leaves the barrier out. On a GPU the result is a race, sometimes right. On Weft's
 * reference executor it is reliably wrong, which makes the point visible: that executor runs each thread
 * until it must wait, in thread order, so thread 0 reads element 255 before thread 255 has written it.
 * Every CTA gets a fresh, zeroed shared array, so the missing values read as 0.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=4}. You should see 0 wrong
 * elements with the barrier, and about half of them wrong without it.
 */
public final class Sample04_SharedMemoryAndBarriers {

    private Sample04_SharedMemoryAndBarriers() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 4: shared memory and barriers");
        int block = 256;
        int n = block * 64;
        int[] in = new int[n];
        for (int i = 0; i < n; i++) {
            in[i] = i;
        }
        int[] out = new int[n];

        Kernel withBarrier = t -> {
            int[] tile = t.sharedInts(256);
            int i = t.threadIdxX();
            int base = t.blockIdxX() * t.blockDimX();
            tile[i] = in[base + i];
            t.syncThreads();
            out[base + i] = tile[255 - i];
        };
        Kernel withoutBarrier = t -> {
            int[] tile = t.sharedInts(256);
            int i = t.threadIdxX();
            int base = t.blockIdxX() * t.blockDimX();
            tile[i] = in[base + i];
            out[base + i] = tile[255 - i];
        };

        try (Device device = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE))) {
            device.launch(Dim3.of(n / block), Dim3.of(block), withBarrier);
            int wrongWith = wrong(out, block);
            device.launch(Dim3.of(n / block), Dim3.of(block), withoutBarrier);
            int wrongWithout = wrong(out, block);
            System.out.println("  with syncThreads():    " + wrongWith + " of " + n + " elements wrong");
            System.out.println("  without syncThreads(): " + wrongWithout + " of " + n + " elements wrong");
            Lessons.check(wrongWith == 0, "reversal with a barrier");
            Lessons.check(wrongWithout > 0, "the race should show on the reference executor");
        }
        System.out.println("  ok: the barrier is what makes the other threads' writes safe to read");
    }

    private static int wrong(int[] out, int block) {
        int bad = 0;
        for (int i = 0; i < out.length; i++) {
            int base = i / block * block;
            if (out[i] != base + (block - 1 - (i - base))) {
                bad++;
            }
        }
        return bad;
    }
}
