/**
 * The special function unit on vector lanes: {@link dev.weft.simd.sfu.VectorSfu} (rcp, rsqrt, ex2, lg2,
 * sin, cos) and {@link dev.weft.simd.sfu.VectorFastMath} (CUDA's fast-math intrinsics), each lane the
 * same bits as the scalar {@link dev.weft.Sfu} and {@link dev.weft.FastMath}; and
 * {@link dev.weft.simd.sfu.SfuReport}, which measures the unit as Table 1 of the Tesla paper does.
 *
 * {@snippet :
 * FloatVector x = FloatVector.fromArray(VectorSfu.SPECIES, angles, i);
 * VectorSfu.sin(x).intoArray(sines, i);          // lane j: Sfu.sin(angles[i + j]), bit for bit
 * }
 *
 * <h2>Performance notes</h2>
 * The functions are meant to be inlined into the caller's loop (see {@link dev.weft.simd.sfu.VectorSfu});
 * they allocate nothing once inlined. Two to four nanoseconds per element on AVX2, where over half of it
 * is the coefficient lookup (lane permutes, or gathers for the 128-segment tables).
 *
 * <p>Null policy: no method of this package accepts or returns {@code null}.
 */
package dev.weft.simd.sfu;
