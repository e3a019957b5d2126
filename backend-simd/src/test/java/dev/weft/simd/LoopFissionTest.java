package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.simd.internal.front.LoopFission;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Loops of many independent accumulators split into consecutive loops ({@code front.LoopFission}), and vector values
 * linked through phis sharing a spill column ({@code CodeGen.sharePhiColumns}), against the reference executor, bit
 * for bit: the register-blocked sgemm (1 and 3 x 3 CTAs of 256 threads) on its methods per resume point, barrier-free loops
 * of 16 to 28 accumulators in CTAs of 1, 100 and 1024 threads with per-thread trip counts, accumulators that read
 * each other, a trip count that reads an accumulator, longs and doubles, and a load that faults in the part of the
 * loop a later split loop computes. Loops of 13 to 24 units split only where the register file has 16 vector
 * registers (AVX2; the module's second test run), and stay whole with AVX-512's 32; the 28-unit loop splits on both.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LoopFissionTest {

    @AutoClose
    static final Differential d = new Differential();

    /**
     * The register-blocked sgemm of the benchmarks (16 x 16 threads, 4 x 4 outputs each in 16 accumulators, 64 x 16
     * and 16 x 64 tiles in shared memory, A's transposed; n a multiple of 64, as there): args a, b, c, n.
     */
    static Kernel registerBlocked(Object[] args) {
        float[] a = (float[]) args[0];
        float[] b = (float[]) args[1];
        float[] c = (float[]) args[2];
        int n = (Integer) args[3];
        return t -> {
            float[] as = t.sharedFloats(16 * 64);
            float[] bs = t.sharedFloats(16 * 64);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int tid = ty * 16 + tx;
            int row0 = t.blockIdxY() * 64;
            int col0 = t.blockIdxX() * 64;
            float c00 = 0f, c01 = 0f, c02 = 0f, c03 = 0f;
            float c10 = 0f, c11 = 0f, c12 = 0f, c13 = 0f;
            float c20 = 0f, c21 = 0f, c22 = 0f, c23 = 0f;
            float c30 = 0f, c31 = 0f, c32 = 0f, c33 = 0f;
            for (int k0 = 0; k0 < n; k0 += 16) {
                for (int r = 0; r < 4; r++) {
                    int e = r * 256 + tid;
                    as[(e & 15) * 64 + (e >> 4)] = a[(row0 + (e >> 4)) * n + k0 + (e & 15)];
                    bs[e] = b[(k0 + (e >> 6)) * n + col0 + (e & 63)];
                }
                t.syncThreads();
                for (int kk = 0; kk < 16; kk++) {
                    float a0 = as[kk * 64 + ty];
                    float a1 = as[kk * 64 + ty + 16];
                    float a2 = as[kk * 64 + ty + 32];
                    float a3 = as[kk * 64 + ty + 48];
                    float b0 = bs[kk * 64 + tx];
                    float b1 = bs[kk * 64 + tx + 16];
                    float b2 = bs[kk * 64 + tx + 32];
                    float b3 = bs[kk * 64 + tx + 48];
                    c00 = Math.fma(a0, b0, c00);
                    c01 = Math.fma(a0, b1, c01);
                    c02 = Math.fma(a0, b2, c02);
                    c03 = Math.fma(a0, b3, c03);
                    c10 = Math.fma(a1, b0, c10);
                    c11 = Math.fma(a1, b1, c11);
                    c12 = Math.fma(a1, b2, c12);
                    c13 = Math.fma(a1, b3, c13);
                    c20 = Math.fma(a2, b0, c20);
                    c21 = Math.fma(a2, b1, c21);
                    c22 = Math.fma(a2, b2, c22);
                    c23 = Math.fma(a2, b3, c23);
                    c30 = Math.fma(a3, b0, c30);
                    c31 = Math.fma(a3, b1, c31);
                    c32 = Math.fma(a3, b2, c32);
                    c33 = Math.fma(a3, b3, c33);
                }
                t.syncThreads();
            }
            int i0 = (row0 + ty) * n + col0 + tx;
            int i1 = i0 + 16 * n;
            int i2 = i1 + 16 * n;
            int i3 = i2 + 16 * n;
            c[i0] = c00;
            c[i0 + 16] = c01;
            c[i0 + 32] = c02;
            c[i0 + 48] = c03;
            c[i1] = c10;
            c[i1 + 16] = c11;
            c[i1 + 32] = c12;
            c[i1 + 48] = c13;
            c[i2] = c20;
            c[i2 + 16] = c21;
            c[i2 + 32] = c22;
            c[i2 + 48] = c23;
            c[i3] = c30;
            c[i3 + 16] = c31;
            c[i3 + 32] = c32;
            c[i3 + 48] = c33;
        };
    }

    @Test
    void registerBlockedSgemm_oneAndNineCtas_matchReference() throws InterruptedException {
        for (int n : new int[] {64, 192}) {
            int tiles = n / 64;
            Object[] data = {Differential.floats(n * n, 5, -1, 1), Differential.floats(n * n, 6, -1, 1), new float[n * n], n};
            String listing = d.report(LoopFissionTest::registerBlocked, data).listing();
            d.report(Dim3.of(16, 16), LoopFissionTest::registerBlocked, data);
            Differential.awaitResumeMethods();
            d.check(Dim3.of(tiles, tiles), Dim3.of(16, 16), LoopFissionTest::registerBlocked, data);
            // split in two where the register file cannot hold its 16 accumulators (16 registers), whole with 32
            assertEquals(LoopFission.splits(16) ? 4 : 3, count(listing, "  loop b", "per group of"),
                    "the FMA loop split in two exactly where 16 accumulators are split:\n" + listing);
        }
    }

    /**
     * Per thread, 16 float accumulators over a trip count of its own (3 to 18 by thread), each its own chain of
     * FMAs and adds; threads past n leave first (grid-edge CTAs). Args: x, out, n.
     */
    static Kernel sixteen(Object[] args) {
        float[] x = (float[]) args[0];
        float[] out = (float[]) args[1];
        int n = (Integer) args[2];
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            int trips = 3 + i % 16;
            float s0 = 0f, s1 = 1f, s2 = 2f, s3 = 3f, s4 = 4f, s5 = 5f, s6 = 6f, s7 = 7f;
            float s8 = 8f, s9 = 9f, s10 = 10f, s11 = 11f, s12 = 12f, s13 = 13f, s14 = 14f, s15 = 15f;
            for (int k = 0; k < trips; k++) {
                float v = x[(i + k) % n];
                float w = x[(i * 7 + k) % n];
                s0 = Math.fma(v, w, s0);
                s1 = Math.fma(v, s1, w);
                s2 = s2 * v + w;
                s3 = Math.fma(w, 0.5f, s3);
                s4 = s4 - v;
                s5 = Math.fma(v, v, s5);
                s6 = Math.max(s6, v * k);
                s7 = Math.fma(w, w, s7);
                s8 = s8 + v * w;
                s9 = Math.fma(v, 1.5f, s9);
                s10 = s10 * 0.75f + v;
                s11 = Math.fma(w, v, s11) * 0.5f;
                s12 = s12 + k;
                s13 = Math.fma(v, w, s13 * 0.25f);
                s14 = Math.abs(s14 - w);
                s15 = Math.fma(v + w, v - w, s15);
            }
            out[i] = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)) + ((s8 + s9) + (s10 + s11)) + ((s12 + s13) + (s14 + s15));
            out[n + i] = s15 - s0 * s7 + s11;
        };
    }

    @Test
    void sixteenAccumulators_1And100And1024ThreadCtas_matchReference() {
        for (int block : new int[] {1, 100, 1024}) {
            int n = 2000;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), LoopFissionTest::sixteen,
                    Differential.floats(n, 7, -2, 2), new float[2 * n], n);
        }
        String listing = d.report(LoopFissionTest::sixteen, Differential.floats(64, 7, -2, 2), new float[128], 64).listing();
        assertEquals(LoopFission.splits(16) ? 2 : 1, count(listing, "  loop b", "per group of"),
                "the loop split in two exactly where 16 accumulators are split:\n" + listing);
    }

    /**
     * Accumulators that read each other in pairs and chains (groups that stay in one loop), longs and doubles (two
     * units each), an int accumulator the trip count reads (so every loop recomputes it) and per-thread trips.
     * Args: x, out, n.
     */
    static Kernel coupled(Object[] args) {
        int[] x = (int[]) args[0];
        long[] out = (long[]) args[1];
        int n = (Integer) args[2];
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            long l0 = i, l1 = 1, l2 = 2, l3 = 3;
            double d0 = 0.5, d1 = 1.5, d2 = 2.5, d3 = 3.5;
            int p0 = 1, p1 = 2, q0 = 3, q1 = 4, r = 0;
            int budget = 0;
            for (int k = 0; budget < 40 + i % 9 && k < 64; k++) {
                int v = x[(i + 3 * k) % n];
                budget += v & 7;
                l0 = l0 * 31 + v;
                l1 = l1 ^ (l0 >>> 3);
                l2 += v * (long) k;
                l3 = l3 * 3 - l2;
                d0 = d0 * 0.5 + v;
                d1 = Math.fma(d1, 0.25, d0);
                d2 = d2 + Math.sqrt(Math.abs(v) + 1.0);
                d3 = Math.fma(v, 0.125, d3);
                int tp = p0;
                p0 = p1 + v;
                p1 = tp ^ v;
                q0 += q1;
                q1 = q1 * 5 + 1;
                r = r * 7 + budget;
            }
            out[i] = l0 + l1 + l2 + l3 + Double.doubleToLongBits(d0 + d1 + d2 + d3) + p0 + p1 + q0 + q1 + r + budget;
        };
    }

    @Test
    void coupledAccumulators_longsDoublesAndDataDependentTrips_matchReference() {
        for (int block : new int[] {1, 100, 1024}) {
            int n = 1500;
            d.check(Dim3.of((n + block - 1) / block), Dim3.of(block), LoopFissionTest::coupled,
                    Differential.ints(n, 8, -1000, 1000), new long[n], n);
        }
    }

    /**
     * A loop of 28 accumulators (split on every register file: more than 24 units) with a load only the last, s27,
     * reads, out of bounds for one thread at its fifth iteration, after the loads every accumulator reads: the same
     * thread fails with the same index either way. (Until session 25 its index was a ternary, which made the body
     * three blocks, so the loop was never split: the test now asserts the split.) Args: x, y, out, n, bad thread.
     */
    static Kernel faulting(Object[] args) {
        float[] x = (float[]) args[0];
        float[] y = (float[]) args[1];
        float[] out = (float[]) args[2];
        int n = (Integer) args[3];
        int bad = (Integer) args[4];
        return t -> {
            int i = t.globalIdX();
            if (i >= n) {
                return;
            }
            float s0 = 0f, s1 = 0f, s2 = 0f, s3 = 0f, s4 = 0f, s5 = 0f, s6 = 0f, s7 = 0f;
            float s8 = 0f, s9 = 0f, s10 = 0f, s11 = 0f, s12 = 0f, s13 = 0f, s14 = 0f, s15 = 0f;
            float s16 = 0f, s17 = 0f, s18 = 0f, s19 = 0f, s20 = 0f, s21 = 0f, s22 = 0f, s23 = 0f;
            float s24 = 0f, s25 = 0f, s26 = 0f, s27 = 0f;
            for (int k = 0; k < 8; k++) {
                float v = x[(i + k) % n];
                // past the end only for the bad thread's fifth iteration, without a branch: the loop body must stay
                // one block to be split
                int d = (i - bad) | (k - 4);
                int hit = 1 - ((d | -d) >>> 31);
                float w = y[(i + 2 * k) % n + hit * (n + 5)];
                s0 += v;
                s1 += v * 2;
                s2 += v * 3;
                s3 += v * 4;
                s4 += v * 5;
                s5 += v * 6;
                s6 += v * 7;
                s7 += v * 8;
                s8 += v * 9;
                s9 += v * 10;
                s10 += v * 11;
                s11 += v * 12;
                s12 += v * 13;
                s13 += v * 14;
                s14 += v * 15;
                s15 += v * 16;
                s16 += v * 17;
                s17 += v * 18;
                s18 += v * 19;
                s19 += v * 20;
                s20 += v * 21;
                s21 += v * 22;
                s22 += v * 23;
                s23 += v * 24;
                s24 += v * 25;
                s25 += v * 26;
                s26 += v * 27;
                s27 += w;
            }
            out[i] = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8 + s9 + s10 + s11 + s12 + s13 + s14 + s15
                    + s16 + s17 + s18 + s19 + s20 + s21 + s22 + s23 + s24 + s25 + s26 + s27;
        };
    }

    @Test
    void faultInLaterLoopsPart_sameThreadAndIndex() {
        int n = 300;
        for (int bad : new int[] {-1, 0, 77, 299}) {
            d.check(Dim3.of(3), Dim3.of(128), LoopFissionTest::faulting, Differential.floats(n, 9, -1, 1),
                    Differential.floats(n, 10, -1, 1), new float[n], n, bad);
        }
        String listing = d.report(LoopFissionTest::faulting, Differential.floats(n, 9, -1, 1),
                Differential.floats(n, 10, -1, 1), new float[n], n, -1).listing();
        assertTrue(LoopFission.splits(28), "28 units exceed every register file's limit");
        assertTrue(count(listing, "  loop b", "per group of") >= 2, "the loop split:\n" + listing);
    }

    /** How often {@code what} occurs in {@code listing} before the second occurrence of {@code section} (one variant). */
    private static int count(String listing, String what, String section) {
        int first = listing.indexOf(section);
        int second = first < 0 ? -1 : listing.indexOf(section, first + 1);
        String part = first < 0 ? listing : listing.substring(first, second < 0 ? listing.length() : second);
        int c = 0;
        for (int at = part.indexOf(what); at >= 0; at = part.indexOf(what, at + 1)) {
            c++;
        }
        return c;
    }
}
