package dev.weft.simd.internal.gen;

import dev.weft.simd.internal.analysis.Cfg;
import dev.weft.simd.internal.analysis.Uniformity;
import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Kind;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import dev.weft.simd.internal.ir.Op;
import dev.weft.simd.internal.ir.SReg;
import java.util.HashMap;
import java.util.Map;

/**
 * The values a {@link CodeGen.Layout#REGISTER_ROWS} variant keeps as one scalar (or affine base) per register: those
 * its group's analysis calls varying and its per-register analysis uniform (or affine, for ints) that the
 * per-register code computes. The code generator allocates and emits them so ({@link Storage.PerRegister},
 * {@link Storage.RegisterAffine}); the listing shows them.
 *
 * <p>Implementation notes. Why: a 16 x 16 tile kernel on 16-lane registers ran in groups of 16 threads (one register:
 * a whole group uniform in threadIdx.y), one dependent add chain per group in its k-loop and the whole per-group cost
 * (restores, masks, loop set-up) for one register of work; with 8-lane registers the same group was two. A group of
 * 32 threads spans two rows, and the general code made the tile reads gathers; kept per register, threadIdx.y and
 * what is computed from it stay scalars, the tile reads broadcasts and vector loads.
 */
final class RegisterRows {

    private RegisterRows() {
    }

    /**
     * In blocks' order (definitions before uses but for phis): special registers threadIdx.x (affine) and .y, .z
     * (uniform), and each value of 32-bit arithmetic, conversions between int and float, and loads of int and float
     * arrays at an index uniform in the register, whose operands are each a uniform or affine value of the group or
     * itself such a value. Phis and everything else stay vectors, which read these values broadcast.
     *
     * @param u the group's analysis, its shapes applied to the nodes
     * @param perRegister the per-register analysis (row-aligned, for groups of one register)
     * @param lanesOfWarp whether laneId and warpId are affine and uniform in a group (a group within a warp)
     */
    static Map<Node, Shape> values(Cfg cfg, Uniformity u, Uniformity perRegister, boolean lanesOfWarp) {
        Map<Node, Shape> m = new HashMap<>();
        for (Block b : cfg.rpo) {
            for (Node x : b.nodes) {
                if (x.op == Op.SREG) {
                    switch ((SReg) x.aux) {
                        case TID_X -> m.put(x, Shape.AFFINE);
                        case TID_Y, TID_Z -> m.put(x, Shape.UNIFORM);
                        default -> {
                        }
                    }
                    continue;
                }
                if (x.shape != Shape.VARYING || (x.kind != Kind.INT && x.kind != Kind.FLOAT)) {
                    continue;
                }
                Shape s = perRegister.resultShape(x, b);
                if (s == Shape.VARYING || s == Shape.AFFINE && x.kind != Kind.INT) {
                    continue;
                }
                boolean op = switch (x.op) {
                    case ADD, SUB, MUL, NEG, SHL, AND -> true;
                    case OR, XOR, SHR, USHR -> s == Shape.UNIFORM;
                    case CONV -> s == Shape.UNIFORM && (x.in(0).kind == Kind.INT || x.in(0).kind == Kind.FLOAT);
                    case LOAD -> s == Shape.UNIFORM && (x.in(0).kind == Kind.INT_ARRAY || x.in(0).kind == Kind.FLOAT_ARRAY)
                            && perRegister.resultShape(x.in(1), b) == Shape.UNIFORM;
                    default -> false;
                };
                for (int i = 0; op && i < x.in.size(); i++) {
                    op = operand(m, u, x.in(i), b, lanesOfWarp);
                }
                if (op) {
                    m.put(x, s);
                }
            }
        }
        return m;
    }

    /** Whether the per-register code reads {@code in} from {@code b}: a group's scalar or base, or one per register. */
    private static boolean operand(Map<Node, Shape> m, Uniformity u, Node in, Block b, boolean lanesOfWarp) {
        if (m.containsKey(in)) {
            return in.op == Op.SREG || !u.crossesDivergentLoop(in, b);
        }
        if (in.op == Op.SREG && (in.aux == SReg.LANE_ID || in.aux == SReg.WARP_ID)) {
            return lanesOfWarp;
        }
        return u.shapeAt(in, b) != Shape.VARYING;
    }
}
