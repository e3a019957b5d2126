package dev.weft.benchmarks.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hand-written variants' work splitter: every chunk once per call, failures reported, helpers reusable. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParallelTest {

    @Test
    void forEachChunk_runsEveryChunkOnce_callAfterCall() throws InterruptedException {
        for (int call = 0; call < 2_000; call++) {
            int chunks = 1 + call % 67;
            AtomicIntegerArray runs = new AtomicIntegerArray(chunks);
            Parallel.forEachChunk(chunks, runs::incrementAndGet);
            for (int c = 0; c < chunks; c++) {
                assertEquals(1, runs.get(c), "call " + call + ", chunk " + c);
            }
            if (call % 500 == 0) {
                Thread.sleep(5); // long enough for the helpers to park between calls
            }
        }
    }

    @Test
    void forEachChunk_aChunkThrows_failsTheCallAndTheNextCallRuns() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Parallel.forEachChunk(16, c -> {
            if (c == 5) {
                throw new ArithmeticException("chunk 5");
            }
        }));
        assertTrue(e.getCause() instanceof ArithmeticException, String.valueOf(e.getCause()));
        AtomicIntegerArray runs = new AtomicIntegerArray(16);
        Parallel.forEachChunk(16, runs::incrementAndGet);
        for (int c = 0; c < 16; c++) {
            assertEquals(1, runs.get(c));
        }
    }
}
