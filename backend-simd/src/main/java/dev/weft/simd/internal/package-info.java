/** The compiler: front end, IR, analyses and code generation. Not API. */
package dev.weft.simd.internal;
