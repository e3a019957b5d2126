package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The binder's two ways of building a launch's program: through an array until its direct handle is built, then direct. */
class BinderTest {

    private static final int WARP = 32;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void bind_throughArrayAndDirect_passTheSameCapturedValues() throws Throwable {
        float[] out = new float[WARP];
        Kernel k = kernel(out, true, 'A', (byte) -3, (short) 300, 7, 1L << 33, 0.5f, 2.25);
        LambdaSource src = LambdaSource.of(k);
        Compiler.Code code = Compiler.compile(src, WARP);
        Binder binder = Binder.create(k.getClass(), src.lambda, code.entry(), code.params(), src.loader);

        run(binder.bindThroughArray(k));
        float[] throughArray = out.clone();
        java.util.Arrays.fill(out, 0f);
        while (!binder.directReady()) {
            Thread.sleep(1);
        }
        run(binder.bind(k));

        float[] expected = new float[WARP];
        for (int x = 0; x < WARP; x++) {
            expected[x] = 1 + 'A' - 3 + 300 + 7 + 8 + 0.5f + 2.25f + x;
        }
        assertArrayEquals(expected, throughArray);
        assertArrayEquals(expected, out);
        assertTrue(binder.directReady());
    }

    private static Kernel kernel(float[] out, boolean b, char c, byte by, short s, int i, long l, float f, double d) {
        return t -> {
            int x = t.threadIdxX();
            out[x] = (b ? 1 : 0) + c + by + s + i + (float) (l >> 30) + f + (float) d + x;
        };
    }

    private static void run(CtaProgram program) {
        Dim3 grid = new Dim3(1, 1, 1);
        Dim3 block = new Dim3(WARP, 1, 1);
        Cta cta = new Cta();
        cta.start(0, 0, 0, grid, block, WARP, null, 48 * 1024, "binder test");
        program.runCta(cta);
    }
}
