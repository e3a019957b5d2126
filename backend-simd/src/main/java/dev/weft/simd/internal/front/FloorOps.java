package dev.weft.simd.internal.front;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;

/**
 * {@code Math.floorDiv} and {@code Math.floorMod} as plain Java the parser inlines in their place, so that they compile
 * like the kernel's own code: one division (whose zero divisor faults as the kernel's own {@code /} does) and no
 * branch, so no divergence. Equal to the JDK's methods for every argument, {@code MIN_VALUE / -1} included
 * ({@code FloorOpsTest} compares them).
 *
 * <p>Implementation notes. With {@code q = x / y} and {@code r = x - q * y} (Java's truncating remainder), the floor
 * quotient is {@code q - 1} exactly when {@code r != 0} and {@code x} and {@code y} have different signs; the sign
 * bit of {@code (x ^ y) & (r | -r)} is that condition ({@code r | -r} is negative for every non-zero {@code r},
 * {@code MIN_VALUE} included), and shifting it down gives the -1 or 0 to add.
 */
final class FloorOps {

    /** The internal name calls are redirected to. */
    static final String OWNER = "dev/weft/simd/internal/front/FloorOps";

    private static volatile ClassModel model;

    private FloorOps() {
    }

    /** Whether {@code name} and {@code desc} name a method of {@code Math} (or {@code StrictMath}) this class stands in for. */
    static boolean covers(String owner, String name, String desc) {
        return (owner.equals("java/lang/Math") || owner.equals("java/lang/StrictMath"))
                && (name.equals("floorDiv") || name.equals("floorMod"))
                && (desc.equals("(II)I") || desc.equals("(JJ)J") || desc.equals("(JI)J") || desc.equals("(JI)I"));
    }

    /** This class's class file, read once from the backend's own module. */
    static ClassModel model() {
        ClassModel m = model;
        if (m == null) {
            try (InputStream in = FloorOps.class.getResourceAsStream("FloorOps.class")) {
                if (in == null) {
                    throw new IllegalStateException("the backend's own class file FloorOps.class is missing");
                }
                m = ClassFile.of().parse(in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            model = m;
        }
        return m;
    }

    static int floorDiv(int x, int y) {
        int q = x / y;
        int r = x - q * y;
        return q + (((x ^ y) & (r | -r)) >> 31);
    }

    static long floorDiv(long x, long y) {
        long q = x / y;
        long r = x - q * y;
        return q + (((x ^ y) & (r | -r)) >> 63);
    }

    // The mixed forms repeat the long ones: the parser inlines only this class's methods a kernel calls, not their calls.
    static long floorDiv(long x, int y) {
        long q = x / y;
        long r = x - q * y;
        return q + (((x ^ y) & (r | -r)) >> 63);
    }

    static int floorMod(int x, int y) {
        int q = x / y;
        int r = x - q * y;
        return r + (y & (((x ^ y) & (r | -r)) >> 31));
    }

    static long floorMod(long x, long y) {
        long q = x / y;
        long r = x - q * y;
        return r + (y & (((x ^ y) & (r | -r)) >> 63));
    }

    static int floorMod(long x, int y) {
        long q = x / y;
        long r = x - q * y;
        return (int) (r + (y & (((x ^ y) & (r | -r)) >> 63)));
    }
}
