package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With 4-lane (128-bit) registers no byte vector has as many lanes as an int register, so a kernel reading a byte
 * array runs on the reference executor, and its report says why. The build's JVMs have 8 or 16 lanes, so the
 * probe runs in a JVM of its own with {@code -XX:MaxVectorSize=16}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NarrowLanesDeclineTest {

    @Test
    void byteArray_fourLaneRegisters_declinedWithReason_resultStillRight() throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(java, "-XX:MaxVectorSize=16", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), Probe.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("lanes 4"), out);
        assertTrue(out.contains("compiled false"), out);
        assertTrue(out.contains("byte[] element load at NarrowLanesDeclineTest.java:")
                && out.contains(": no vector of 4 8-bit lanes with 128-bit registers (runs on the reference executor)"), out);
        assertTrue(out.contains("result ok"), out);
    }

    /** Runs in the probe JVM: compiles and launches the kernel, prints the lanes, the report and the check. */
    public static final class Probe {
        public static void main(String[] args) {
            int n = 300;
            byte[] x = new byte[n];
            for (int i = 0; i < n; i++) {
                x[i] = (byte) (i * 37);
            }
            int[] out = new int[n];
            Kernel k = t -> {
                int i = t.globalIdX();
                if (i < n) {
                    out[i] = x[i] * 3;
                }
            };
            try (Device device = Device.create()) {
                CompileReport r = device.compileReport(k);
                device.launch(Dim3.of(3), Dim3.of(128), k);
                int[] expect = new int[n];
                for (int i = 0; i < n; i++) {
                    expect[i] = x[i] * 3;
                }
                System.out.println("lanes " + jdk.incubator.vector.IntVector.SPECIES_PREFERRED.length());
                System.out.println("compiled " + r.compiled());
                List<String> reasons = r.reasons();
                reasons.forEach(System.out::println);
                System.out.println(Arrays.equals(expect, out) ? "result ok" : "result wrong");
            }
        }
    }
}
