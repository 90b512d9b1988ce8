package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The SWIG layer's typemaps, and that the public enums cover the header's. */
class LowLevelTest {
    private static final Map<String, Object[]> PUBLIC_ENUMS = new HashMap<>();

    static {
        PUBLIC_ENUMS.put("fe_status", new Object[] {Status.class, "FE_STATUS_"});
        PUBLIC_ENUMS.put("fe_data_type", new Object[] {DataType.class, "FE_DATA_"});
        PUBLIC_ENUMS.put("fe_heur_mode", new Object[] {HeurMode.class, "FE_HEUR_MODE_"});
        PUBLIC_ENUMS.put("fe_build_policy", new Object[] {BuildPolicy.class, "FE_BUILD_POLICY_"});
        PUBLIC_ENUMS.put("fe_conv_mode", new Object[] {ConvMode.class, "FE_CONV_MODE_"});
        PUBLIC_ENUMS.put("fe_pointwise_mode", new Object[] {PointwiseMode.class, "FE_POINTWISE_"});
        PUBLIC_ENUMS.put("fe_reduction_mode", new Object[] {ReductionMode.class, "FE_REDUCTION_"});
        PUBLIC_ENUMS.put("fe_causal_mask", new Object[] {CausalMask.class, "FE_CAUSAL_MASK_"});
        PUBLIC_ENUMS.put("fe_log_level", new Object[] {LogLevel.class, "FE_LOG_"});
    }

    /** The public enums have the header's values. */
    @Test
    void publicEnumsMatchTheHeader() throws Exception {
        List<String> generated = generatedEnumClasses();
        assertTrue(generated.contains("fe_status"), generated.toString());
        for (String name : generated) {
            Object[] mapping = PUBLIC_ENUMS.get(name);
            if (mapping == null) continue; // see everyEnumOfTheHeaderHasAPublicEnum
            Class<?> publicEnum = (Class<?>) mapping[0];
            String prefix = (String) mapping[1];
            for (Field field : Class.forName("dev.cudnnfe." + name).getDeclaredFields()) {
                if (!Modifier.isStatic(field.getModifiers()) || field.getType() != int.class) continue;
                String constant = field.getName().equals("FE_OK") ? "OK" : field.getName().substring(prefix.length());
                Object value = publicEnum.getField(constant).get(null);
                assertEquals(field.getInt(null), publicEnum.getField("code").getInt(value), name + "." + constant);
            }
        }
    }

    /** An enum added to the header shows here (as skipped, with its name) until it has a public enum. */
    @Test
    void everyEnumOfTheHeaderHasAPublicEnum() throws Exception {
        List<String> missing = new ArrayList<>(generatedEnumClasses());
        missing.removeAll(PUBLIC_ENUMS.keySet());
        assumeTrue(missing.isEmpty(), "the header's enums without a public Java enum yet: " + missing);
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
