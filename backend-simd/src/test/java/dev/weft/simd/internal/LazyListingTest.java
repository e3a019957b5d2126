package dev.weft.simd.internal;

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
    void compileWithBackgroundResumeMethods_writesTheListingAtOnce() {
        float[] in = new float[256];
        float[] out = new float[256];
        Kernel reverse = t -> {
            float[] tile = t.sharedFloats(256);
            int i = t.threadIdxX();
            tile[i] = in[i];
            t.syncThreads();
            out[i] = tile[255 - i];
        };
        Compiler.Code code = Compiler.compile(LambdaSource.of(reverse), WARP);
        // The background job that adds the methods per resume point changes the graph's shapes: the listing must
        // be written before it starts.
        assertNotNull(code.resumed(), "a barrier kernel's methods per resume point come from the background");
        assertTrue(code.listing().written());
        assertTrue(code.listing().get().contains("syncThreads()"), code.listing().get());
    }
}
