package dev.weft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class Dim3Test {

    @Test
    void of_missingComponents_areOne() {
        assertEquals(new Dim3(7, 1, 1), Dim3.of(7));
        assertEquals(new Dim3(7, 3, 1), Dim3.of(7, 3));
        assertEquals(new Dim3(7, 3, 2), Dim3.of(7, 3, 2));
    }

    @Test
    void new_negativeComponent_rejectedNamingAllComponents() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> Dim3.of(-1));
        assertEquals("Dim3 components must be >= 0: (-1, 1, 1)", x.getMessage());
        IllegalArgumentException y = assertThrows(IllegalArgumentException.class, () -> Dim3.of(2, -3));
        assertEquals("Dim3 components must be >= 0: (2, -3, 1)", y.getMessage());
        IllegalArgumentException z = assertThrows(IllegalArgumentException.class, () -> Dim3.of(2, 3, Integer.MIN_VALUE));
        assertEquals("Dim3 components must be >= 0: (2, 3, -2147483648)", z.getMessage());
    }

    @Test
    void new_zeroComponent_allowedAsCoordinate() {
        assertEquals(0, new Dim3(0, 0, 0).volume());
    }

    @Test
    void volume_largestGrid_doesNotOverflow() {
        assertEquals((long) Integer.MAX_VALUE * 65535 * 65535, Dim3.of(Integer.MAX_VALUE, 65535, 65535).volume());
        assertEquals(1024, Dim3.of(16, 16, 4).volume());
    }

    @Test
    void serialization_roundTrips() throws Exception {
        Dim3 d = Dim3.of(4, 5, 6);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(d);
        }
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            assertEquals(d, in.readObject());
        }
    }

    @Test
    void toString_printsCoordinates() {
        assertEquals("(4, 5, 6)", Dim3.of(4, 5, 6).toString());
    }
}
