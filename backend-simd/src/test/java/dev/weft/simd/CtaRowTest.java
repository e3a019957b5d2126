package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.KernelException;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A row of CTAs per call ({@code CtaProgram.runCtaRow}): on grids big enough that the runtime claims many CTAs at
 * once, a kernel without barriers runs the CTAs of a grid row in one loop of its generated code. Each CTA must still
 * see its own {@code blockIdx}, and a fault must name the CTA it happened in.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CtaRowTest {

    @AutoClose
    static final Differential d = new Differential();

    static Kernel ctaCoordinates(Object[] a) {
        int[] out = (int[]) a[0];
        int w = (Integer) a[1];
        return t -> {
            int x = t.globalIdX();
            int y = t.globalIdY();
            if (x < w) {
                out[y * w + x] = t.blockIdxX() * 1000 + t.blockIdxY() * 7 + t.threadIdxX();
            }
        };
    }

    @Test
    void launch_manyCtasPerGridRow_eachSeesItsOwnBlockIdx() {
        // 70 x 40 CTAs (chunks of up to 32 CTAs, rows of 70): rows split across chunks and chunks across rows; the
        // last CTA of each row is partial (70 * 32 - 2230 threads past w).
        int w = 2230;
        int h = 80;
        d.check(Dim3.of(70, 40), Dim3.of(32, 2), CtaRowTest::ctaCoordinates, new int[w * h], w);
    }

    @Test
    void launch_manyCtasPerRowOf1dGrid_matchesReference() {
        float[] x = Differential.floats(4096 * 64 - 3, 11, -1, 1);
        d.check(Dim3.of(4096), Dim3.of(64), FaultTest::readPastEnd, x, new float[x.length]);
    }

    static Kernel divideOnce(Object[] a) {
        int[] y = (int[]) a[0];
        int bad = (Integer) a[1];
        return t -> {
            int i = t.globalIdX();
            y[i] = 7 / (i - bad);
        };
    }

    @Test
    void fault_inALaterCtaOfARow_namesThatCta() {
        // Only thread 5 of CTA 3000 divides by zero; the runtime claims CTA 3000 in a chunk that starts before it.
        KernelException e = assertThrows(KernelException.class,
                () -> d.simd.launch(Dim3.of(4096), Dim3.of(64), divideOnce(new Object[] {new int[4096 * 64], 3000 * 64 + 5})));
        assertEquals(new Dim3(3000, 0, 0), e.blockIdx());
        assertEquals(new Dim3(5, 0, 0), e.threadIdx().orElseThrow());
        assertTrue(e.getCause() instanceof ArithmeticException, String.valueOf(e.getCause()));
    }

    @Test
    void fault_inALaterCtaOfARow_sameAsReference() {
        d.check(Dim3.of(4096), Dim3.of(64), CtaRowTest::divideOnce, new int[4096 * 64], 1234 * 64 + 63);
    }

    @Test
    void generatedCode_kernelWithoutBarriers_runsARowOfCtasPerCall(@TempDir Path dir) throws IOException, InterruptedException {
        float[] x = new float[256];
        float[] y = new float[256];
        Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                Kernel k = t -> {
                    int i = t.globalIdX();
                    if (i < 250) {
                        y[i] = x[i] * 3f + 1f;
                    }
                };
                device.launch(Dim3.of(2), Dim3.of(128), k);
            }
        });
        ClassModel cm = kernelClass(dir, "CtaRowTest");
        assertTrue(cm.methods().stream().anyMatch(m -> m.methodName().equalsString("runCtaRow")),
                "no runCtaRow: " + methodNames(cm));
        // The variant loops over the row's CTAs itself.
        MethodModel line = cm.methods().stream().filter(m -> m.methodName().equalsString("line")).findFirst().orElseThrow();
        assertTrue(calls(line, "nextX"), "the line variant does not step to the next CTA");
    }

    @Test
    void generatedCode_kernelWithBarrier_keepsOneCtaPerCall(@TempDir Path dir) throws IOException, InterruptedException {
        float[] y = new float[128];
        Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                Kernel k = t -> {
                    float[] s = t.sharedFloats(64);
                    s[t.threadIdxX()] = t.threadIdxX();
                    t.syncThreads();
                    y[t.globalIdX()] = s[63 - t.threadIdxX()];
                };
                device.launch(Dim3.of(2), Dim3.of(64), k);
            }
        });
        ClassModel cm = kernelClass(dir, "CtaRowTest");
        assertFalse(cm.methods().stream().anyMatch(m -> m.methodName().equalsString("runCtaRow")),
                "a phased kernel got runCtaRow: " + methodNames(cm));
        assertEquals(63f, y[0]);
        assertEquals(0f, y[127]);
    }

    private static ClassModel kernelClass(Path dir, String owner) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> mine = files.filter(p -> p.getFileName().toString().contains(owner)).toList();
            assertEquals(1, mine.size(), "dumped classes: " + mine);
            return ClassFile.of().parse(Files.readAllBytes(mine.get(0)));
        }
    }

    private static List<String> methodNames(ClassModel cm) {
        return cm.methods().stream().map(m -> m.methodName().stringValue()).toList();
    }

    private static boolean calls(MethodModel m, String name) {
        CodeModel code = m.code().orElseThrow();
        return code.elementStream().anyMatch(e -> e instanceof InvokeInstruction i && i.name().equalsString(name));
    }
}
