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

    private final Kernel kernel;
    private final List<Output> outputs = new ArrayList<>();

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

    /** The kernel to launch. */
    public Kernel kernel() {
        return kernel;
    }

    /** The arrays to compare, in the order they were added. */
    public List<Output> outputs() {
        return List.copyOf(outputs);
    }
}
