package dev.weft.simd.internal.ir;

/**
 * A comparison of two numbers: the predicate, and its value when an operand is NaN (the JVM's fcmpl/fcmpg
 * distinction, folded into the condition a branch tests).
 *
 * @param pred the predicate
 * @param unordered the condition's value when either operand is NaN (floating point only)
 */
public record Cond(Pred pred, boolean unordered) {

    /** The six predicates of the JVM's conditional branches. */
    public enum Pred {
        EQ("=="), NE("!="), LT("<"), GE(">="), GT(">"), LE("<=");

        public final String symbol;

        Pred(String symbol) {
            this.symbol = symbol;
        }

        /** The predicate true exactly when this one is false (for ordered operands). */
        public Pred negate() {
            return switch (this) {
                case EQ -> NE;
                case NE -> EQ;
                case LT -> GE;
                case GE -> LT;
                case GT -> LE;
                case LE -> GT;
            };
        }

        /** The predicate with operands swapped: {@code a < b} is {@code b > a}. */
        public Pred swap() {
            return switch (this) {
                case EQ, NE -> this;
                case LT -> GT;
                case GT -> LT;
                case LE -> GE;
                case GE -> LE;
            };
        }
    }

    /** The negation, NaN behaviour included. */
    public Cond negate() {
        return new Cond(pred.negate(), !unordered);
    }

    @Override
    public String toString() {
        return pred.symbol + (unordered ? "(nan:true)" : "");
    }
}
