package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.simd.internal.gen.CodeGen;
import java.io.IOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated classes are Java 5 class files without stack maps, or, with {@code -Dweft.simd.stackMaps=true} (the
 * AVX2 test run), current ones with them (see {@link CodeGen#STACK_MAPS}); every other test runs them in that form.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClassFileFormTest {

    @Test
    void generatedClass_hasTheFormTheSwitchAsks(@TempDir Path dir) throws IOException, InterruptedException {
        float[] in = new float[256];
        float[] out = new float[256];
        Kernel reverse = t -> {
            float[] tile = t.sharedFloats(256);
            int i = t.threadIdxX();
            tile[i] = i < in.length ? in[i] : 0f;
            t.syncThreads();
            if (i > 3) {
                out[i] = tile[255 - i];
            }
        };
        // Launched, so that the methods per resume point are compiled too (in the background; Dumps waits for them).
        dev.weft.simd.Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                device.launch(Dim3.of(1), Dim3.of(256), reverse);
            }
        });
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("ClassFileFormTest")).toList();
        }
        // One file: the class with the methods per resume point, from the background, replaced the first one's.
        assertEquals(1, classes.size(), classes::toString);
        ClassModel cm = ClassFile.of().parse(Files.readAllBytes(classes.get(0)));
        assertTrue(cm.methods().stream().anyMatch(m -> m.methodName().stringValue().contains("$")), "methods per resume point");
        boolean maps = false;
        for (MethodModel m : cm.methods()) {
            maps |= m.code().orElseThrow().findAttribute(Attributes.stackMapTable()).isPresent();
        }
        assertEquals(CodeGen.STACK_MAPS, maps, "stack maps");
        assertEquals(CodeGen.STACK_MAPS ? ClassFile.latestMajorVersion() : 49, cm.majorVersion());
    }
}
