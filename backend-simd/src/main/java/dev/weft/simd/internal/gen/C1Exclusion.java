package dev.weft.simd.internal.gen;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Keeps HotSpot's first-tier compiler, C1, away from generated kernel classes, so that their methods go from
 * the interpreter straight to C2.
 *
 * <p>Why. C1 inlines the Vector API's Java implementation of every vector operation, and a kernel's per-warp
 * method has hundreds of them: C1 runs out of virtual registers ("COMPILE SKIPPED: out of virtual registers in
 * LIR generator (retry at different tier)") on a method as small as saxpy's 32-thread group (155 vector calls,
 * measured here). A method that C1 had meanwhile compiled at tier 2, the limited-profile tier the policy picks
 * while C2's queue is long, is then stranded there: from tier 2 the policy only climbs to tier 3, which fails,
 * and tier-2 code does not feed the profile a climb to C2 reads. Measured here: mandelbrot's compiled kernel
 * stuck at tier 2 ran 1,973 ms per frame against 25 ms once C2 compiled it. Excluding C1 makes the outcome
 * independent of queue timing: the interpreter profiles the method and C2 compiles it (OSR first, since the
 * warp loop is a loop).
 *
 * <p>How. One compiler directive, {@code c1: { Exclude: true }} for the generated classes' package, added once
 * per JVM through the DiagnosticCommand MBean's {@code compilerDirectivesAdd} (the in-process
 * {@code jcmd Compiler.directives_add}), which reads it from a temporary file. Where that is impossible (no
 * {@code java.management}, no DiagnosticCommand MBean, no temporary directory), kernels compile as HotSpot
 * decides, and large ones may run slowly; the compile report says so.
 */
public final class C1Exclusion {

    /** Generated kernel classes' methods, in the directive syntax. */
    static final String PATTERN = HiddenClasses.PACKAGE + "Kernel*.*";

    private static volatile Boolean installed;

    private C1Exclusion() {
    }

    /** Whether generated kernels skip C1 in this JVM; installs the directive on first call. */
    public static boolean ensure() {
        Boolean b = installed;
        if (b == null) {
            synchronized (C1Exclusion.class) {
                b = installed;
                if (b == null) {
                    b = install();
                    installed = b;
                }
            }
        }
        return b;
    }

    private static boolean install() {
        try {
            Path file = Files.createTempFile("weft-c1-exclusion", ".json");
            try {
                Files.writeString(file, "[{ match: \"" + PATTERN + "\", c1: { Exclude: true } }]");
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName command = new ObjectName("com.sun.management:type=DiagnosticCommand");
                Object reply = server.invoke(command, "compilerDirectivesAdd", new Object[] {new String[] {"\"" + file + "\""}},
                        new String[] {String[].class.getName()});
                return String.valueOf(reply).contains("added");
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (Exception | LinkageError e) {
            return false;
        }
    }
}
