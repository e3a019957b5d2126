package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.MethodModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A launch compiles only the CTA-shape variant its CTAs run; a launch in CTAs of a shape that runs another variant
 * compiles that one on first use, one of a shape whose variant is compiled compiles nothing, and a report compiles
 * every variant for its listing. Read from the classes the compiler defines ({@code -Dweft.simd.dump}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShapeVariantTest {

    @AutoClose
    static final Differential d = new Differential();

    /** The variants' method names (see Compiler: each variant is a static method of the generated class). */
    private static final Set<String> VARIANTS = Set.of("line", "rowAligned", "registerRows", "rowAlignedNarrow", "general");

    static Kernel coordinates(Object[] a) {
        int[] out = (int[]) a[0];
        return t -> {
            int i = t.globalIdX() + t.globalIdY() * t.gridDimX() * t.blockDimX();
            if (i < out.length) {
                out[i] = t.threadIdxX() * 1000 + t.threadIdxY() * 10 + t.blockIdxX();
            }
        };
    }

    static Kernel tileSums(Object[] a) {
        float[] in = (float[]) a[0];
        float[] out = (float[]) a[1];
        return t -> {
            float[] tile = t.sharedFloats(1024);
            int tid = t.threadIdxY() * t.blockDimX() + t.threadIdxX();
            int threads = t.blockDimX() * t.blockDimY();
            int cta = t.blockIdxY() * t.gridDimX() + t.blockIdxX();
            int i = cta * threads + tid;
            tile[tid] = i < in.length ? in[i] : 0f;
            t.syncThreads();
            // each thread adds its row of the CTA's tile, read across the row
            float sum = 0f;
            for (int x = 0; x < t.blockDimX(); x++) {
                sum += tile[t.threadIdxY() * t.blockDimX() + x];
            }
            if (i < out.length) {
                out[i] = sum;
            }
        };
    }

    @Test
    void launch_compilesTheVariantOfItsShape_otherShapesTheirsOnFirstUse_aReportEvery(@TempDir Path dir) throws IOException, InterruptedException {
        Dumps.into(dir, () -> {
            d.simd.launch(Dim3.of(3), Dim3.of(64), coordinates(new Object[] {new int[150]}));
            assertEquals(List.of(Set.of("line")), variantsOf(dir, "coordinates"));
            // 8 x 4: a group spans rows, threadIdx.x is not affine in it
            d.simd.launch(Dim3.of(2, 2), Dim3.of(8, 4), coordinates(new Object[] {new int[150]}));
            assertEquals(List.of(Set.of("line"), Set.of("general")), variantsOf(dir, "coordinates"));
            // another 1D shape runs the line variant: nothing compiled
            d.simd.launch(Dim3.of(1), Dim3.of(96), coordinates(new Object[] {new int[150]}));
            assertEquals(2, variantsOf(dir, "coordinates").size());
            CompileReport report = d.simd.compileReport(coordinates(new Object[] {new int[1]}));
            List<Set<String>> all = variantsOf(dir, "coordinates");
            assertEquals(3, all.size());
            assertEquals(Set.of("line", "rowAligned", "general"), all.get(2));
            assertTrue(report.listing().contains("any other CTA shape"), report.listing());
        });
        // and each shape's class computes what the reference executor does
        d.check(Dim3.of(3), Dim3.of(64), ShapeVariantTest::coordinates, new int[150]);
        d.check(Dim3.of(2, 2), Dim3.of(8, 4), ShapeVariantTest::coordinates, new int[150]);
        d.check(Dim3.of(2, 3), Dim3.of(32, 2), ShapeVariantTest::coordinates, new int[500]);
    }

    @Test
    void launch_ofA2dTileWithBarrier_compilesOneVariant_whichMatchesTheReference(@TempDir Path dir) throws IOException, InterruptedException {
        float[] in = Differential.floats(16 * 16 * 6 - 5, 3, -1, 1);
        Dumps.into(dir, () -> {
            d.simd.launch(Dim3.of(3, 2), Dim3.of(16, 16), tileSums(new Object[] {in.clone(), new float[in.length]}));
        });
        List<Set<String>> compiled = variantsOf(dir, "tileSums");
        assertEquals(1, compiled.size(), compiled::toString);
        assertEquals(1, compiled.get(0).size(), compiled::toString);
        // the report for a 1D shape lists the line variant alone, with what each group keeps across the barrier
        String listing = d.report(Dim3.of(256), ShapeVariantTest::tileSums, in, new float[in.length]).listing();
        assertEquals(1, listing.split("\n(?=per group of)").length - 1, listing);
        assertTrue(listing.contains("live across it: "), listing);
        assertFalse(listing.contains("live across it: masks and flags only"), listing);
        assertTrue(listing.contains("threads, in a 1D CTA"), listing);
        d.check(Dim3.of(3, 2), Dim3.of(16, 16), ShapeVariantTest::tileSums, in, new float[in.length]);
        d.check(Dim3.of(6), Dim3.of(256), ShapeVariantTest::tileSums, in, new float[in.length]);
        d.check(Dim3.of(5, 2), Dim3.of(12, 13), ShapeVariantTest::tileSums, in, new float[in.length]);
        d.check(Dim3.of(2, 3), Dim3.of(32, 8), ShapeVariantTest::tileSums, in, new float[in.length]);
    }

    /** The variant methods of each class generated for the test's kernel {@code lambdaOf}, in the order defined. */
    private static List<Set<String>> variantsOf(Path dir, String lambdaOf) throws IOException, InterruptedException {
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("ShapeVariantTest_lambda_" + lambdaOf))
                    .sorted(Comparator.comparingInt(ShapeVariantTest::serial)).toList();
        }
        return classes.stream().map(c -> {
            try {
                Set<String> names = new TreeSet<>();
                for (MethodModel m : ClassFile.of().parse(Files.readAllBytes(c)).methods()) {
                    if (VARIANTS.contains(m.methodName().stringValue())) {
                        names.add(m.methodName().stringValue());
                    }
                }
                return (Set<String>) names;
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).toList();
    }

    /** The compiler's serial number at the end of a generated class's name. */
    private static int serial(Path classFile) {
        String name = classFile.getFileName().toString().replace(".class", "");
        return Integer.parseInt(name.substring(name.lastIndexOf('$') + 1));
    }
}
