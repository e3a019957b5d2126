package dev.weft.simd.fuzz;

import dev.weft.Kernel;
import dev.weft.runtime.Device;
import dev.weft.runtime.KernelException;
import dev.weft.simd.corpus.Differential;
import dev.weft.simd.corpus.Inputs;
import dev.weft.simd.corpus.Instance;
import dev.weft.simd.corpus.Tolerance;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs generated kernels on a {@link Differential}'s two devices and compares their outputs: int, long,
 * float and double outputs bit for bit, the transcendental outputs under {@link Tolerance#MATH_1ULP}.
 */
public final class FuzzHarness {

    private FuzzHarness() {
    }

    /** A program compiled and loaded: its class, ready to instantiate. */
    public record Loaded(KernelGenerator.Program program, Class<?> kernelClass) {
    }

    /** Compiles {@code programs} in one javac run and loads each with a class loader of its own. */
    public static List<Loaded> compileAll(List<KernelGenerator.Program> programs) {
        List<InMemoryCompiler.Source> sources = programs.stream()
                .map(p -> new InMemoryCompiler.Source(p.className(), p.source())).toList();
        Map<String, byte[]> classes;
        try {
            classes = InMemoryCompiler.compile(sources);
        } catch (IllegalStateException e) {
            StringBuilder sb = new StringBuilder(e.getMessage());
            for (KernelGenerator.Program p : programs) {
                if (e.getMessage().contains(p.simpleName())) {
                    sb.append("\n--- seed 0x").append(Long.toHexString(p.seed())).append(" ---\n").append(numbered(p.source()));
                }
            }
            throw new IllegalStateException(sb.toString(), e);
        }
        List<Loaded> loaded = new ArrayList<>();
        for (KernelGenerator.Program p : programs) {
            ClassLoader loader = InMemoryCompiler.loader(classes);
            try {
                loaded.add(new Loaded(p, Class.forName(p.className(), true, loader)));
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("compiled but not loadable: " + p.className(), e);
            }
        }
        return loaded;
    }

    /**
     * Builds the kernel object of {@code loaded} over fresh arrays filled from the program's seed.
     *
     * @return the instance, with its ten output arrays registered for comparison
     */
    public static Instance instantiate(Loaded loaded) {
        KernelGenerator.Program p = loaded.program();
        int n = p.n();
        Inputs in = new Inputs(p.seed() * 31 + 17);
        int[] ia = in.intsMixed(n);
        long[] la = in.longsMixed(n);
        float[] fa = in.floatsMixed(n);
        double[] da = in.doublesMixed(n);
        int si = in.intsMixed(1)[0];
        long sl = in.longsMixed(1)[0];
        float sf = in.floatsMixed(1)[0];
        double sd = in.doublesMixed(1)[0];
        int slots = KernelGenerator.SLOTS;
        int[] io = in.ints(n * slots, -100, 100);
        long[] lo = new long[n * slots];
        float[] fo = new float[n * slots];
        double[] dout = new double[n * slots];
        float[] fm = new float[n];
        double[] dm = new double[n];
        int[] ai = in.intsMixed(KernelGenerator.ATOMIC_LENGTH);
        long[] al = in.longsMixed(KernelGenerator.ATOMIC_LENGTH);
        float[] af = in.floatsMixed(KernelGenerator.ATOMIC_LENGTH);
        double[] ad = in.doublesMixed(KernelGenerator.ATOMIC_LENGTH);
        Kernel kernel;
        // Programs of Options.more also write two outputs in reverse thread order and one at grid-stride loops' indices;
        // made last, so the others' inputs stay.
        boolean more = p.source().contains("int[] ro, double[] rd, long[] go");
        int[] ro = more ? in.ints(n * slots, -100, 100) : null;
        double[] rd = more ? new double[n * slots] : null;
        long[] go = more ? in.longsMixed(n) : null;
        // Programs of Options.narrowArrays read byte, short, char and boolean inputs and write such outputs; made after
        // all others.
        boolean narrow = p.source().contains(KernelGenerator.NARROW_PARAMS);
        int[] bits = narrow ? in.intsMixed(4 * n) : null;
        int[] outBits = narrow ? in.ints(4 * n * slots, -300, 70_000) : null;
        List<Class<?>> types = new ArrayList<>(List.of(int.class, int[].class, long[].class, float[].class, double[].class,
                int.class, long.class, float.class, double.class, int[].class, long[].class, float[].class, double[].class,
                float[].class, double[].class, int[].class, long[].class, float[].class, double[].class));
        List<Object> args = new ArrayList<>(List.of(n, ia, la, fa, da, si, sl, sf, sd, io, lo, fo, dout, fm, dm, ai, al, af, ad));
        if (more) {
            types.addAll(List.of(int[].class, double[].class, long[].class));
            args.addAll(List.of(ro, rd, go));
        }
        Object[] narrowArrays = null;
        if (narrow) {
            byte[] ba = new byte[n];
            short[] sa = new short[n];
            char[] ca = new char[n];
            boolean[] za = new boolean[n];
            for (int i = 0; i < n; i++) {
                ba[i] = (byte) bits[i];
                sa[i] = (short) bits[n + i];
                ca[i] = (char) bits[2 * n + i];
                za[i] = (bits[3 * n + i] & 1) != 0;
            }
            byte[] bo = new byte[n * slots];
            short[] so = new short[n * slots];
            char[] co = new char[n * slots];
            boolean[] zo = new boolean[n * slots];
            for (int i = 0; i < n * slots; i++) {
                bo[i] = (byte) outBits[i];
                so[i] = (short) outBits[n * slots + i];
                co[i] = (char) outBits[2 * n * slots + i];
                zo[i] = (outBits[3 * n * slots + i] & 1) != 0;
            }
            narrowArrays = new Object[] {ba, sa, ca, za, bo, so, co, zo};
            types.addAll(List.of(byte[].class, short[].class, char[].class, boolean[].class, byte[].class, short[].class,
                    char[].class, boolean[].class));
            args.addAll(List.of(narrowArrays));
        }
        try {
            Method factory = loaded.kernelClass().getMethod("kernel", types.toArray(Class<?>[]::new));
            kernel = (Kernel) factory.invoke(null, args.toArray());
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("generated class without the expected factory: " + loaded.kernelClass(), e);
        }
        Instance instance = Instance.of(kernel).check("io", io).check("lo", lo).check("fo", fo).check("dout", dout)
                .check("fm", fm, Tolerance.MATH_1ULP).check("dm", dm, Tolerance.MATH_1ULP)
                .check("ai", ai).check("al", al).check("af", af).check("ad", ad);
        if (more) {
            instance = instance.check("ro", ro).check("rd", rd).check("go", go);
        }
        if (narrow) {
            instance = instance.check("bo", narrowArrays[4]).check("so", narrowArrays[5]).check("co", narrowArrays[6])
                    .check("zo", narrowArrays[7]);
        }
        return instance;
    }

    /**
     * Runs {@code reference} on the reference device and {@code other} on the other one, then
     * {@code corruptOther} on the other's instance (identity for real runs), and compares.
     *
     * @return the first difference, or empty
     */
    public static Optional<String> runPair(Differential devices, Loaded reference, Loaded other, Consumer<Instance> corruptOther) {
        KernelGenerator.Program p = reference.program();
        if (p.mayFault()) {
            return compareFaulting(devices, instantiate(reference), instantiate(other), p, corruptOther);
        }
        return devices.compare(instantiate(reference), instantiate(other), p.grid(), p.block(), corruptOther);
    }

    /**
     * For kernels that may fault: both complete with equal outputs, or both fail with the same kind of failure (the
     * cause's class, and whether a thread or the CTA is at fault). Not which CTA or thread: CTAs run on the SMs
     * concurrently, so which faulting thread is reported first is a race, and the outputs of a failed launch are
     * whatever its threads wrote before they stopped.
     */
    private static Optional<String> compareFaulting(Differential devices, Instance ref, Instance other, KernelGenerator.Program p,
            Consumer<Instance> corruptOther) {
        KernelException refFailure = launch(devices.reference(), p, ref);
        KernelException otherFailure = launch(devices.auto(), p, other);
        corruptOther.accept(other);
        if (refFailure == null && otherFailure == null) {
            return Differential.compareOutputs(ref, other);
        }
        if (refFailure == null || otherFailure == null) {
            return Optional.of(refFailure == null
                    ? "the reference completed but the other executor failed: " + otherFailure.getMessage()
                    : "the reference failed but the other executor completed: " + refFailure.getMessage());
        }
        boolean same = kind(refFailure).equals(kind(otherFailure));
        return same ? Optional.empty()
                : Optional.of("both failed, differently: reference: " + refFailure.getMessage() + " (" + kind(refFailure) + ") | other: "
                        + otherFailure.getMessage() + " (" + kind(otherFailure) + ")");
    }

    private static KernelException launch(Device device, KernelGenerator.Program p, Instance instance) {
        try {
            device.launch(p.grid(), p.block(), instance.kernel());
            return null;
        } catch (KernelException e) {
            return e;
        }
    }

    private static String kind(KernelException e) {
        return (e.getCause() == null ? "no cause" : e.getCause().getClass().getName()) + (e.threadIdx().isPresent() ? ", a thread" : ", the CTA");
    }

    /** A failure report: what differed, the seed, how to re-run it, and the numbered source. */
    public static String report(KernelGenerator.Program p, String difference) {
        return "fuzz kernel from seed 0x" + Long.toHexString(p.seed()) + " (grid " + p.grid() + ", block " + p.block()
                + ", n " + p.n() + ") differs: " + difference + "\nre-run with -Dweft.fuzz.seed=0x" + Long.toHexString(p.seed())
                + "\n" + numbered(p.source());
    }

    static String numbered(String source) {
        StringBuilder sb = new StringBuilder();
        String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            sb.append(String.format("%4d  %s%n", i + 1, lines[i]));
        }
        return sb.toString();
    }
}
