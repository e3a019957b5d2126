package dev.weft.simd.internal.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.Device;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The C1 exclusion is in place before a compiled kernel runs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class C1ExclusionTest {

    @Test
    void launch_compiledKernel_directiveExcludesC1FromGeneratedClasses() throws Exception {
        float[] y = new float[300];
        Kernel k = t -> {
            int i = t.globalIdX();
            if (i < y.length) {
                y[i] = i * 2f;
            }
        };
        try (Device device = Device.create()) {
            CompileReport r = device.compileReport(k);
            assertTrue(r.compiled(), r.summary());
            device.launch(Dim3.of(3), Dim3.of(128), k);
        }
        assertEquals(598f, y[299]);
        assertFalse(C1Exclusion.failed(), "the directive did not install");
        String directives = String.valueOf(ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerDirectivesPrint",
                new Object[] {null}, new String[] {String[].class.getName()}));
        int at = directives.indexOf("matching: " + C1Exclusion.PATTERN);
        assertTrue(at >= 0, "no directive for the generated classes: " + directives);
        int c1 = directives.indexOf("c1 directives:", at);
        int c2 = directives.indexOf("c2 directives:", at);
        assertTrue(c1 > at && c2 > c1, directives);
        assertTrue(directives.substring(c1, c2).contains("Exclude:true"), "C1 not excluded: " + directives);
        assertFalse(directives.substring(c2, directives.indexOf("Directive:", c2) < 0 ? directives.length()
                : directives.indexOf("Directive:", c2)).contains("Exclude:true"), "C2 excluded too: " + directives);
    }

    @Test
    void generatedClasses_matchTheDirectivePattern() {
        // The pattern is a class-name prefix and a wildcard: every generated kernel class is named Kernel$... in the
        // hidden classes' package.
        assertTrue(C1Exclusion.PATTERN.startsWith(HiddenClasses.PACKAGE + "Kernel"), C1Exclusion.PATTERN);
        assertTrue(C1Exclusion.PATTERN.endsWith("*.*"), C1Exclusion.PATTERN);
    }
}
