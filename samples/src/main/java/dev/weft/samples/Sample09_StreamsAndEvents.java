package dev.weft.samples;

import dev.weft.Dim3;
import dev.weft.runtime.Device;
import dev.weft.runtime.Event;
import dev.weft.runtime.Stream;
import java.util.concurrent.CompletableFuture;

/**
 * Lesson 9: streams and events. Launches that return at once, run in order per stream, and wait for
 * each other only where the program says so.
 *
 * <p>Two streams each fill and then scale their own array: within a stream the two launches run in order;
 * between the streams there is no order, so they may overlap on the device's SMs. A third launch adds the
 * two arrays: its stream first {@linkplain Stream#waitFor waits for} an event recorded on the other stream,
 * which is how grids that depend on grids are joined. The host gets a {@link CompletableFuture} per launch
 * and can compose them like any other futures.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec -Dtour.args=9}.
 */
public final class Sample09_StreamsAndEvents {

    private Sample09_StreamsAndEvents() {
    }

    public static void main(String[] args) {
        Lessons.title("Lesson 9: streams and events");
        int n = 1 << 16;
        float[] a = new float[n];
        float[] b = new float[n];
        Dim3 grid = Dim3.of(n / 256);
        Dim3 block = Dim3.of(256);
        try (Device device = Device.create()) {
            Stream s1 = device.createStream();
            Stream s2 = device.createStream();
            s1.launch(grid, block, t -> a[t.globalIdX()] = t.globalIdX());
            CompletableFuture<Void> scaled = s1.launch(grid, block, t -> a[t.globalIdX()] *= 2f);
            s2.launch(grid, block, t -> b[t.globalIdX()] = 1f);
            Event aReady = s1.record();
            s2.waitFor(aReady);
            CompletableFuture<Void> sum = s2.launch(grid, block, t -> b[t.globalIdX()] += a[t.globalIdX()]);
            System.out.println("  launched 4 kernels on 2 streams; the host is free meanwhile");
            CompletableFuture.allOf(scaled, sum).join();
            device.synchronize();
        }
        for (int i = 0; i < n; i++) {
            Lessons.check(b[i] == 2f * i + 1f, "b[" + i + "]");
        }
        System.out.println("  ok: b[i] = 2i + 1 for every i: the event ordered the add after the scale");
    }
}
