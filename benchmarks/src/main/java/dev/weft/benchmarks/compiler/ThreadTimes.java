package dev.weft.benchmarks.compiler;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a stretch of wall time went, from Linux's scheduler statistics ({@code /proc/self/task/<tid>/schedstat}):
 * how long the measuring thread ran, waited for a core and was blocked, and how much CPU each other thread of the
 * JVM took meanwhile (threads that ended meanwhile show up together as the process's remainder). For
 * {@link FirstCompileBenchmark}'s diagnostic mode ({@code -Dweft.bench.threads=true}); on a system without those
 * files it reports that it has nothing.
 */
final class ThreadTimes {

    private static final Path TASKS = Path.of("/proc/self/task");
    private static final Path SELF = Path.of("/proc/thread-self/schedstat");

    private final java.lang.management.OperatingSystemMXBean os =
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    private long[] self0;
    private Map<String, Long> others0;
    private long process0;
    /** The measuring thread's id in /proc, read with its own times (the thread that calls begin and end). */
    private String selfTid;
    private String report = "# thread times: none taken";

    /** Reads everything once, so that the first real reading does not pay for loading the classes. */
    ThreadTimes() {
        begin();
    }

    /** Starts a stretch. */
    void begin() {
        self0 = self();
        others0 = tasks();
        process0 = processCpu();
    }

    /** Ends the stretch of {@code wallNanos} begun by {@link #begin}; {@link #toString} then describes it. */
    void end(long wallNanos) {
        long[] self1 = self();
        Map<String, Long> others1 = tasks();
        long process1 = processCpu();
        if (self0 == null || self1 == null || others0 == null || others1 == null) {
            report = "# thread times: /proc/thread-self/schedstat not readable here";
            return;
        }
        long run = self1[0] - self0[0];
        long wait = self1[1] - self0[1];
        StringBuilder sb = new StringBuilder();
        sb.append("# compiling thread: wall ").append(ms(wallNanos)).append(" = running ").append(ms(run))
                .append(" + waiting for a core ").append(ms(wait)).append(" + blocked ").append(ms(wallNanos - run - wait))
                .append(" ms\n# other threads' CPU meanwhile (ms):");
        long listed = run;
        for (Map.Entry<String, Long> e : others1.entrySet()) {
            long d = e.getValue() - others0.getOrDefault(e.getKey(), 0L);
            if (e.getKey().startsWith(selfTid + " ")) {
                continue;
            }
            listed += d;
            if (d >= 1_000_000) {
                sb.append(' ').append(e.getKey().substring(e.getKey().indexOf(' ') + 1)).append('=').append(ms(d));
            }
        }
        if (process0 >= 0 && process1 >= 0) {
            sb.append("; threads that ended=").append(ms(Math.max(0, process1 - process0 - listed)));
        }
        report = sb.toString();
    }

    private long[] self() {
        try {
            String[] f = Files.readString(SELF).trim().split(" ");
            selfTid = String.valueOf(Path.of("/proc/thread-self").toRealPath().getFileName());
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Map<String, Long> tasks() {
        Map<String, Long> m = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(TASKS)) {
            for (Path t : ds) {
                try {
                    String comm = Files.readString(t.resolve("comm")).trim();
                    long ns = Long.parseLong(Files.readString(t.resolve("schedstat")).trim().split(" ")[0]);
                    m.put(t.getFileName() + " " + comm, ns);
                } catch (IOException | RuntimeException e) {
                    // The thread ended meanwhile: counted in the process's remainder.
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return m;
    }

    private long processCpu() {
        return os instanceof com.sun.management.OperatingSystemMXBean b ? b.getProcessCpuTime() : -1;
    }

    private static String ms(long nanos) {
        return String.valueOf(Math.round(nanos / 1e5) / 10.0);
    }

    @Override
    public String toString() {
        return report;
    }
}
