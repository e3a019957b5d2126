/**
 * The special function unit over Vector API lanes: the same table-driven approximations as
 * {@link dev.weft.Sfu}, bit for bit.
 */
package dev.weft.simd.sfu;
