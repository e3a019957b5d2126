package dev.weft.simd.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.KernelException;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differential harness can fail: corrupting one element of one output of the second executor, for
 * every corpus case, is reported; so is one executor failing where the other did not, or failing at
 * another thread. Without this, a comparator that compared nothing would pass the whole corpus.
 */
// A separate thread, so a kernel that never ends fails its test instead of hanging the run.
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DifferentialSelfTest {

    private static Differential devices;

    @BeforeAll
    static void startDevices() {
        devices = new Differential(32);
    }

    @AfterAll
    static void stopDevices() {
        devices.close();
    }

    static Stream<CorpusCase> allCases() {
        return Corpus.all().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("allCases")
    void differential_oneElementCorrupted_reported(CorpusCase c) {
        Shape shape = c.shapes().get(c.shapes().size() - 1);
        Instance ref = c.setup().build(new Inputs(7), shape);
        Instance other = c.setup().build(new Inputs(7), shape);
        SplittableRandom pick = new SplittableRandom(c.name().hashCode());
        Optional<String> diff = devices.compare(ref, other, shape.grid(), shape.block(), inst -> corruptOne(inst, pick));
        assertTrue(diff.isPresent(), c.name() + ": a corrupted output went unnoticed");
    }

    @Test
    void differential_uncorrupted_matches() {
        CorpusCase saxpy = Corpus.all().get(0);
        Shape shape = saxpy.shapes().get(1);
        assertEquals(Optional.empty(), devices.run(saxpy, shape, 1));
    }

    @Test
    void compareFailures_onlyOneFailed_reported() {
        KernelException e = new KernelException("k", Dim3.of(1), Dim3.of(2), "boom", new ArithmeticException());
        assertTrue(Differential.compareFailures(e, null).isPresent());
        assertTrue(Differential.compareFailures(null, e).isPresent());
    }

    @Test
    void compareFailures_otherThreadOrCause_reported() {
        KernelException e = new KernelException("k", new Dim3(1, 0, 0), new Dim3(2, 0, 0), "boom", new ArithmeticException());
        KernelException sameThread = new KernelException("k", new Dim3(1, 0, 0), new Dim3(2, 0, 0), "bang", new ArithmeticException());
        KernelException otherThread = new KernelException("k", new Dim3(1, 0, 0), new Dim3(3, 0, 0), "boom", new ArithmeticException());
        KernelException otherCta = new KernelException("k", new Dim3(0, 0, 0), new Dim3(2, 0, 0), "boom", new ArithmeticException());
        KernelException otherCause = new KernelException("k", new Dim3(1, 0, 0), new Dim3(2, 0, 0), "boom", new ArrayIndexOutOfBoundsException());
        assertFalse(Differential.compareFailures(e, sameThread).isPresent());
        assertTrue(Differential.compareFailures(e, otherThread).isPresent());
        assertTrue(Differential.compareFailures(e, otherCta).isPresent());
        assertTrue(Differential.compareFailures(e, otherCause).isPresent());
    }

    @Test
    void compare_kernelFailingOnlyOnOneSide_reported() {
        int[] ok = new int[64];
        int[] tooShort = new int[63];
        Kernel good = t -> ok[t.globalIdX()] = 1;
        Kernel bad = t -> tooShort[t.globalIdX()] = 1;
        Optional<String> diff = devices.compare(Instance.of(good).check("out", ok), Instance.of(bad).check("out", ok),
                Dim3.of(2), Dim3.of(32), inst -> { });
        assertTrue(diff.isPresent());
        assertTrue(diff.get().contains("the reference completed but the other executor failed"), diff.get());
    }

    /** Changes one element of one output beyond any tolerance the corpus uses. */
    static void corruptOne(Instance instance, SplittableRandom pick) {
        Instance.Output out = instance.outputs().get(pick.nextInt(instance.outputs().size()));
        Object a = out.array();
        int i = pick.nextInt(java.lang.reflect.Array.getLength(a));
        switch (a) {
            case int[] x -> x[i] ^= 1;
            case long[] x -> x[i] ^= 1L << 40;
            case float[] x -> x[i] = Float.isNaN(x[i]) ? 0f : Float.isInfinite(x[i]) ? Float.NaN : x[i] + Math.abs(x[i]) + 1f;
            case double[] x -> x[i] = Double.isNaN(x[i]) ? 0d : Double.isInfinite(x[i]) ? Double.NaN : x[i] + Math.abs(x[i]) + 1d;
            case byte[] x -> x[i] ^= 1;
            case short[] x -> x[i] ^= 1;
            case char[] x -> x[i] ^= 1;
            case boolean[] x -> x[i] = !x[i];
            default -> throw new IllegalArgumentException(a.getClass().toString());
        }
    }
}
