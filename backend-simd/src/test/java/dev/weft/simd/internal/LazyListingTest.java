package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Kernel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A compile leaves its listing unwritten until asked for it: a launch never reads it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LazyListingTest {

    private static final int WARP = 32;

    @Test
    void compile_doesNotWriteTheListing_untilAsked() {
        float[] x = new float[64];
        float[] y = new float[64];
        Kernel saxpy = t -> {
            int i = t.globalIdX();
            if (i < x.length) {
                y[i] = 2f * x[i] + y[i];
            }
        };
        Compiler.Code code = Compiler.compile(LambdaSource.of(saxpy), WARP);
        assertFalse(code.listing().written());
        String listing = code.listing().get();
        assertTrue(code.listing().written());
        assertTrue(listing.contains("contiguous: vector load"), listing);
        assertTrue(listing.contains("divergent branch"), listing);
        assertSame(listing, code.listing().get());
    }

    @Test
    void compileWithBackgroundResumeMethods_writesTheListingWhenAsked_theSameBeforeAndAfterTheBackgroundJob()
            throws InterruptedException {
        float[] in = new float[256];
        float[] out = new float[256];
        Kernel reverse = t -> {
            float[] tile = t.sharedFloats(256);
            int i = t.threadIdxX();
            tile[i] = in[i];
            t.syncThreads();
            out[i] = tile[255 - i];
        };
        // The background job that adds the methods per resume point applies each variant's shapes to the graph the
        // listing reads: written while the job may run, and after it, the listings must be the same.
        Compiler.Code during = Compiler.compile(LambdaSource.of(reverse), WARP);
        assertNotNull(during.resumed(), "a barrier kernel's methods per resume point come from the background");
        assertFalse(during.listing().written());
        String early = during.listing().get();
        Compiler.Code after = Compiler.compile(LambdaSource.of(reverse), WARP);
        dev.weft.simd.Differential.awaitResumeMethods();
        assertFalse(after.listing().written());
        String late = after.listing().get();
        assertTrue(late.contains("syncThreads()"), late);
        // the first line says how long the compile took
        assertEquals(early.substring(early.indexOf('\n')), late.substring(late.indexOf('\n')));
    }
}
