package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.Atomics;
import dev.weft.Dim3;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two classic CUDA kernels, shared memory and barriers together, against plain Java: a tree reduction and
 * a 16×16 tiled matrix multiply, on sizes that are and are not multiples of the CTA and tile.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndToEndTest {

    private static final int TILE = 16;
    private static Device device;

    @BeforeAll
    static void createDevice() {
        device = TestDevices.reference(2);
    }

    @AfterAll
    static void closeDevice() {
        device.close();
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 255, 256, 10_007, 256 * 40})
    void treeReduction_sharedMemoryAndBarriers_matchesPlainJava(int n) {
        int block = 256;
        int ctas = (n + block - 1) / block;
        SplittableRandom r = new SplittableRandom(n);
        int[] data = r.ints(n, -1000, 1000).toArray();
        float[] dataF = new float[n];
        for (int i = 0; i < n; i++) {
            dataF[i] = (float) r.nextDouble(-1, 1);
        }
        long[] total = new long[1];
        float[] partials = new float[ctas];
        device.launch(Dim3.of(ctas), Dim3.of(block), t -> {
            int tid = t.threadIdxX();
            int i = t.globalIdX();
            int[] s = t.sharedInts(block);
            float[] sf = t.sharedFloats(block);
            s[tid] = i < n ? data[i] : 0;
            sf[tid] = i < n ? dataF[i] : 0f;
            t.syncThreads();
            for (int stride = block / 2; stride > 0; stride >>= 1) {
                if (tid < stride) {
                    s[tid] += s[tid + stride];
                    sf[tid] += sf[tid + stride];
                }
                t.syncThreads();
            }
            if (tid == 0) {
                Atomics.add(total, 0, s[0]);
                partials[t.blockIdxX()] = sf[0];
            }
        });
        long want = 0;
        for (int v : data) {
            want += v;
        }
        assertEquals(want, total[0]);
        // the same float tree in plain Java, CTA by CTA: bit-identical
        for (int b = 0; b < ctas; b++) {
            float[] s = new float[block];
            for (int tid = 0; tid < block; tid++) {
                int i = b * block + tid;
                s[tid] = i < n ? dataF[i] : 0f;
            }
            for (int stride = block / 2; stride > 0; stride >>= 1) {
                for (int tid = 0; tid < stride; tid++) {
                    s[tid] += s[tid + stride];
                }
            }
            assertEquals(s[0], partials[b], "CTA " + b);
        }
    }

    @ParameterizedTest(name = "{0}x{1} times {1}x{2}")
    @CsvSource({"100, 75, 130", "64, 48, 32", "1, 1, 1", "17, 33, 15"})
    void tiledMatrixMultiply_16x16_matchesPlainJava(int m, int k, int n) {
        SplittableRandom r = new SplittableRandom(m * 31 + k * 7 + n);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextDouble(-2, 2);
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (float) r.nextDouble(-2, 2);
        }
        float[] c = new float[m * n];
        Dim3 grid = Dim3.of((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
        device.launch(grid, Dim3.of(TILE, TILE), t -> {
            int tx = t.threadIdxX();
            int ty = t.threadIdxY();
            int row = t.blockIdxY() * TILE + ty;
            int col = t.blockIdxX() * TILE + tx;
            float[] as = t.sharedFloats(TILE * TILE);
            float[] bs = t.sharedFloats(TILE * TILE);
            float acc = 0f;
            for (int tile = 0; tile < (k + TILE - 1) / TILE; tile++) {
                int ak = tile * TILE + tx;
                int bk = tile * TILE + ty;
                as[ty * TILE + tx] = row < m && ak < k ? a[row * k + ak] : 0f;
                bs[ty * TILE + tx] = bk < k && col < n ? b[bk * n + col] : 0f;
                t.syncThreads();
                for (int kk = 0; kk < TILE; kk++) {
                    acc += as[ty * TILE + kk] * bs[kk * TILE + tx];
                }
                t.syncThreads();
            }
            if (row < m && col < n) {
                c[row * n + col] = acc;
            }
        });
        // Same products, same order: past k the tiles add products of zeros, which leave a non-zero sum
        // unchanged, so the results are bit-identical.
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float acc = 0f;
                for (int kk = 0; kk < k; kk++) {
                    acc += a[i * k + kk] * b[kk * n + j];
                }
                assertEquals(acc, c[i * n + j], "C[" + i + "][" + j + "]");
            }
        }
    }
}
