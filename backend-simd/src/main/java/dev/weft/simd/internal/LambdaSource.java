package dev.weft.simd.internal;

import dev.weft.Kernel;
import dev.weft.simd.internal.front.Decline;
import dev.weft.simd.internal.front.Parser;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.LocalVariable;
import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a kernel lambda's code is: its {@link SerializedLambda} (implementation class and method, captured
 * values), the implementation method's bytecode, and the class files of the methods it calls.
 *
 * <p>Implementation notes. The SerializedLambda comes from the lambda's private {@code writeReplace}, called
 * reflectively where the kernel's package is open to Weft (every class on the class path). Elsewhere (a lambda in
 * a named module) it comes from serializing the kernel into an {@link ObjectOutputStream} that replaces objects:
 * serialization calls {@code writeReplace} with its own privileges, and the first replaced object is the
 * SerializedLambda, at which point the stream is abandoned. That costs some 30 µs, and in a fresh JVM some 60
 * classes of a first compile, hence the direct call. Either is done once per kernel class; launches read captured
 * values through the lambda class's fields (see {@link Binder}).
 */
final class LambdaSource implements Parser.ClassSource {

    final SerializedLambda lambda;
    final Class<?> kernelClass;
    final ClassLoader loader;
    final String implClass;
    final String implMethod;
    final String implDescriptor;
    private final Map<String, ClassModel> classes = new ConcurrentHashMap<>();

    private LambdaSource(Kernel kernel, SerializedLambda lambda) {
        this.lambda = lambda;
        this.kernelClass = kernel.getClass();
        this.loader = kernelClass.getClassLoader();
        this.implClass = lambda.getImplClass();
        this.implMethod = lambda.getImplMethodName();
        this.implDescriptor = lambda.getImplMethodSignature();
    }

    /** The source of {@code kernel}, or a decline when it is not a lambda or method reference. */
    static LambdaSource of(Kernel kernel) {
        SerializedLambda l = serializedLambda(kernel);
        if (l == null) {
            throw new Decline("kernel " + kernel.getClass().getName()
                    + " is not a lambda or method reference: only lambdas are compiled (runs on the reference executor)");
        }
        int kind = l.getImplMethodKind();
        if (kind != MethodHandleInfo.REF_invokeStatic && kind != MethodHandleInfo.REF_invokeSpecial
                && kind != MethodHandleInfo.REF_invokeVirtual) {
            throw new Decline("kernel " + l.getImplClass().replace('/', '.') + "::" + l.getImplMethodName()
                    + " is a constructor or interface method reference: not compiled (runs on the reference executor)");
        }
        return new LambdaSource(kernel, l);
    }

    /** The SerializedLambda of a serializable lambda, or null. */
    static SerializedLambda serializedLambda(Kernel kernel) {
        Class<?> c = kernel.getClass();
        if (c.isHidden()) {
            // The lambda metafactory's classes are hidden and declare writeReplace: call it directly where this
            // module may (the kernel's package is open to it: every class on the class path), not through
            // serialization, whose machinery was some 60 classes of a first compile.
            try {
                Method writeReplace = c.getDeclaredMethod("writeReplace");
                if (writeReplace.trySetAccessible() && writeReplace.invoke(kernel) instanceof SerializedLambda s) {
                    return s;
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Not a serializable lambda's class, or not open here: serialization below says.
            }
        }
        return serialized(kernel);
    }

    /** The SerializedLambda of a serializable lambda through serialization, which calls its writeReplace; or null. */
    private static SerializedLambda serialized(Kernel kernel) {
        final class Grab extends ObjectOutputStream {
            SerializedLambda found;

            Grab() throws IOException {
                super(OutputStream.nullOutputStream());
                enableReplaceObject(true);
            }

            @Override
            protected Object replaceObject(Object obj) {
                if (obj instanceof SerializedLambda s) {
                    found = s;
                    throw new Found();
                }
                return obj;
            }
        }
        try {
            Grab g = new Grab();
            try {
                g.writeObject(kernel);
            } catch (Found expected) {
                return g.found;
            } catch (IOException | RuntimeException e) {
                return g.found;
            }
            return g.found;
        } catch (IOException e) {
            return null;
        }
    }

    /** Unwinds serialization once the SerializedLambda has been seen. */
    private static final class Found extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Found() {
            super(null, null, false, false);
        }
    }

    /** Names a captured value {@code p<i>} unless the implementation method's local variable table knows better. */
    List<String> capturedNames(MethodModel m) {
        Map<Integer, String> bySlot = new HashMap<>();
        if (m.code().isPresent()) {
            for (CodeElement e : m.code().get()) {
                if (e instanceof LocalVariable lv) {
                    bySlot.putIfAbsent(lv.slot(), lv.name().stringValue());
                }
            }
        }
        List<String> names = new ArrayList<>();
        int slot = 0;
        int i = 0;
        for (var p : m.methodTypeSymbol().parameterList()) {
            String name = bySlot.get(slot);
            names.add(name != null ? name : "p" + i);
            slot += (p.descriptorString().equals("J") || p.descriptorString().equals("D")) ? 2 : 1;
            i++;
        }
        return names;
    }

    /** The implementation class and method, parsed. */
    MethodModel implementation() {
        ClassModel cm = load(implClass);
        if (cm == null) {
            throw new Decline("class file of " + implClass.replace('/', '.') + " not found: its kernel cannot be read (runs on the reference executor)");
        }
        for (MethodModel m : cm.methods()) {
            if (m.methodName().equalsString(implMethod) && m.methodType().equalsString(implDescriptor)) {
                return m;
            }
        }
        throw new Decline("method " + implMethod + " not found in " + implClass.replace('/', '.'));
    }

    ClassModel implClassModel() {
        return load(implClass);
    }

    @Override
    public ClassModel load(String internalName) {
        ClassModel cached = classes.get(internalName);
        if (cached != null) {
            return cached;
        }
        byte[] bytes = bytes(internalName);
        if (bytes == null) {
            return null;
        }
        ClassModel cm = ClassFile.of().parse(bytes);
        classes.put(internalName, cm);
        return cm;
    }

    private byte[] bytes(String internalName) {
        String resource = internalName + ".class";
        try {
            InputStream in = loader != null ? loader.getResourceAsStream(resource) : ClassLoader.getSystemResourceAsStream(resource);
            if (in == null) {
                Class<?> c = Class.forName(internalName.replace('/', '.'), false, loader);
                String simple = internalName.substring(internalName.lastIndexOf('/') + 1);
                in = c.getResourceAsStream(simple + ".class");
            }
            if (in == null) {
                return null;
            }
            try (InputStream stream = in) {
                return stream.readAllBytes();
            }
        } catch (IOException | ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
