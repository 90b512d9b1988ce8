package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The SWIG layer's typemaps, and that the public enums cover the header's. */
class LowLevelTest {
    /** The public enum of a header enum: fe_norm_phase is NormPhase. */
    private static Class<?> publicEnumOf(String headerName) throws ClassNotFoundException {
        StringBuilder name = new StringBuilder("dev.cudnnfe.");
        for (String word : headerName.substring("fe_".length()).split("_"))
            name.append(Character.toUpperCase(word.charAt(0))).append(word.substring(1));
        return Class.forName(name.toString());
    }

    /** Every enum of the header has a public enum, and each of its values one constant of the same code. */
    @Test
    void publicEnumsMatchTheHeader() throws Exception {
        List<String> generated = generatedEnumClasses();
        assertTrue(generated.contains("fe_status") && generated.contains("fe_norm_phase"), generated.toString());
        for (String name : generated) {
            Class<?> publicEnum = publicEnumOf(name);
            for (Field field : Class.forName("dev.cudnnfe." + name).getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) || field.getType() != int.class) continue;
                Object match = null;
                for (Object constant : publicEnum.getEnumConstants()) {
                    String constantName = ((Enum<?>) constant).name();
                    if (field.getName().endsWith("_" + constantName) && (match == null
                            || constantName.length() > ((Enum<?>) match).name().length()))
                        match = constant;
                }
                assertTrue(match != null, name + "." + field.getName() + " has no constant in " + publicEnum.getSimpleName());
                // Flag sets (the engines' notes) carry their bit, the others their code.
                Field value = valueField(publicEnum);
                assertEquals(field.getInt(null), value.getLong(match), name + "." + field.getName());
            }
            // Beyond the header's values only UNKNOWN, a status from a newer library.
            long own = Arrays.stream(publicEnum.getEnumConstants())
                               .filter(c -> !((Enum<?>) c).name().equals("UNKNOWN")).count();
            assertEquals(countIntConstants(Class.forName("dev.cudnnfe." + name)), own,
                    publicEnum.getSimpleName() + " has constants the header lacks");
        }
    }

    private static Field valueField(Class<?> publicEnum) throws NoSuchFieldException {
        try {
            return publicEnum.getField("code");
        } catch (NoSuchFieldException e) {
            return publicEnum.getField("bit");
        }
    }

    private static int countIntConstants(Class<?> swigEnum) {
        int n = 0;
        for (Field field : swigEnum.getDeclaredFields())
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == int.class) n++;
        return n;
    }

    /** SWIG's enum classes in the jar: the generated fe_* classes that are not option structs. */
    private static List<String> generatedEnumClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        List<String> names = new ArrayList<>();
        String jar = Paths.get(NativeApi.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        try (JarFile file = new JarFile(jar)) {
            for (Enumeration<JarEntry> e = file.entries(); e.hasMoreElements();) {
                String entry = e.nextElement().getName();
                if (!entry.startsWith("dev/cudnnfe/fe_") || !entry.endsWith(".class")) continue;
                String name = entry.substring("dev/cudnnfe/".length(), entry.length() - ".class".length());
                if (!AutoCloseable.class.isAssignableFrom(Class.forName("dev.cudnnfe." + name))) names.add(name);
            }
        }
        return names;
    }

    @Test
    void aNullHandleIsTheLibrarysNullPointerError() {
        assertEquals(Status.NULL_POINTER.code, NativeApi.fe_graph_validate(0));
        assertTrue(NativeApi.fe_last_error_message().startsWith("fe_graph_validate"));
    }

    @Test
    void numberArraysAreWrittenBackAndSizesChecked() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            long tensor = graph.tensor("x", 2, 3, 4).pointer();
            long[] dims = new long[3];
            assertEquals(0, NativeApi.fe_tensor_get_dims(tensor, dims, 3));
            assertArrayEquals(new long[] {2, 3, 4}, dims);
            assertEquals(Status.BUFFER_TOO_SMALL.code, NativeApi.fe_tensor_get_dims(tensor, new long[1], 1));
        }
    }

    @Test
    void outputArraysNeedAnElementAndNullableOutputsMayBeNull() {
        assertThrows(IndexOutOfBoundsException.class, () -> NativeApi.fe_graph_create(null, new long[0]));
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            long q = graph.tensor("q", 1, 1, 64, 64).pointer();
            long k = graph.tensor("k", 1, 1, 64, 64).pointer();
            long v = graph.tensor("v", 1, 1, 64, 64).pointer();
            long[] o = new long[1];
            assertEquals(0, NativeApi.fe_graph_sdpa(graph.pointer(), q, k, v, null, o, null));
            assertNotEquals(0, o[0]);
        }
    }

    @Test
    void optionStructsStartFromTheirInitMacros() {
        try (fe_conv_options conv = new fe_conv_options(); fe_pointwise_options pointwise = new fe_pointwise_options()) {
            assertTrue(conv.getStruct_size() > 0);
            assertArrayEquals(new long[] {1, 1, 1}, conv.getStride());
            assertArrayEquals(new long[] {0, 0, 0}, conv.getPre_padding());
            assertEquals(ConvMode.CROSS_CORRELATION.code, conv.getMode());
            assertEquals(1e300, pointwise.getRelu_upper_clip());
            conv.setStride(new long[] {2, 3, 4});
            assertArrayEquals(new long[] {2, 3, 4}, conv.getStride());
            assertThrows(IllegalArgumentException.class, () -> conv.setStride(new long[] {2}));
        }
    }

    @Test
    void stringMembersKeepTheirOwnCopy() {
        try (fe_graph_options options = new fe_graph_options()) {
            options.setName("first");
            options.setName(new StringBuilder("sec").append("ond").toString());
            assertEquals("second", options.getName());
            options.setName(null);
            assertEquals(null, options.getName());
        }
    }
}
