package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gate of the compiler's background work: a checkpoint waits while a user's compile runs, and only there. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BackgroundTest {

    @Test
    void yieldToForeground_backgroundThread_waitsUntilTheUserCompileEnds() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        Background.foregroundBegin();
        try {
            Background.start("weft-test-checkpoint", () -> {
                started.countDown();
                Background.yieldToForeground();
                returned.countDown();
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            assertFalse(returned.await(200, TimeUnit.MILLISECONDS), "returned while a user compile was under way");
        } finally {
            Background.foregroundEnd();
        }
        assertTrue(returned.await(10, TimeUnit.SECONDS), "still waiting after the user compile ended");
    }

    @Test
    void yieldToForeground_userThread_neverWaits() {
        Background.foregroundBegin();
        try {
            // A wait would last MAX_WAIT_NANOS (5 s): a user's thread must pass its own compile's checkpoints.
            assertTimeoutPreemptively(Duration.ofNanos(Background.MAX_WAIT_NANOS / 2), Background::yieldToForeground);
        } finally {
            Background.foregroundEnd();
        }
    }
}
