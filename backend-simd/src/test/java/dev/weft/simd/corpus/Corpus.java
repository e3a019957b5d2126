package dev.weft.simd.corpus;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Every corpus case, in one list: the data the differential tests iterate over. */
public final class Corpus {

    private static final List<CorpusCase> ALL = build();

    private Corpus() {
    }

    /** All cases, in-scope and out-of-scope. */
    public static List<CorpusCase> all() {
        return ALL;
    }

    /** The cases issue 4's compiler must compile. */
    public static List<CorpusCase> inScope() {
        return ALL.stream().filter(CorpusCase::inScope).toList();
    }

    /** The cases it must decline. */
    public static List<CorpusCase> outOfScope() {
        return ALL.stream().filter(c -> !c.inScope()).toList();
    }

    private static List<CorpusCase> build() {
        List<CorpusCase> all = new ArrayList<>();
        all.addAll(ClassicKernels.cases());
        all.addAll(ControlFlowKernels.cases());
        all.addAll(ArithmeticKernels.cases());
        all.addAll(MathKernels.cases());
        all.addAll(IndexingKernels.cases());
        all.addAll(CtaKernels.cases());
        all.addAll(SharedKernels.cases());
        all.addAll(OutOfScopeKernels.cases());
        Set<String> names = new HashSet<>();
        for (CorpusCase c : all) {
            if (!names.add(c.name())) {
                throw new IllegalStateException("two corpus cases are named " + c.name());
            }
        }
        return List.copyOf(all);
    }
}
