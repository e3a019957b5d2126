package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.runtime.Device;
import dev.weft.runtime.KernelException;

/**
 * Lesson 10: what happens on bad input. A GPU runtime must fail clearly, never hang, and stay usable.
 *
 * <p>Four mistakes, and what Weft says about each: a CTA larger than the hardware allows is rejected before
 * any thread runs, naming the parameter and the limit; an exception in one thread fails the launch with that
 * thread's CTA and coordinates (and the remaining CTAs are cancelled); a barrier inside a branch that only
 * some threads take is reported with where each thread was, instead of the hang it would be on a GPU; and
 * after all of this the same device runs the next launch normally.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=10}.
 */
public final class Sample10_BadInput {

    private Sample10_BadInput() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 10: bad input");
        int[] data = new int[1000];
        try (Device device = Device.create()) {
            try {
                device.launch(Dim3.of(1), Dim3.of(2048), t -> { });
                Lessons.check(false, "a 2048-thread CTA must be rejected");
            } catch (IllegalArgumentException e) {
                System.out.println("  2048 threads per CTA  -> " + e.getMessage());
            }
            try {
                device.launch(Dim3.of(8), Dim3.of(128), t -> data[t.globalIdX()] = 1);
                Lessons.check(false, "an out-of-bounds store must fail the launch");
            } catch (KernelException e) {
                System.out.println("  out-of-bounds store   -> " + e.getMessage());
                Lessons.check(e.threadIdx().isPresent(), "the failing thread is named");
            }
            try {
                device.launch(Dim3.of(1), Dim3.of(64), t -> {
                    if (t.threadIdxX() % 2 == 0) {
                        t.syncThreads();
                    }
                });
                Lessons.check(false, "a divergent barrier must fail the launch");
            } catch (KernelException e) {
                System.out.println("  barrier in a branch   -> " + e.getMessage());
            }
            int[] ok = new int[1];
            device.launch(Dim3.of(1), Dim3.of(1), t -> ok[0] = 42);
            Lessons.check(ok[0] == 42, "the device must still work");
            System.out.println("  ok: each mistake was reported, and the device ran the next launch");
        }
    }
}
