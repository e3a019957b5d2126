/**
 * The SFU's table-driven datapath: coefficient tables and the fixed-point evaluation shared by the scalar
 * {@link dev.weft.Sfu} and the vectorised SFU of the SIMD backend, so both read the same tables. Not API.
 */
package dev.weft.internal.sfu;
