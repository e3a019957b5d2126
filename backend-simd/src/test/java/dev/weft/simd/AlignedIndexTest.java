package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Masks and right shifts of group-aligned thread indexes ({@code tid & 15}, {@code tid >> 4}): the compiler
 * treats them as affine and uniform where a group starts at a multiple of its size and the mask or shift covers
 * its lanes, so tile loads written with them become vector loads. Every kernel is checked against the reference
 * executor, including the masks, shifts and offsets that must stay varying.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AlignedIndexTest {

    @AutoClose
    static final Differential d = new Differential();

    /** Each thread writes masks and shifts of its linear id and threadIdx.x, aligned and not, to its own slots. */
    static Kernel masksAndShifts(Object[] a) {
        int[] out = (int[]) a[0];
        int[] src = (int[]) a[1];
        return t -> {
            int tid = t.linearThreadIdx();
            int x = t.threadIdxX();
            int cta = t.blockIdxX() + t.gridDimX() * t.blockIdxY();
            int threads = t.blockDimX() * t.blockDimY();
            int o = 16 * (cta * threads + tid);
            out[o] = tid & 15;
            out[o + 1] = tid >> 4;
            out[o + 2] = (tid + 64) & 63;
            out[o + 3] = (tid - 64) >> 3;
            out[o + 4] = tid & 7;          // a mask below a group of 8 or more lanes: varying
            out[o + 5] = tid & 13;         // a mask missing a lane bit
            out[o + 6] = (tid + 3) & 15;   // a base that is not group-aligned
            out[o + 7] = (tid + 4) >> 3;
            out[o + 8] = tid >>> 5;
            out[o + 9] = x & 31;
            out[o + 10] = x >> 3;
            out[o + 11] = (x * 2) & 15;    // stride 2
            out[o + 12] = tid >> 2;        // a shift below the group
            out[o + 13] = src[(tid >> 4) * 16 + (tid & 15)];
            out[o + 14] = src[((tid + 16) & 63) + (tid >> 6)];
            out[o + 15] = (tid * 16) & 255;
        };
    }

    @Test
    void masksAndShifts_matchReference_acrossShapes() {
        Dim3[] blocks = {Dim3.of(256), Dim3.of(100), Dim3.of(45), Dim3.of(16, 16), Dim3.of(32, 8), Dim3.of(8, 4),
            Dim3.of(24, 3), Dim3.of(3, 5), Dim3.of(64, 2)};
        for (Dim3 block : blocks) {
            Dim3 grid = Dim3.of(3, 2);
            int threads = (int) (grid.volume() * block.volume());
            int[] src = new int[2048];
            for (int i = 0; i < src.length; i++) {
                src[i] = i * 7 + 1;
            }
            d.check(grid, block, AlignedIndexTest::masksAndShifts, new int[16 * threads], src);
        }
    }

    /** The register-blocked sgemm's tile loads (a small version): 16 x 16 threads, a 64 x 64 block of C. */
    static Kernel registerBlocked(Object[] data) {
        float[] a = (float[]) data[0];
        float[] b = (float[]) data[1];
        float[] c = (float[]) data[2];
        int n = 128;
        return t -> {
            float[] as = t.sharedFloats(16 * 64);
            float[] bs = t.sharedFloats(16 * 64);
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int tid = ty * 16 + tx;
            int row0 = t.blockIdxY() * 64;
            int col0 = t.blockIdxX() * 64;
            float c0 = 0f;
            float c1 = 0f;
            float c2 = 0f;
            float c3 = 0f;
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
                    float b0 = bs[kk * 64 + tx];
                    float b1 = bs[kk * 64 + tx + 16];
                    c0 = Math.fma(a0, b0, c0);
                    c1 = Math.fma(a0, b1, c1);
                    c2 = Math.fma(a1, b0, c2);
                    c3 = Math.fma(a1, b1, c3);
                }
                t.syncThreads();
            }
            int i0 = (row0 + ty) * n + col0 + tx;
            c[i0] = c0;
            c[i0 + 16] = c1;
            c[i0 + 16 * n] = c2;
            c[i0 + 16 * n + 16] = c3;
        };
    }

    @Test
    void registerBlockedTileLoads_matchReference_andAreVectorLoads() {
        Object[] data = {Differential.floats(128 * 128, 41, -1, 1), Differential.floats(128 * 128, 42, -1, 1),
            new float[128 * 128]};
        d.check(Dim3.of(2, 2), Dim3.of(16, 16), AlignedIndexTest::registerBlocked, data);
        String listing = d.report(AlignedIndexTest::registerBlocked, data).listing();
        String rowAligned = listing.substring(0, listing.indexOf("any other CTA shape"));
        assertTrue(rowAligned.contains("a[") && !rowAligned.matches("(?s).*= a\\[[^\\n]*gather.*"), listing);
        assertTrue(!rowAligned.matches("(?s).*= b\\[[^\\n]*gather.*"), listing);
    }

    /** A tile copy whose index is out of bounds for one thread: the fault is the reference's. */
    static Kernel tileOutOfBounds(Object[] data) {
        float[] a = (float[]) data[0];
        float[] out = (float[]) data[1];
        return t -> {
            int tid = t.linearThreadIdx();
            int e = t.blockIdxX() * 256 + tid;
            out[e] = a[(e >> 4) * 17 + (e & 15)];
        };
    }

    @Test
    void alignedTileLoad_outOfBounds_faultsAsReference() {
        d.check(Dim3.of(2), Dim3.of(256), AlignedIndexTest::tileOutOfBounds, Differential.floats(500, 43, -1, 1), new float[512]);
    }
}
