package dev.weft.simd.internal.gen;

import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
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
 * {@link HotLocals} on a hand-made method whose parameters hold the one-byte slots (a double across two of them, an
 * int array, a long, and an int local reusing the double's second slot) while locals far above them carry a loop:
 * in both class file forms the generator writes, the code gets shorter and computes what it did; applied again, it
 * still does, and is no longer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HotLocalsTest {

    private static final ClassDesc NAME = ClassDesc.of("dev.weft.simd.internal.gen.HotLocalsProbe");
    /** {@code f(double d, int[] a, long l, int n)}: slots 0-1, 2, 3-4, 5. */
    private static final MethodTypeDesc TYPE = MethodTypeDesc.of(CD_long, CD_double, CD_int.arrayType(), CD_long, CD_int);

    @Test
    void hotLocals_moveToTheShortSlots_resultsKept() throws Throwable {
        for (boolean stackMaps : new boolean[] {false, true}) {
            byte[] before = probe(stackMaps);
            byte[] once = HotLocals.apply(ClassFile.of(), before, 0);
            byte[] twice = HotLocals.apply(ClassFile.of(), once, 0);
            // the 4 hottest locals, used some 50 times: 1 byte less each use, the parameters' copies and uses aside
            assertTrue(codeLength(once) < codeLength(before) - 20, codeLength(before) + " -> " + codeLength(once)
                    + " bytes (stack maps " + stackMaps + ")");
            assertTrue(codeLength(twice) <= codeLength(once), "applied again, nothing grows");
            MethodHandle f0 = load(before);
            MethodHandle f1 = load(once);
            MethodHandle f2 = load(twice);
            int[] a = {3, -1, 4, 1, -5, 9, 2, 6};
            for (int n = 0; n <= a.length; n++) {
                long expected = (long) f0.invokeExact(2.5, a, 1000L, n);
                assertEquals(expected, (long) f1.invokeExact(2.5, a, 1000L, n), "n = " + n);
                assertEquals(expected, (long) f2.invokeExact(2.5, a, 1000L, n), "applied twice, n = " + n);
            }
            assertEquals(1000 + 2 + (3 - 1 + 4 + 1) * 7 + 4, (long) f1.invokeExact(2.5, a, 1000L, 4));
        }
    }

    @Test
    void hotLocals_methodsUnderTheThreshold_unchanged() {
        byte[] before = probe(false);
        byte[] after = HotLocals.apply(ClassFile.of(), before, codeLength(before));
        assertEquals(codeLength(before), codeLength(after));
    }

    /**
     * {@code f(d, a, l, n) = l + (long) d + 7 * (a[0] + ... + a[n-1]) + n}, the sum, index and factor in locals 10,
     * 11 and 12 (each read and written in the loop), copies of the sum and the index through locals 15 and 16, the
     * iterations counted in local 1 (the double's second slot), the result through local 13.
     */
    private static byte[] probe(boolean stackMaps) {
        return ClassFile.of().build(NAME, clb -> {
            if (!stackMaps) {
                clb.withVersion(CodeGen.CLASS_VERSION_WITHOUT_STACK_MAPS, 0);
            }
            clb.withMethodBody("f", TYPE, ClassFile.ACC_STATIC | ClassFile.ACC_PUBLIC, HotLocalsTest::f);
        });
    }

    private static void f(CodeBuilder cb) {
        Label loop = cb.newLabel();
        Label done = cb.newLabel();
        // the double's value kept in 13, and its second slot reused for an int counting the iterations
        cb.lload(3).dload(0).d2l().ladd().lstore(13);
        cb.iconst_0().istore(1);
        cb.iconst_0().istore(15).iconst_0().istore(16);
        cb.iconst_0().istore(10);
        cb.iconst_0().istore(11);
        cb.bipush(7).istore(12);
        cb.labelBinding(loop);
        cb.iload(11).iload(5).if_icmpge(done);
        cb.iload(10).aload(2).iload(11).iaload().iload(12).imul().iadd().istore(10);
        for (int k = 0; k < 3; k++) {
            // more uses (of the same values), so that each local is worth a move
            cb.iload(10).istore(10).iload(11).istore(11).iload(12).istore(12);
        }
        // locals 15 and 16, used less: the fifth and sixth hottest, moved on a second application
        cb.iload(10).istore(15).iload(15).istore(15).iload(15).istore(15).iload(15).istore(15).iload(15).istore(10);
        cb.iload(11).istore(16).iload(16).istore(16).iload(16).istore(16).iload(16).istore(16).iload(16).istore(11);
        cb.iinc(11, 1).iinc(1, 1);
        cb.goto_(loop);
        cb.labelBinding(done);
        cb.lload(13).iload(10).i2l().ladd().iload(1).i2l().ladd().lstore(13);
        cb.lload(13).lreturn();
    }

    private static MethodHandle load(byte[] bytes) throws ReflectiveOperationException {
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
        return lookup.findStatic(lookup.lookupClass(), "f",
                MethodType.methodType(long.class, double.class, int[].class, long.class, int.class));
    }

    private static int codeLength(byte[] bytes) {
        for (MethodModel m : ClassFile.of().parse(bytes).methods()) {
            if (m.methodName().equalsString("f")) {
                CodeAttribute code = m.findAttribute(Attributes.code()).orElseThrow();
                return code.codeLength();
            }
        }
        throw new AssertionError("no method f");
    }
}
