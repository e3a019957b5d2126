package dev.weft.simd.corpus;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.DeviceConfig;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.KernelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs kernels on two devices, a REFERENCE one (the oracle) and an AUTO one (the SIMD backend once it is
 * installed, the reference executor for kernels it declines), and compares what they did.
 *
 * <p>Two launches match when both completed and every checked array matches under its tolerance, or
 * when both failed with a {@link KernelException} naming the same CTA and thread and a cause of the same
 * class. Owns its two devices; close it.
 */
public final class Differential implements AutoCloseable {

    private final Device reference;
    private final Device other;

    /** Devices of {@code warpSize}-thread warps with the default SM count. */
    public Differential(int warpSize) {
        DeviceConfig base = DeviceConfig.defaults().withWarpSize(warpSize);
        this.reference = Device.create(base.withExecutor(ExecutorChoice.REFERENCE));
        this.other = Device.create(base.withExecutor(ExecutorChoice.AUTO));
    }

    /** The REFERENCE device. */
    public Device reference() {
        return reference;
    }

    /** The AUTO device. */
    public Device auto() {
        return other;
    }

    /**
     * Builds two instances of {@code c} for {@code shape} from inputs of {@code seed}, launches one on each
     * device and compares them.
     *
     * @return a description of the first difference, empty if they match
     */
    public Optional<String> run(CorpusCase c, Shape shape, long seed) {
        Instance ref = c.setup().build(new Inputs(seed), shape);
        Instance auto = c.setup().build(new Inputs(seed), shape);
        Optional<String> inputsDiffer = compareOutputs(ref, auto);
        if (inputsDiffer.isPresent()) {
            throw new IllegalStateException("case " + c.name() + " builds different arrays from one seed "
                    + "(its setup is not deterministic): " + inputsDiffer.get());
        }
        return compare(ref, auto, shape.grid(), shape.block(), k -> { });
    }

    /**
     * Launches {@code ref} on the reference device and {@code auto} on the AUTO device, runs
     * {@code afterOther} on {@code auto} (a hook for tests that corrupt one side on purpose), and compares.
     */
    public Optional<String> compare(Instance ref, Instance auto, Dim3 grid, Dim3 block, java.util.function.Consumer<Instance> afterOther) {
        KernelException refFailure = launch(reference, grid, block, ref.kernel());
        KernelException otherFailure = launch(other, grid, block, auto.kernel());
        afterOther.accept(auto);
        if (refFailure != null || otherFailure != null) {
            return compareFailures(refFailure, otherFailure);
        }
        return compareOutputs(ref, auto);
    }

    private static KernelException launch(Device device, Dim3 grid, Dim3 block, Kernel kernel) {
        try {
            device.launch(grid, block, kernel);
            return null;
        } catch (KernelException e) {
            return e;
        }
    }

    /** Both failed at the same CTA and thread with the same kind of cause, or a description of how not. */
    public static Optional<String> compareFailures(KernelException ref, KernelException other) {
        if (ref == null || other == null) {
            return Optional.of(ref == null
                    ? "the reference completed but the other executor failed: " + other.getMessage()
                    : "the reference failed but the other executor completed: " + ref.getMessage());
        }
        boolean same = ref.blockIdx().equals(other.blockIdx()) && ref.threadIdx().equals(other.threadIdx())
                && Objects.equals(causeClass(ref), causeClass(other));
        return same ? Optional.empty()
                : Optional.of("both failed, differently: reference: " + ref.getMessage() + " | other: " + other.getMessage());
    }

    private static Class<?> causeClass(Throwable t) {
        return t.getCause() == null ? null : t.getCause().getClass();
    }

    /** The first output that differs between the two instances. */
    public static Optional<String> compareOutputs(Instance ref, Instance other) {
        List<Instance.Output> a = ref.outputs();
        List<Instance.Output> b = other.outputs();
        if (a.size() != b.size()) {
            return Optional.of("the instances check different numbers of outputs: " + a.size() + " vs " + b.size());
        }
        List<String> diffs = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            Compare.arrays(a.get(i).name(), a.get(i).array(), b.get(i).array(), a.get(i).tolerance()).ifPresent(diffs::add);
        }
        return diffs.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", diffs));
    }

    @Override
    public void close() {
        reference.close();
        other.close();
    }
}
