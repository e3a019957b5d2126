package dev.weft.simd.internal.front;

import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Fn.Lowering;
import dev.weft.simd.internal.ir.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The static methods a kernel may call without being inlined: {@code Math}, {@code StrictMath} where exact,
 * the bit conversions of {@code Float}, {@code Double}, {@code Integer}, {@code Long}, {@link dev.weft.Sfu} and
 * {@link dev.weft.FastMath}.
 * Each has a vector lowering or runs per lane; see {@link Fn}.
 *
 * <p>Implementation notes. The ulp figures are what a varying call may differ from the scalar method the
 * reference executor runs: both are within the bound {@link Math} documents of the exact result (1 ulp for
 * exp, log, sin, ...), so they are within twice that of each other. Functions that can throw
 * ({@code *Exact}, {@code clamp}) or are not pure ({@code random}) are not here: a kernel
 * calling them is declined rather than risk a changed meaning. {@code floorDiv} and {@code floorMod}, which throw
 * only where a division does, are inlined from {@link FloorOps} instead.
 */
public final class Intrinsics {

    private static final Map<String, Fn> TABLE = new HashMap<>();
    /**
     * Float forms of double methods, for the {@code (float) Math.f((double) x)} pattern: key = the double Fn. By
     * identity (every Fn comes from these tables): a record's hashCode links through a bootstrap method on first use.
     */
    private static final Map<Fn, Fn> FLOAT_FORMS = new IdentityHashMap<>();

    private static final String MATH = "java/lang/Math";
    private static final String STRICT = "java/lang/StrictMath";
    private static final String LANES = "dev/weft/simd/internal/gen/Lanes";
    private static final String FAST_MATH = "dev/weft/FastMath";
    private static final String VECTOR_FAST_MATH = "dev/weft/simd/sfu/VectorFastMath";

    private Intrinsics() {
    }

    static {
        for (String owner : List.of(MATH, STRICT)) {
            // Exact in both Math and StrictMath (the JLS pins them down).
            put(owner, "abs", "(I)I", Lowering.UNARY, "ABS", 0);
            put(owner, "abs", "(J)J", Lowering.UNARY, "ABS", 0);
            put(owner, "abs", "(F)F", Lowering.UNARY, "ABS", 0);
            put(owner, "abs", "(D)D", Lowering.UNARY, "ABS", 0);
            for (String op : List.of("min", "max")) {
                put(owner, op, "(II)I", Lowering.BINARY, op.toUpperCase(), 0);
                put(owner, op, "(JJ)J", Lowering.BINARY, op.toUpperCase(), 0);
                put(owner, op, "(FF)F", Lowering.BINARY, op.toUpperCase(), 0);
                put(owner, op, "(DD)D", Lowering.BINARY, op.toUpperCase(), 0);
            }
            Fn sqrt = put(owner, "sqrt", "(D)D", Lowering.UNARY, "SQRT", 0);
            floatForm(sqrt, Lowering.UNARY, "SQRT", null, 0);
            put(owner, "fma", "(DDD)D", Lowering.FMA, null, 0);
            put(owner, "fma", "(FFF)F", Lowering.FMA, null, 0);
            for (String op : List.of("floor", "ceil", "rint")) {
                Fn f = helper(owner, op, "(D)D", op, 0);
                floatForm(f, Lowering.HELPER, null, LANES + "." + op, 0);
            }
            helper(owner, "signum", "(D)D", "signum", 0);
            helper(owner, "signum", "(F)F", "signum", 0);
            helper(owner, "copySign", "(DD)D", "copySign", 0);
            helper(owner, "copySign", "(FF)F", "copySign", 0);
            for (String op : List.of("round", "ulp", "nextUp", "nextDown", "getExponent")) {
                perLane(owner, op, op.equals("round") ? "(D)J" : op.equals("getExponent") ? "(D)I" : "(D)D");
                perLane(owner, op, op.equals("round") ? "(F)I" : op.equals("getExponent") ? "(F)I" : "(F)F");
            }
            perLane(owner, "nextAfter", "(DD)D");
            perLane(owner, "nextAfter", "(FD)F");
            perLane(owner, "scalb", "(DI)D");
            perLane(owner, "scalb", "(FI)F");
            perLane(owner, "IEEEremainder", "(DD)D");
            perLane(owner, "multiplyHigh", "(JJ)J");
            perLane(owner, "toRadians", "(D)D");
            perLane(owner, "toDegrees", "(D)D");
        }
        // Math only: the vector forms are within the documented bound, which StrictMath's exact fdlibm results
        // would not allow; StrictMath versions run per lane.
        for (String op : List.of("exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "expm1", "log1p", "cbrt")) {
            Fn f = put(MATH, op, "(D)D", Lowering.UNARY, op.toUpperCase(), 2);
            floatForm(f, Lowering.UNARY, op.toUpperCase(), null, 2);
            perLane(STRICT, op, "(D)D");
        }
        for (String op : List.of("sinh", "cosh", "tanh")) {
            Fn f = put(MATH, op, "(D)D", Lowering.UNARY, op.toUpperCase(), 5);
            floatForm(f, Lowering.UNARY, op.toUpperCase(), null, 5);
            perLane(STRICT, op, "(D)D");
        }
        for (String op : List.of("pow", "atan2", "hypot")) {
            int u = op.equals("atan2") ? 4 : 2;
            Fn f = put(MATH, op, "(DD)D", Lowering.BINARY, op.toUpperCase(), u);
            floatForm(f, Lowering.BINARY, op.toUpperCase(), null, u);
            perLane(STRICT, op, "(DD)D");
        }

        helper("java/lang/Float", "floatToRawIntBits", "(F)I", "floatToRawIntBits", 0);
        helper("java/lang/Float", "floatToIntBits", "(F)I", "floatToIntBits", 0);
        helper("java/lang/Float", "intBitsToFloat", "(I)F", "intBitsToFloat", 0);
        helper("java/lang/Double", "doubleToRawLongBits", "(D)J", "doubleToRawLongBits", 0);
        helper("java/lang/Double", "doubleToLongBits", "(D)J", "doubleToLongBits", 0);
        helper("java/lang/Double", "longBitsToDouble", "(J)D", "longBitsToDouble", 0);
        helper("java/lang/Float", "isNaN", "(F)Z", "isNaN", 0);
        // Per lane: a helper maps register r to register r, and a double argument has twice the registers of the int
        // result (there was no Lanes.isNaN(DoubleVector) either: the generated call failed with NoSuchMethodError).
        perLane("java/lang/Double", "isNaN", "(D)Z");
        for (String box : List.of("java/lang/Float", "java/lang/Double")) {
            String t = box.endsWith("Float") ? "F" : "D";
            perLane(box, "isInfinite", "(" + t + ")Z");
            perLane(box, "isFinite", "(" + t + ")Z");
            perLane(box, "compare", "(" + t + t + ")I");
            put(box, "min", "(" + t + t + ")" + t, Lowering.BINARY, "MIN", 0);
            put(box, "max", "(" + t + t + ")" + t, Lowering.BINARY, "MAX", 0);
            put(box, "sum", "(" + t + t + ")" + t, Lowering.BINARY, "ADD", 0);
        }
        for (String box : List.of("java/lang/Integer", "java/lang/Long")) {
            String t = box.endsWith("Integer") ? "I" : "J";
            put(box, "min", "(" + t + t + ")" + t, Lowering.BINARY, "MIN", 0);
            put(box, "max", "(" + t + t + ")" + t, Lowering.BINARY, "MAX", 0);
            put(box, "sum", "(" + t + t + ")" + t, Lowering.BINARY, "ADD", 0);
            perLane(box, "signum", "(" + t + ")I");
            perLane(box, "compare", "(" + t + t + ")I");
            perLane(box, "compareUnsigned", "(" + t + t + ")I");
            perLane(box, "rotateLeft", "(" + t + "I)" + t);
            perLane(box, "rotateRight", "(" + t + "I)" + t);
            perLane(box, "highestOneBit", "(" + t + ")" + t);
            perLane(box, "lowestOneBit", "(" + t + ")" + t);
            if (t.equals("J")) {
                perLane(box, "bitCount", "(J)I");
                perLane(box, "numberOfLeadingZeros", "(J)I");
                perLane(box, "numberOfTrailingZeros", "(J)I");
                perLane(box, "reverse", "(J)J");
                perLane(box, "reverseBytes", "(J)J");
            }
        }
        put("java/lang/Integer", "bitCount", "(I)I", Lowering.UNARY, "BIT_COUNT", 0);
        put("java/lang/Integer", "numberOfLeadingZeros", "(I)I", Lowering.UNARY, "LEADING_ZEROS_COUNT", 0);
        put("java/lang/Integer", "numberOfTrailingZeros", "(I)I", Lowering.UNARY, "TRAILING_ZEROS_COUNT", 0);
        put("java/lang/Integer", "reverse", "(I)I", Lowering.UNARY, "REVERSE", 0);
        put("java/lang/Integer", "reverseBytes", "(I)I", Lowering.UNARY, "REVERSE_BYTES", 0);
        perLane("java/lang/Integer", "toUnsignedLong", "(I)J");

        // CUDA's fast-math intrinsics: one SFU operation and a multiply each, with vector twins that return the same bits
        // lane by lane (VectorSfuTest sweeps them), so a compiled kernel's results equal the reference executor's.
        for (String op : List.of("expf", "logf", "log2f", "sinf", "cosf", "sqrtf")) {
            vectorHelper(FAST_MATH, op, "(F)F", VECTOR_FAST_MATH + "." + op, 0);
        }
        vectorHelper(FAST_MATH, "fdividef", "(FF)F", VECTOR_FAST_MATH + ".fdividef", 0);
        for (SfuLowering.Entry e : SfuLowering.ENTRIES) {
            String d = "(F)F";
            if (e.vectorHelper() == null) {
                perLane("dev/weft/Sfu", e.name(), d);
            } else {
                vectorHelper("dev/weft/Sfu", e.name(), d, e.vectorHelper(), 0);
            }
        }
    }

    /** The function for a static call, or null if the compiler does not know it. */
    public static Fn lookup(String owner, String name, String descriptor) {
        return TABLE.get(key(owner, name, descriptor));
    }

    /** The float form of a double function, for {@code (float) f((double) x)}; null if there is none. */
    public static Fn floatForm(Fn doubleFn) {
        return FLOAT_FORMS.get(doubleFn);
    }

    /** Every known function, for tests and documentation. */
    public static List<Fn> all() {
        return new ArrayList<>(TABLE.values());
    }

    private static String key(String owner, String name, String descriptor) {
        return owner + "." + name + descriptor;
    }

    private static Fn put(String owner, String name, String desc, Lowering lowering, String op, int ulps) {
        Fn f = new Fn(owner, name, desc, resultKind(desc), paramKinds(desc), lowering, op, null, false, ulps);
        TABLE.put(key(owner, name, desc), f);
        return f;
    }

    /** A function lowered to {@code Lanes.helperName}. */
    private static Fn helper(String owner, String name, String desc, String helperName, int ulps) {
        return vectorHelper(owner, name, desc, LANES + "." + helperName, ulps);
    }

    /** A function lowered to the vector function {@code qualified} ({@code "owner/internal/Name.method"}). */
    private static Fn vectorHelper(String owner, String name, String desc, String qualified, int ulps) {
        Fn f = new Fn(owner, name, desc, resultKind(desc), paramKinds(desc), Lowering.HELPER, null, qualified, false, ulps);
        TABLE.put(key(owner, name, desc), f);
        return f;
    }

    private static void perLane(String owner, String name, String desc) {
        TABLE.put(key(owner, name, desc), new Fn(owner, name, desc, resultKind(desc), paramKinds(desc),
                Lowering.PER_LANE, null, null, false, 0));
    }

    private static void floatForm(Fn d, Lowering lowering, String op, String helper, int ulps) {
        List<Kind> ps = Collections.nCopies(d.params().size(), Kind.FLOAT);
        FLOAT_FORMS.put(d, new Fn(d.owner(), d.name(), d.descriptor(), Kind.FLOAT, ps, lowering, op, helper, true, ulps));
    }

    static Kind kindOf(char c) {
        return switch (c) {
            case 'I', 'Z', 'B', 'S', 'C' -> Kind.INT;
            case 'J' -> Kind.LONG;
            case 'F' -> Kind.FLOAT;
            case 'D' -> Kind.DOUBLE;
            case 'V' -> Kind.VOID;
            default -> throw new IllegalArgumentException("descriptor char " + c);
        };
    }

    private static Kind resultKind(String desc) {
        return kindOf(desc.charAt(desc.indexOf(')') + 1));
    }

    private static List<Kind> paramKinds(String desc) {
        List<Kind> ks = new ArrayList<>();
        for (int i = 1; desc.charAt(i) != ')'; i++) {
            ks.add(kindOf(desc.charAt(i)));
        }
        return ks;
    }
}
