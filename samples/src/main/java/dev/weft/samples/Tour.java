package dev.weft.samples;

import java.util.List;
import java.util.function.Consumer;

/**
 * The sample tour: runs the numbered lessons in order, or the ones named on the command line.
 *
 * <p>Run it: {@code mvn -q -pl samples -am verify exec:exec} (all lessons), or with
 * {@code -Dtour.args=4} for one, {@code -Dtour.args=1,4,5} for several. Each lesson checks its own result and throws if it is wrong.
 */
public final class Tour {

    private Tour() {
    }

    /** The lessons, numbered as their class names are. */
    static final List<Consumer<String[]>> LESSONS = List.of(
            Sample01_FirstGrid::main,
            Sample02_ThreadIds2D::main,
            Sample03_Divergence::main,
            Sample04_SharedMemoryAndBarriers::main,
            Sample05_TreeReduction::main,
            Sample06_TiledMatmul::main,
            Sample07_AtomicsHistogram::main,
            Sample08_WarpVoteAndShuffle::main,
            Sample09_StreamsAndEvents::main,
            Sample10_BadInput::main,
            Sample11_SfuAccuracy::main,
            Sample12_SimtVersusSimd::main,
            Sample13_AccessPatterns::main,
            Sample14_RegisterBlocking::main,
            Sample15_ReadOrder::main);

    public static void main(String[] args) {
        if (args.length == 0 || args[0].equals("all")) {
            for (Consumer<String[]> lesson : LESSONS) {
                lesson.accept(new String[0]);
            }
        } else {
            for (String arg : args) {
                for (String number : arg.trim().split("[ ,]+")) {
                    LESSONS.get(Integer.parseInt(number) - 1).accept(new String[0]);
                }
            }
        }
        System.out.println();
        System.out.println("Tour complete: every lesson checked its result.");
    }
}
