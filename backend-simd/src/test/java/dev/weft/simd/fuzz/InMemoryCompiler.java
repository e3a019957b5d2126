package dev.weft.simd.fuzz;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles Java source held in strings with the JDK's own compiler ({@code javax.tools}) against the test
 * class path, and loads the classes with a fresh class loader that also serves their bytes as resources:
 * the SIMD backend reads a kernel's bytecode with {@code Class.getResourceAsStream}, as it would from a jar.
 */
public final class InMemoryCompiler {

    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

    private InMemoryCompiler() {
    }

    /** A compilation unit: the binary name of its top-level class and its text. */
    public record Source(String className, String text) {
    }

    /**
     * Compiles {@code sources} together.
     *
     * @return the class files produced, by binary name
     * @throws IllegalStateException with javac's diagnostics if any source does not compile
     */
    public static Map<String, byte[]> compile(List<Source> sources) {
        if (JAVAC == null) {
            throw new IllegalStateException("no system Java compiler: the tests need a JDK, not a JRE");
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Map<String, byte[]> classes = new ConcurrentHashMap<>();
        List<JavaFileObject> units = new ArrayList<>();
        for (Source s : sources) {
            units.add(new SimpleJavaFileObject(URI.create("string:///" + s.className().replace('.', '/') + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return s.text();
                }
            });
        }
        StandardJavaFileManager standard = JAVAC.getStandardFileManager(diagnostics, Locale.ROOT, null);
        JavaFileManager files = new ForwardingJavaFileManager<>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return new ByteArrayOutputStream() {
                            @Override
                            public void close() {
                                classes.put(className, toByteArray());
                            }
                        };
                    }
                };
            }
        };
        List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-g", "-proc:none",
                "-Xlint:none", "--release", String.valueOf(Runtime.version().feature()));
        boolean ok = JAVAC.getTask(null, files, diagnostics, options, null, units).call();
        if (!ok) {
            StringBuilder sb = new StringBuilder("generated source does not compile:\n");
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    sb.append(d.getSource() == null ? "" : d.getSource().getName()).append(':').append(d.getLineNumber())
                            .append(": ").append(d.getMessage(Locale.ROOT)).append('\n');
                }
            }
            throw new IllegalStateException(sb.toString());
        }
        return classes;
    }

    /**
     * A new class loader over {@code classes}, child of the test class loader. It defines the classes
     * itself (child first), and {@link ClassLoader#getResource} and {@link ClassLoader#getResourceAsStream}
     * of {@code a/b/C.class} return their bytes.
     */
    public static ClassLoader loader(Map<String, byte[]> classes) {
        return new MemoryClassLoader(classes, InMemoryCompiler.class.getClassLoader());
    }

    private static final class MemoryClassLoader extends ClassLoader {

        private final Map<String, byte[]> classes;

        MemoryClassLoader(Map<String, byte[]> classes, ClassLoader parent) {
            super("weft-fuzz", parent);
            this.classes = Map.copyOf(classes);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && classes.containsKey(name)) {
                    c = findClass(name);
                }
                if (c == null) {
                    return super.loadClass(name, resolve);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }

        private byte[] bytesOfResource(String resource) {
            if (!resource.endsWith(".class")) {
                return null;
            }
            return classes.get(resource.substring(0, resource.length() - ".class".length()).replace('/', '.'));
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null ? own : super.getResource(name);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            byte[] b = bytesOfResource(name);
            return b != null ? new ByteArrayInputStream(b) : super.getResourceAsStream(name);
        }

        @Override
        protected URL findResource(String name) {
            byte[] b = bytesOfResource(name);
            if (b == null) {
                return null;
            }
            try {
                return URL.of(URI.create("weft-mem:/" + name), new URLStreamHandler() {
                    @Override
                    protected URLConnection openConnection(URL u) {
                        return new URLConnection(u) {
                            @Override
                            public void connect() {
                            }

                            @Override
                            public InputStream getInputStream() {
                                return new ByteArrayInputStream(b);
                            }
                        };
                    }
                });
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
