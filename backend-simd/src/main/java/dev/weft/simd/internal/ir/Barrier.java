package dev.weft.simd.internal.ir;

/**
 * The datum of an {@link Op#BARRIER} node.
 *
 * @param id the barrier node's number in the kernel, from 1: the resume point of the code after it
 * @param site the call instruction's number, from 1: barriers inlined from one call instruction of a helper share
 *        it, and threads waiting at any of them meet, as in the reference executor, whose barriers are the
 *        call instructions
 * @param where the call's source position as the reference executor describes it ({@code Class.method(File:line)}),
 *        for messages
 */
public record Barrier(int id, int site, String where) {
}
