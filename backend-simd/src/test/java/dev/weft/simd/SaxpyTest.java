package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaxpyTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel saxpy(Object[] a) {
        float[] x = (float[]) a[0];
        float[] y = (float[]) a[1];
        float s = 2.5f;
        int n = x.length;
        return t -> {
            int i = t.globalIdX();
            if (i < n) {
                y[i] = s * x[i] + y[i];
            }
        };
    }

    @Test
    void saxpy_partialWarps_matchesReference() {
        int n = 1000;
        Object[] data = {Differential.floats(n, 1, -1, 1), Differential.floats(n, 2, -1, 1)};
        d.check(Dim3.of((n + 127) / 128), Dim3.of(128), SaxpyTest::saxpy, data);
    }

    @Test
    void saxpy_compileReport_hasListing() {
        Object[] data = {new float[10], new float[10]};
        var r = d.report(SaxpyTest::saxpy, data);
        assertTrue(r.compiled(), r.summary());
        assertTrue(r.listing().contains("contiguous"), r.listing());
    }
}
