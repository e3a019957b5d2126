package dev.weft.simd.internal.gen;

import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.classfile.instruction.IncrementInstruction;
import java.lang.classfile.instruction.LoadInstruction;
import java.lang.classfile.instruction.StoreInstruction;
import java.lang.constant.ClassDesc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Moves a method's most used locals into slots 0 to 3, where a load or store takes one byte instead of two, and the
 * parameters that held those slots to new ones, copied there first thing. A kernel's parameters come first, so the
 * one-byte slots held parameters read a few times each, while a group's entry mask and the fault lane are read some
 * 200 times each in a kernel near C2's 8000-byte limit ({@link CodeGen#HUGE_METHOD_LIMIT}): about 7% of its code.
 *
 * <p>Meaning: unchanged. Every instruction naming a slot names its new slot instead (a renaming: each path sees the
 * types it saw), and a moved parameter is read only after its copy. C2 builds SSA from the code, so slot numbers do
 * not change what it compiles; applied, as the trim, only to methods over the limit.
 */
final class HotLocals {

    /** Slots with one-byte loads and stores ({@code iload_0} to {@code aload_3}). */
    private static final int SHORT_SLOTS = 4;
    /** Uses below which a local is not worth a parameter's copy. */
    private static final int MIN_USES = 8;

    private HotLocals() {
    }

    /** The class with the most used locals of each method over the limit in slots 0 to 3; {@code cf} the context that built it. */
    static byte[] apply(ClassFile cf, byte[] bytes) {
        return apply(cf, bytes, CodeGen.HUGE_METHOD_LIMIT);
    }

    /** As {@link #apply(ClassFile, byte[])}, for the methods of more than {@code over} bytes of code. */
    static byte[] apply(ClassFile cf, byte[] bytes, int over) {
        // only methods over the limit: one under it has nothing to gain, and a method already moved is not again
        return BytecodeTrim.rewritten(cf, bytes, (mm, code) -> ((CodeAttribute) code).codeLength() > over ? moved(mm, code) : null);
    }

    /** The code with its slots renumbered, or null where no local is worth moving. */
    private static List<CodeElement> moved(MethodModel mm, CodeModel code) {
        int maxLocals = ((CodeAttribute) code).maxLocals();
        int[] uses = new int[maxLocals + 2];
        int[] size = new int[maxLocals + 2];
        for (CodeElement e : code.elementList()) {
            if (e instanceof LoadInstruction l) {
                count(uses, size, l.slot(), l.typeKind());
            } else if (e instanceof StoreInstruction s) {
                count(uses, size, s.slot(), s.typeKind());
            } else if (e instanceof IncrementInstruction inc) {
                count(uses, size, inc.slot(), TypeKind.INT);
            }
        }
        // The kind of the parameter starting at each slot ("this" first for an instance method).
        TypeKind[] paramAt = new TypeKind[maxLocals + 2];
        int slot = 0;
        if ((mm.flags().flagsMask() & ClassFile.ACC_STATIC) == 0) {
            paramAt[slot++] = TypeKind.REFERENCE;
        }
        for (ClassDesc p : mm.methodTypeSymbol().parameterList()) {
            paramAt[slot] = TypeKind.from(p);
            slot += paramAt[slot].slotSize();
        }
        int paramSlots = slot;
        // The hottest one-slot locals that are not parameters.
        Integer[] order = new Integer[maxLocals];
        for (int i = 0; i < maxLocals; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Integer.compare(uses[b], uses[a]));
        int[] map = new int[maxLocals + 2];
        Arrays.fill(map, -1);
        int hot = 0;
        for (int s : order) {
            if (hot == SHORT_SLOTS || uses[s] < MIN_USES) {
                break;
            }
            // worth it only where the slot's present holder is used less (its uses grow by a byte, a parameter's
            // copy takes some 3): applied again, hot locals stay where they are
            if (s >= Math.max(paramSlots, SHORT_SLOTS) && size[s] == 1 && uses[s] > uses[hot] + 3) {
                map[s] = hot++;
            }
        }
        if (hot == 0) {
            return null;
        }
        // Whatever held slots 0 to hot - 1 moves past the method's locals: a parameter (copied there first thing,
        // a wide one whole) and any local the code names there (which may reuse a parameter's slot).
        List<CodeElement> out = new ArrayList<>();
        int next = maxLocals;
        for (int s = 0; s < hot; s++) {
            TypeKind param = paramAt[s];
            if (param != null || uses[s] > 0) {
                map[s] = next;
                next += param != null ? Math.max(param.slotSize(), size[s]) : size[s];
                if (param != null) {
                    out.add(LoadInstruction.of(param, s));
                    out.add(StoreInstruction.of(param, map[s]));
                }
            }
        }
        for (CodeElement e : code.elementList()) {
            if (e instanceof LoadInstruction l && remapped(map, l.slot()) != l.slot()) {
                out.add(LoadInstruction.of(l.typeKind(), remapped(map, l.slot())));
            } else if (e instanceof StoreInstruction s && remapped(map, s.slot()) != s.slot()) {
                out.add(StoreInstruction.of(s.typeKind(), remapped(map, s.slot())));
            } else if (e instanceof IncrementInstruction inc && remapped(map, inc.slot()) != inc.slot()) {
                out.add(IncrementInstruction.of(remapped(map, inc.slot()), inc.constant()));
            } else {
                out.add(e);
            }
        }
        return out;
    }

    private static int remapped(int[] map, int slot) {
        return slot < map.length && map[slot] >= 0 ? map[slot] : slot;
    }

    private static void count(int[] uses, int[] size, int slot, TypeKind k) {
        if (slot < uses.length) {
            uses[slot]++;
            size[slot] = Math.max(size[slot], k.slotSize());
        }
    }
}
