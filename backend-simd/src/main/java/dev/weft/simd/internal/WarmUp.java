package dev.weft.simd.internal;

import dev.weft.Kernel;
import dev.weft.runtime.spi.DeviceShape;

/**
 * Compiles two small kernels on a daemon thread when the first compiling device is created, so that the
 * compiler's one-time costs (loading some 2,000 classes of the ClassFile and Vector APIs and of the compiler,
 * and running it interpreted) fall there and not on the first user kernel's launch. Measured here in a fresh
 * JVM: a saxpy compile took 250 ms cold against 10-40 ms after this warm-up.
 *
 * <p>The kernels cover the common paths: float and int arithmetic, an affine load and store, a guard, a
 * divergent loop with a break, {@code Math} calls. Their compilations are cached like any other, under this
 * class. A failure here is ignored: the first real compile then simply pays the cost itself.
 */
final class WarmUp {

    private WarmUp() {
    }

    /** Starts the warm-up thread. */
    static void start(SimdBackend backend) {
        Thread t = new Thread(() -> run(backend), "weft-compiler-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run(SimdBackend backend) {
        try {
            DeviceShape shape = new DeviceShape(32, 48 * 1024);
            backend.compile(saxpy(new float[1], new float[1], 2f), shape);
            backend.compile(escape(new int[1], 0.5f, 64), shape);
        } catch (RuntimeException | LinkageError e) {
            // Only a cost moved, not a result: the first real compile pays it instead.
        }
    }

    private static Kernel saxpy(float[] x, float[] y, float a) {
        return t -> {
            int i = t.globalIdX();
            if (i < y.length) {
                y[i] = a * x[i] + y[i];
            }
        };
    }

    private static Kernel escape(int[] out, float scale, int limit) {
        return t -> {
            int i = t.globalIdX();
            if (i >= out.length) {
                return;
            }
            float c = scale * i;
            float z = 0f;
            int n = 0;
            for (; n < limit; n++) {
                z = z * z + c;
                if (Math.abs(z) > 2f) {
                    break;
                }
            }
            out[i] = n + (int) Math.sqrt(Math.max(z, 0f));
        };
    }
}
