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
 * decides, and large ones may run slowly; the compile report says so. Where C2 does not compile at all
 * ({@code -XX:TieredStopAtLevel=1}, {@code -XX:CompilationMode=quick-only}), or where the interpreter does not
 * profile ({@code -XX:-ProfileInterpreter}: a method C1 may not compile then never reaches C2), C1 is left
 * alone.
 */
public final class C1Exclusion {

    /** Generated kernel classes' methods, in the directive syntax. */
    static final String PATTERN = HiddenClasses.PACKAGE + "Kernel*.*";

    /**
     * The directive's installation, started when the backend is loaded: starting the platform MBean server
     * takes some 200 ms here, which should not fall on the first kernel's compile.
     */
    private static final java.util.concurrent.CompletableFuture<Boolean> INSTALLED =
            java.util.concurrent.CompletableFuture.supplyAsync(C1Exclusion::install, task -> {
                Thread t = new Thread(task, "weft-jit-directive");
                t.setDaemon(true);
                t.start();
            });

    private C1Exclusion() {
    }

    /** Starts installing the directive, if not yet started. */
    public static void start() {
        INSTALLED.isDone();
    }

    /** Whether installing the directive is known to have failed (false while it is still under way). */
    public static boolean failed() {
        return INSTALLED.isDone() && !INSTALLED.getNow(false);
    }

    /**
     * Whether generated kernels skip C1 in this JVM, waiting for the installation to finish: called before a
     * kernel first runs, so that C1 never sees one.
     */
    public static boolean ensure() {
        try {
            return INSTALLED.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether C2 compiles code in this JVM (tiered to level 4, or C2 alone); any doubt reads as no. */
    private static boolean c2Compiles() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean bean =
                    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            if (bean == null || !"true".equals(bean.getVMOption("UseCompiler").getValue())) {
                return false;
            }
            if (!"true".equals(bean.getVMOption("ProfileInterpreter").getValue())) {
                // Tiered, a method C1 may not compile climbs from the interpreter to C2 on the invocation and
                // backedge counts of its profile, which only the profiling interpreter keeps: with
                // -XX:-ProfileInterpreter kernels would stay interpreted for good (measured: no C2 compile in 10 s,
                // 17 KB allocated per saxpy CTA throughout). Left to C1, those C1 manages reach C2 through its
                // profiling tier (measured: 1 kernel of 4, a loop; the others still ran slowly, as said above).
                return false;
            }
            String mode = bean.getVMOption("CompilationMode").getValue();
            if ("quick-only".equals(mode)) {
                return false;
            }
            return !"true".equals(bean.getVMOption("TieredCompilation").getValue())
                    || "4".equals(bean.getVMOption("TieredStopAtLevel").getValue());
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static boolean install() {
        if (!c2Compiles()) {
            // Excluding C1 where C2 never compiles would leave kernels interpreted.
            return false;
        }
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
