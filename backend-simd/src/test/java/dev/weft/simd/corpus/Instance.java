package dev.weft.simd.corpus;

import dev.weft.Kernel;
import java.util.ArrayList;
import java.util.List;

/**
 * One concrete launch of a corpus case: the kernel object (its captured inputs and outputs) and the arrays
 * to compare after it ran, each with the tolerance it is compared under.
 */
public final class Instance {

    /** An array compared after the launch. */
    public record Output(String name, Object array, Tolerance tolerance) {
    }

    /**
     * What a correct kernel leaves in {@code array} on 32-thread warps, computed in plain Java: checks that a
     * corpus kernel computes what its name says on the reference executor, so the differential comparison
     * is not between two executors that agree on a broken kernel.
     */
    public record Expectation(String name, Object array, Object expected, Tolerance tolerance) {
    }

    private final Kernel kernel;
    private final List<Output> outputs = new ArrayList<>();
    private final List<Expectation> expectations = new ArrayList<>();

    private Instance(Kernel kernel) {
        this.kernel = kernel;
    }

    /** An instance of {@code kernel}; add the arrays to compare with {@link #check}. */
    public static Instance of(Kernel kernel) {
        return new Instance(kernel);
    }

    /** Compares {@code array} (an int[], long[], float[] or double[]) bit for bit after the launch. */
    public Instance check(String name, Object array) {
        return check(name, array, Tolerance.EXACT);
    }

    /** Compares {@code array} under {@code tolerance} after the launch. */
    public Instance check(String name, Object array, Tolerance tolerance) {
        outputs.add(new Output(name, array, tolerance));
        return this;
    }

    /** Records that after a launch on 32-thread warps {@code array} must hold {@code expected} exactly. */
    public Instance expect(String name, Object array, Object expected) {
        return expect(name, array, expected, Tolerance.EXACT);
    }

    /** As {@link #expect(String, Object, Object)}, under {@code tolerance}. */
    public Instance expect(String name, Object array, Object expected, Tolerance tolerance) {
        expectations.add(new Expectation(name, array, expected, tolerance));
        return this;
    }

    /** The plain-Java expectations, in the order they were added; empty for most cases. */
    public List<Expectation> expectations() {
        return List.copyOf(expectations);
    }

    /** The kernel to launch. */
    public Kernel kernel() {
        return kernel;
    }

    /** The arrays to compare, in the order they were added. */
    public List<Output> outputs() {
        return List.copyOf(outputs);
    }
}
