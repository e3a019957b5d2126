package dev.weft.simd.internal.analysis;

import dev.weft.simd.internal.ir.Block;
import dev.weft.simd.internal.ir.Node;
import dev.weft.simd.internal.ir.Node.Shape;
import java.util.HashSet;
import java.util.Set;
import jdk.incubator.vector.IntVector;

/**
 * A rough count of the vector registers a loop keeps live per 32-bit register of a group: its varying loop-carried
 * values, the varying values from outside it that it reads, and its masks. The code generator unrolls every
 * varying value over the group's registers, so a group of G registers needs G times this; more than the
 * machine has spills inside the loop.
 *
 * <p>Measured here (AVX2, 16 registers, JMH, one core): n-body (count 6) ran 2.95 ms per step with 4 registers
 * per group (24 live), 2.11 ms with 2 (12 live) and 2.60 ms with 1; mandelbrot (count 8) ran 29 ms per frame with
 * 4 and 20 ms with 1 or 2; black-scholes, without a loop, runs fastest with 4 (its long dependency chains gain from
 * interleaved registers). Hence: the largest group whose loops fit the register file.
 */
public final class Pressure {

    /**
     * The vector registers of the preferred species' machine: 32 with 512-bit vectors (AVX-512), else 16 (AVX2). The
     * group choice and {@code LoopFission}'s limits both count against it.
     */
    public static final int REGISTERS = IntVector.SPECIES_PREFERRED.vectorBitSize() >= 512 ? 32 : 16;

    private Pressure() {
    }

    /** The largest count over the loops of the graph; 0 without loops. */
    public static int perRegister(Cfg cfg, Uniformity u, MaskPlan plan) {
        int max = 0;
        for (Cfg.Loop l : cfg.loops) {
            max = Math.max(max, loop(cfg, u, plan, l));
        }
        return max;
    }

    private static int loop(Cfg cfg, Uniformity u, MaskPlan plan, Cfg.Loop l) {
        int units = 0;
        Set<Node> outside = new HashSet<>();
        for (Block b : l.body) {
            for (Node n : b.phis) {
                if (b == l.header && n.isVarying()) {
                    units += n.kind.isWide() ? 2 : 1;
                }
            }
            for (Node n : b.nodes) {
                for (Node op : n.in) {
                    if (op.block != null && !l.contains(op.block) && u.shapeAt(op, b) == Shape.VARYING) {
                        outside.add(op);
                    }
                }
            }
            if (plan.run.get(b) == MaskPlan.Run.MASK) {
                units += 2;
            }
        }
        for (Node op : outside) {
            units += op.kind.isWide() ? 2 : 1;
        }
        if (u.divergentLoops.contains(l)) {
            units += 1;
        }
        return units;
    }
}
