package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.Device;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.Instruction;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.BranchInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.LabelTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of the generated code where it decides whether C2 keeps vectors in registers; checked on the class
 * files that {@code -Dweft.simd.dump} writes, never by timing.
 *
 * <p>Vector locals must be fresh per group of threads: a vector computed before the loop over a CTA's groups is
 * carried around it, and where a region is skipped in some groups (a branch on the warp's parity) C2 then boxes
 * every vector the kernel's loops carry, a Float256Vector and a float[] per iteration and register.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CodeShapeTest {

    @Test
    void generatedCode_warpGroupedBranchWithLoops_noVectorBeforeTheGroupLoop(@TempDir Path dir) throws IOException, InterruptedException {
        int n = 512;
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * 0.01f;
        }
        Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                Kernel k = t -> {
                    int i = t.globalIdX();
                    float v = x[i];
                    if (((i >> 5) & 1) == 0) {
                        for (int s = 0; s < 8; s++) {
                            v = v * 0.5f + 1f;
                        }
                    } else {
                        for (int s = 0; s < 8; s++) {
                            v = v * 0.25f - 1f;
                        }
                    }
                    y[i] = v;
                };
                device.launch(Dim3.of(n / 128), Dim3.of(128), k);
            }
        });
        for (int i = 0; i < n; i++) {
            float v = x[i];
            for (int s = 0; s < 8; s++) {
                v = ((i >> 5) & 1) == 0 ? v * 0.5f + 1f : v * 0.25f - 1f;
            }
            assertEquals(v, y[i], "element " + i);
        }
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("noVectorBeforeTheGroupLoop")).toList();
        }
        assertEquals(1, classes.size(), classes::toString);
        ClassModel cls = ClassFile.of().parse(Files.readAllBytes(classes.get(0)));
        int groupMethods = 0;
        for (MethodModel m : cls.methods()) {
            String name = m.methodName().stringValue();
            if (name.equals("runCta") || name.equals("runCtaRow") || name.equals(dev.weft.simd.internal.gen.CodeGen.FROM_ARRAY)
                    || name.startsWith("<") || m.code().isEmpty()) {
                continue;
            }
            groupMethods++;
            List<String> early = vectorCallsBeforeOutermostLoop(m.code().get());
            assertTrue(early.isEmpty(), name + " computes vectors before its group loop, carried around it: " + early);
        }
        assertFalse(groupMethods == 0, "no per-group method in " + cls.thisClass().asInternalName());
    }

    /**
     * The Vector API calls that return a vector or mask before the head of the method's outermost loop (the
     * earliest target of a backward branch).
     */
    private static List<String> vectorCallsBeforeOutermostLoop(CodeModel code) {
        Map<Label, Integer> at = new HashMap<>();
        List<CodeElement> elements = code.elementList();
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) instanceof LabelTarget t) {
                at.put(t.label(), i);
            }
        }
        int head = Integer.MAX_VALUE;
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) instanceof BranchInstruction b && at.get(b.target()) <= i) {
                head = Math.min(head, at.get(b.target()));
            }
        }
        assertTrue(head != Integer.MAX_VALUE, "no loop over groups");
        List<String> found = new ArrayList<>();
        for (int i = 0; i < head; i++) {
            if (elements.get(i) instanceof Instruction ins && ins instanceof InvokeInstruction call
                    && call.typeSymbol().returnType().descriptorString().startsWith("Ljdk/incubator/vector/")) {
                found.add(call.owner().asInternalName() + "." + call.name().stringValue());
            }
        }
        return found;
    }

    /**
     * A kernel with barriers gets, per variant, a method for each point where a phase can resume (the start, after
     * each barrier) besides the general one, and each is reducible: no jump into the middle of a loop, so that C2
     * optimises its loops and keeps the values they carry in registers. The general method resumes each group with
     * a switch into the barriers' loop, a loop with several entries; measured here (AVX2, 544 x 544 tiled sgemm),
     * its k-loop kept the accumulator on the stack.
     */
    @Test
    void generatedCode_tiledMatmul_resumeMethodsReducible(@TempDir Path dir) throws IOException, InterruptedException {
        int n = 48;
        float[] a = new float[n * n];
        float[] b = new float[n * n];
        float[] c = new float[n * n];
        for (int i = 0; i < n * n; i++) {
            a[i] = (i % 7) * 0.5f;
            b[i] = (i % 5) * 0.25f;
        }
        long unexpected = dev.weft.simd.internal.gen.Phases.unexpectedResumes();
        Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                Kernel k = t -> {
                    float[] as = t.sharedFloats(256);
                    float[] bs = t.sharedFloats(256);
                    int tx = t.threadIdxX();
                    int ty = t.threadIdxY();
                    int row = t.blockIdxY() * 16 + ty;
                    int col = t.blockIdxX() * 16 + tx;
                    float sum = 0f;
                    for (int k0 = 0; k0 < n; k0 += 16) {
                        as[ty * 16 + tx] = a[row * n + k0 + tx];
                        bs[ty * 16 + tx] = b[(k0 + ty) * n + col];
                        t.syncThreads();
                        for (int kk = 0; kk < 16; kk++) {
                            sum += as[ty * 16 + kk] * bs[kk * 16 + tx];
                        }
                        t.syncThreads();
                    }
                    c[row * n + col] = sum;
                };
                // The methods per resume point come from a background compile: launch once they are in place.
                // Every variant (a report's class), and the one these CTAs run (the launch's class).
                device.compileReport(k);
                device.compileReport(k, Dim3.of(16, 16));
                Differential.awaitResumeMethods();
                device.launch(Dim3.of(n / 16, n / 16), Dim3.of(16, 16), k);
            }
        });
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0f;
                for (int k = 0; k < n; k++) {
                    sum += a[i * n + k] * b[k * n + j];
                }
                assertEquals(sum, c[i * n + j], "c[" + i + "][" + j + "]");
            }
        }
        assertEquals(unexpected, dev.weft.simd.internal.gen.Phases.unexpectedResumes(),
                "a phase of the tiled matmul left its resume method for the general one");
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains("resumeMethodsReducible")).toList();
        }
        assertEquals(2, classes.size(), classes::toString);
        ClassModel every = null;
        for (Path p : classes) {
            ClassModel cls = ClassFile.of().parse(Files.readAllBytes(p));
            List<String> names = cls.methods().stream().map(m -> m.methodName().stringValue()).toList();
            if (names.contains("general")) {
                every = cls;
                for (String v : List.of("rowAligned", "general")) {
                    for (String m : List.of(v, v + "$0", v + "$1", v + "$2")) {
                        assertTrue(names.contains(m), m + " missing: " + names);
                    }
                }
            } else {
                assertEquals(3, names.stream().filter(m -> m.contains("$")).count(), "the launch's variant's resume methods: " + names);
            }
            for (MethodModel m : cls.methods()) {
                String name = m.methodName().stringValue();
                if (name.contains("$")) {
                    assertTrue(reducible(m.code().orElseThrow()), name + " has a loop entered in its middle");
                }
            }
        }
        assertNotNull(every, "the report's class with every variant");
        MethodModel general = every.methods().stream().filter(m -> m.methodName().stringValue().equals("rowAligned")).findFirst().orElseThrow();
        assertFalse(reducible(general.code().orElseThrow()), "the check finds nothing: the general method resumes into its loop");
    }

    /**
     * Whether the reachable control flow of {@code code} is reducible: every backward edge of a depth-first walk
     * from the entry goes to an instruction that dominates its source (exception edges left out).
     */
    private static boolean reducible(CodeModel code) {
        List<CodeElement> elements = code.elementList();
        Map<Label, Integer> at = new HashMap<>();
        List<Instruction> ins = new ArrayList<>();
        for (CodeElement e : elements) {
            if (e instanceof LabelTarget t) {
                at.put(t.label(), ins.size());
            } else if (e instanceof Instruction i) {
                ins.add(i);
            }
        }
        int size = ins.size();
        List<List<Integer>> succs = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            List<Integer> s = new ArrayList<>();
            Instruction x = ins.get(i);
            switch (x) {
                case BranchInstruction b -> {
                    s.add(at.get(b.target()));
                    if (b.opcode() != java.lang.classfile.Opcode.GOTO && b.opcode() != java.lang.classfile.Opcode.GOTO_W) {
                        s.add(i + 1);
                    }
                }
                case java.lang.classfile.instruction.LookupSwitchInstruction sw -> {
                    s.add(at.get(sw.defaultTarget()));
                    sw.cases().forEach(c -> s.add(at.get(c.target())));
                }
                case java.lang.classfile.instruction.TableSwitchInstruction sw -> {
                    s.add(at.get(sw.defaultTarget()));
                    sw.cases().forEach(c -> s.add(at.get(c.target())));
                }
                case java.lang.classfile.instruction.ReturnInstruction r -> {
                }
                case java.lang.classfile.instruction.ThrowInstruction t -> {
                }
                default -> s.add(i + 1);
            }
            succs.add(s);
        }
        // Reverse postorder from the entry, then dominators by the iterative algorithm (Cooper, Harvey, Kennedy).
        int[] post = new int[size];
        java.util.Arrays.fill(post, -1);
        List<Integer> order = new ArrayList<>();
        boolean[] seen = new boolean[size];
        boolean[] onStack = new boolean[size];
        List<int[]> backEdges = new ArrayList<>();
        java.util.ArrayDeque<int[]> stack = new java.util.ArrayDeque<>();
        stack.push(new int[] {0, 0});
        seen[0] = true;
        onStack[0] = true;
        while (!stack.isEmpty()) {
            int[] top = stack.peek();
            List<Integer> s = succs.get(top[0]);
            if (top[1] < s.size()) {
                int w = s.get(top[1]++);
                if (!seen[w]) {
                    seen[w] = true;
                    onStack[w] = true;
                    stack.push(new int[] {w, 0});
                } else if (onStack[w]) {
                    backEdges.add(new int[] {top[0], w});
                }
            } else {
                stack.pop();
                onStack[top[0]] = false;
                post[top[0]] = order.size();
                order.add(top[0]);
            }
        }
        List<List<Integer>> preds = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            preds.add(new ArrayList<>());
        }
        for (int i = 0; i < size; i++) {
            if (seen[i]) {
                for (int w : succs.get(i)) {
                    preds.get(w).add(i);
                }
            }
        }
        int[] idom = new int[size];
        java.util.Arrays.fill(idom, -1);
        idom[0] = 0;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int k = order.size() - 1; k >= 0; k--) {
                int b = order.get(k);
                if (b == 0) {
                    continue;
                }
                int d = -1;
                for (int p : preds.get(b)) {
                    if (idom[p] < 0) {
                        continue;
                    }
                    if (d < 0) {
                        d = p;
                    } else {
                        int x = p;
                        int y = d;
                        while (x != y) {
                            while (post[x] < post[y]) {
                                x = idom[x];
                            }
                            while (post[y] < post[x]) {
                                y = idom[y];
                            }
                        }
                        d = x;
                    }
                }
                if (d != idom[b]) {
                    idom[b] = d;
                    changed = true;
                }
            }
        }
        for (int[] e : backEdges) {
            int x = e[0];
            while (x != e[1] && x != 0) {
                x = idom[x];
            }
            if (x != e[1]) {
                return false;
            }
        }
        return true;
    }

    /**
     * An empty arm of a divergent ternary ({@code d > 0 ? 1f - c : c}) runs without the empty-mask test, as an arm
     * that computes does, also where its phi is read beyond its block: with the test, a branch whose both paths
     * read the phi's inputs made C2 compute them above it, between the calls of black-scholes' exps (weft/vectorApi
     * 0.78-0.82, 1.00-1.23 without). Two kernels that differ only in the other arm have as many tests.
     */
    @Test
    void generatedCode_emptyTernaryArm_noEmptyMaskTest(@TempDir Path dir) throws IOException, InterruptedException {
        int n = 256;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (i % 7) - 3f;
        }
        float[] emptyOut = new float[n];
        float[] computedOut = new float[n];
        Dumps.into(dir, () -> {
            try (Device device = Device.create()) {
                device.launch(Dim3.of(n / 128), Dim3.of(128), emptyArmKernel(x, emptyOut));
                device.launch(Dim3.of(n / 128), Dim3.of(128), computedArmKernel(x, computedOut));
            }
        });
        for (int i = 0; i < n; i++) {
            float d = x[i];
            float c = d * 0.5f;
            float p = d > 0f ? 1f - c : c;
            float q = d > 1f ? 1f - c : c * 2f;
            assertEquals(p * q, emptyOut[i], "element " + i);
        }
        assertEquals(anyTrueCalls(dir, "computedArmKernel"), anyTrueCalls(dir, "emptyArmKernel"));
    }

    /**
     * The listing says which masked blocks run without their empty-mask test: the arms that only compute (both arms
     * of each ternary in {@link #emptyArmKernel}), not an arm that loads (a fault must not happen for no thread).
     */
    @Test
    void listing_saysWhichArmsRunWhenEmpty() {
        float[] x = new float[256];
        float[] y = new float[256];
        try (Device device = Device.create()) {
            String computing = device.compileReport(computingArmsKernel(x, y), Dim3.of(128)).listing();
            // the four arms run; the block under i < x.length loads, and keeps its test
            assertEquals(4, count(computing, "runs even when empty"), computing);
            assertEquals(1, count(computing, "skipped when empty"), computing);
            String loading = device.compileReport(loadingArmKernel(x, y), Dim3.of(128)).listing();
            assertEquals(1, count(loading, "runs even when empty"), loading);
            assertEquals(2, count(loading, "skipped when empty"), loading);
        }
    }

    private static int count(String text, String phrase) {
        return text.split(phrase, -1).length - 1;
    }

    /** As {@link #emptyArmKernel}, its own lambda: the other test must compile that one itself. */
    private static Kernel computingArmsKernel(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                float d = x[i];
                float c = d * 0.5f;
                float p = d > 0f ? 1f - c : c;
                float q = d > 1f ? 1f - c : c * 2f;
                y[i] = p * q;
            }
        };
    }

    private static Kernel loadingArmKernel(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                float d = x[i];
                float p = d > 0f ? x[x.length - 1 - i] : d * 0.5f;
                y[i] = p;
            }
        };
    }

    private static Kernel emptyArmKernel(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                float d = x[i];
                float c = d * 0.5f;
                float p = d > 0f ? 1f - c : c;
                float q = d > 1f ? 1f - c : c * 2f;
                y[i] = p * q;
            }
        };
    }

    private static Kernel computedArmKernel(float[] x, float[] y) {
        return t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                float d = x[i];
                float c = d * 0.5f;
                float p = d > 0f ? 1f - c : c * 3f;
                float q = d > 1f ? 1f - c : c * 2f;
                y[i] = p * q;
            }
        };
    }

    /**
     * The calls of {@code VectorMask.anyTrue} (the empty-mask tests) in the one class dumped for {@code kernel}; the
     * kernels' guarded loads have one at least.
     */
    private static int anyTrueCalls(Path dir, String kernel) throws IOException {
        List<Path> classes;
        try (Stream<Path> files = Files.walk(dir)) {
            classes = files.filter(f -> f.getFileName().toString().contains(kernel)).toList();
        }
        assertEquals(1, classes.size(), classes::toString);
        ClassModel cls = ClassFile.of().parse(Files.readAllBytes(classes.get(0)));
        int calls = 0;
        for (MethodModel m : cls.methods()) {
            if (m.code().isEmpty()) {
                continue;
            }
            for (CodeElement e : m.code().get().elementList()) {
                if (e instanceof InvokeInstruction call && call.name().equalsString("anyTrue")) {
                    calls++;
                }
            }
        }
        assertTrue(calls > 0, "no empty-mask test in " + cls.thisClass().asInternalName());
        return calls;
    }
}
