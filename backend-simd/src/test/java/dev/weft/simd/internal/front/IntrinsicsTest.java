package dev.weft.simd.internal.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Kind;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table of functions the compiler lowers without inlining: every vector helper it names exists with the
 * signature the generated call uses, and maps registers one to one; lanewise operators take their result's type. The code generator emits the call without
 * resolving it, so a missing helper showed only when a kernel ran ({@code Double.isNaN} on a varying double failed
 * with NoSuchMethodError; found by FuzzTest's extras, seed 0x14100052).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IntrinsicsTest {

    @Test
    void helpers_existWithOneVectorPerArgument_andMapRegistersOneToOne() throws ClassNotFoundException {
        List<Fn> fns = new ArrayList<>(Intrinsics.all());
        for (Fn f : Intrinsics.all()) {
            Fn floatForm = Intrinsics.floatForm(f);
            if (floatForm != null) {
                fns.add(floatForm);
            }
        }
        List<String> wrong = new ArrayList<>();
        int helpers = 0;
        for (Fn f : fns) {
            if (f.lowering() == Fn.Lowering.UNARY || f.lowering() == Fn.Lowering.BINARY || f.lowering() == Fn.Lowering.FMA) {
                // A lanewise operator of the result's vector type: every argument must be of that type.
                for (Kind p : f.params()) {
                    if (p != f.result()) {
                        wrong.add(f.owner() + "." + f.name() + f.descriptor() + ": a " + p + " argument to a lanewise " + f.result() + " operator");
                    }
                }
            }
            if (f.lowering() != Fn.Lowering.HELPER) {
                continue;
            }
            helpers++;
            String where = f.owner() + "." + f.name() + f.descriptor() + (f.viaDouble() ? " (float form)" : "") + " -> " + f.helper();
            // A helper takes and returns one register at a time, so every argument must have the result's lane width.
            for (Kind p : f.params()) {
                if (wide(p) != wide(f.result())) {
                    wrong.add(where + ": a " + p + " argument for a " + f.result() + " result");
                }
            }
            int dot = f.helper().lastIndexOf('.');
            Class<?> owner = Class.forName(f.helper().substring(0, dot).replace('/', '.'));
            Class<?>[] params = f.params().stream().map(IntrinsicsTest::vector).toArray(Class<?>[]::new);
            try {
                Method m = owner.getMethod(f.helper().substring(dot + 1), params);
                if (!Modifier.isStatic(m.getModifiers()) || m.getReturnType() != vector(f.result())) {
                    wrong.add(where + ": " + m);
                }
            } catch (NoSuchMethodException e) {
                wrong.add(where + ": no such method");
            }
        }
        assertTrue(helpers > 10, "helpers found: " + helpers);
        assertEquals(List.of(), wrong);
    }

    private static boolean wide(Kind k) {
        return k == Kind.LONG || k == Kind.DOUBLE;
    }

    private static Class<?> vector(Kind k) {
        return switch (k) {
            case INT -> IntVector.class;
            case LONG -> LongVector.class;
            case FLOAT -> FloatVector.class;
            case DOUBLE -> DoubleVector.class;
            default -> throw new IllegalArgumentException(k.toString());
        };
    }
}
