package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kernel compiled again gives the same class file, byte for byte but for the serial in its name: the compiler's
 * choices must not follow identity hashes, which differ per object and per JVM (see {@code Node.hashCode}). Each
 * compile makes new IR objects, so compiling twice in one JVM meets the same hazard as two JVMs do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeterministicCodeTest {

    private static final int WARP = 32;
    private static final int COMPILES = 3;

    @Test
    void tiledMatmul_compiledAgain_sameClassFile(@TempDir Path dir) throws Exception {
        int n = 64;
        float[] a = new float[n * n];
        float[] b = new float[n * n];
        float[] c = new float[n * n];
        Kernel k = t -> {
            float[] as = t.sharedFloats(256);
            float[] bs = t.sharedFloats(256);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * 16 + ty;
            int col = t.blockIdxX() * 16 + tx;
            float sum = 0f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                as[ty * 16 + tx] = a[row * n + k0 + tx];
                bs[ty * 16 + tx] = b[(k0 + ty) * n + col];
                t.syncThreads();
                for (int kk = 0; kk < 16; kk++) {
                    sum += as[ty * 16 + kk] * bs[kk * 16 + tx];
                }
                t.syncThreads();
            }
            c[row * n + col] = sum;
        };
        assertSameEachTime(k, new Dim3(16, 16, 1), dir);
    }

    @Test
    void divergentLoopAndBranches_compiledAgain_sameClassFile(@TempDir Path dir) throws Exception {
        float[] in = new float[1000];
        float[] out = new float[1000];
        int[] steps = new int[1000];
        Kernel k = t -> {
            int i = t.blockIdxX() * t.blockDimX() + t.threadIdxX();
            if (i >= in.length) {
                return;
            }
            float x = in[i];
            float y = 0f;
            int s = 0;
            while (x * x + y * y < 4f && s < 100) {
                float nx = x * x - y * y + 0.25f;
                y = 2f * x * y + in[(i + s) % in.length];
                x = nx;
                s++;
            }
            if ((s & 1) == 0) {
                out[i] = x - y;
            } else if (s > 50) {
                out[i] = x * y;
                steps[i] = s;
            } else {
                steps[i] = -s;
            }
        };
        assertSameEachTime(k, new Dim3(128, 1, 1), dir);
    }

    /** Compiles {@code k} for CTAs of shape {@code block} {@link #COMPILES} times, each from scratch, and compares the classes. */
    private static void assertSameEachTime(Kernel k, Dim3 block, Path dir) throws Exception {
        byte[] first = null;
        for (int i = 0; i < COMPILES; i++) {
            Path into = dir.resolve("compile" + i);
            dev.weft.simd.Dumps.into(into, () -> {
                Compiler.compile(LambdaSource.of(k), WARP, false, block);
                // A kernel with barriers gets its methods per resume point in the background, dumped again.
                assertTrue(Background.awaitIdle(60_000), "the background compile did not finish");
            });
            byte[] bytes = withoutSerial(theClass(into));
            if (first == null) {
                first = bytes;
            } else {
                assertArrayEquals(first, bytes, "compile " + i + " differs from the first");
            }
        }
    }

    private static byte[] theClass(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> classes = files.filter(f -> f.getFileName().toString().contains("DeterministicCodeTest")).toList();
            assertEquals(1, classes.size(), classes::toString);
            return Files.readAllBytes(classes.get(0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The class file with the serial that ends the class's name ({@code Kernel$...$7}) cut from each constant pool
     * string that holds the name; all else as it was, the pool in its order (Latin-1 keeps every byte as it is).
     */
    private static byte[] withoutSerial(byte[] bytes) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(bytes.length);
        int count = ((bytes[8] & 0xff) << 8) | (bytes[9] & 0xff);
        out.write(bytes, 0, 10);
        String name = java.lang.classfile.ClassFile.of().parse(bytes).thisClass().asInternalName();
        String stem = name.substring(0, name.lastIndexOf('$') + 1);
        int p = 10;
        for (int i = 1; i < count; i++) {
            int tag = bytes[p] & 0xff;
            int size = switch (tag) {
                case 1 -> 3 + (((bytes[p + 1] & 0xff) << 8) | (bytes[p + 2] & 0xff));
                case 7, 8, 16, 19, 20 -> 3;
                case 15 -> 4;
                case 3, 4, 9, 10, 11, 12, 17, 18 -> 5;
                case 5, 6 -> 9;
                default -> throw new AssertionError("constant pool tag " + tag + " at " + p);
            };
            if (tag == 1) {
                String s = new String(bytes, p + 3, size - 3, StandardCharsets.ISO_8859_1);
                if (s.contains(name)) {
                    byte[] cut = s.replace(name, stem).getBytes(StandardCharsets.ISO_8859_1);
                    out.write(1);
                    out.write(cut.length >> 8);
                    out.write(cut.length);
                    out.write(cut, 0, cut.length);
                } else {
                    out.write(bytes, p, size);
                }
            } else {
                out.write(bytes, p, size);
            }
            if (tag == 5 || tag == 6) {
                i++;
            }
            p += size;
        }
        out.write(bytes, p, bytes.length - p);
        return out.toByteArray();
    }
}
