package dev.weft.benchmarks.kernels;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Work done per benchmark invocation, reported by JMH as rates next to the invocation rate: elements
 * (array elements, pixels, options, bodies), floating-point operations and bytes moved. The rates make
 * variants comparable when one of them (the reference executor) runs a smaller problem; the report tool
 * turns them into GFLOP/s and GB/s.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class Work {

    /** Elements processed. */
    public long elements;
    /** Floating-point operations done, by the convention each benchmark states. */
    public long flops;
    /** Bytes read and written in main memory, counting each array element once per access. */
    public long bytes;

    /** Zeroes the counters at every iteration so each reports its own rate. */
    @Setup(Level.Iteration)
    public void reset() {
        elements = 0;
        flops = 0;
        bytes = 0;
    }

    /** Adds one invocation's work. */
    public void add(long elements, long flops, long bytes) {
        this.elements += elements;
        this.flops += flops;
        this.bytes += bytes;
    }
}
