package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.ir.Kind;

/** Where the generated code keeps an IR value: a scalar local, a constant, an affine base, vector or mask locals. */
sealed interface Storage {

    /** A uniform value in one local. */
    record Scalar(int slot, Kind kind) implements Storage {
    }

    /** A constant, loaded where used. */
    record Const(Object value, Kind kind) implements Storage {
    }

    /** {@code base + stride * lane}: the base in a scalar local or a constant. */
    record Affine(Storage base, int stride) implements Storage {
    }

    /**
     * A value the same in every lane of a register but not of the group (a group spanning CTA rows, see
     * {@code CodeGen.Layout.REGISTER_ROWS}: threadIdx.y per register): one scalar local per 32-bit register.
     */
    record PerRegister(int[] slots, Kind kind) implements Storage {
    }

    /** {@code base[r] + stride * lane} in register {@code r}: one int local per 32-bit register (threadIdx.x per register). */
    record RegisterAffine(int[] slots, int stride) implements Storage {
    }

    /** A varying value: one vector local per register. */
    record Vectors(int[] slots, Kind kind) implements Storage {
    }

    /** A varying condition: one mask local per register of the compared kind. */
    record Masks(int[] slots, Kind kind) implements Storage {
    }
}
