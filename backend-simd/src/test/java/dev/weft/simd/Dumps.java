package dev.weft.simd;

import java.io.IOException;
import java.nio.file.Path;

/** Runs test code with {@code -Dweft.simd.dump} set to a directory: the classes the compiler defines meanwhile land there. */
public final class Dumps {

    /** Test code that may throw. */
    public interface Body {
        void run() throws IOException, InterruptedException;
    }

    private Dumps() {
    }

    /**
     * Runs {@code body} with the compiler's generated classes written to {@code dir}, then restores the property.
     * Background compiles (the methods per resume point of kernels with barriers) dump their classes too: those of
     * earlier code are awaited before, so that none lands in {@code dir}, and those {@code body} starts after it, so
     * that theirs do, before the test reads or deletes the directory.
     */
    public static void into(Path dir, Body body) throws IOException, InterruptedException {
        Differential.awaitResumeMethods();
        String before = System.getProperty("weft.simd.dump");
        System.setProperty("weft.simd.dump", dir.toString());
        try {
            body.run();
            Differential.awaitResumeMethods();
        } finally {
            if (before == null) {
                System.clearProperty("weft.simd.dump");
            } else {
                System.setProperty("weft.simd.dump", before);
            }
        }
    }
}
