package dev.weft.simd.internal.ir;

import java.util.List;

/**
 * A pure function the compiler knows: a {@code Math} method, an {@code Sfu} function, a bit conversion. Uniform
 * calls always run the scalar method itself, so they are exact; varying calls use {@link #lowering}.
 *
 * @param owner the scalar method's owner, internal name (e.g. {@code java/lang/Math})
 * @param name the scalar method's name
 * @param descriptor the scalar method's descriptor
 * @param result the result kind
 * @param params the parameter kinds
 * @param lowering how a varying call is computed
 * @param vectorOp for {@link Lowering#UNARY} and {@link Lowering#BINARY}: the {@code VectorOperators} field name
 * @param helper for {@link Lowering#HELPER}: owner internal name and method name of a static vector function,
 *        {@code "owner.name"}, taking and returning one vector per register
 * @param viaDouble whether this is a float form of a double method, {@code (float) f((double) x)}
 * @param ulps the documented bound, in ulps of the result, on how far a varying call may be from the scalar
 *        method's result (0: bit for bit)
 */
public record Fn(String owner, String name, String descriptor, Kind result, List<Kind> params, Lowering lowering,
        String vectorOp, String helper, boolean viaDouble, int ulps) {

    /** How a varying call is computed. */
    public enum Lowering {
        /** A lanewise unary operator of the Vector API. */
        UNARY,
        /** A lanewise binary operator of the Vector API. */
        BINARY,
        /** The Vector API's lanewise FMA. */
        FMA,
        /** A static helper taking one vector per argument (same register) and returning a vector. */
        HELPER,
        /** The scalar method called once per lane: exact, slow; for functions without a vector form. */
        PER_LANE
    }

    public Fn {
        params = List.copyOf(params);
    }

    /** As listings print it, e.g. {@code Math.exp}. */
    public String display() {
        String simple = owner.substring(owner.lastIndexOf('/') + 1);
        return simple + "." + name;
    }
}
