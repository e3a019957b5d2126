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
 *
 * <p>Rejected, and removed in session 20: installing the directive only when the first kernel is bound (its first
 * launch), after any user compile under way, instead of from the moment the backend is loaded. Measured
 * (FirstCompileBenchmark, first kernel compiled at once after {@code Device.create()}, 5 fresh JVMs per kernel, the
 * same minutes, with the warm-up's compiles giving way too): the compile itself took 119-168 ms of wall time
 * instead of 144-245 installed eagerly (medians for saxpy, black-scholes, tiled sgemm and scan), the directive's
 * 130-200 ms of CPU no longer sharing the two cores with it. But the first launch then waits for the installation
 * (a scratch main, saxpy compiled and launched at once, 3 runs each: compile 173-405 ms then launch 250-430 ms,
 * against 264-370 then 69-107 installed eagerly; created to launched 454-878 ms against 361-523). The cost moves
 * from the compile to the first launch and grows there, so the directive is installed eagerly.
 */
public final class C1Exclusion {

    /** Generated kernel classes' methods, in the directive syntax. */
    static final String PATTERN = HiddenClasses.PACKAGE + "Kernel*.*";


    /** The directive's installation; started by {@link #start} or {@link #ensure}, once per JVM. */
    private static final class Installation {
        static final java.util.concurrent.CompletableFuture<Boolean> INSTALLED = begin();

        /**
         * Installs on a thread of its own. Not {@code supplyAsync} with a lambda and a method reference: each spins a
         * class on the device's creation thread, a cost of the first launch.
         */
        private static java.util.concurrent.CompletableFuture<Boolean> begin() {
            java.util.concurrent.CompletableFuture<Boolean> installed = new java.util.concurrent.CompletableFuture<>();
            Thread t = new Thread(new Runnable() {
                @Override
                public void run() {
                    try {
                        installed.complete(install());
                    } catch (Throwable e) {
                        installed.completeExceptionally(e);
                    }
                }
            }, "weft-jit-directive");
            t.setDaemon(true);
            t.start();
            return installed;
        }
    }

    /** Whether the installation was started (the holder class initialised). */
    private static volatile boolean started;

    private C1Exclusion() {
    }

    /** The backend was loaded: starts installing the directive, on a thread of its own. */
    public static void start() {
        installation();
    }

    private static java.util.concurrent.CompletableFuture<Boolean> installation() {
        started = true;
        return Installation.INSTALLED;
    }

    /** Whether installing the directive is known to have failed (false while it is still under way or not started). */
    public static boolean failed() {
        return started && Installation.INSTALLED.isDone() && !Installation.INSTALLED.getNow(false);
    }

    /**
     * Whether generated kernels skip C1 in this JVM, starting the installation if not yet started and waiting for
     * it to finish: called before a kernel first runs, so that C1 never sees one.
     */
    public static boolean ensure() {
        try {
            return installation().get(10, java.util.concurrent.TimeUnit.SECONDS);
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

    /**
     * Installs the directive. Starting the platform MBean server is its cost: some 200 ms of CPU in a fresh JVM
     * (sampled: three quarters of it registering the platform MXBeans, each introspected as an MXBean; the
     * DiagnosticCommand MBean has no public way in without that server), which on two cores competes with a user's
     * first compile when the device was created just before. The temporary file is not
     * made by {@link Files#createTempFile}, whose name comes from a {@link java.security.SecureRandom}: seeding it
     * took 30-40 ms of CPU in a fresh JVM here (and loaded some 40 security classes).
     */
    private static boolean install() {
        if (!c2Compiles()) {
            // Excluding C1 where C2 never compiles would leave kernels interpreted.
            return false;
        }
        try {
            Path file = directiveFile();
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

    /**
     * A new empty file in the temporary directory for the directive: only this JVM writes it (created new, so
     * never one another user made), and it is deleted once read.
     */
    private static Path directiveFile() throws java.io.IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        String stem = "weft-c1-exclusion-" + Integer.toHexString(System.identityHashCode(new Object())) + "-";
        for (int attempt = 0; ; attempt++) {
            Path file = dir.resolve(stem + Long.toHexString(System.nanoTime()) + ".json");
            try {
                return Files.createFile(file);
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (attempt == 10) {
                    throw e;
                }
            }
        }
    }
}
