package dev.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Dim3;
import dev.weft.runtime.Device;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's "API in one example", verbatim inside the try block, so the README cannot rot. */
class ReadmeExampleTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void readmeExample_computesSaxpy() {
        float[] x = new float[1000];
        float[] y = new float[1000];
        for (int i = 0; i < x.length; i++) {
            x[i] = i;
            y[i] = 1;
        }
        // --- README begins
        try (Device device = Device.create()) {
            int n = x.length;
            float a = 2f;
            device.launch(Dim3.of((n + 255) / 256), Dim3.of(256), t -> {
                int i = t.blockIdxX() * t.blockDimX() + t.threadIdxX();   // or t.globalIdX()
                if (i < n) y[i] = a * x[i] + y[i];
            });
        }
        // --- README ends
        for (int i = 0; i < x.length; i++) {
            assertEquals(2f * i + 1f, y[i]);
        }
    }
}
