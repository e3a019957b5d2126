package dev.weft.simd.sfu;

import dev.weft.FastMath;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

/**
 * {@link FastMath}, CUDA's fast-math intrinsics, in every lane of a {@link FloatVector} of
 * {@link VectorSfu#SPECIES}: each lane gets exactly the bits the scalar {@code FastMath} returns for it.
 */
public final class VectorFastMath {

    private static final float LOG2_E = (float) (1 / Math.log(2));
    private static final float LN_2 = (float) Math.log(2);
    private static final int MIN_NORMAL = 0x0080_0000;

    private VectorFastMath() {
    }

    /** {@link FastMath#expf}: {@code ex2(x·log2 e)}. CUDA: {@code __expf(x)}. */
    public static FloatVector expf(FloatVector x) {
        return VectorSfu.ex2(x.mul(LOG2_E));
    }

    /** {@link FastMath#logf}: {@code lg2(x)·ln 2}. CUDA: {@code __logf(x)}. */
    public static FloatVector logf(FloatVector x) {
        return VectorSfu.lg2(x).mul(LN_2);
    }

    /** {@link FastMath#log2f}. CUDA: {@code __log2f(x)}. */
    public static FloatVector log2f(FloatVector x) {
        return VectorSfu.lg2(x);
    }

    /** {@link FastMath#sinf}. CUDA: {@code __sinf(x)}. */
    public static FloatVector sinf(FloatVector x) {
        return VectorSfu.sin(x);
    }

    /** {@link FastMath#cosf}. CUDA: {@code __cosf(x)}. */
    public static FloatVector cosf(FloatVector x) {
        return VectorSfu.cos(x);
    }

    /** {@link FastMath#fdividef}: {@code x·rcp(y)}, subnormals flushed. CUDA: {@code __fdividef(x, y)}. */
    public static FloatVector fdividef(FloatVector x, FloatVector y) {
        FloatVector q = flush(flush(x).mul(VectorSfu.rcp(y)));
        return q.blend(Float.NaN, q.test(VectorOperators.IS_NAN));
    }

    /** {@link FastMath#sqrtf}: {@code rcp(rsqrt(x))}. CUDA: {@code sqrtf(x)} under {@code -use_fast_math}. */
    public static FloatVector sqrtf(FloatVector x) {
        return VectorSfu.rcp(VectorSfu.rsqrt(x));
    }

    /** Each lane, or zero of its sign if it is subnormal. */
    private static FloatVector flush(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        return bits.blend(bits.and(0x8000_0000), bits.and(0x7FFF_FFFF).compare(VectorOperators.LT, MIN_NORMAL))
                .reinterpretAsFloats();
    }
}
