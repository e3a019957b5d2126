package dev.weft.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.runtime.spi.Cta;
import dev.weft.runtime.spi.CtaProgram;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a launch hands out its CTAs: guided chunks that cover the grid once, and nothing after a failure. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LaunchJobTest {

    /** Records each runCtaRow call's first CTA and count. */
    private static final class Rows implements CtaProgram {
        final List<long[]> calls = new ArrayList<>();

        @Override
        public void runCta(Cta cta) {
            calls.add(new long[] {cta.blockIdxX(), 1});
        }

        @Override
        public void runCtaRow(Cta cta, int count) {
            calls.add(new long[] {cta.blockIdxX(), count});
        }
    }

    @Test
    void runOne_bigGridOfSmallCtas_guidedChunksCoverItOnceAndShrink() {
        Rows rows = new Rows();
        LaunchJob job = new LaunchJob(t -> { }, rows, Dim3.of(4096), Dim3.of(256), 32, 2, 1024, "test limit");
        Cta cta = new Cta();
        while (job.runOne(cta)) {
            // one SM claims every chunk
        }
        assertTrue(job.done().isDone());
        long expect = 0;
        for (long[] c : rows.calls) {
            assertEquals(expect, c[0], "chunks are consecutive and cover the grid once");
            expect += c[1];
        }
        assertEquals(4096, expect);
        // a quarter of an SM's share of what is left (4096 / 8), then smaller, never under 32 but at the end
        assertEquals(512, rows.calls.getFirst()[1]);
        for (int i = 1; i < rows.calls.size(); i++) {
            assertTrue(rows.calls.get(i)[1] <= rows.calls.get(i - 1)[1], "chunk " + i + " is not larger than the one before");
            assertTrue(rows.calls.get(i)[1] >= 32 || i == rows.calls.size() - 1, "chunk " + i + " is under the minimum");
        }
        assertTrue(rows.calls.size() < 40, rows.calls.size() + " claims for 4096 CTAs");
    }

    @Test
    void runOne_afterFailureOfTheLargestGrid_claimsNothing() {
        Rows rows = new Rows();
        LaunchJob job = new LaunchJob(t -> { }, rows, Dim3.of(Integer.MAX_VALUE, 65535, 65535), Dim3.of(1), 32, 2, 1024, "test limit");
        job.fail(new IllegalStateException("stop"));
        assertTrue(job.done().isDone(), "the unclaimed CTAs count as finished");
        assertFalse(job.runOne(new Cta()), "a claim after the failure finds nothing");
        assertTrue(job.drained());
        assertEquals(0, rows.calls.size());
    }
}
