package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.weft.Atomics;
import dev.weft.Dim3;
import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Launch parameters outside CUDA's limits are rejected at the call, before any thread runs, with a message
 * naming the parameter, its value and the rule; parameters at the limits are accepted.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LaunchValidationTest {

    private static Device device;
    private static final int[] RAN = new int[1];
    private static final Kernel COUNTING = t -> Atomics.add(RAN, 0, 1);

    @BeforeAll
    static void createDevice() {
        device = TestDevices.reference(2);
    }

    @AfterAll
    static void closeDevice() {
        device.close();
    }

    static java.util.stream.Stream<Arguments> outOfLimits() {
        return java.util.stream.Stream.of(
                Arguments.of(Dim3.of(0), Dim3.of(32), "gridDim.x must be in [1, 2147483647]: 0"),
                Arguments.of(Dim3.of(1, 0), Dim3.of(32), "gridDim.y must be in [1, 65535]: 0"),
                Arguments.of(Dim3.of(1, 1, 0), Dim3.of(32), "gridDim.z must be in [1, 65535]: 0"),
                Arguments.of(Dim3.of(1, 65536), Dim3.of(32), "gridDim.y must be in [1, 65535]: 65536"),
                Arguments.of(Dim3.of(1, 1, 65536), Dim3.of(32), "gridDim.z must be in [1, 65535]: 65536"),
                Arguments.of(Dim3.of(1), Dim3.of(0), "blockDim.x must be in [1, 1024]: 0"),
                Arguments.of(Dim3.of(1), Dim3.of(1, 0), "blockDim.y must be in [1, 1024]: 0"),
                Arguments.of(Dim3.of(1), Dim3.of(1, 1, 0), "blockDim.z must be in [1, 64]: 0"),
                Arguments.of(Dim3.of(1), Dim3.of(1025), "blockDim.x must be in [1, 1024]: 1025"),
                Arguments.of(Dim3.of(1), Dim3.of(1, 1025), "blockDim.y must be in [1, 1024]: 1025"),
                Arguments.of(Dim3.of(1), Dim3.of(1, 1, 65), "blockDim.z must be in [1, 64]: 65"),
                Arguments.of(Dim3.of(1), Dim3.of(Integer.MAX_VALUE), "blockDim.x must be in [1, 1024]: 2147483647"),
                Arguments.of(Dim3.of(1), Dim3.of(32, 33),
                        "blockDim.x * blockDim.y * blockDim.z must be <= 1024 threads per CTA: 1056"),
                Arguments.of(Dim3.of(1), Dim3.of(1024, 1024, 64),
                        "blockDim.x * blockDim.y * blockDim.z must be <= 1024 threads per CTA: 67108864"),
                Arguments.of(Dim3.of(1), Dim3.of(16, 16, 5),
                        "blockDim.x * blockDim.y * blockDim.z must be <= 1024 threads per CTA: 1280"));
    }

    @ParameterizedTest(name = "grid {0} block {1}")
    @MethodSource("outOfLimits")
    void launch_dimensionOutOfLimit_rejectedBeforeAnyThreadRuns(Dim3 grid, Dim3 block, String message) {
        RAN[0] = 0;
        IllegalArgumentException sync = assertThrows(IllegalArgumentException.class, () -> device.launch(grid, block, COUNTING));
        assertEquals(message, sync.getMessage());
        IllegalArgumentException config = assertThrows(IllegalArgumentException.class,
                () -> device.launch(LaunchConfig.of(grid, block), COUNTING));
        assertEquals(message, config.getMessage());
        Stream s = device.createStream();
        IllegalArgumentException async = assertThrows(IllegalArgumentException.class, () -> s.launch(grid, block, COUNTING));
        assertEquals(message, async.getMessage());
        s.synchronize();
        assertEquals(0, RAN[0], "no thread ran");
        assertEquals(true, s.isIdle(), "nothing was queued");
    }

    @Test
    void launch_negativeDimension_rejectedWhereTheDim3IsMade() {
        // A negative extent cannot reach a launch: Dim3 itself refuses it, naming the components.
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> device.launch(Dim3.of(4, -2), Dim3.of(32), COUNTING));
        assertEquals("Dim3 components must be >= 0: (4, -2, 1)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> device.launch(Dim3.of(1), new Dim3(-32, 1, 1), COUNTING));
    }

    @Test
    void launch_blockDimAtEachLimit_accepted() {
        RAN[0] = 0;
        device.launch(Dim3.of(1), Dim3.of(1024), COUNTING);
        device.launch(Dim3.of(1), Dim3.of(1, 1024), COUNTING);
        device.launch(Dim3.of(1), Dim3.of(1, 1, 64), COUNTING);
        device.launch(Dim3.of(1), Dim3.of(16, 8, 8), COUNTING);
        device.launch(Dim3.of(1), Dim3.of(1), COUNTING);
        assertEquals(1024 + 1024 + 64 + 1024 + 1, RAN[0]);
    }

    @Test
    void launch_gridDimAtCudaLimits_accepted() {
        // Running 2^31 - 1 (or 65535^2) CTAs would take hours, so the kernel fails in its first CTAs: a
        // KernelException rather than an IllegalArgumentException shows the grid passed validation, and the
        // cancellation of the other CTAs keeps the test short.
        Kernel failFirst = t -> {
            throw new IllegalStateException("stop");
        };
        KernelException x = assertThrows(KernelException.class, () -> device.launch(Dim3.of(Integer.MAX_VALUE), Dim3.of(1), failFirst));
        assertEquals("stop", x.getCause().getMessage());
        KernelException yz = assertThrows(KernelException.class, () -> device.launch(Dim3.of(1, 65535, 65535), Dim3.of(1), failFirst));
        assertEquals("stop", yz.getCause().getMessage());
        KernelException all = assertThrows(KernelException.class,
                () -> device.launch(Dim3.of(Integer.MAX_VALUE, 65535, 65535), Dim3.of(1024), failFirst));
        assertEquals("stop", all.getCause().getMessage());
    }

    @Test
    void launch_lastCtaOfLargeGrid_hasCoordinatesAtLimits() {
        // the y and z limits, with the CTA coordinates of the far corner
        int[] corner = new int[3];
        device.launch(Dim3.of(2, 65535, 2), Dim3.of(1), t -> {
            if (t.blockIdxX() == 1 && t.blockIdxY() == 65534 && t.blockIdxZ() == 1) {
                corner[0] = t.gridDimX();
                corner[1] = t.gridDimY();
                corner[2] = t.gridDimZ();
            }
        });
        assertEquals(2, corner[0]);
        assertEquals(65535, corner[1]);
        assertEquals(2, corner[2]);
    }

    @Test
    void launch_nullArguments_rejectedNamingThem() {
        Stream s = device.createStream();
        LaunchConfig ok = LaunchConfig.of(Dim3.of(1), Dim3.of(1));
        assertEquals("kernel must not be null",
                assertThrows(NullPointerException.class, () -> device.launch(Dim3.of(1), Dim3.of(1), null)).getMessage());
        assertEquals("kernel must not be null", assertThrows(NullPointerException.class, () -> device.launch(ok, null)).getMessage());
        assertEquals("kernel must not be null", assertThrows(NullPointerException.class, () -> s.launch(ok, null)).getMessage());
        assertEquals("launch must not be null",
                assertThrows(NullPointerException.class, () -> device.launch((LaunchConfig) null, COUNTING)).getMessage());
        assertEquals("launch must not be null",
                assertThrows(NullPointerException.class, () -> s.launch((LaunchConfig) null, COUNTING)).getMessage());
        assertEquals("grid must not be null",
                assertThrows(NullPointerException.class, () -> device.launch(null, Dim3.of(1), COUNTING)).getMessage());
        assertEquals("block must not be null",
                assertThrows(NullPointerException.class, () -> s.launch(Dim3.of(1), null, COUNTING)).getMessage());
        assertEquals("kernel must not be null", assertThrows(NullPointerException.class, () -> device.compileReport(null)).getMessage());
        assertEquals("config must not be null", assertThrows(NullPointerException.class, () -> Device.create(null)).getMessage());
        assertEquals("event must not be null", assertThrows(NullPointerException.class, () -> s.waitFor(null)).getMessage());
    }

    @Test
    void launchConfig_negativeSharedMemory_rejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LaunchConfig.of(Dim3.of(1), Dim3.of(1)).withSharedMemoryBytes(-1));
        assertEquals("sharedMemoryBytes must be >= 0: -1", e.getMessage());
    }

    @Test
    void deviceConfig_outOfRange_rejectedNamingComponent() {
        DeviceConfig d = DeviceConfig.defaults();
        assertEquals("smCount must be in [1, 4096]: 0",
                assertThrows(IllegalArgumentException.class, () -> d.withSmCount(0)).getMessage());
        assertEquals("warpSize must be a power of two in [1, 32]: 12",
                assertThrows(IllegalArgumentException.class, () -> d.withWarpSize(12)).getMessage());
        assertEquals("warpSize must be a power of two in [1, 32]: 64",
                assertThrows(IllegalArgumentException.class, () -> d.withWarpSize(64)).getMessage());
        assertEquals("warpSize must be a power of two in [1, 32]: 0",
                assertThrows(IllegalArgumentException.class, () -> d.withWarpSize(0)).getMessage());
        assertEquals("sharedMemoryPerBlockBytes must be in [0, 1073741824]: -1",
                assertThrows(IllegalArgumentException.class, () -> d.withSharedMemoryPerBlockBytes(-1)).getMessage());
        assertEquals("executor must not be null",
                assertThrows(NullPointerException.class, () -> d.withExecutor(null)).getMessage());
    }

    @Test
    void deviceConfig_defaults_areCudaLike() {
        DeviceConfig d = DeviceConfig.defaults();
        assertEquals(32, d.warpSize());
        assertEquals(48 * 1024, d.sharedMemoryPerBlockBytes());
        assertEquals(Runtime.getRuntime().availableProcessors(), d.smCount());
    }

    @Test
    void compileReport_withoutBackends_isReference() {
        CompileReport r = device.compileReport(COUNTING);
        assertEquals("reference", r.executor());
        assertEquals(false, r.compiled());
        assertEquals("runs on the reference executor", r.summary());
        assertInstanceOf(String.class, r.listing());
    }
}
