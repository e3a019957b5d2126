package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.*;

import dev.weft.Dim3;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SmokeTest {
    @Test
    void saxpy_and_barrier() {
        try (Device d = Device.create(DeviceConfig.defaults().withExecutor(ExecutorChoice.REFERENCE))) {
            int n = 1000;
            float[] x = new float[n], y = new float[n];
            for (int i = 0; i < n; i++) { x[i] = i; y[i] = 1; }
            d.launch(Dim3.of((n + 127) / 128), Dim3.of(128), t -> {
                int i = t.globalIdX();
                if (i < n) y[i] = 2f * x[i] + y[i];
            });
            for (int i = 0; i < n; i++) assertEquals(2f * i + 1, y[i]);
            int[] out = new int[256];
            d.launch(Dim3.of(1), Dim3.of(256), t -> {
                int[] s = t.sharedInts(256);
                s[t.threadIdxX()] = t.threadIdxX();
                t.syncThreads();
                out[t.threadIdxX()] = s[255 - t.threadIdxX()] + t.ballot(t.laneId() < 3);
            });
            for (int i = 0; i < 256; i++) assertEquals(255 - i + 7, out[i]);
            KernelException e = assertThrows(KernelException.class, () -> d.launch(Dim3.of(1), Dim3.of(64), t -> {
                if (t.threadIdxX() < 32) t.syncThreads();
            }));
            System.out.println(e.getMessage());
        }
    }
}
