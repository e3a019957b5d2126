package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Profiled launches on the reference executor (CTAs and warps counted, the rest refused with a reason), and
 * the profile's own arithmetic. The compiled counts are tested in the SIMD backend's ProfilingTest.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaunchProfileTest {

    @Test
    void profile_referenceExecutor_countsCtasAndWarps_includingPartialWarps() {
        try (Device device = TestDevices.reference(2)) {
            int[] y = new int[3 * 40];
            LaunchProfile p = device.profile(Dim3.of(3), Dim3.of(40), t -> y[t.globalIdX()] = t.threadIdxX());
            assertEquals("reference", p.executor());
            assertEquals(3, p.ctas());
            assertEquals(6, p.warps()); // 32 + 8 threads per CTA
            assertEquals(32, p.warpSize());
            assertFalse(p.counted());
            assertEquals(0, p.warpInstructions());
            assertTrue(p.notCountedReason().contains("reference executor"), p.notCountedReason());
            assertEquals(39, y[119]);
        }
    }

    @Test
    void profile_referenceExecutor_efficiencyRefusedNamingWhy() {
        try (Device device = TestDevices.reference(1)) {
            LaunchProfile p = device.profile(Dim3.of(1), Dim3.of(8), t -> { });
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, p::warpExecutionEfficiency);
            assertTrue(e.getMessage().startsWith("warp execution efficiency was not counted for this launch: the reference executor"),
                    e.getMessage());
            assertThrows(UnsupportedOperationException.class, p::nonSplitRate);
            assertTrue(p.toString().contains("1 CTAs, 1 warps of 32 threads"), p.toString());
        }
    }

    @Test
    void profile_streamOnReference_completesWithTheProfile() {
        try (Device device = TestDevices.reference(2)) {
            LaunchProfile p = device.createStream().profile(LaunchConfig.of(Dim3.of(5, 2), Dim3.of(8, 8)), t -> { }).join();
            assertEquals(10, p.ctas());
            assertEquals(20, p.warps());
        }
    }

    @Test
    void profile_badDimensions_rejectedBeforeRunning() {
        try (Device device = TestDevices.reference(1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> device.profile(Dim3.of(1), Dim3.of(2048), t -> { }));
            assertEquals("blockDim.x must be in [1, 1024]: 2048", e.getMessage());
        }
    }

    @Test
    void warpExecutionEfficiency_isThreadInstructionsOverWarpInstructionsTimesWarpSize() {
        LaunchProfile p = new LaunchProfile("k", "simd", 32, 1, 2, true, "", 10, 200,
                List.of(new LaunchProfile.Branch("K.java:3", 4, 1)),
                List.of(new LaunchProfile.Line("K.java:3", 10, 200, 200 / 320.0)));
        assertEquals(200 / 320.0, p.warpExecutionEfficiency());
        assertEquals(0.75, p.nonSplitRate());
        assertEquals(0.25, p.branchAt("K.java:3").splitRate());
        assertEquals(10, p.lineAt("K.java:3").warpInstructions());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.branchAt("K.java:4"));
        assertTrue(e.getMessage().endsWith(": K.java:4"), e.getMessage());
        assertTrue(p.toString().contains("62.5%"), p.toString());
    }

    @Test
    void warpExecutionEfficiency_noInstructionIssued_isOne() {
        LaunchProfile p = new LaunchProfile("k", "simd", 32, 0, 0, true, "", 0, 0, List.of(), List.of());
        assertEquals(1.0, p.warpExecutionEfficiency());
        assertEquals(1.0, p.nonSplitRate());
    }
}
