package dev.weft.simd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Generated class names: the kernel's method name with what a class name may not hold replaced. */
class CompilerNamesTest {

    @Test
    void sanitize_lambdaName_sameAsTheRegexItReplaced() {
        String[] names = {"SaxpyBenchmark.lambda$saxpyKernel$b71d3b2$1", "Kernels.é-ü/x y", "", "A_z09", "a.b$c<d>[]"};
        for (String n : names) {
            assertEquals(n.replaceAll("[^A-Za-z0-9_]", "_"), Compiler.sanitize(n), n);
        }
    }
}
