package dev.weft.simd.internal.ir;

/**
 * The type of an IR value: the four numeric lane types, booleans (masks when varying), arrays of the four and the
 * narrow global arrays, and the thread context. A narrow array's elements are int values in the IR, as on the JVM's
 * operand stack: only its loads and stores see the narrow storage (sign- or zero-extending, truncating).
 */
public enum Kind {
    INT("int", 4),
    LONG("long", 8),
    FLOAT("float", 4),
    DOUBLE("double", 8),
    /** A condition: a scalar 0/1 when uniform, a vector mask when varying. */
    BOOL("bool", 4),
    INT_ARRAY("int[]", 0),
    LONG_ARRAY("long[]", 0),
    FLOAT_ARRAY("float[]", 0),
    DOUBLE_ARRAY("double[]", 0),
    /** Elements load sign-extended to int and store their low 8 bits. */
    BYTE_ARRAY("byte[]", 0),
    /** Elements load sign-extended to int and store their low 16 bits. */
    SHORT_ARRAY("short[]", 0),
    /** Elements load zero-extended to int and store their low 16 bits. */
    CHAR_ARRAY("char[]", 0),
    /** Elements load as 0 or 1 and store {@code value & 1}, as {@code bastore} does into a boolean array. */
    BOOLEAN_ARRAY("boolean[]", 0),
    /** The kernel's {@code ThreadContext}: never materialised; its methods become special registers. */
    CONTEXT("ThreadContext", 0),
    VOID("void", 0);

    private final String text;
    private final int bytes;

    Kind(String text, int bytes) {
        this.text = text;
        this.bytes = bytes;
    }

    /** Whether values of this kind are numbers held in vector lanes. */
    public boolean isNumeric() {
        return this == INT || this == LONG || this == FLOAT || this == DOUBLE;
    }

    /** Whether values of this kind occupy 64-bit lanes (and so twice as many registers per warp). */
    public boolean isWide() {
        return this == LONG || this == DOUBLE;
    }

    /** Whether this is one of the array kinds. */
    public boolean isArray() {
        return this == INT_ARRAY || this == LONG_ARRAY || this == FLOAT_ARRAY || this == DOUBLE_ARRAY || isNarrowArray();
    }

    /** Whether this is an array of byte, short, char or boolean, whose elements are int values (see the class comment). */
    public boolean isNarrowArray() {
        return this == BYTE_ARRAY || this == SHORT_ARRAY || this == CHAR_ARRAY || this == BOOLEAN_ARRAY;
    }

    /** The element kind of an array kind: the kind of the values its loads give and its stores take. */
    public Kind element() {
        return switch (this) {
            case INT_ARRAY, BYTE_ARRAY, SHORT_ARRAY, CHAR_ARRAY, BOOLEAN_ARRAY -> INT;
            case LONG_ARRAY -> LONG;
            case FLOAT_ARRAY -> FLOAT;
            case DOUBLE_ARRAY -> DOUBLE;
            default -> throw new IllegalStateException("not an array kind: " + this);
        };
    }

    /** The array kind whose elements are this kind (for int: {@code int[]}, never a narrow array). */
    public Kind arrayOf() {
        return switch (this) {
            case INT -> INT_ARRAY;
            case LONG -> LONG_ARRAY;
            case FLOAT -> FLOAT_ARRAY;
            case DOUBLE -> DOUBLE_ARRAY;
            default -> throw new IllegalStateException("no array of " + this);
        };
    }

    /**
     * Bytes one element of this array kind occupies in the array: 1 for byte and boolean, 2 for short and char
     * (whose values are ints in the IR), else its element kind's {@link #bytes}.
     */
    public int elementBytes() {
        return switch (this) {
            case BYTE_ARRAY, BOOLEAN_ARRAY -> 1;
            case SHORT_ARRAY, CHAR_ARRAY -> 2;
            default -> element().bytes();
        };
    }

    /** Bytes of one lane (4 or 8), 0 for non-numeric kinds. */
    public int bytes() {
        return bytes;
    }

    /** As the listing prints it. */
    public String text() {
        return text;
    }
}
