package dev.weft.benchmarks.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BarrierBenchmarkTest {

    private static final String FALLBACK = "dev.weft.benchmarks.runtime.BarrierBenchmark.weftSyncThreadsVirtualThreadFallback";

    /** The fallback's method refuses a fork without its switch, naming the option; the others never need it. */
    @Test
    void fallbackWithoutItsSwitch_failsNamingTheOption() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> BarrierBenchmark.requireFallbackSwitch(FALLBACK, false));
        assertEquals("weftSyncThreadsVirtualThreadFallback needs -Dweft.reference.virtualThreads=true in its fork; "
                + "a -jvmArgsAppend on the command line replaces the benchmark's own, so add it there", e.getMessage());
        assertDoesNotThrow(() -> BarrierBenchmark.requireFallbackSwitch(FALLBACK, true));
        assertDoesNotThrow(() -> BarrierBenchmark.requireFallbackSwitch(
                "dev.weft.benchmarks.runtime.BarrierBenchmark.weftSyncThreads", false));
    }
}
