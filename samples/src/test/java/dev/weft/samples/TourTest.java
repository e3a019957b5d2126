package dev.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs every lesson: each checks its own result and throws if it is wrong. */
class TourTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void tour_everyLesson_checksItsResult() {
        Tour.main(new String[0]);
    }

    @Test
    void tour_lessonsAreNumberedInOrder() {
        assertEquals(15, Tour.LESSONS.size());
    }
}
