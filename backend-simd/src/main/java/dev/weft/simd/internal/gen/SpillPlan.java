package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import java.lang.classfile.TypeKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a phased method keeps across each barrier, decided before its code is emitted: the values live across it and
 * the masked code's state (masks, flags, loop aborts), their columns in the per-group spill rows of {@link Phases},
 * which barriers share one kept set, and, in a resume point's method, which kept values its phase leaves unchanged.
 */
final class SpillPlan {
    /** The method this code is part of. */
    private final MethodGen method;
    private final Cfg cfg;
    private final List<Block> barrierBlocks;
    private final Map<Node, Storage> storage;
    private final List<Map<Long, Integer>> columns;
    private final Map<Block, List<int[]>> keptAt;

    SpillPlan(MethodGen method) {
        this.method = method;
        this.cfg = method.cfg;
        this.barrierBlocks = method.barrierBlocks;
        this.storage = method.storage;
        this.columns = method.columns;
        this.keptAt = method.keptAt;
    }

    /** Per storage class, the next free column of the spill rows. */
    private final int[] nextColumn = new int[5];

    /** The masked code's state, each with its live range. */
    private final List<StateItem> stateItems = new ArrayList<>();

    private int spillClass(TypeKind t) {
        return switch (t) {
            case INT, BOOLEAN, BYTE, CHAR, SHORT -> MethodGen.SPILL_INT;
            case LONG -> MethodGen.SPILL_LONG;
            case FLOAT -> MethodGen.SPILL_FLOAT;
            case DOUBLE -> MethodGen.SPILL_DOUBLE;
            default -> MethodGen.SPILL_REF;
        };
    }

    /**
     * What each barrier keeps: the state of the masked code (every mask, flag and loop abort, and the shadows
     * of values leaving divergent loops: few, and cheap to keep), and the values whose live range in the
     * linear code spans the barrier.
     *
     * <p>Live range: the code runs blocks in linear order and jumps back only from a loop's end to its
     * header, so a value's locals are live from the first block that touches them (its definition, or for a
     * phi the first incoming edge's copy) to the last that reads them; a range that enters or leaves a loop
     * covers the whole loop, since every iteration may come back to it. A barrier at the end of block B keeps
     * the values whose range starts at or before B and ends after it.
     */
    void planSpills() {
        for (int i = 0; i < 5; i++) {
            columns.add(new LinkedHashMap<>());
        }
        // Live ranges of the masked code's state: which blocks touch each mask and flag.
        Map<Block, List<Block>> maskUsers = new HashMap<>();
        for (Block b : cfg.order) {
            for (Block m : method.killSets.get(b)) {
                MethodGen.listAt(maskUsers, m).add(b);
            }
        }
        for (Block x : cfg.order) {
            Run r = method.plan.run.get(x);
            List<Block> touching = new ArrayList<>(x.preds);
            touching.add(x);
            if (r == Run.MASK) {
                List<int[]> slots = new ArrayList<>();
                for (int sl : method.accSlots.get(x)) {
                    slots.add(new int[] {MethodGen.SPILL_REF, sl});
                    method.refTypes.put(sl, Vec.MASK);
                }
                stateItems.add(new StateItem(slots, range(touching)));
            }
            if (r == Run.MASK) {
                List<int[]> slots = new ArrayList<>();
                for (int sl : method.classSlots.get(x)) {
                    slots.add(new int[] {MethodGen.SPILL_REF, sl});
                    method.refTypes.put(sl, Vec.MASK);
                }
                List<Block> users = new ArrayList<>(maskUsers.getOrDefault(x, List.of()));
                users.add(x);
                stateItems.add(new StateItem(slots, range(users)));
            }
            if (r == Run.FLAG || r == Run.REGION) {
                if (r == Run.REGION) {
                    // Set when the region's dominator starts.
                    for (Map.Entry<Block, List<Block>> e : method.plan.regionJoins.entrySet()) {
                        if (e.getValue().contains(x)) {
                            touching.add(e.getKey());
                        }
                    }
                }
                stateItems.add(new StateItem(List.<int[]>of(new int[] {MethodGen.SPILL_INT, method.flagSlot.get(x)}), range(touching)));
            }
        }
        for (Map.Entry<Cfg.Loop, Integer> e : method.abortSlot.entrySet()) {
            stateItems.add(new StateItem(List.<int[]>of(new int[] {MethodGen.SPILL_INT, e.getValue()}), range(new ArrayList<>(e.getKey().body))));
        }
        // Accesses per value, as positions in the linear order.
        Map<Node, int[]> range = new HashMap<>();
        for (Block b : method.g.blocks) {
            for (Node x : b.phis) {
                touch(range, x, b);
                for (int i = 0; i < x.in.size(); i++) {
                    touch(range, x, b.preds.get(i));
                    touch(range, x.in(i), b.preds.get(i));
                }
            }
            for (Node x : b.nodes) {
                touch(range, x, b);
                for (Node o : x.in) {
                    touch(range, o, b);
                }
            }
            if (b.cond != null) {
                touch(range, b.cond, b);
            }
        }
        for (int[] r : range.values()) {
            extendOverLoops(r);
        }
        int stride = 0;
        // An interleaved stride loop's pause keeps what lives into its header, as a barrier at the end of the
        // block before it would.
        List<Block> points = new ArrayList<>(barrierBlocks);
        points.addAll(method.yieldIds.keySet());
        List<List<int[]>> yieldKept = new ArrayList<>();
        Map<Block, Set<Node>> liveOut = barrierBlocks.isEmpty() ? Map.of() : method.liveOut();
        for (Block b : points) {
            boolean pause = method.yieldIds.containsKey(b);
            int p = cfg.position.get(b) - (pause ? 1 : 0);
            List<int[]> kept = new ArrayList<>();
            for (StateItem it : stateItems) {
                if (it.range()[0] <= p && it.range()[1] > p) {
                    kept.addAll(it.slots());
                }
            }
            List<String> names = new ArrayList<>();
            for (Map.Entry<Node, int[]> e : range.entrySet()) {
                Node x = e.getKey();
                int[] r = e.getValue();
                if (r[0] > p || r[1] <= p || x.op == Op.CONST || x.op == Op.PARAM || x.op == Op.UNDEF
                        || x.op == Op.SREG || method.deferred.contains(x)) {
                    continue;
                }
                if (!pause && !method.shadow.containsKey(x) && !liveOut.get(b).contains(x) && x != b.cond) {
                    // In range but dead here: a loop's phi between its last use and the back edge's copy.
                    continue;
                }
                int before = kept.size();
                // An instanceof chain, not a pattern switch (see MethodGen#release).
                Storage st = storage.get(x);
                if (st instanceof Storage.Scalar sc) {
                    kept.add(new int[] {spillClass(Vec.typeKind(sc.kind())), sc.slot()});
                    if (sc.kind().isArray()) {
                        method.refTypes.put(sc.slot(), Vec.scalar(sc.kind()));
                    }
                } else if (st instanceof Storage.Affine a && a.base() instanceof Storage.Scalar sc) {
                    kept.add(new int[] {MethodGen.SPILL_INT, sc.slot()});
                } else if (st instanceof Storage.PerRegister pr) {
                    for (int sl : pr.slots()) {
                        kept.add(new int[] {spillClass(Vec.typeKind(pr.kind())), sl});
                    }
                } else if (st instanceof Storage.RegisterAffine ra) {
                    for (int sl : ra.slots()) {
                        kept.add(new int[] {MethodGen.SPILL_INT, sl});
                    }
                } else if (st instanceof Storage.Vectors vs) {
                    for (int sl : vs.slots()) {
                        kept.add(vectorSpill(vs.kind(), sl));
                    }
                } else if (st instanceof Storage.Masks ms) {
                    for (int sl : ms.slots()) {
                        kept.add(new int[] {MethodGen.SPILL_REF, sl});
                        method.refTypes.put(sl, Vec.MASK);
                    }
                }
                Storage.Vectors sh = method.shadow.get(x);
                if (sh != null) {
                    for (int sl : sh.slots()) {
                        kept.add(vectorSpill(sh.kind(), sl));
                    }
                }
                if (kept.size() > before) {
                    names.add(x.name());
                }
            }
            // A local may hold two values (never at once); keep it once.
            Map<Long, int[]> unique = new LinkedHashMap<>();
            for (int[] k : kept) {
                unique.putIfAbsent(spillKey(k), k);
            }
            kept = new ArrayList<>(unique.values());
            for (int[] k : kept) {
                Map<Long, Integer> col = columns.get(k[0]);
                if (!col.containsKey(spillKey(k))) {
                    col.put(spillKey(k), nextColumn[k[0]]);
                    nextColumn[k[0]] += k.length > 2 ? k[2] : 1;
                }
                stride = Math.max(stride, nextColumn[k[0]]);
            }
            if (pause) {
                yieldKept.add(kept);
                continue;
            }
            keptAt.put(b, kept);
            names.sort(BY_NUMBER);
            Map<Block, List<String>> across = method.keptAcross.get(method.v.method());
            if (across == null) {
                across = new LinkedHashMap<>();
                method.keptAcross.put(method.v.method(), across);
            }
            across.put(b, names);
        }
        // All barriers keep the union of their sets, so that they share one spill and one restore (less
        // bytecode under C2's limit; the two barriers of a tiled loop differ only in a flag or two). Keeping
        // more is safe: a value not live is dead (any content will do) and a flag or pending mask not live
        // is clear at the barrier (every block clears its own when it runs), so it is kept clear.
        Map<Long, int[]> union = new LinkedHashMap<>();
        for (Block b : barrierBlocks) {
            for (int[] k : keptAt.get(b)) {
                union.putIfAbsent(spillKey(k), k);
            }
        }
        for (List<int[]> kept : yieldKept) {
            for (int[] k : kept) {
                union.putIfAbsent(spillKey(k), k);
            }
        }
        List<int[]> all = new ArrayList<>(union.values());
        boolean own = yieldKept.isEmpty() && (ownKeptSets(all) || phaseKeptSets(all));
        for (Block b : barrierBlocks) {
            List<int[]> kept = own ? keptAt.get(b) : all;
            keptAt.put(b, kept);
            MethodGen.listAt(method.keptSets, keptKey(b, kept)).add(b);
        }
        // Vectors first in their row, whole vectors each, so that the vector index passed is a small constant.
        Map<Long, Integer> ints = columns.get(MethodGen.SPILL_INT);
        int vectors = 0;
        for (int[] k : all) {
            if (k.length > 2 && k[0] == MethodGen.SPILL_INT) {
                vectors++;
            }
        }
        int nextVector = 0;
        int nextScalar = vectors * Lanes.L32;
        for (Map.Entry<Long, Integer> e : ints.entrySet()) {
            boolean vector = (e.getKey() >>> 32) != MethodGen.SPILL_INT;
            e.setValue(vector ? Lanes.L32 * nextVector++ : nextScalar++);
        }
        stride = Math.max(stride, nextScalar);
        if (CodeGen.PHI_COLUMNS && yieldKept.isEmpty()) {
            sharePhiColumns();
        }
        method.spillStride = Math.max(1, stride);
        method.stopArraySlot = method.local(TypeKind.REFERENCE);
        method.lanesArraySlot = method.local(TypeKind.REFERENCE);
        for (int i = 0; i < 5; i++) {
            method.spillArraySlots[i] = columns.get(i).isEmpty() ? -1 : method.local(TypeKind.REFERENCE);
        }
        method.groupIndexSlot = method.local(TypeKind.INT);
    }

    /**
     * Whether each barrier keeps only its own set rather than the union {@code all}: where the union holds
     * vectors dead at a barrier, for the price of a few more bytes of scalar spills. With the union, a group
     * restores at every barrier the vectors that are live at any, and C2 carries those through the phase's loops
     * to spill them again: the register-blocked sgemm's 16 accumulators are different values at its two
     * barriers (the k-loop's phis and the tile loop's), so the union was 32 vectors restored and spilled per
     * group and phase, and its FMA loop spilled accumulators to the stack at every iteration.
     */
    private boolean ownKeptSets(List<int[]> all) {
        int maxVectors = 0;
        int items = 0;
        for (Block b : barrierBlocks) {
            maxVectors = Math.max(maxVectors, MethodGen.vectors(keptAt.get(b)));
            items += keptAt.get(b).size();
        }
        int unionVectors = MethodGen.vectors(all);
        // At least 4 dead vectors: the tiled sgemm (its accumulator, one vector at each barrier) ran about 25%
        // slower per CPU-second with own sets (2 vectors in the union), so kernels like it keep the union.
        return unionVectors >= maxVectors + 4 && items <= all.size() + 16;
    }

    /**
     * Whether each barrier keeps its own set (see {@link PhaseTrims#PHASE_KEPT_SETS}): where the union {@code all}
     * holds vectors some barrier does not keep, and each of those is linked through phis to a vector local of
     * another barrier's set, so that {@link #sharePhiColumns} gives them one column. Why: the tiled sgemm keeps
     * its accumulator as the k-tile loop's phi across the barrier after the tile loads and as the k-loop's across
     * the one after it; with the union each phase restored both (four vector loads per group and phase for two
     * registers) and the load phase spilled the first again.
     */
    private boolean phaseKeptSets(List<int[]> all) {
        if (!PhaseTrims.PHASE_KEPT_SETS || !CodeGen.PHI_COLUMNS || barrierBlocks.size() < 2) {
            return false;
        }
        Set<Long> linked = phiLinkedVectors();
        boolean some = false;
        for (int[] k : all) {
            if (k.length <= 2) {
                continue;
            }
            long key = spillKey(k);
            for (Block b : barrierBlocks) {
                if (!hasKey(keptAt.get(b), key)) {
                    if (!linked.contains(key)) {
                        return false;
                    }
                    some = true;
                }
            }
        }
        return some;
    }

    /** The spill keys of vector locals that a phi links to another vector local of the same kind and registers. */
    private Set<Long> phiLinkedVectors() {
        Set<Long> linked = new HashSet<>();
        for (Block b : method.g.blocks) {
            for (Node x : b.phis) {
                if (!(storage.get(x) instanceof Storage.Vectors xs)) {
                    continue;
                }
                for (Node y : x.in) {
                    if (storage.get(y) instanceof Storage.Vectors ys && ys.kind() == xs.kind()
                            && ys.slots().length == xs.slots().length) {
                        for (int r = 0; r < xs.slots().length; r++) {
                            linked.add(spillKey(vectorSpill(xs.kind(), xs.slots()[r])));
                            linked.add(spillKey(vectorSpill(ys.kind(), ys.slots()[r])));
                        }
                    }
                }
            }
        }
        return linked;
    }

    /**
     * Gives the vector locals linked through phis (a loop's phi, the value its back edge hands it, the phis of the
     * loops inside it that take it on) one spill column, where no barrier keeps two of them. Why: the register-blocked
     * sgemm keeps its 16 accumulators across the barrier after the tile loads as the outer loop's phis and across the
     * one after the FMA loop as the inner loop's; in their own columns, the phase that only loads tiles restored
     * them from one and spilled them to the other, every group and tile. In one column the spill writes back what the
     * restore read ({@link #unchangedSinceRestore} leaves it out, and C2 drops the restore nobody reads).
     */
    private void sharePhiColumns() {
        Map<Long, Long> parent = new HashMap<>();
        for (Block b : method.g.blocks) {
            for (Node x : b.phis) {
                if (!(storage.get(x) instanceof Storage.Vectors xs)) {
                    continue;
                }
                for (Node y : x.in) {
                    if (storage.get(y) instanceof Storage.Vectors ys && ys.kind() == xs.kind()
                            && ys.slots().length == xs.slots().length) {
                        for (int r = 0; r < xs.slots().length; r++) {
                            long a = findRoot(parent, spillKey(vectorSpill(xs.kind(), xs.slots()[r])));
                            long c = findRoot(parent, spillKey(vectorSpill(ys.kind(), ys.slots()[r])));
                            if (a != c) {
                                parent.put(c, a);
                            }
                        }
                    }
                }
            }
        }
        // A web two of whose locals one barrier keeps (both live there) keeps its own columns.
        Set<Long> clash = new HashSet<>();
        for (Block b : barrierBlocks) {
            Set<Long> seen = new HashSet<>();
            for (int[] k : keptAt.get(b)) {
                long key = spillKey(k);
                if (k.length > 2 && parent.containsKey(key) && !seen.add(findRoot(parent, key))) {
                    clash.add(findRoot(parent, key));
                }
            }
        }
        Map<Long, Integer> webColumn = new HashMap<>();
        for (Map<Long, Integer> col : columns) {
            for (Map.Entry<Long, Integer> e : col.entrySet()) {
                if (!parent.containsKey(e.getKey())) {
                    continue;
                }
                long root = findRoot(parent, e.getKey());
                if (!clash.contains(root)) {
                    Integer c = webColumn.get(root);
                    if (c == null) {
                        webColumn.put(root, e.getValue());
                    } else {
                        e.setValue(c);
                    }
                }
            }
        }
    }

    private static long findRoot(Map<Long, Long> parent, long key) {
        long r = key;
        for (Long p = parent.putIfAbsent(r, r); p != null && p != r; p = parent.get(r)) {
            r = p;
        }
        return r;
    }

    /** Mask, flag or loop-abort locals of the masked code, and the linear positions between which they live. */
    private record StateItem(List<int[]> slots, int[] range) {
    }

    /** The range of positions of {@code blocks}, extended over loops as {@link #extendOverLoops} says. */
    private int[] range(List<Block> blocks) {
        int[] r = {Integer.MAX_VALUE, Integer.MIN_VALUE};
        for (Block b : blocks) {
            Integer p = b == null ? null : cfg.position.get(b);
            if (p != null) {
                r[0] = Math.min(r[0], p);
                r[1] = Math.max(r[1], p);
            }
        }
        extendOverLoops(r);
        return r;
    }

    /** A range that enters or leaves a loop covers all of it: every iteration may come back to its locals. */
    private void extendOverLoops(int[] r) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Cfg.Loop l : cfg.loops) {
                int h = cfg.position.get(l.header);
                int e = cfg.position.get(l.last);
                boolean meets = r[1] >= h && r[0] <= e;
                if (meets && (r[0] < h || r[1] > e) && (r[0] > h || r[1] < e)) {
                    r[0] = Math.min(r[0], h);
                    r[1] = Math.max(r[1], e);
                    changed = true;
                }
            }
        }
    }

    /** The identity of a barrier's kept set: its locals, and the flags and pending masks it clears. */
    private List<Long> keptKey(Block b, List<int[]> kept) {
        List<Long> key = new ArrayList<>();
        for (int[] k : kept) {
            key.add(spillKey(k));
        }
        return key;
    }

    List<Long> keptKey(Block b) {
        return keptKey(b, keptAt.get(b));
    }

    /**
     * A vector local kept across barriers: its bits go to the int spill row, at {@code lanes} consecutive
     * columns ({@code {class, slot, lanes, kind}}; see {@code Lanes.spill}). A spilled reference comes back
     * as an object C2 knows nothing of, and where it meets computed vectors at a phi C2 must box those too
     * (loaded back with {@code fromArray} it is an intrinsic's value like the others). Measured here (AVX2,
     * the 544 x 544 tiled sgemm in 16 x 16 CTAs, after warm-up): 1.64 GB allocated per launch with references
     * in the spill, 0.35 GB with lanes. (Masks as bits were slower: {@code VectorMask.fromLong} is not an
     * intrinsic for 256-bit int masks here.)
     *
     * <p>Float vectors go to the float row, loaded and stored as floats ({@code FloatVector.fromArray} and
     * {@code intoArray} inline): through the int row they were reinterpreted both ways, and C2 boxed every
     * restored vector that reached the loop's phis and every spilled one (the boxes' allocation sites were the
     * {@code reinterpretAsFloats} of the restore and the {@code reinterpretAsInts} of the spill). Measured
     * (AVX2, JDK 25, 256 x 256 register-blocked sgemm, 16 x 16 CTAs, warm): 100 MB allocated per launch through
     * the int row, 12 MB through the float row.
     */
    private int[] vectorSpill(Kind kind, int slot) {
        return new int[] {kind == Kind.FLOAT ? MethodGen.SPILL_FLOAT : MethodGen.SPILL_INT, slot, Lanes.L32, kind.ordinal()};
    }

    /** The identity of a kept local in the spill rows: its class, slot, and whether it holds a vector. */
    static long spillKey(int[] k) {
        return ((long) (k.length > 2 ? k[0] | 8 : k[0]) << 32) | k[1];
    }

    /** Whether {@code kept} holds the local of spill key {@code key}. */
    private static boolean hasKey(List<int[]> kept, long key) {
        for (int[] o : kept) {
            if (spillKey(o) == key) {
                return true;
            }
        }
        return false;
    }

    /** Kept values' names ({@code v12}) in the order of their numbers. Not a lambda (see {@link MethodGen#listAt}). */
    private static final Comparator<String> BY_NUMBER = new Comparator<>() {
        @Override
        public int compare(String a, String b) {
            return Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1)));
        }
    };

    /** Widens {@code x}'s range of positions in the linear order to block {@code b}'s (if {@code b} has one). */
    private void touch(Map<Node, int[]> range, Node x, Block b) {
        Integer p = cfg.position.get(b);
        if (p == null) {
            return;
        }
        int[] r = range.get(x);
        if (r == null) {
            r = new int[] {Integer.MAX_VALUE, Integer.MIN_VALUE};
            range.put(x, r);
        }
        r[0] = Math.min(r[0], p);
        r[1] = Math.max(r[1], p);
    }

    /**
     * In the method of resume point {@code resumeAt} (a barrier): the kept locals that the group restored at
     * its start and that no block its phase can run writes, so that their spill rows still hold their values
     * and a spill may leave them out. The phase runs from the end of the barrier's block until it reaches the
     * end of a barrier block (or a pause, or returns); the blocks it can run are those reachable from there
     * without passing a barrier block's end. A local of a value is written only by the value's block (a phi's:
     * also its predecessors, which copy into it): each value kept across a barrier lives in locals of its own
     * (only block-local values share). Masks, flags, loop aborts and shadows are always spilled. None in the
     * general method, whose groups resume at any barrier, nor at the first phase or an interleaved loop's pause.
     * Why: the loop-invariant values of a tiled loop (the shared arrays, the thread's row and column, the
     * A and B tiles' bases) and the accumulators in the phase that only loads tiles were spilled back unchanged
     * by every group in every phase, the arrays with the garbage collector's write barriers.
     */
    Set<Long> unchangedSinceRestore() {
        Set<Long> out = new HashSet<>();
        if (!CodeGen.SKIP_UNCHANGED_SPILLS || method.resumeAt <= 0 || method.resumeAt >= Phases.YIELD) {
            return out;
        }
        Block from = null;
        for (Block b : barrierBlocks) {
            if (CodeGen.barrierOf(b).id() == method.resumeAt) {
                from = b;
            }
        }
        if (from == null) {
            return out;
        }
        Set<Block> barrierSet = new HashSet<>();
        barrierSet.addAll(barrierBlocks);
        Set<Block> reach = new HashSet<>();
        ArrayDeque<Block> work = new ArrayDeque<>(from.succs);
        while (!work.isEmpty()) {
            Block b = work.pop();
            if (reach.add(b) && !barrierSet.contains(b)) {
                work.addAll(b.succs);
            }
        }
        // Per local of a value: whether a block of the phase writes it.
        Map<Integer, Boolean> written = new HashMap<>();
        // Phi copies the phase runs that may hand on a spill column's value (see sharePhiColumns): phi local to
        // its sources' locals, on whole-group edges.
        Map<Integer, List<Integer>> copies = new HashMap<>();
        for (Block b : method.g.blocks) {
            for (Node x : b.phis) {
                boolean w = reach.contains(b);
                for (Block p : b.preds) {
                    w |= reach.contains(p);
                }
                if (w && CodeGen.PHI_COLUMNS && copiesOnly(x, b, from, reach, copies)) {
                    markWritten(written, x, false);
                    continue;
                }
                markWritten(written, x, w);
            }
            for (Node x : b.nodes) {
                markWritten(written, x, reach.contains(b));
            }
        }
        Set<Integer> restored = new HashSet<>();
        for (int[] k : keptAt.get(from)) {
            restored.add(k[1]);
        }
        // The locals that hold their column's value wherever the phase has written them: restored and not
        // written, or written only by copies of such locals of the same column (greatest fixed point).
        Map<Integer, Integer> column = new HashMap<>();
        for (Map<Long, Integer> col : columns) {
            for (Map.Entry<Long, Integer> e : col.entrySet()) {
                long key = e.getKey();
                if ((key >>> 32) == (MethodGen.SPILL_FLOAT | 8) || (key >>> 32) == (MethodGen.SPILL_INT | 8)) {
                    column.put((int) key, (int) (key >>> 32) << 24 | e.getValue());
                }
            }
        }
        Set<Integer> same = new HashSet<>();
        for (Map.Entry<Integer, Boolean> e : written.entrySet()) {
            int sl = e.getKey();
            if (!e.getValue() && (restored.contains(sl) || copies.containsKey(sl))) {
                same.add(sl);
            }
        }
        boolean changed = true;
        while (changed) {
            // Until no local changes: a local copied from one that is not the same, or of another column, is not.
            changed = false;
            for (Iterator<Integer> it = same.iterator(); it.hasNext();) {
                Integer sl = it.next();
                for (Integer src : copies.getOrDefault(sl, List.of())) {
                    if (!same.contains(src) || column.get(src) == null || !column.get(src).equals(column.get(sl))) {
                        it.remove();
                        changed = true;
                        break;
                    }
                }
            }
        }
        for (int[] k : keptAt.get(from)) {
            if (Boolean.FALSE.equals(written.get(k[1])) && same.contains(k[1])) {
                out.add(spillKey(k));
            }
        }
        for (Block b : barrierBlocks) {
            for (int[] k : keptAt.get(b)) {
                if (k.length > 2 && same.contains(k[1]) && copies.containsKey(k[1])) {
                    out.add(spillKey(k));
                }
            }
        }
        return out;
    }

    /**
     * Whether every copy into vector phi {@code x} (of block {@code b}) that the phase starting after barrier block
     * {@code from} runs is a plain copy of a vector local on a whole-group edge; if so, records them in {@code
     * copies} (phi local to source locals).
     */
    private boolean copiesOnly(Node x, Block b, Block from, Set<Block> reach, Map<Integer, List<Integer>> copies) {
        if (!(storage.get(x) instanceof Storage.Vectors xs) || method.shadow.containsKey(x) || x.shape != Shape.VARYING) {
            return false;
        }
        List<int[]> found = new ArrayList<>();
        for (int i = 0; i < b.preds.size(); i++) {
            Block p = b.preds.get(i);
            if (!reach.contains(p) && p != from) {
                continue;
            }
            Node y = x.in(i);
            if (!(storage.get(y) instanceof Storage.Vectors ys) || ys.kind() != xs.kind() || y.shape != Shape.VARYING
                    || ys.slots().length != xs.slots().length || !method.plan.assignable(p, b)) {
                return false;
            }
            for (int r = 0; r < xs.slots().length; r++) {
                found.add(new int[] {xs.slots()[r], ys.slots()[r]});
            }
        }
        for (int[] c : found) {
            MethodGen.listAt(copies, c[0]).add(c[1]);
        }
        return true;
    }

    private void markWritten(Map<Integer, Boolean> written, Node x, boolean w) {
        List<Integer> slots = new ArrayList<>();
        Storage st = storage.get(x);
        if (st instanceof Storage.Scalar sc) {
            slots.add(sc.slot());
        } else if (st instanceof Storage.Affine a && a.base() instanceof Storage.Scalar sc) {
            slots.add(sc.slot());
        } else if (st instanceof Storage.PerRegister pr) {
            for (int sl : pr.slots()) {
                slots.add(sl);
            }
        } else if (st instanceof Storage.RegisterAffine ra) {
            for (int sl : ra.slots()) {
                slots.add(sl);
            }
        } else if (st instanceof Storage.Vectors vs) {
            for (int sl : vs.slots()) {
                slots.add(sl);
            }
        } else if (st instanceof Storage.Masks ms) {
            for (int sl : ms.slots()) {
                slots.add(sl);
            }
        }
        if (x.op == Op.PARAM || x.op == Op.SREG || x.op == Op.CONST || x.op == Op.UNDEF) {
            // Parameters and special registers are never kept; their locals are not a value's own.
            return;
        }
        for (int sl : slots) {
            Boolean was = written.get(sl);
            written.put(sl, was != null && was || w);
        }
        Storage.Vectors sh = method.shadow.get(x);
        if (sh != null) {
            for (int sl : sh.slots()) {
                // Shadows are written where their value is used after a divergent loop: never left out.
                written.put(sl, true);
            }
        }
    }
}
