package dev.weft;

/**
 * The special function unit: reciprocal, reciprocal square root, base-2 exponential and logarithm, sine
 * and cosine at the accuracy of the Tesla SM's SFU (Table 1 of Lindholm et al., IEEE Micro 2008), not
 * correctly rounded.
 *
 * <p><b>Interim implementation.</b> Until the table-driven datapath lands, these compute with
 * {@link java.lang.Math} in double and round to float, so they are more accurate than the hardware
 * they stand for. Kernels should not depend on the exact bits.
 *
 * <p>CUDA/PTX: {@code rcp.approx.ftz.f32}, {@code rsqrt.approx.ftz.f32}, {@code ex2.approx.ftz.f32},
 * {@code lg2.approx.ftz.f32}, {@code sin.approx.ftz.f32}, {@code cos.approx.ftz.f32}.
 */
public final class Sfu {

    private Sfu() {
    }

    /** Approximates {@code 1/x}. PTX: {@code rcp.approx.ftz.f32}. */
    public static float rcp(float x) {
        return (float) (1.0 / x);
    }

    /** Approximates {@code 1/sqrt(x)}. PTX: {@code rsqrt.approx.ftz.f32}. */
    public static float rsqrt(float x) {
        return (float) (1.0 / Math.sqrt(x));
    }

    /** Approximates {@code 2^x}. PTX: {@code ex2.approx.ftz.f32}. */
    public static float ex2(float x) {
        return (float) Math.pow(2.0, x);
    }

    /** Approximates {@code log2(x)}. PTX: {@code lg2.approx.ftz.f32}. */
    public static float lg2(float x) {
        return (float) (Math.log(x) / Math.log(2.0));
    }

    /** Approximates {@code sin(x)}. PTX: {@code sin.approx.ftz.f32}. */
    public static float sin(float x) {
        return (float) Math.sin(x);
    }

    /** Approximates {@code cos(x)}. PTX: {@code cos.approx.ftz.f32}. */
    public static float cos(float x) {
        return (float) Math.cos(x);
    }
}
