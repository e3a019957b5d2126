package dev.weft.simd.internal.ir;

/**
 * Where a construct comes from: class source file and line, for diagnostics ("Foo.java:12").
 *
 * @param file the source file name, or the class name when unknown
 * @param line the line, or -1
 */
public record Site(String file, int line) {

    public static final Site UNKNOWN = new Site("?", -1);

    @Override
    public String toString() {
        return line < 0 ? file : file + ":" + line;
    }
}
