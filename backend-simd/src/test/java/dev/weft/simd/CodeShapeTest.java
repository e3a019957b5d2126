package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of the generated code where it decides whether C2 keeps vectors in registers; checked on the class
 * files that {@code -Dweft.simd.dump} writes, never by timing.
 *
 * <p>Vector locals must be fresh per group of threads: a vector computed before the loop over a CTA's groups is
 * carried around it, and where a region is skipped in some groups (a branch on the warp's parity) C2 then boxes
 * every vector the kernel's loops carry, a Float256Vector and a float[] per iteration and register.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CodeShapeTest {

    @Test
    void generatedCode_warpGroupedBranchWithLoops_noVectorBeforeTheGroupLoop(@TempDir Path dir) throws IOException {
        int n = 512;
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * 0.01f;
        }
        String before = System.getProperty("weft.simd.dump");
        System.setProperty("weft.simd.dump", dir.toString());
        try (Device device = Device.create()) {
            Kernel k = t -> {
                int i = t.globalIdX();
                float v = x[i];
                if (((i >> 5) & 1) == 0) {
                    for (int s = 0; s < 8; s++) {
                        v = v * 0.5f + 1f;
                    }
                } else {
                    for (int s = 0; s < 8; s++) {
                        v = v * 0.25f - 1f;
                    }
                }
                y[i] = v;
            };
            device.launch(Dim3.of(n / 128), Dim3.of(128), k);
        } finally {
            if (before == null) {
                System.clearProperty("weft.simd.dump");
            } else {
                System.setProperty("weft.simd.dump", before);
            }
        }
        for (int i = 0; i < n; i++) {
            float v = x[i];
            for (int s = 0; s < 8; s++) {
                v = ((i >> 5) & 1) == 0 ? v * 0.5f + 1f : v * 0.25f - 1f;
            }
            assertEquals(v, y[i], "element " + i);
        }
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("noVectorBeforeTheGroupLoop")).toList();
        }
        assertEquals(1, classes.size(), classes::toString);
        ClassModel cls = ClassFile.of().parse(Files.readAllBytes(classes.get(0)));
        int groupMethods = 0;
        for (MethodModel m : cls.methods()) {
            String name = m.methodName().stringValue();
            if (name.equals("runCta") || name.equals("runCtaRow") || name.startsWith("<") || m.code().isEmpty()) {
                continue;
            }
            groupMethods++;
            List<String> early = vectorCallsBeforeOutermostLoop(m.code().get());
            assertTrue(early.isEmpty(), name + " computes vectors before its group loop, carried around it: " + early);
        }
        assertFalse(groupMethods == 0, "no per-group method in " + cls.thisClass().asInternalName());
    }

    /**
     * The Vector API calls that return a vector or mask before the head of the method's outermost loop (the
     * earliest target of a backward branch).
     */
    private static List<String> vectorCallsBeforeOutermostLoop(CodeModel code) {
        Map<Label, Integer> at = new HashMap<>();
        List<CodeElement> elements = code.elementList();
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) instanceof LabelTarget t) {
                at.put(t.label(), i);
            }
        }
        int head = Integer.MAX_VALUE;
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) instanceof BranchInstruction b && at.get(b.target()) <= i) {
                head = Math.min(head, at.get(b.target()));
            }
        }
        assertTrue(head != Integer.MAX_VALUE, "no loop over groups");
        List<String> found = new ArrayList<>();
        for (int i = 0; i < head; i++) {
            if (elements.get(i) instanceof Instruction ins && ins instanceof InvokeInstruction call
                    && call.typeSymbol().returnType().descriptorString().startsWith("Ljdk/incubator/vector/")) {
                found.add(call.owner().asInternalName() + "." + call.name().stringValue());
            }
        }
        return found;
    }
}
