package dev.weft.benchmarks.kernels;

/**
 * {@code mvn -q -o -pl benchmarks -am package -DskipTests -Djmh.args="SaxpyStreamBenchmark -f 1 -wi 3 -w 1 -i 3 -r 1"}
 *
 * <p>{@link SaxpyBenchmark} over 2^25 floats (128 MiB per array, four times this machine's 32 MiB L3): every launch
 * streams x and y from memory and y back, so the rates are the memory bandwidth each variant reaches, and {@code weft}
 * against {@code javaSerial} and {@code javaParallel} is saxpy's bandwidth as a share of what plain Java streams
 * through memory. The same variants, checks and reference size as {@link SaxpyBenchmark}.
 */
public class SaxpyStreamBenchmark extends SaxpyBenchmark {

    static final int STREAM_N = 1 << 25;

    @Override
    int elements() {
        return STREAM_N;
    }
}
