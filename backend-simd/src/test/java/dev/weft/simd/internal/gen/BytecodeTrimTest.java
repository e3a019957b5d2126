package dev.weft.simd.internal.gen;

import static java.lang.constant.ConstantDescs.CD_int;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link BytecodeTrim} on hand-made methods, in both class file forms the generator writes (version 49 without stack
 * maps, and with them): the code gets shorter where there is dead code or a dead store, and the trimmed class loads
 * and computes what the untrimmed one does. Stores read only on a loop's next iteration or by an exception handler
 * are live and must stay. Jumps through a {@code goto} go to its target, and jumps to the next instruction go.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BytecodeTrimTest {

    private static final ClassDesc NAME = ClassDesc.of("dev.weft.simd.internal.gen.TrimProbe");
    private static final MethodTypeDesc INT_INT = MethodTypeDesc.of(CD_int, CD_int);

    @Test
    void trim_deadStoresAndUnreachableCode_removedAndResultsKept() throws Throwable {
        for (boolean stackMaps : new boolean[] {false, true}) {
            byte[] before = probe(stackMaps);
            byte[] after = BytecodeTrim.trim(ClassFile.of(), before);
            // dead: istore 1 (imul pushed: a pop), dup+istore 2, the constants into 4 and 9; unreachable: the block using 9
            assertTrue(codeLength(after, "f") < codeLength(before, "f") - 10,
                    codeLength(before, "f") + " -> " + codeLength(after, "f") + " bytes (stack maps " + stackMaps + ")");
            assertTrue(maxLocals(after, "f") < 9, "the unreachable block's local 9 is gone: max_locals " + maxLocals(after, "f"));
            assertEquals(0, handlers(after, "f"), "the handler of unreachable code only");
            MethodHandle f0 = load(before, "f");
            MethodHandle f1 = load(after, "f");
            MethodHandle g0 = load(before, "g");
            MethodHandle g1 = load(after, "g");
            for (int x = -3; x <= 20; x++) {
                assertEquals((int) f0.invokeExact(x), (int) f1.invokeExact(x), "f(" + x + ")");
                assertEquals((int) g0.invokeExact(x), (int) g1.invokeExact(x), "g(" + x + ")");
            }
            assertEquals(3 * 7 + 1 + (0 + 1 + 2 + 3 + 4 + 5 + 6), (int) f1.invokeExact(7));
            assertEquals(5, (int) g1.invokeExact(0), "the store read only by the handler stayed");
            assertEquals(2, (int) g1.invokeExact(4));
        }
    }

    @Test
    void trim_jumpsThroughGotosAndToTheNextInstruction_removedAndResultsKept() throws Throwable {
        for (boolean stackMaps : new boolean[] {false, true}) {
            byte[] before = probe(stackMaps);
            byte[] after = BytecodeTrim.trim(ClassFile.of(), before);
            // the goto to the next instruction (3), the compare to the next one (3 for a pop2 of 1), and the goto
            // that only the threaded jump reached (3)
            assertTrue(codeLength(after, "h") <= codeLength(before, "h") - 8,
                    codeLength(before, "h") + " -> " + codeLength(after, "h") + " bytes (stack maps " + stackMaps + ")");
            MethodHandle h0 = load(before, "h");
            MethodHandle h1 = load(after, "h");
            for (int x = -5; x <= 5; x++) {
                assertEquals((int) h0.invokeExact(x), (int) h1.invokeExact(x), "h(" + x + ")");
                assertEquals(3 * Math.abs(x), (int) h1.invokeExact(x));
            }
        }
    }

    @Test
    void trim_nothingDead_sameCode() {
        byte[] before = probe(false);
        byte[] once = BytecodeTrim.trim(ClassFile.of(), before);
        byte[] twice = BytecodeTrim.trim(ClassFile.of(), once);
        assertEquals(codeLength(once, "f"), codeLength(twice, "f"), "a trimmed method has nothing left to trim");
        assertEquals(codeLength(once, "g"), codeLength(twice, "g"));
        assertEquals(codeLength(before, "g"), codeLength(once, "g"), "g has no dead store or code");
    }

    /**
     * {@code f(x)}: locals 1 and 3 hold {@code 2x} and {@code x + 1} after dead stores to 1, 2 and 4, then a loop sums
     * {@code 0..x-1} into 5, whose store is read only on the next iteration; code after a goto nothing jumps to uses
     * local 9 under an exception handler. {@code g(x)}: stores 5 into local 1, read only by the handler of the
     * division by x that follows, else returns 8 / x.
     */
    private static byte[] probe(boolean stackMaps) {
        return ClassFile.of().build(NAME, clb -> {
            if (!stackMaps) {
                clb.withVersion(CodeGen.CLASS_VERSION_WITHOUT_STACK_MAPS, 0);
            }
            clb.withMethodBody("f", INT_INT, ClassFile.ACC_STATIC | ClassFile.ACC_PUBLIC, cb -> f(cb));
            clb.withMethodBody("g", INT_INT, ClassFile.ACC_STATIC | ClassFile.ACC_PUBLIC, cb -> g(cb));
            clb.withMethodBody("h", INT_INT, ClassFile.ACC_STATIC | ClassFile.ACC_PUBLIC, cb -> h(cb));
        });
    }

    private static void f(CodeBuilder cb) {
        Label loop = cb.newLabel();
        Label done = cb.newLabel();
        Label after = cb.newLabel();
        Label tryStart = cb.newLabel();
        Label tryEnd = cb.newLabel();
        Label handler = cb.newLabel();
        cb.iload(0).iconst_2().imul().istore(1);   // dead: overwritten before any read
        cb.iload(0).iload(0).iadd().istore(1);     // 2x
        cb.iload(0).iconst_1().iadd().dup().istore(2).istore(3); // 2 dead, 3 = x + 1
        cb.bipush(42).istore(4);                   // dead
        cb.iconst_0().istore(5).iconst_0().istore(6);
        cb.labelBinding(loop);
        cb.iload(6).iload(0).if_icmpge(done);
        cb.iload(5).iload(6).iadd().istore(5);     // read only on the next iteration, or after the loop
        cb.iinc(6, 1);
        cb.goto_(loop);
        cb.labelBinding(done);
        cb.goto_(after);
        // unreachable
        cb.labelBinding(tryStart);
        cb.iload(0).istore(9);
        cb.iload(9).iconst_0().idiv().istore(9);
        cb.labelBinding(tryEnd);
        cb.iload(9).ireturn();
        cb.labelBinding(handler);
        cb.pop().iconst_m1().ireturn();
        cb.exceptionCatch(tryStart, tryEnd, handler, ClassDesc.of("java.lang.ArithmeticException"));
        cb.labelBinding(after);
        // As the generator does for version 49: without a reachable use of local 9 the ClassFile API would count
        // max_locals below it and the untrimmed class would not load (see MethodGen.emit). Dead, so trimmed too.
        cb.iconst_0().istore(9);
        // 2x + (x + 1) + sum
        cb.iload(1).iload(3).iadd().iload(5).iadd().ireturn();
    }

    private static void g(CodeBuilder cb) {
        Label tryStart = cb.newLabel();
        Label tryEnd = cb.newLabel();
        Label handler = cb.newLabel();
        cb.iconst_1().istore(1);
        cb.labelBinding(tryStart);
        cb.iconst_5().istore(1);                   // read only by the handler
        cb.bipush(8).iload(0).idiv().istore(2);
        cb.labelBinding(tryEnd);
        cb.iload(2).ireturn();
        cb.labelBinding(handler);
        cb.pop().iload(1).ireturn();
        cb.exceptionCatch(tryStart, tryEnd, handler, ClassDesc.of("java.lang.ArithmeticException"));
    }

    /**
     * {@code h(x) = 3|x|}: a test jumps to a {@code goto} (threaded to its target, which leaves that {@code goto}
     * unreachable), a {@code goto} and a compare jump to the next instruction.
     */
    private static void h(CodeBuilder cb) {
        Label positive = cb.newLabel();
        Label next = cb.newLabel();
        Label same = cb.newLabel();
        Label times3 = cb.newLabel();
        cb.iload(0).ifge(positive);
        cb.iload(0).ineg().istore(0);
        cb.goto_(next);
        cb.labelBinding(next);
        cb.iload(0).iconst_1().if_icmpeq(same);
        cb.labelBinding(same);
        cb.goto_(times3);
        cb.labelBinding(positive);
        cb.goto_(times3);
        cb.labelBinding(times3);
        cb.iload(0).iconst_3().imul().ireturn();
    }

    private static MethodHandle load(byte[] bytes, String method) throws ReflectiveOperationException {
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        return lookup.findStatic(lookup.lookupClass(), method, MethodType.methodType(int.class, int.class));
    }

    private static CodeAttribute code(byte[] bytes, String method) {
        for (MethodModel m : ClassFile.of().parse(bytes).methods()) {
            if (m.methodName().equalsString(method)) {
                return m.findAttribute(Attributes.code()).orElseThrow();
            }
        }
        throw new AssertionError("no method " + method);
    }

    private static int codeLength(byte[] bytes, String method) {
        return code(bytes, method).codeLength();
    }

    private static int maxLocals(byte[] bytes, String method) {
        return code(bytes, method).maxLocals();
    }

    private static int handlers(byte[] bytes, String method) {
        return code(bytes, method).exceptionHandlers().size();
    }
}
