package dev.weft.simd.internal.ir;

/**
 * A kernel parameter: a captured value of the lambda, or a static field the kernel reads, read once per launch.
 *
 * @param index position among the generated method's parameters
 * @param kind its kind
 * @param name a name for listings and messages
 * @param staticOwner for a static field, its owner's binary name; else null
 * @param staticField for a static field, its name; else null
 */
public record Param(int index, Kind kind, String name, String staticOwner, String staticField) {

    public boolean isStatic() {
        return staticOwner != null;
    }
}
