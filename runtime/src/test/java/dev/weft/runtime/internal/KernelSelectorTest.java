package dev.weft.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.weft.Dim3;
import dev.weft.Kernel;
import dev.weft.runtime.CompileReport;
import dev.weft.runtime.ExecutorChoice;
import dev.weft.runtime.spi.Compilation;
import dev.weft.runtime.spi.CompiledKernel;
import dev.weft.runtime.spi.CtaProgram;
import dev.weft.runtime.spi.DeviceShape;
import dev.weft.runtime.spi.KernelBackend;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The selector passes a first launch's CTA shape to the backend's compile, binds each launch with its shape, and
 * runs on the reference executor the launches whose shape the chosen executor cannot run.
 */
class KernelSelectorTest {

    /** Compiles every kernel; its programs run only CTAs 32 threads wide. */
    private static final class RowsOf32 implements KernelBackend {
        final List<Dim3> compiledFor = new ArrayList<>();
        final CtaProgram program = cta -> { };

        @Override
        public String name() {
            return "rows-of-32";
        }

        @Override
        public Compilation compile(Kernel kernel, DeviceShape device) {
            return compile(kernel, device, null);
        }

        @Override
        public Compilation compile(Kernel kernel, DeviceShape device, Dim3 block) {
            compiledFor.add(block);
            return new Compilation.Compiled(new CompiledKernel() {
                @Override
                public CompileReport report() {
                    return new CompileReport(name(), true, List.of(), "");
                }

                @Override
                public CtaProgram bind(Kernel k) {
                    return program;
                }

                @Override
                public CtaProgram bind(Kernel k, Dim3 b) {
                    return b.x() == 32 ? program : null;
                }

                @Override
                public CompileReport report(Dim3 b) {
                    return b.x() == 32 ? report() : null;
                }
            });
        }
    }

    @Test
    void bind_compilesForTheFirstLaunchsShape_andFallsBackWhereTheExecutorCannotRunAShape() {
        RowsOf32 backend = new RowsOf32();
        KernelSelector selector = new KernelSelector(ExecutorChoice.AUTO, new DeviceShape(32, 48 * 1024), List.of(backend));
        Kernel k = t -> { };
        assertSame(backend.program, selector.bind(k, Dim3.of(32, 4)));
        assertEquals(List.of(Dim3.of(32, 4)), backend.compiledFor);
        CtaProgram fallback = selector.bind(k, Dim3.of(64));
        assertNotSame(backend.program, fallback);
        assertSame(backend.program, selector.bind(k, Dim3.of(32)));
        // one compile per kernel class; the reports stay the compiling executor's
        assertEquals(1, backend.compiledFor.size());
        assertEquals("rows-of-32", selector.report(k).executor());
        assertEquals("rows-of-32", selector.report(k, Dim3.of(32, 2)).executor());
        CompileReport fallbackReport = selector.report(k, Dim3.of(64));
        assertEquals("reference", fallbackReport.executor());
        assertEquals(List.of("rows-of-32 compiles this kernel for other CTA shapes, not for blockDim " + Dim3.of(64)),
                fallbackReport.reasons());
    }
}
