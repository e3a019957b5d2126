package dev.weft.simd;

import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.DynamicCallSiteDesc;
import java.lang.constant.MethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.LambdaMetafactory;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stores of ints that do not fit a narrow array's element: the store itself truncates (byte: the low 8 bits,
 * short and char: 16) and a boolean array keeps {@code value & 1}. Java source always narrows before it stores
 * ({@code i2b}, or a 0/1 boolean), so these kernels are written in bytecode: {@code a[i] = v[i]} with {@code v} an
 * int array, straight into {@code bastore}, {@code sastore} or {@code castore}, as other JVM languages may emit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NarrowStoresTest {

    @AutoClose
    static final Differential d = new Differential();
    static final int N = 500;
    static final ClassDesc CONTEXT = ClassDesc.of("dev.weft.ThreadContext");
    static final ClassDesc KERNEL = ClassDesc.of("dev.weft.Kernel");

    /** Ints on both sides of every narrow range's edges, then random ones. */
    static int[] values(long seed) {
        int[] special = {300, -129, 128, 255, 256, -1, 2, 3, 70000, -70000, 65535, 65536, 32768, -32769, 0x12345678,
            Integer.MIN_VALUE, Integer.MAX_VALUE, 0, 1, 127, -128, 0xFFFF, 0x8000, 0x7FFF, 5, 6, 7};
        int[] a = Differential.ints(N, seed, Integer.MIN_VALUE / 2, Integer.MAX_VALUE / 2);
        System.arraycopy(special, 0, a, 0, special.length);
        Random r = new Random(seed);
        for (int i = special.length; i < N; i += 3) {
            a[i] = r.nextInt(1 << 18) - (1 << 17);
        }
        return a;
    }

    /**
     * The class of a kernel over arrays {@code a, b, c, u} of {@code element} and int array {@code v}:
     * <pre>
     * i = globalIdX; n = v.length; if (i >= n) return;
     * a[i] = v[i];                                   // contiguous store
     * b[(i * 7 + 3) % n] = v[i];                     // scatter
     * if ((v[i] &amp; 4) != 0) c[i] = v[i] * 3;          // divergent, masked store
     * u[blockIdx.x] = v[i];                          // every thread of the CTA on one element
     * </pre>
     * and its factory {@code make(a, b, c, u, v)}, a serializable lambda as javac would make it.
     */
    static byte[] kernelClass(String name, TypeKind element) {
        ClassDesc self = ClassDesc.of(name);
        ClassDesc arr = element.upperBound().arrayType();
        ClassDesc ints = CD_int.arrayType();
        MethodTypeDesc body = MethodTypeDesc.of(CD_void, arr, arr, arr, arr, ints, CONTEXT);
        MethodTypeDesc factory = MethodTypeDesc.of(KERNEL, arr, arr, arr, arr, ints);
        return ClassFile.of().build(self, clb -> {
            clb.withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL);
            clb.withMethodBody("lambda$0", body, ClassFile.ACC_PRIVATE | ClassFile.ACC_STATIC | ClassFile.ACC_SYNTHETIC, cb -> {
                int i = 6;
                int n = 7;
                Label end = cb.newLabel();
                cb.aload(5);
                cb.invokeinterface(CONTEXT, "globalIdX", MethodTypeDesc.of(CD_int));
                cb.istore(i);
                cb.aload(4);
                cb.arraylength();
                cb.istore(n);
                cb.iload(i);
                cb.iload(n);
                cb.if_icmpge(end);
                // a[i] = v[i]
                cb.aload(0);
                cb.iload(i);
                loadV(cb, i);
                cb.arrayStore(element);
                // b[(i * 7 + 3) % n] = v[i]
                cb.aload(1);
                cb.iload(i);
                cb.bipush(7);
                cb.imul();
                cb.iconst_3();
                cb.iadd();
                cb.iload(n);
                cb.irem();
                loadV(cb, i);
                cb.arrayStore(element);
                // if ((v[i] & 4) != 0) c[i] = v[i] * 3
                Label skip = cb.newLabel();
                loadV(cb, i);
                cb.iconst_4();
                cb.iand();
                cb.ifeq(skip);
                cb.aload(2);
                cb.iload(i);
                loadV(cb, i);
                cb.iconst_3();
                cb.imul();
                cb.arrayStore(element);
                cb.labelBinding(skip);
                // u[blockIdx.x] = v[i]
                cb.aload(3);
                cb.aload(5);
                cb.invokeinterface(CONTEXT, "blockIdxX", MethodTypeDesc.of(CD_int));
                loadV(cb, i);
                cb.arrayStore(element);
                cb.labelBinding(end);
                cb.return_();
            });
            DirectMethodHandleDesc impl = MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.STATIC, self, "lambda$0", body);
            MethodTypeDesc sam = MethodTypeDesc.of(CD_void, CONTEXT);
            DirectMethodHandleDesc alt = MethodHandleDesc.ofMethod(DirectMethodHandleDesc.Kind.STATIC,
                    ClassDesc.of("java.lang.invoke.LambdaMetafactory"), "altMetafactory",
                    MethodTypeDesc.of(ConstantDescs.CD_CallSite, ConstantDescs.CD_MethodHandles_Lookup, ConstantDescs.CD_String,
                            ConstantDescs.CD_MethodType, ConstantDescs.CD_Object.arrayType()));
            clb.withMethodBody("make", factory, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, cb -> {
                for (int k = 0; k < 5; k++) {
                    cb.aload(k);
                }
                cb.invokedynamic(DynamicCallSiteDesc.of(alt, "run", factory, sam, impl, sam, LambdaMetafactory.FLAG_SERIALIZABLE));
                cb.areturn();
            });
        });
    }

    private static void loadV(CodeBuilder cb, int i) {
        cb.aload(4);
        cb.iload(i);
        cb.iaload();
    }

    /** Defines the class and serves its bytes as its resource, where the compiler reads the kernel from. */
    static final class Loader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        Loader(String name, byte[] bytes) {
            super(NarrowStoresTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> findClass(String n) throws ClassNotFoundException {
            if (!n.equals(name)) {
                throw new ClassNotFoundException(n);
            }
            return defineClass(n, bytes, 0, bytes.length);
        }

        @Override
        public InputStream getResourceAsStream(String resource) {
            return resource.equals(name.replace('.', '/') + ".class") ? new ByteArrayInputStream(bytes) : super.getResourceAsStream(resource);
        }
    }

    /** The factory of the bytecode kernel storing into arrays of {@code element}: data are {a, b, c, u, v}. */
    static Function<Object[], Kernel> kernel(TypeKind element) {
        String name = "weft.test.NarrowStores" + element.upperBound().displayName().substring(0, 1).toUpperCase()
                + element.upperBound().displayName().substring(1);
        try {
            Class<?> c = new Loader(name, kernelClass(name, element)).loadClass(name);
            var make = java.lang.invoke.MethodHandles.publicLookup().findStatic(c, "make",
                    java.lang.invoke.MethodType.methodType(Kernel.class, List.of(arrayClass(element), arrayClass(element),
                            arrayClass(element), arrayClass(element), int[].class)));
            return data -> {
                try {
                    return (Kernel) make.invokeWithArguments(data);
                } catch (Throwable e) {
                    throw new AssertionError(e);
                }
            };
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Class<?> arrayClass(TypeKind element) {
        return switch (element) {
            case BYTE -> byte[].class;
            case SHORT -> short[].class;
            case CHAR -> char[].class;
            default -> boolean[].class;
        };
    }

    private static Object newArray(TypeKind element, int n) {
        return java.lang.reflect.Array.newInstance(arrayClass(element).componentType(), n);
    }

    private static void check(Differential diff, TypeKind element, int seed) {
        Function<Object[], Kernel> make = kernel(element);
        for (Dim3[] s : List.of(new Dim3[] {Dim3.of(8), Dim3.of(64)}, new Dim3[] {Dim3.of(6), Dim3.of(100)},
                new Dim3[] {Dim3.of(N), Dim3.of(1)}, new Dim3[] {Dim3.of(1), Dim3.of(1024)}, new Dim3[] {Dim3.of(16), Dim3.of(33)})) {
            diff.check(s[0], s[1], make, newArray(element, N), newArray(element, N), newArray(element, N), newArray(element, 1024),
                    values(seed));
        }
    }

    @Test
    void byteStore_keepsTheLow8Bits() {
        check(d, TypeKind.BYTE, 1);
    }

    @Test
    void shortStore_keepsTheLow16Bits() {
        check(d, TypeKind.SHORT, 2);
    }

    @Test
    void charStore_keepsTheLow16Bits() {
        check(d, TypeKind.CHAR, 3);
    }

    @Test
    void booleanStore_keepsTheLowBit() {
        check(d, TypeKind.BOOLEAN, 4);
    }

    @Test
    void narrowStores_warpsOf8And16() {
        for (int warp : new int[] {8, 16}) {
            try (Differential small = new Differential(warp)) {
                check(small, TypeKind.BYTE, 5);
                check(small, TypeKind.BOOLEAN, 6);
                check(small, TypeKind.CHAR, 7);
            }
        }
    }
}
