package dev.weft.simd;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Library functions the compiler lowers without inlining, on varying arguments with their edge values, found wrong by
 * the fuzzer's extra constructs (KernelGenerator.Options#extras).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IntrinsicKernelsTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel isNaN(Object[] a) {
        double[] x = (double[]) a[0];
        float[] f = (float[]) a[1];
        int[] out = (int[]) a[2];
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            out[2 * i] = Double.isNaN(x[i]) ? 1 : 0;
            out[2 * i + 1] = Float.isNaN(f[i]) ? 3 : 2;
        };
    }

    /** Double.isNaN had a vector helper that did not exist (NoSuchMethodError at run time; FuzzTest seed 0x14100052). */
    @Test
    void isNaN_varyingDoubleAndFloat_matchesReference() {
        int n = 100;
        double[] x = Differential.doubles(n, 71, -4, 4);
        float[] f = Differential.floats(n, 72, -4, 4);
        for (int i = 0; i + 1 < n; i += 3) {
            x[i] = i % 2 == 0 ? Double.NaN : Double.POSITIVE_INFINITY;
            f[i + 1] = Float.NaN;
        }
        d.check(Dim3.of(2), Dim3.of(64), IntrinsicKernelsTest::isNaN, x, f, new int[2 * n]);
    }
}
