package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A matmul's M, N and K overrides and padding value through the generated options mean what they
 * mean in C (tests/deviceless/matmul_overrides_support_test.cpp): they reach the graph's description
 * and its JSON, survive a JSON round trip, and each malformed setup is refused with the C library's
 * reason. No GPU needed.
 */
class MatmulOverridesTest {
    private static Graph graph(DataType io) {
        return new Graph(new GraphOptions().ioDataType(io));
    }

    private static Tensor typed(Graph g, String name, DataType type, long... dims) {
        return g.tensor(name, dims, null, type);
    }

    @Test
    void mAndKOverridesWithAPaddingValueReachTheGraphAndItsJson() {
        try (Graph g = graph(DataType.BFLOAT16)) {
            Tensor a = g.tensor("a", 4, 128, 192);
            Tensor b = g.tensor("b", 4, 192, 256);
            Tensor m = g.tensor("m", 4, 1, 1);
            Tensor k = typed(g, "k", DataType.INT32, 4, 1, 1);
            Tensor c = g.matmul(a, b, new MatmulOptions().mOverride(m).kOverride(k).paddingValue(-7.5));
            c.setOutput(true);
            assertArrayEquals(new long[] {4, 128, 256}, c.dims());
            String text = g.describe();
            assertTrue(text.contains("M=m K=k padding=-7.5"), text);
            assertEquals(DataType.INT32, m.dataType());

            String json = g.toJson();
            assertTrue(json.contains("\"m_override\":\"m\""), json);
            assertTrue(json.contains("\"padding_value\":-7.5"), json);
            try (Graph back = Graph.fromJson(json)) {
                assertEquals(json, back.toJson());
            }
        }
    }

    @Test
    void malformedOverridesAreRefusedWithTheirReason() {
        try (Graph g = graph(DataType.BFLOAT16)) {
            Tensor a = g.tensor("a", 4, 128, 192);
            Tensor b = g.tensor("b", 4, 192, 256);
            Tensor wrong = typed(g, "m_wrong", DataType.INT32, 4, 128, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT,
                    "options.m_override 'm_wrong' is [4,128,1]; it must be [4,1,1]",
                    () -> g.matmul(a, b, new MatmulOptions().mOverride(wrong)));
            Tensor wide = typed(g, "m_long", DataType.INT64, 4, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "the sizes are int32",
                    () -> g.matmul(a, b, new MatmulOptions().mOverride(wide)));
            Tensor k = typed(g, "k", DataType.INT32, 4, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "it fills what an M or N override leaves out",
                    () -> g.matmul(a, b, new MatmulOptions().kOverride(k).paddingValue(1.0)));
        }
    }

    /** An FP8 matmul's three one-element float scales. */
    private static MatmulFp8Scales unitScales(Graph f) {
        MatmulFp8Scales scales = new MatmulFp8Scales();
        scales.descaleA = typed(f, "da", DataType.FLOAT, 1, 1, 1);
        scales.descaleB = typed(f, "db", DataType.FLOAT, 1, 1, 1);
        scales.scaleC = typed(f, "sc", DataType.FLOAT, 1, 1, 1);
        return scales;
    }

    @Test
    void fp8MatmulsTakeNoOverrides() {
        try (Graph f = graph(DataType.FP8_E4M3)) {
            Tensor a = f.tensor("a", 4, 128, 192);
            Tensor b = f.tensor("b", 4, 192, 256);
            MatmulFp8Scales scales = unitScales(f);
            Tensor m = typed(f, "m", DataType.INT32, 4, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "options.m_override is not taken by matmul_fp8",
                    () -> f.matmulFp8(a, b, scales, new MatmulOptions().mOverride(m)));
        }
    }

    /** Fast accumulation is an FP8 matmul's option (in its graph JSON); a plain matmul refuses it. */
    @Test
    void fastAccumulationIsAnFp8MatmulsOption() {
        try (Graph f = graph(DataType.FP8_E4M3)) {
            Tensor a = f.tensor("a", 4, 128, 192);
            Tensor b = f.tensor("b", 4, 192, 256);
            MatmulFp8Scales scales = unitScales(f);
            TensorPair c = f.matmulFp8(a, b, scales, new MatmulOptions().fastAccumulate(true));
            c.first.setOutput(true);
            c.second.setOutput(true);
            assertTrue(f.toJson().contains("\"fast_accumulate\":true"), f.toJson());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "options.fast_accumulate is not taken by matmul",
                    () -> f.matmul(typed(f, "x", DataType.HALF, 4, 128, 192), typed(f, "w", DataType.HALF, 4, 192, 256),
                            new MatmulOptions().fastAccumulate(true)));
        }
    }
}
