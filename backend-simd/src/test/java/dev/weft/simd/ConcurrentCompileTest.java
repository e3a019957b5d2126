package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Atomics;
import dev.weft.Kernel;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.simd.internal.SimdBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The backend compiles from several threads at once (the SPI says implementations are thread-safe): the
 * background warm-up compiles while the first launches do, and streams launch from any thread. A lazily
 * filled static {@code HashMap} in the code generator once made a launch fall back with a
 * ConcurrentModificationException while the warm-up compiled. A race test: it catches such state only when the
 * threads meet in it, so it guards against regressions probabilistically, not deterministically.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrentCompileTest {

    @Test
    void compile_distinctKernelsFromManyThreads_allCompile() throws Exception {
        int threads = 4;
        int rounds = 3;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> results = new ArrayList<>();
            SimdBackend backend = new SimdBackend();
            for (int i = 0; i < threads * rounds; i++) {
                int which = i;
                results.add(pool.submit(() -> {
                    start.await();
                    Compilation c = backend.compile(kernel(which), new DeviceShape(32, 48 * 1024));
                    return c instanceof Compilation.Compiled ? "compiled" : c.toString();
                }));
            }
            start.countDown();
            for (Future<String> f : results) {
                assertEquals("compiled", f.get(100, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Four implementation methods: compiles of different methods run in parallel, of one method once. */
    private static Kernel kernel(int which) {
        float[] f = new float[64];
        int[] bins = new int[8];
        double[] d = new double[64];
        return switch (which % 4) {
            case 0 -> t -> {
                int i = t.globalIdX();
                if (i < f.length) {
                    f[i] = (float) Math.sqrt(f[i]) * 2f + Math.abs(f[i]);
                }
            };
            case 1 -> t -> {
                float[] s = t.sharedFloats(t.blockDimX());
                s[t.threadIdxX()] = t.threadIdxX();
                t.syncThreads();
                f[t.globalIdX() % f.length] = s[t.blockDimX() - 1 - t.threadIdxX()];
            };
            case 2 -> t -> Atomics.add(bins, t.globalIdX() & 7, 1);
            default -> t -> {
                int i = t.globalIdX();
                double v = 0;
                for (int k = 0; k < (i & 7); k++) {
                    v = Math.fma(v, 0.5, d[(i + k) % d.length]);
                }
                d[i % d.length] = Math.max(v, -1.0);
            };
        };
    }
}
