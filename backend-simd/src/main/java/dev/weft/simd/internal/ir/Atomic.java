package dev.weft.simd.internal.ir;

/**
 * The datum of an {@link Op#ATOMIC} node: which {@link dev.weft.Atomics} method it calls.
 *
 * @param name the method's name ({@code add}, {@code compareAndSwap}, ...)
 * @param descriptor its JVM descriptor; the first parameter is the array, the second the index
 */
public record Atomic(String name, String descriptor) {

    /** The call as the listing shows it. */
    public String display() {
        return "Atomics." + name;
    }
}
