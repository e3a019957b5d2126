package dev.weft.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NestedLaunchTest {

    @Test
    void launch_fromInsideKernel_failsWithUnsupported() {
        try (Device device = Device.create()) {
            KernelException e = assertThrows(KernelException.class, () -> device.launch(Dim3.of(4), Dim3.of(8),
                    t -> device.launch(Dim3.of(1), Dim3.of(1), u -> { })));
            UnsupportedOperationException cause = assertInstanceOf(UnsupportedOperationException.class, e.getCause());
            assertTrue(cause.getMessage().contains("dynamic parallelism"), cause.getMessage());

            int[] ran = new int[1];
            device.launch(Dim3.of(1), Dim3.of(1), t -> ran[0] = 1);
            assertEquals(1, ran[0]);
        }
    }
}
