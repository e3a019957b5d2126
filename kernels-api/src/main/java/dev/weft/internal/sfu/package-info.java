/**
 * The special function unit's datapath: coefficient tables ({@link dev.weft.internal.sfu.TableSpec},
 * {@link dev.weft.internal.sfu.SfuTables}), their enhanced-minimax generator
 * ({@link dev.weft.internal.sfu.EnhancedMinimax}), the fixed-point interpolator
 * ({@link dev.weft.internal.sfu.Datapath}), the sine/cosine range reduction
 * ({@link dev.weft.internal.sfu.QuarterTurns}) and the Table 1 accuracy sweeps
 * ({@link dev.weft.internal.sfu.Table1}). Exported only to the SIMD backend, whose vector unit reads the
 * same tables.
 */
package dev.weft.internal.sfu;
