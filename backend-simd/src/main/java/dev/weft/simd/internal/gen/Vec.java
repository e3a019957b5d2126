package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.ir.Kind;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Descriptors of the Vector API and runtime types the generated code calls, in one place. */
final class Vec {

    static final ClassDesc VECTOR = ClassDesc.of("jdk.incubator.vector.Vector");
    static final ClassDesc INT_VECTOR = ClassDesc.of("jdk.incubator.vector.IntVector");
    static final ClassDesc LONG_VECTOR = ClassDesc.of("jdk.incubator.vector.LongVector");
    static final ClassDesc FLOAT_VECTOR = ClassDesc.of("jdk.incubator.vector.FloatVector");
    static final ClassDesc DOUBLE_VECTOR = ClassDesc.of("jdk.incubator.vector.DoubleVector");
    static final ClassDesc BYTE_VECTOR = ClassDesc.of("jdk.incubator.vector.ByteVector");
    static final ClassDesc SHORT_VECTOR = ClassDesc.of("jdk.incubator.vector.ShortVector");
    static final ClassDesc MASK = ClassDesc.of("jdk.incubator.vector.VectorMask");
    static final ClassDesc SHUFFLE = ClassDesc.of("jdk.incubator.vector.VectorShuffle");
    static final ClassDesc SPECIES = ClassDesc.of("jdk.incubator.vector.VectorSpecies");
    static final ClassDesc OPERATORS = ClassDesc.of("jdk.incubator.vector.VectorOperators");
    static final ClassDesc LANES = ClassDesc.of("dev.weft.simd.internal.gen.Lanes");
    /** The owner of the 64-bit lanes' species ({@link Lanes.Wide}). */
    static final ClassDesc LANES_WIDE = ClassDesc.of("dev.weft.simd.internal.gen.Lanes$Wide");
    /** The owner of the 8- and 16-bit lanes' species ({@link Lanes.Narrow}). */
    static final ClassDesc LANES_NARROW = ClassDesc.of("dev.weft.simd.internal.gen.Lanes$Narrow");
    static final ClassDesc PERMUTES = ClassDesc.of("dev.weft.simd.internal.gen.Permutes");
    static final ClassDesc SHARED_ATOMICS = ClassDesc.of("dev.weft.simd.internal.gen.SharedAtomics");
    static final ClassDesc CTA = ClassDesc.of("dev.weft.runtime.spi.Cta");
    static final ClassDesc SHARED_MEMORY = ClassDesc.of("dev.weft.runtime.spi.SharedMemory");
    static final ClassDesc PHASES = ClassDesc.of("dev.weft.simd.internal.gen.Phases");
    static final ClassDesc CTA_PROGRAM = ClassDesc.of("dev.weft.runtime.spi.CtaProgram");
    static final ClassDesc KERNEL_FAULT = ClassDesc.of("dev.weft.runtime.spi.KernelFault");
    static final ClassDesc DIM3 = ClassDesc.of("dev.weft.Dim3");
    static final ClassDesc THROWABLE = ClassDesc.of("java.lang.Throwable");

    /**
     * Concurrent: compilations run on several threads at once (the compiler warm-up's beside the first real
     * one); a plain HashMap's computeIfAbsent threw ConcurrentModificationException there, and the kernel
     * silently ran on the reference executor.
     */
    private static final Map<String, ClassDesc> OPERATOR_TYPES = new ConcurrentHashMap<>();

    private Vec() {
    }

    /** The vector class holding lanes of {@code k}. */
    static ClassDesc vector(Kind k) {
        return switch (k) {
            case INT, BOOL -> INT_VECTOR;
            case LONG -> LONG_VECTOR;
            case FLOAT -> FLOAT_VECTOR;
            case DOUBLE -> DOUBLE_VECTOR;
            default -> throw new IllegalArgumentException(k.toString());
        };
    }

    /**
     * Pushes the species of {@code k}'s lanes: {@link Lanes}' for 32-bit lanes, {@link Lanes.Wide}'s for 64-bit ones
     * (the owner and the field's name go together, so they are chosen in one place).
     */
    static void loadSpecies(CodeBuilder cb, Kind k) {
        ClassDesc owner = k == Kind.LONG || k == Kind.DOUBLE ? LANES_WIDE : LANES;
        String name = switch (k) {
            case INT, BOOL -> "IS";
            case LONG -> "LS";
            case FLOAT -> "FS";
            case DOUBLE -> "DS";
            default -> throw new IllegalArgumentException(k.toString());
        };
        cb.getstatic(owner, name, SPECIES);
    }

    /** The JVM primitive of a scalar of {@code k} (arrays: their array class). */
    static ClassDesc scalar(Kind k) {
        return switch (k) {
            case INT, BOOL -> ConstantDescs.CD_int;
            case LONG -> ConstantDescs.CD_long;
            case FLOAT -> ConstantDescs.CD_float;
            case DOUBLE -> ConstantDescs.CD_double;
            case INT_ARRAY -> ConstantDescs.CD_int.arrayType();
            case LONG_ARRAY -> ConstantDescs.CD_long.arrayType();
            case FLOAT_ARRAY -> ConstantDescs.CD_float.arrayType();
            case DOUBLE_ARRAY -> ConstantDescs.CD_double.arrayType();
            case BYTE_ARRAY -> ConstantDescs.CD_byte.arrayType();
            case SHORT_ARRAY -> ConstantDescs.CD_short.arrayType();
            case CHAR_ARRAY -> ConstantDescs.CD_char.arrayType();
            case BOOLEAN_ARRAY -> ConstantDescs.CD_boolean.arrayType();
            default -> throw new IllegalArgumentException(k.toString());
        };
    }

    static TypeKind typeKind(Kind k) {
        return switch (k) {
            case INT, BOOL -> TypeKind.INT;
            case LONG -> TypeKind.LONG;
            case FLOAT -> TypeKind.FLOAT;
            case DOUBLE -> TypeKind.DOUBLE;
            default -> TypeKind.REFERENCE;
        };
    }

    /** The JVM type of an element of array kind {@code k}: which of {@code iaload}, {@code baload}, {@code caload}... reads it. */
    static TypeKind elementTypeKind(Kind k) {
        return switch (k) {
            case BYTE_ARRAY -> TypeKind.BYTE;
            case SHORT_ARRAY -> TypeKind.SHORT;
            case CHAR_ARRAY -> TypeKind.CHAR;
            case BOOLEAN_ARRAY -> TypeKind.BOOLEAN;
            default -> typeKind(k.element());
        };
    }

    /** The static type of a {@code VectorOperators} constant, found reflectively once. */
    static ClassDesc operatorType(String name) {
        ClassDesc cd = OPERATOR_TYPES.get(name);
        if (cd == null) {
            try {
                cd = ClassDesc.of(jdk.incubator.vector.VectorOperators.class.getField(name).getType().getName());
            } catch (NoSuchFieldException e) {
                throw new IllegalArgumentException("no VectorOperators." + name, e);
            }
            OPERATOR_TYPES.put(name, cd);
        }
        return cd;
    }

    static MethodTypeDesc mt(ClassDesc ret, ClassDesc... params) {
        return MethodTypeDesc.of(ret, params);
    }
}
