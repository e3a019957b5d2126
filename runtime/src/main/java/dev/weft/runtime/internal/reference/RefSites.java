package dev.weft.runtime.internal.reference;

import dev.weft.ThreadContext;
import dev.weft.runtime.internal.reference.RefThread.WarpOp;

/**
 * What site-tagged kernel code calls instead of the {@link ThreadContext} methods that wait for other
 * threads: the same operation, plus the number {@link SiteTagging} gave the call. Public only because the
 * tagged copy of a kernel lives in the kernel's own package; not API.
 */
public final class RefSites {

    private RefSites() {
    }

    private static RefThread ref(ThreadContext t) {
        return (RefThread) t;
    }

    public static void syncThreads(ThreadContext t, int site) {
        RefThread r = ref(t);
        r.syncThreadsAt(r.taggedSite(site));
    }

    public static int ballot(ThreadContext t, boolean p, int site) {
        RefThread r = ref(t);
        return r.warpOp(r.taggedSite(site), WarpOp.BALLOT, false, p ? 1 : 0, 0, r.warpSize());
    }

    public static boolean any(ThreadContext t, boolean p, int site) {
        RefThread r = ref(t);
        return r.warpOp(r.taggedSite(site), WarpOp.ANY, false, p ? 1 : 0, 0, r.warpSize()) != 0;
    }

    public static boolean all(ThreadContext t, boolean p, int site) {
        RefThread r = ref(t);
        return r.warpOp(r.taggedSite(site), WarpOp.ALL, false, p ? 1 : 0, 0, r.warpSize()) != 0;
    }

    public static int shfl(ThreadContext t, int v, int lane, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_IDX, false, v, lane, width);
    }

    public static int shflUp(ThreadContext t, int v, int delta, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_UP, false, v, delta, width);
    }

    public static int shflDown(ThreadContext t, int v, int delta, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_DOWN, false, v, delta, width);
    }

    public static int shflXor(ThreadContext t, int v, int mask, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_XOR, false, v, mask, width);
    }

    public static float shfl(ThreadContext t, float v, int lane, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_IDX, v, lane, width);
    }

    public static float shflUp(ThreadContext t, float v, int delta, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_UP, v, delta, width);
    }

    public static float shflDown(ThreadContext t, float v, int delta, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_DOWN, v, delta, width);
    }

    public static float shflXor(ThreadContext t, float v, int mask, int width, int site) {
        RefThread r = ref(t);
        return r.shuffle(r.taggedSite(site), WarpOp.SHFL_XOR, v, mask, width);
    }

    // The two-argument forms are default methods that pass warpSize as the width.

    public static int shfl(ThreadContext t, int v, int lane, int site) {
        return shfl(t, v, lane, t.warpSize(), site);
    }

    public static int shflUp(ThreadContext t, int v, int delta, int site) {
        return shflUp(t, v, delta, t.warpSize(), site);
    }

    public static int shflDown(ThreadContext t, int v, int delta, int site) {
        return shflDown(t, v, delta, t.warpSize(), site);
    }

    public static int shflXor(ThreadContext t, int v, int mask, int site) {
        return shflXor(t, v, mask, t.warpSize(), site);
    }

    public static float shfl(ThreadContext t, float v, int lane, int site) {
        return shfl(t, v, lane, t.warpSize(), site);
    }

    public static float shflUp(ThreadContext t, float v, int delta, int site) {
        return shflUp(t, v, delta, t.warpSize(), site);
    }

    public static float shflDown(ThreadContext t, float v, int delta, int site) {
        return shflDown(t, v, delta, t.warpSize(), site);
    }

    public static float shflXor(ThreadContext t, float v, int mask, int site) {
        return shflXor(t, v, mask, t.warpSize(), site);
    }
}
