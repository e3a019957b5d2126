package dev.weft.simd.corpus;

import java.util.List;

/**
 * A named corpus kernel: how to build an instance of it for a launch shape from seeded inputs, and the
 * shapes to launch it over.
 *
 * <p>In-scope cases use only what the SIMD compiler must handle (issue 4's per-thread code; issue 5's
 * atomics, warp operations, and shared memory with barriers in CTA-uniform control flow); they must
 * compile and match the reference executor. Out-of-scope cases use a construct it must not compile yet; the compiler must decline them with a reason naming the construct (any of
 * {@link #declineKeywords}), and they must still produce the reference's results on an AUTO device.
 *
 * @param name unique, used in test names and messages
 * @param group the corpus file that defines it
 * @param shapes the launch shapes to run it over
 * @param setup builds an instance for a shape from seeded inputs
 * @param declineKeywords empty for in-scope cases; else words one of which the decline reason must contain
 */
public record CorpusCase(String name, String group, List<Shape> shapes, Setup setup, List<String> declineKeywords) {

    /** Builds an instance: the kernel lambda over fresh arrays filled from {@code inputs}. */
    @FunctionalInterface
    public interface Setup {
        /**
         * @param inputs seeded random values; called twice with equal seeds, once per executor, so it must
         *        draw the same values in the same order each time
         * @param shape the launch this instance is for
         */
        Instance build(Inputs inputs, Shape shape);
    }

    /** Copies the lists. */
    public CorpusCase {
        shapes = List.copyOf(shapes);
        declineKeywords = List.copyOf(declineKeywords);
    }

    /** An in-scope case. */
    public static CorpusCase of(String name, String group, List<Shape> shapes, Setup setup) {
        return new CorpusCase(name, group, shapes, setup, List.of());
    }

    /** An out-of-scope case whose decline reason must contain one of {@code keywords} (case-insensitive). */
    public static CorpusCase outOfScope(String name, String group, List<Shape> shapes, List<String> keywords, Setup setup) {
        return new CorpusCase(name, group, shapes, setup, keywords);
    }

    /** Whether issue 4's compiler must compile this case. */
    public boolean inScope() {
        return declineKeywords.isEmpty();
    }

    @Override
    public String toString() {
        return name;
    }
}
