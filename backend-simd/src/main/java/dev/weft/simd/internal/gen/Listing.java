package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.MaskPlan;
import dev.weft.simd.internal.analysis.MaskPlan.Run;
import dev.weft.simd.internal.analysis.StrideLoops;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.front.WarpScans;
import dev.weft.simd.internal.ir.Atomic;
import dev.weft.simd.internal.ir.Barrier;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Cond;
import dev.weft.simd.internal.ir.Conv;
import dev.weft.simd.internal.ir.Fn;
import dev.weft.simd.internal.ir.Graph;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.Param;
import dev.weft.simd.internal.ir.SReg;
import dev.weft.simd.internal.ir.Warp;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * The teaching view: what one warp's code became, block by block. Uniform values ({@code u}) are scalars
 * computed once per warp, affine ones ({@code a}, base + lane) are a scalar base, varying ones ({@code v}) are
 * vectors of one lane per thread, masks ({@code m}) say which threads take a branch. Each block says which
 * threads run it and how its end hands them on.
 */
public final class Listing {

    private final Graph g;
    private final Cfg cfg;
    private final StringBuilder out = new StringBuilder();
    /** Whether the code has the grid-stride fast paths. */
    private boolean stridePaths;
    /** Threads per group, for the pauses of interleaved stride loops ({@link CodeGen#interleaveIterations}). */
    private int group;

    private Listing(Graph g, Cfg cfg) {
        this.g = g;
        this.cfg = cfg;
    }

    /**
     * The listing of a compiled kernel.
     *
     * @param header lines describing the target (warp shape, registers)
     * @param variants the analysed variants, each with a one-line title
     */
    public static String of(Graph g, Cfg cfg, String header, List<Variant> variants) {
        return of(g, cfg, header, variants, CodeGen.FAST_STRIDE_LOOPS, 32);
    }

    /**
     * As {@link #of(Graph, Cfg, String, List)}; {@code stridePaths}: whether the code has the grid-stride fast
     * paths ({@link CodeGen#stridePaths()}); {@code group}: the threads per group.
     */
    public static String of(Graph g, Cfg cfg, String header, List<Variant> variants, boolean stridePaths, int group) {
        Listing l = new Listing(g, cfg);
        l.stridePaths = stridePaths;
        l.group = group;
        l.out.append(header).append('\n');
        l.out.append("parameters (uniform, read once per launch): ");
        // Loops, not streams: a stream's lambdas spin classes on their first run, a cost of every first compile.
        for (int i = 0; i < g.params.size(); i++) {
            Param p = g.params.get(i);
            l.out.append(i > 0 ? ", " : "").append('u').append(paramNode(g, p)).append(' ').append(p.kind().text())
                    .append(' ').append(p.name());
        }
        l.out.append('\n');
        boolean barriers = false;
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                barriers |= n.op == Op.BARRIER;
            }
        }
        if (barriers) {
            l.out.append("barriers: the CTA runs in phases. In a phase every group runs, in turn, until it reaches a barrier"
                    + " or returns; at a barrier it keeps its live values and masks in per-CTA storage and stops. When every"
                    + " group waits at the same syncThreads() with all its threads, the next phase resumes each after it;"
                    + " otherwise the CTA fails, as on the reference executor. Barriers that keep about the same values share"
                    + " one spill and one restore (less code): each then keeps what is live across any of them"
                    + (PhaseTrims.PHASE_KEPT_SETS && CodeGen.PHI_COLUMNS ? "; where the values only some keep are a loop's"
                            + " vectors handed on through phis, each keeps its own, and those vectors share one storage column" : "")
                    + ".\n");
        }
        for (Variant v : variants) {
            l.variant(v);
        }
        return l.out.toString();
    }

    /**
     * A variant to list: its title and analysis, and for kernels with barriers the values kept across each
     * (empty map without barriers).
     */
    public record Variant(String title, Uniformity u, MaskPlan plan, Map<Block, List<String>> kept, Uniformity perRegister,
            boolean lanesOfWarp) {

        public Variant(String title, Uniformity u, MaskPlan plan) {
            this(title, u, plan, Map.of());
        }

        public Variant(String title, Uniformity u, MaskPlan plan, Map<Block, List<String>> kept) {
            this(title, u, plan, kept, null, false);
        }
    }

    /** The values of the variant being listed kept per register ({@link RegisterRows}); empty for other layouts. */
    private Map<Node, Shape> perRegister = Map.of();
    /** That variant's per-register analysis, or null. */
    private Uniformity registerAnalysis;

    private static int paramNode(Graph g, Param p) {
        for (Node n : g.entry().nodes) {
            if (n.op == Op.PARAM && n.aux == p) {
                return n.id;
            }
        }
        return -1;
    }

    /** Whether the code runs the stride loop interleaved across groups (as CodeGen decides: kernels with barriers). */
    private boolean interleaved(StrideLoops.StrideLoop sl, Cfg.Loop loop) {
        boolean barriers = false;
        for (Block b : g.blocks) {
            for (Node n : b.nodes) {
                barriers |= n.op == Op.BARRIER;
            }
        }
        return barriers && CodeGen.INTERLEAVE && StrideLoops.interleavable(sl, loop, g, g.useCounts());
    }

    /** The loop as its phase's touch pass sees it (kernels with barriers, the pass on), or null. */
    private Touches.TouchLoop touchLoop(Cfg.Loop loop) {
        if (!Touches.TOUCH_PASS) {
            return null;
        }
        java.util.Set<Block> barrierBlocks = new HashSet<>();
        for (Block b : g.blocks) {
            if (!b.nodes.isEmpty() && b.nodes.getLast().op == Op.BARRIER) {
                barrierBlocks.add(b);
            }
        }
        return barrierBlocks.isEmpty() ? null : Touches.of(loop, barrierBlocks);
    }

    private void variant(Variant v) {
        v.u().apply();
        registerAnalysis = v.perRegister();
        perRegister = v.perRegister() == null ? Map.of() : RegisterRows.values(cfg, v.u(), v.perRegister(), v.lanesOfWarp());
        out.append('\n').append(v.title()).append('\n');
        Map<Cfg.Loop, StrideLoops.StrideLoop> strides = stridePaths
                ? new StrideLoops(g, cfg, v.u(), v.plan()).loops : Map.of();
        for (Block b : cfg.order) {
            Cfg.Loop loop = cfg.loopOfHeader.get(b);
            int depth = 0;
            for (Cfg.Loop l = cfg.loopOf(b); l != null; l = l.parent) {
                depth++;
            }
            String ind = "  ".repeat(depth);
            if (loop != null) {
                String kind = v.plan().isUniformLoop(b) ? "uniform loop: every thread iterates together; the back edge is a plain jump"
                        : v.u().divergentLoops.contains(loop) ? "divergent loop: runs while any thread is in it; threads leave at different iterations"
                        : "loop under a mask: runs while any thread is in it";
                StrideLoops.StrideLoop sl = strides.get(loop);
                if (sl != null) {
                    kind += "; grid-stride fast path: while " + sl.affine().name() + " " + sl.pred().symbol + " "
                            + sl.bound().name() + " holds for every lane (one scalar test), whole iterations run with"
                            + " all threads and no masks, then the rest as above";
                    if (interleaved(sl, loop)) {
                        // a narrower group that runs the same code (a variant for CTA rows of half the group) pauses sooner
                        int narrow = CodeGen.interleaveIterations(group / 2);
                        kind += "; interleaved: a group pauses every " + CodeGen.interleaveIterations(group) + " iterations of it"
                                + (narrow != CodeGen.interleaveIterations(group) ? " (" + narrow + " where the code runs in groups of "
                                        + group / 2 + " threads)" : "")
                                + " (values kept as at a barrier) so that the CTA's other groups run theirs, as a GPU's warps"
                                + " advance together (-Dweft.simd.interleave=false: each group runs its whole loop in turn)";
                        if (CodeGen.ROUND_ROBIN) {
                            kind += "; once every group has paused, the first runs the groups' iterations round-robin, "
                                    + CodeGen.ROUND_ROBIN_ITERATIONS + " per turn, when all the loop carries is scalars"
                                    + " and what it reads from outside is the same in every group"
                                    + " (-Dweft.simd.roundRobin=false: pauses only)";
                        }
                    }
                }
                Touches.TouchLoop touch = touchLoop(loop);
                if (touch != null) {
                    kind += "; " + Touches.describe(touch);
                }
                out.append("  ").append("  ".repeat(depth - 1)).append("loop ").append(b).append(" (").append(kind).append(")\n");
            }
            Run run = v.plan().run.get(b);
            if (run == Run.NONE) {
                continue;
            }
            out.append(ind).append("  ").append(b).append(": ").append(runText(b, run, v)).append('\n');
            for (Node n : b.phis) {
                out.append(ind).append("    ").append(line(n, b, v.u())).append('\n');
            }
            for (Node n : b.nodes) {
                if (n.op == Op.CONST || n.op == Op.PARAM || n.op == Op.UNDEF) {
                    continue;
                }
                out.append(ind).append("    ").append(line(n, b, v.u())).append('\n');
                if (n.op == Op.BARRIER) {
                    List<String> kept = v.kept().getOrDefault(b, List.of());
                    out.append(ind).append("    ").append("  ").append(plan(b, v))
                            .append("; live across it: ").append(kept.isEmpty() ? "masks and flags only" : String.join(", ", kept) + ", masks and flags")
                            .append('\n');
                }
            }
            out.append(ind).append("    ").append(exit(b, v)).append('\n');
        }
    }

    /** What the barrier at the end of {@code b} does at run time. */
    private String plan(Block b, Variant v) {
        boolean full = v.plan().maskOf.get(b) == g.entry();
        return "the group stops here (resumes after it in the next phase)"
                + (full ? "; every thread of the group is here (its mask is the entry's)"
                        : "; run-time check: every thread of the group must be here");
    }

    private String runText(Block b, Run run, Variant v) {
        MaskPlan plan = v.plan();
        return switch (run) {
            case ENTRY -> "entry, mask M" + b.id + " = the warp's threads that exist";
            case MASK -> "mask M" + b.id + " = threads arriving here; " + (runsWhenEmpty(b, v)
                    ? "runs even when empty: it only hands values on, and with no thread its blends change nothing"
                    : "skipped when empty");
            case FLAG -> "mask M" + plan.maskOf.get(b).id + " (same threads as " + plan.maskOf.get(b) + "); runs when a uniform branch leads here";
            case REGION -> "mask M" + plan.maskOf.get(b).id + " (threads reconverge: the region from " + plan.maskOf.get(b) + " ends here)";
            case NONE -> "";
        };
    }

    /** Values a phi, a branch or another block reads; computed on first need. */
    private java.util.Set<Node> readElsewhere;

    /** Whether the code of masked block {@code b} runs without testing its mask (MethodGen's runsWhenEmpty). */
    private boolean runsWhenEmpty(Block b, Variant v) {
        if (readElsewhere == null) {
            readElsewhere = MethodGen.readElsewhere(g);
        }
        return MethodGen.runsWhenEmpty(b, v.plan(), cfg, v.u(), readElsewhere);
    }

    private String exit(Block b, Variant v) {
        MaskPlan plan = v.plan();
        return switch (b.exit) {
            case RETURN -> "return: these threads are done";
            case GOTO -> "goto " + b.succs.get(0) + target(b, b.succs.get(0), plan, "");
            case IF -> {
                Block t = b.succs.get(0);
                Block f = b.succs.get(1);
                if (v.u().shapeAt(b.cond, b) == Shape.UNIFORM) {
                    yield "if " + name(b.cond, b, v.u()) + " (uniform: one branch for the whole warp) then " + t + " else " + f;
                }
                String c = name(b.cond, b, v.u());
                yield "divergent branch on " + c + ": " + t + target(b, t, plan, " & " + c) + "; " + f + target(b, f, plan, " & !" + c);
            }
            case SWITCH -> "switch " + name(b.cond, b, v.u()) + " over " + b.keys.length + " cases"
                    + (v.u().shapeAt(b.cond, b) == Shape.UNIFORM ? " (uniform)" : " (divergent: one mask per target)");
        };
    }

    private static String target(Block from, Block to, MaskPlan plan, String cond) {
        Run r = plan.run.get(to);
        return switch (r) {
            case MASK -> " gets M" + plan.maskOf.get(from).id + cond + (plan.assignable(from, to) ? "" : " (merged)");
            case NONE -> " (nothing to do)";
            default -> "";
        };
    }

    /** The names of {@code in}, separated by commas. */
    private String names(List<Node> in, Block use, Uniformity u) {
        StringBuilder sb = new StringBuilder();
        for (Node a : in) {
            sb.append(sb.isEmpty() ? "" : ", ").append(name(a, use, u));
        }
        return sb.toString();
    }

    private String name(Node n, Block use, Uniformity u) {
        if (n.op == Op.CONST) {
            return String.valueOf(n.aux) + suffix(n.kind);
        }
        if (n.op == Op.UNDEF) {
            return "0";
        }
        if (n.op == Op.PARAM && n.aux instanceof Param p) {
            return p.name();
        }
        if (n.op == Op.SREG) {
            return ((SReg) n.aux).text();
        }
        String s = n.name();
        if (u.crossesDivergentLoop(n, use)) {
            s = "shadow(" + s + ")";
        }
        return s;
    }

    private static String suffix(Kind k) {
        return switch (k) {
            case LONG -> "L";
            case FLOAT -> "f";
            default -> "";
        };
    }

    private String line(Node n, Block b, Uniformity u) {
        String lhs = n.kind == Kind.VOID ? "" : n.name() + ":" + type(n) + " = ";
        String rhs = switch (n.op) {
            case PHI -> "phi(" + phiArgs(n, b, u) + ")";
            case SREG -> ((SReg) n.aux).text();
            case ADD, SUB, MUL, DIV, REM, SHL, SHR, USHR, AND, OR, XOR -> name(n.in(0), b, u) + " " + symbol(n.op) + " " + name(n.in(1), b, u);
            case NEG -> "-" + name(n.in(0), b, u);
            case CONV -> "(" + switch ((Conv) n.aux) {
                // narrowing to byte, char or short keeps an int value: say which, as the source does
                case I2B -> "byte";
                case I2C -> "char";
                case I2S -> "short";
                default -> ((Conv) n.aux).to.text();
            } + ") " + name(n.in(0), b, u);
            case CMP -> "compare(" + name(n.in(0), b, u) + ", " + name(n.in(1), b, u) + ")";
            case TEST -> name(n.in(0), b, u) + " " + ((Cond) n.aux).pred().symbol + " " + name(n.in(1), b, u)
                    + (((Cond) n.aux).unordered() ? " (or NaN)" : "");
            case LOAD -> name(n.in(0), b, u) + "[" + name(n.in(1), b, u) + "]";
            case STORE -> name(n.in(0), b, u) + "[" + name(n.in(1), b, u) + "] = " + name(n.in(2), b, u);
            case LENGTH -> name(n.in(0), b, u) + ".length";
            case WARP -> ((Warp) n.aux).display() + "(" + names(n.in, b, u) + ")";
            case ATOMIC -> ((Atomic) n.aux).display() + "(" + names(n.in, b, u) + ")";
            case CALL -> ((Fn) n.aux).display() + "(" + names(n.in, b, u) + ")";
            case SHARED -> "shared" + switch (n.kind) {
                case INT_ARRAY -> "Ints";
                case LONG_ARRAY -> "Longs";
                case FLOAT_ARRAY -> "Floats";
                default -> "Doubles";
            } + "(" + name(n.in(0), b, u) + ")";
            case BARRIER -> "syncThreads()  ==== barrier " + ((Barrier) n.aux).id() + " ====";
            default -> n.op.toString();
        };
        String note = note(n, b, u) + narrowNote(n);
        String site = n.site.line() >= 0 ? "  (line " + n.site.line() + ")" : "";
        return lhs + rhs + (note.isEmpty() ? "" : "    // " + note) + site;
    }

    private String phiArgs(Node n, Block b, Uniformity u) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n.in.size(); i++) {
            if (i > 0) {
                s.append(", ");
            }
            s.append(b.preds.get(i)).append(": ").append(name(n.in(i), b.preds.get(i), u));
        }
        return s.toString();
    }

    private String type(Node n) {
        String t = switch (n.kind) {
            case INT -> "i32";
            case LONG -> "i64";
            case FLOAT -> "f32";
            case DOUBLE -> "f64";
            case BOOL -> "mask";
            default -> n.kind.text();
        };
        Shape inRegister = perRegister.get(n);
        if (inRegister != null) {
            return inRegister == Shape.UNIFORM ? t + " per register" : t + "(register's base + lane)";
        }
        return switch (n.shape) {
            case UNIFORM -> t;
            case AFFINE -> t + "(base + " + (n.stride == 1 ? "" : n.stride + "*") + "lane)";
            case VARYING -> n.kind == Kind.BOOL ? t : t + " vector";
        };
    }

    private static String symbol(Op op) {
        return switch (op) {
            case ADD -> "+";
            case SUB -> "-";
            case MUL -> "*";
            case DIV -> "/";
            case REM -> "%";
            case SHL -> "<<";
            case SHR -> ">>";
            case USHR -> ">>>";
            case AND -> "&";
            case OR -> "|";
            default -> "^";
        };
    }

    /** Whether index {@code idx} is kept per register as base + lane ({@link Storage.RegisterAffine}, stride 1). */
    private boolean contiguousPerRegister(Node idx, Block use, Uniformity u) {
        return perRegister.get(idx) == Shape.AFFINE && !u.crossesDivergentLoop(idx, use)
                && (idx.op == Op.SREG || registerAnalysis.resultStride(idx) == 1);
    }

    /** For a load or store of a byte, short, char or boolean array: how its elements become int values and back. */
    private static String narrowNote(Node n) {
        if ((n.op != Op.LOAD && n.op != Op.STORE) || !n.in(0).kind.isNarrowArray()) {
            return "";
        }
        boolean load = n.op == Op.LOAD;
        return "; " + switch (n.in(0).kind) {
            case BYTE_ARRAY -> load ? "bytes sign-extended to int" : "low 8 bits stored";
            case SHORT_ARRAY -> load ? "shorts sign-extended to int" : "low 16 bits stored";
            case CHAR_ARRAY -> load ? "chars zero-extended to int" : "low 16 bits stored";
            default -> load ? "booleans as 0 or 1" : "low bit stored";
        };
    }

    private String note(Node n, Block b, Uniformity u) {
        switch (n.op) {
            case LOAD -> {
                Shape is = u.shapeAt(n.in(1), b);
                if (n.isUniform()) {
                    return "uniform: one scalar load for the warp";
                }
                if (perRegister.containsKey(n)) {
                    return "uniform in each register: one scalar load per register";
                }
                if (contiguousPerRegister(n.in(1), b, u)) {
                    return "contiguous in each register: a vector load per register";
                }
                return is == Shape.AFFINE && n.in(1).stride == 1 ? "contiguous: vector load"
                        : "gather: lanes read scattered elements";
            }
            case STORE -> {
                Shape is = u.shapeAt(n.in(1), b);
                if (is == Shape.UNIFORM) {
                    return "every thread writes one element: the last active thread's value wins";
                }
                if (is == Shape.AFFINE && n.in(1).stride == 1) {
                    return "contiguous: masked vector store";
                }
                if (contiguousPerRegister(n.in(1), b, u)) {
                    return "contiguous in each register: a vector store per register, masked unless it is whole";
                }
                return is == Shape.AFFINE && CodeGen.stridedStoreApplies(n.in(0), n.in(1).stride, n.in(2).kind)
                        ? "strided (" + n.in(1).stride + " apart): one store per lane when the group is whole and inside the array, else scatter under the mask"
                        : "scatter under the mask";
            }
            case ATOMIC -> {
                return "per active thread in lane order: threads of a warp on one address are serialised";
            }
            case SHARED -> {
                return "the CTA's shared array #" + n.aux + ": fetched once per group, zeroed at the CTA's start";
            }
            case WARP -> {
                if (((Warp) n.aux).isVote()) {
                    return "warp vote over the active lanes (every live lane of the warp is here)";
                }
                if (((Warp) n.aux).name().equals(WarpScans.SCAN_ADD)) {
                    return "the loop of shflUp steps folded: an inclusive sum over the warp's lanes, in registers"
                            + " (lane by lane where the active lanes are not a prefix of the warp)";
                }
                return "warp shuffle across the warp's registers"
                        + (u.shapeAt(n.in(1), b) == Shape.UNIFORM ? " (uniform lane argument: register rearranges)"
                                : " (lane by lane)")
                        + "; an inactive source lane gives the reader's own value";
            }
            case CALL -> {
                Fn fn = (Fn) n.aux;
                if (n.isUniform()) {
                    return "scalar call, exact";
                }
                return switch (fn.lowering()) {
                    case UNARY, BINARY -> "vector " + fn.vectorOp() + (fn.ulps() == 0 ? ", exact" : ", within " + fn.ulps() + " ulp of the scalar");
                    case FMA -> "vector FMA, exact";
                    case HELPER -> "vector " + fn.helper().substring(fn.helper().lastIndexOf('/') + 1) + ", exact";
                    case PER_LANE -> "scalar call per lane, exact";
                };
            }
            case DIV, REM -> {
                if (!n.isVarying()) {
                    return "";
                }
                return n.kind == Kind.INT ? "exact via double; a zero divisor faults its thread"
                        : n.kind == Kind.LONG ? "per lane; a zero divisor faults its thread" : n.op == Op.REM ? "per lane" : "";
            }
            case PHI -> {
                return n.isVarying() && u.joins.contains(b) ? "threads from different paths meet: merged under masks" : "";
            }
            default -> {
                return "";
            }
        }
    }
}
