package dev.weft.simd;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.Dim3;
import dev.weft.Kernel;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Random kernels, generated as Java source, compiled in memory and run on both executors: nested divergent and
 * uniform branches, loops with per-thread trip counts, break, continue, early returns, int, long, float and
 * double arithmetic, conversions, exact Math functions, gathers. Each thread writes only its own output
 * elements, so the kernels are race free and must agree bit for bit. Fixed seeds: a failure reproduces.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class RandomKernelTest {

    @AutoClose
    static final Differential d = new Differential();

    @Test
    void randomKernels_matchReference() throws Exception {
        int count = Integer.getInteger("weft.fuzz.count", 40);
        long seed0 = Long.getLong("weft.fuzz.seed", 1);
        StringBuilder src = new StringBuilder("package fuzz;\nimport dev.weft.*;\npublic class K {\n");
        List<String> names = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            String name = "k" + k;
            names.add(name);
            src.append(new Gen(new Random(seed0 * 1000 + k)).kernel(name));
        }
        src.append("}\n");
        ClassLoader loader = compile("fuzz.K", src.toString());
        Class<?> cls = loader.loadClass("fuzz.K");
        int n = 300;
        int tooLarge = 0;
        for (String name : names) {
            java.lang.reflect.Method m = cls.getMethod(name, int[].class, float[].class, double[].class, long[].class,
                    int[].class, float[].class, double[].class, long[].class);
            Function<Object[], Kernel> make = a -> {
                try {
                    return (Kernel) m.invoke(null, a);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            };
            Object[] data = {Differential.ints(n, 1, -1000, 1000), Differential.floats(n, 2, -4, 4), Differential.doubles(n, 3, -4, 4),
                Differential.longs(n, 4), new int[n], new float[n], new double[n], new long[n]};
            var report = d.report(make, data);
            if (!report.compiled() && String.join("", report.reasons()).contains("too large for the JIT")) {
                tooLarge++;
                continue;
            }
            try {
                // Any NaN for any NaN: the kernels make NaNs (v % v), whose sign Java leaves open.
                d.checkAnyNaN(Dim3.of(3), Dim3.of(100), make, data);
                d.checkAnyNaN(Dim3.of(2, 2), Dim3.of(8, 9), make, data);
            } catch (AssertionError e) {
                throw new AssertionError("kernel " + name + " differs:\n" + kernelSource(src.toString(), name) + "\n" + e.getMessage(), e);
            }
        }
        // The generator's largest kernels may exceed what C2 compiles; they run on the reference executor.
        System.out.println("random kernels: " + names.size() + ", too large to compile: " + tooLarge);
        assertTrue(tooLarge * 5 <= names.size(), "too many kernels too large: " + tooLarge);
    }

    private static String kernelSource(String all, String name) {
        int i = all.indexOf("public static Kernel " + name + "(");
        int j = all.indexOf("public static Kernel", i + 10);
        return all.substring(i, j < 0 ? all.length() : j);
    }

    /** Generates one kernel's source. */
    static final class Gen {
        private final Random r;
        private final StringBuilder b = new StringBuilder();
        private final List<String> ints = new ArrayList<>();
        private final List<String> floats = new ArrayList<>();
        private final List<String> doubles = new ArrayList<>();
        private final List<String> longs = new ArrayList<>();
        /** Ints that may be assigned: not i, the captured u, or a loop counter. */
        private final List<String> mutableInts = new ArrayList<>();
        private int vars;
        private int depth;
        private int loops;

        Gen(Random r) {
            this.r = r;
        }

        String kernel(String name) {
            b.append("  public static Kernel ").append(name)
                    .append("(int[] ia, float[] fa, double[] da, long[] la, int[] io, float[] fo, double[] dO, long[] lo) {\n");
            b.append("    int n = ia.length;\n    int u = ").append(r.nextInt(20) - 5).append(";\n");
            b.append("    return t -> {\n      int i = t.globalIdY() * 300 + t.globalIdX();\n");
            b.append("      if (i >= n) return;\n");
            ints.add("i");
            ints.add("u");
            declare();
            int stmts = 3 + r.nextInt(5);
            for (int s = 0; s < stmts; s++) {
                statement("      ");
            }
            b.append("      io[i] = ").append(pick(ints)).append(";\n");
            b.append("      fo[i] = ").append(pick(floats)).append(";\n");
            b.append("      dO[i] = ").append(pick(doubles)).append(";\n");
            b.append("      lo[i] = ").append(pick(longs)).append(";\n");
            b.append("    };\n  }\n");
            return b.toString();
        }

        private void declare() {
            String iv = fresh("int", "ia[" + index() + "]");
            ints.add(iv);
            mutableInts.add(iv);
            floats.add(fresh("float", "fa[" + index() + "]"));
            doubles.add(fresh("double", "da[" + index() + "]"));
            longs.add(fresh("long", "la[" + index() + "]"));
        }

        private String fresh(String type, String init) {
            String v = "v" + vars++;
            b.append("      ").append(type).append(' ').append(v).append(" = ").append(init).append(";\n");
            return v;
        }

        private String index() {
            return switch (r.nextInt(4)) {
                case 0 -> "i";
                case 1 -> "(n - 1 - i)";
                case 2 -> "Math.abs(" + pick(ints) + " % n)";
                default -> "(i * 7 + 3) % n";
            };
        }

        private String pick(List<String> l) {
            return l.get(r.nextInt(l.size()));
        }

        private void statement(String ind) {
            int c = r.nextInt(depth > 2 ? 4 : 9);
            switch (c) {
                case 0, 1, 2, 3 -> assign(ind);
                case 4, 5 -> {
                    depth++;
                    b.append(ind).append("if (").append(cond()).append(") {\n");
                    statement(ind + "  ");
                    statement(ind + "  ");
                    if (r.nextBoolean()) {
                        b.append(ind).append("} else {\n");
                        statement(ind + "  ");
                    }
                    b.append(ind).append("}\n");
                    depth--;
                }
                case 6 -> {
                    if (loops > 3) {
                        assign(ind);
                        return;
                    }
                    depth++;
                    loops++;
                    String j = "j" + vars++;
                    String bound = r.nextBoolean() ? String.valueOf(2 + r.nextInt(9)) : "(Math.abs(" + pick(ints) + ") % 11)";
                    b.append(ind).append("for (int ").append(j).append(" = 0; ").append(j).append(" < ").append(bound).append("; ")
                            .append(j).append("++) {\n");
                    ints.add(j);
                    statement(ind + "  ");
                    if (r.nextInt(3) == 0) {
                        b.append(ind).append("  if (").append(cond()).append(") ").append(r.nextBoolean() ? "break" : "continue").append(";\n");
                    }
                    statement(ind + "  ");
                    ints.remove(j);
                    b.append(ind).append("}\n");
                    depth--;
                }
                case 7 -> {
                    b.append(ind).append("if (").append(cond()).append(") { io[i] = ").append(pick(ints)).append("; return; }\n");
                }
                default -> {
                    depth++;
                    b.append(ind).append("while (").append(intExpr(1)).append(" > ").append(r.nextInt(50) - 25)
                            .append(" && ").append(pick(ints)).append(" != ").append(r.nextInt(7)).append(") {\n");
                    // Make progress on a fresh counter so the loop ends.
                    String w = "w" + vars++;
                    b.append(ind).append("  int ").append(w).append(" = 0;\n");
                    b.append(ind).append("  ").append(pick(floats)).append(" += 0.5f;\n");
                    b.append(ind).append("  break;\n");
                    b.append(ind).append("}\n");
                    depth--;
                }
            }
        }

        private void assign(String ind) {
            switch (r.nextInt(4)) {
                case 0 -> b.append(ind).append(pick(mutableInts)).append(" = ").append(intExpr(2)).append(";\n");
                case 1 -> b.append(ind).append(pick(floats)).append(" = ").append(floatExpr(2)).append(";\n");
                case 2 -> b.append(ind).append(pick(doubles)).append(" = ").append(doubleExpr(2)).append(";\n");
                default -> b.append(ind).append(pick(longs)).append(" = ").append(longExpr(2)).append(";\n");
            }
        }

        private String cond() {
            return switch (r.nextInt(6)) {
                case 0 -> intExpr(1) + " < " + intExpr(1);
                case 1 -> floatExpr(1) + " >= " + floatExpr(1);
                case 2 -> "(" + intExpr(1) + " & 3) == " + r.nextInt(4);
                case 3 -> doubleExpr(1) + " != " + doubleExpr(1);
                case 4 -> longExpr(1) + " > " + longExpr(1);
                default -> "(" + cond0() + " && " + cond0() + ") || " + cond0();
            };
        }

        private String cond0() {
            return intExpr(0) + (r.nextBoolean() ? " <= " : " > ") + intExpr(0);
        }

        private String intExpr(int d) {
            if (d == 0 || r.nextInt(3) == 0) {
                return r.nextInt(4) == 0 ? String.valueOf(r.nextInt(100) - 50) : pick(ints);
            }
            String a = intExpr(d - 1);
            String c = intExpr(d - 1);
            return switch (r.nextInt(11)) {
                case 0 -> "(" + a + " + " + c + ")";
                case 1 -> "(" + a + " - " + c + ")";
                case 2 -> "(" + a + " * " + c + ")";
                case 3 -> "(" + a + " / (" + c + " | 1))";
                case 4 -> "(" + a + " % ((" + c + " & 15) + 1))";
                case 5 -> "(" + a + " >> (" + c + " & 7))";
                case 6 -> "(" + a + " ^ " + c + ")";
                case 7 -> "Math.max(" + a + ", " + c + ")";
                case 8 -> "(int) " + floatExpr(d - 1);
                case 9 -> "(" + a + " > " + c + " ? " + a + " : " + c + ")";
                default -> "ia[" + index() + "]";
            };
        }

        private String longExpr(int d) {
            if (d == 0 || r.nextInt(3) == 0) {
                return pick(longs);
            }
            String a = longExpr(d - 1);
            String c = longExpr(d - 1);
            return switch (r.nextInt(6)) {
                case 0 -> "(" + a + " + " + c + ")";
                case 1 -> "(" + a + " * " + intExpr(d - 1) + ")";
                case 2 -> "(" + a + " >>> " + intExpr(d - 1) + ")";
                case 3 -> "(long) " + doubleExpr(d - 1);
                case 4 -> "(" + a + " ^ (long) " + intExpr(d - 1) + ")";
                default -> "la[" + index() + "]";
            };
        }

        private String floatExpr(int d) {
            if (d == 0 || r.nextInt(3) == 0) {
                return r.nextInt(4) == 0 ? (r.nextInt(100) / 8f) + "f" : pick(floats);
            }
            String a = floatExpr(d - 1);
            String c = floatExpr(d - 1);
            return switch (r.nextInt(10)) {
                case 0 -> "(" + a + " + " + c + ")";
                case 1 -> "(" + a + " - " + c + ")";
                case 2 -> "(" + a + " * " + c + ")";
                case 3 -> "(" + a + " / " + c + ")";
                case 4 -> "Math.abs(" + a + ")";
                case 5 -> "Math.min(" + a + ", " + c + ")";
                case 6 -> "(float) Math.sqrt(Math.abs(" + a + "))";
                case 7 -> "(float) " + intExpr(d - 1);
                case 8 -> "Math.fma(" + a + ", " + c + ", " + a + ")";
                default -> "fa[" + index() + "]";
            };
        }

        private String doubleExpr(int d) {
            if (d == 0 || r.nextInt(3) == 0) {
                return pick(doubles);
            }
            String a = doubleExpr(d - 1);
            String c = doubleExpr(d - 1);
            return switch (r.nextInt(9)) {
                case 0 -> "(" + a + " + " + c + ")";
                case 1 -> "(" + a + " * " + c + ")";
                case 2 -> "(" + a + " / " + c + ")";
                case 3 -> "Math.floor(" + a + ")";
                case 4 -> "(double) " + floatExpr(d - 1);
                case 5 -> "(" + a + " % " + c + ")";
                case 6 -> "Math.max(" + a + ", " + c + ")";
                case 7 -> "(double) " + longExpr(d - 1);
                default -> "da[" + index() + "]";
            };
        }
    }

    // ---- in-memory compilation ------------------------------------------------------------------

    static ClassLoader compile(String className, String source) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Map<String, byte[]> classes = new HashMap<>();
        StandardJavaFileManager std = javac.getStandardFileManager(null, null, null);
        JavaFileManager fm = new ForwardingJavaFileManager<>(std) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String name, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + name.replace('.', '/') + kind.extension), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return new ByteArrayOutputStream() {
                            @Override
                            public void close() {
                                classes.put(name, toByteArray());
                            }
                        };
                    }
                };
            }
        };
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + className.replace('.', '/') + ".java"),
                JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        String cp = System.getProperty("java.class.path");
        java.io.StringWriter errors = new java.io.StringWriter();
        boolean ok = javac.getTask(new java.io.PrintWriter(errors), fm, null, List.of("-g", "-classpath", cp, "--release", "25"), null, List.of(file)).call();
        assertTrue(ok, () -> "generated source does not compile: " + errors + "\n" + source);
        return new ClassLoader(RandomKernelTest.class.getClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                byte[] bytes = classes.get(name);
                if (bytes == null) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, bytes, 0, bytes.length);
            }

            @Override
            public InputStream getResourceAsStream(String name) {
                if (name.endsWith(".class")) {
                    byte[] bytes = classes.get(name.substring(0, name.length() - 6).replace('/', '.'));
                    if (bytes != null) {
                        return new java.io.ByteArrayInputStream(bytes);
                    }
                }
                return super.getResourceAsStream(name);
            }
        };
    }
}
