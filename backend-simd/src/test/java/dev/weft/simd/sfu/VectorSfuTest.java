package dev.weft.simd.sfu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.FastMath;
import dev.weft.Sfu;
import dev.weft.internal.sfu.Datapath;
import dev.weft.internal.sfu.SfuTables;
import java.util.SplittableRandom;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import org.junit.jupiter.api.Test;

/**
 * The vector unit returns, lane for lane, the scalar unit's bits: on every input of the Table 1 sweeps,
 * on the special values, on a spread of all bit patterns, and the datapath alone on every argument.
 */
class VectorSfuTest {

    private static final int LANES = VectorSfu.SPECIES.length();

    /** A scalar function, and its vector twin. */
    private record Pair(String name, Accuracy scalar, UnaryOperator<FloatVector> vector) {
    }

    @FunctionalInterface
    private interface Accuracy {
        float apply(float x);
    }

    private static final Pair[] FUNCTIONS = {
        new Pair("rcp", Sfu::rcp, VectorSfu::rcp),
        new Pair("rsqrt", Sfu::rsqrt, VectorSfu::rsqrt),
        new Pair("ex2", Sfu::ex2, VectorSfu::ex2),
        new Pair("lg2", Sfu::lg2, VectorSfu::lg2),
        new Pair("sin", Sfu::sin, VectorSfu::sin),
        new Pair("cos", Sfu::cos, VectorSfu::cos),
        new Pair("expf", FastMath::expf, VectorFastMath::expf),
        new Pair("logf", FastMath::logf, VectorFastMath::logf),
        new Pair("log2f", FastMath::log2f, VectorFastMath::log2f),
        new Pair("sinf", FastMath::sinf, VectorFastMath::sinf),
        new Pair("cosf", FastMath::cosf, VectorFastMath::cosf),
        new Pair("sqrtf", FastMath::sqrtf, VectorFastMath::sqrtf),
    };

    /** Compares every float whose bits are in [from, to) with the given stride, a vector at a time. */
    private static void assertSameBits(Pair f, long from, long to, int stride) {
        float[] in = new float[LANES];
        float[] out = new float[LANES];
        for (long b = from; b < to; b += (long) LANES * stride) {
            for (int i = 0; i < LANES; i++) {
                in[i] = Float.intBitsToFloat((int) Math.min(b + (long) i * stride, to - 1));
            }
            f.vector().apply(FloatVector.fromArray(VectorSfu.SPECIES, in, 0)).intoArray(out, 0);
            for (int i = 0; i < LANES; i++) {
                int expected = Float.floatToRawIntBits(f.scalar().apply(in[i]));
                if (expected != Float.floatToRawIntBits(out[i])) {
                    assertEquals(Integer.toHexString(expected), Integer.toHexString(Float.floatToRawIntBits(out[i])),
                            f.name() + "(" + in[i] + ")");
                }
            }
        }
    }

    private static long bits(float x) {
        return Float.floatToRawIntBits(x);
    }

    @Test
    void table1Inputs_everyOne_sameBitsAsScalar() {
        assertSameBits(FUNCTIONS[0], bits(1f), bits(2f), 1);
        assertSameBits(FUNCTIONS[1], bits(1f), bits(4f), 1);
        assertSameBits(FUNCTIONS[3], bits(1f), bits(2f), 1);
        // 2^x on the floats of [1/16, 1) (the set whose exactly-rounded share the paper reports)...
        assertSameBits(FUNCTIONS[2], bits(0x1p-4f), bits(1f), 1);
        // ...and on every point i/2^23 of the grid.
        float[] grid = new float[LANES];
        float[] out = new float[LANES];
        for (int i = 0; i < 1 << 23; i += LANES) {
            for (int j = 0; j < LANES; j++) {
                grid[j] = Math.scalb((float) (i + j), -23);
            }
            VectorSfu.ex2(FloatVector.fromArray(VectorSfu.SPECIES, grid, 0)).intoArray(out, 0);
            for (int j = 0; j < LANES; j++) {
                assertEquals(Float.floatToRawIntBits(Sfu.ex2(grid[j])), Float.floatToRawIntBits(out[j]),
                        "ex2(" + grid[j] + ")");
            }
        }
        // sin and cos (whose Table 1 grid is internal) on every float of [1/2, π/2), every 3rd below.
        for (Pair f : new Pair[] {FUNCTIONS[4], FUNCTIONS[5]}) {
            assertSameBits(f, bits(0.5f), bits((float) (Math.PI / 2)), 1);
            assertSameBits(f, bits(0x1p-20f), bits(0.5f), 3);
        }
    }

    /**
     * Both lookups of the vector datapath, permutes and gathers, on every argument of every table
     * (both halves of the reciprocal square root's), against the scalar datapath: this covers every
     * segment with every x_l, which the function sweeps do not for sine.
     */
    @Test
    void datapath_everyArgumentOfEveryTable_sameSumAsScalar() {
        int[] argument = new int[LANES];
        int[] permuted = new int[LANES];
        int[] gathered = new int[LANES];
        for (Datapath scalar : SfuTables.all()) {
            VectorDatapath vector = VectorDatapath.of(scalar);
            int arguments = scalar.segments() << scalar.spec().lowBits();
            for (int a = 0; a < arguments; a += LANES) {
                for (int i = 0; i < LANES; i++) {
                    argument[i] = a + i;
                }
                IntVector v = IntVector.fromArray(VectorDatapath.INT, argument, 0);
                vector.sum(v).intoArray(permuted, 0);
                vector.sumGathered(v).intoArray(gathered, 0);
                for (int i = 0; i < LANES; i++) {
                    int expected = scalar.sum(argument[i]);
                    if (permuted[i] != expected || gathered[i] != expected) {
                        assertEquals(expected, permuted[i], scalar.spec() + " permuted sum(" + argument[i] + ")");
                        assertEquals(expected, gathered[i], scalar.spec() + " gathered sum(" + argument[i] + ")");
                    }
                }
            }
        }
    }

    @Test
    void everyFunction_spreadOverAllBitPatterns_sameBitsAsScalar() {
        for (Pair f : FUNCTIONS) {
            assertSameBits(f, 0, 1L << 32, 4099);
        }
    }

    @Test
    void everyFunction_specialValues_sameBitsAsScalar() {
        float[] specials = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Math.nextDown(Float.MIN_NORMAL),
            Float.MIN_NORMAL, -Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.NaN, Float.intBitsToFloat(0xFFC0_0001), 1f, -1f, 2f, 4f, 0.5f,
            127.99f, 128f, -126f, -126.5f, -150f, 0x1p126f, 0x1p127f, -0x1p127f, 0x1.8p126f, (float) Math.PI,
            (float) -Math.PI, 1e10f, -1e10f, 3e9f, 0x1p-100f};
        float[] in = new float[LANES];
        float[] out = new float[LANES];
        for (Pair f : FUNCTIONS) {
            for (int start = 0; start < specials.length; start++) {
                for (int i = 0; i < LANES; i++) {
                    in[i] = specials[(start + i) % specials.length];
                }
                f.vector().apply(FloatVector.fromArray(VectorSfu.SPECIES, in, 0)).intoArray(out, 0);
                for (int i = 0; i < LANES; i++) {
                    assertEquals(Float.floatToRawIntBits(f.scalar().apply(in[i])), Float.floatToRawIntBits(out[i]),
                            f.name() + "(" + in[i] + ") among special values");
                }
            }
        }
    }

    @Test
    void fdividef_randomPairsAndSpecials_sameBitsAsScalar() {
        BinaryOperator<FloatVector> vector = VectorFastMath::fdividef;
        SplittableRandom random = new SplittableRandom(11);
        float[] x = new float[LANES];
        float[] y = new float[LANES];
        float[] out = new float[LANES];
        float[] specials = {0f, -0f, Float.MIN_VALUE, Float.MIN_NORMAL, Float.POSITIVE_INFINITY, Float.NaN, 0x1.8p126f};
        for (int n = 0; n < 200_000; n++) {
            for (int i = 0; i < LANES; i++) {
                x[i] = n % 50 == 0 ? specials[random.nextInt(specials.length)] : Float.intBitsToFloat(random.nextInt());
                y[i] = n % 70 == 0 ? specials[random.nextInt(specials.length)] : Float.intBitsToFloat(random.nextInt());
            }
            vector.apply(FloatVector.fromArray(VectorSfu.SPECIES, x, 0), FloatVector.fromArray(VectorSfu.SPECIES, y, 0))
                    .intoArray(out, 0);
            for (int i = 0; i < LANES; i++) {
                assertEquals(Float.floatToRawIntBits(FastMath.fdividef(x[i], y[i])), Float.floatToRawIntBits(out[i]),
                        "fdividef(" + x[i] + ", " + y[i] + ")");
            }
        }
    }
}
