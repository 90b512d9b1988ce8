package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Building graphs and the inference of dims, strides and types (no cuDNN needed). */
class GraphTest {
    @Test
    void graphHasItsNameAndTensorsTheDefaultType() {
        try (Graph graph = new Graph(new GraphOptions().name("g").ioDataType(DataType.BFLOAT16))) {
            assertEquals("g", graph.name());
            Tensor x = graph.tensor("x", 2, 3);
            assertEquals("x", x.name());
            assertArrayEquals(new long[] {2, 3}, x.dims());
            assertArrayEquals(new long[] {3, 1}, x.strides());
            assertEquals(2, x.rank());
            assertFalse(x.isVirtual());
            Tensor y = graph.relu(x).setOutput(true);
            assertEquals(DataType.NOT_SET, x.dataType()); // the graph's default applies at validation
            graph.validate();
            assertEquals(DataType.BFLOAT16, x.dataType());
            assertEquals(DataType.BFLOAT16, y.dataType());
            assertEquals(2L * 3 * 2, x.sizeBytes());
            Tensor f = graph.tensor("f", new long[] {4}, null, DataType.FLOAT);
            assertEquals(DataType.FLOAT, f.dataType());
            assertEquals(16, f.sizeBytes());
        }
    }

    @Test
    void aTensorLikeAnotherHasItsDimsStridesAndTypeOnly() {
        try (Graph first = new Graph(new GraphOptions().ioDataType(DataType.HALF));
                Graph second = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor c = first.matmul(first.tensor("a", 3, 40, 24), first.tensor("b", 3, 24, 56));
            Tensor in = second.tensorLike(c, "c_in");
            assertEquals("c_in", in.name());
            assertArrayEquals(new long[] {3, 40, 56}, in.dims());
            assertArrayEquals(c.strides(), in.strides());
            Tensor x = second.tensor("x", new long[] {2, 8}, null, DataType.BFLOAT16);
            assertEquals(DataType.BFLOAT16, second.tensorLike(x, "x2").dataType());
            TestSupport.assertFails(Status.DUPLICATE, "Graph.tensorLike", () -> second.tensorLike(x, "x2"));
        }
    }

    @Test
    void theEngineTagOfAGraphNotBuiltIsABadState() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            graph.relu(graph.tensor("x", 2, 3)).setOutput(true);
            TestSupport.assertFails(Status.BAD_STATE, "Graph.engineTag", graph::engineTag);
        }
    }

    @Test
    void convInfersTheSeedsShapeAndKeepsChannelsLast() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            Tensor y = graph.tensorByName("conv_fprop_0::Y");
            assertArrayEquals(new long[] {8, 32, 56, 56}, y.dims());
            assertArrayEquals(new long[] {100352, 1, 1792, 32}, y.strides());
            assertTrue(y.isOutput());
            graph.validate();
            assertEquals(DataType.HALF, y.dataType());
        }
    }

    @Test
    void convStrideAndDilationChangeTheOutputDims() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = graph.tensor("x", 2, 3, 224, 224);
            Tensor w = graph.tensor("w", 64, 3, 7, 7);
            Tensor y = graph.convFprop(x, w, new ConvOptions().padding(3, 3).stride(2, 2).name("stem"));
            assertArrayEquals(new long[] {2, 64, 112, 112}, y.dims());
            assertEquals("stem::Y", y.name());
            Tensor x1 = graph.tensor("x1", 4, 8, 100);
            Tensor w1 = graph.tensor("w1", 16, 8, 5);
            assertArrayEquals(new long[] {4, 16, 92}, graph.convFprop(x1, w1, new ConvOptions().dilation(2)).dims());
        }
    }

    @Test
    void matmulAndBiasInferDimsAndStayVirtualUntilMarked() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor a = graph.tensor("A", 16, 128, 512);
            Tensor b = graph.tensor("B", 16, 512, 64);
            Tensor d = graph.tensor("D", 1, 128, 64);
            Tensor ab = graph.matmul(a, b);
            Tensor c = graph.bias(ab, d);
            assertArrayEquals(new long[] {16, 128, 64}, c.dims());
            assertTrue(ab.isVirtual());
            assertTrue(c.isVirtual());
            c.setOutput(true);
            assertFalse(c.isVirtual());
            graph.validate();
            assertEquals(DataType.FLOAT, ab.dataType()); // intermediate default
            assertEquals(DataType.HALF, c.dataType());   // output: io default
        }
    }

    @Test
    void inputsAndOutputsComeInExecutionOrder() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor a = graph.tensor("a", 4, 4);
            Tensor b = graph.tensor("b", 4, 4);
            Tensor sum = graph.add(a, b).setOutput(true);
            Tensor product = graph.mul(a, b).setOutput(true);
            assertEquals(Arrays.asList(a, b), graph.inputs());
            assertEquals(Arrays.asList(sum, product), graph.outputs());
        }
    }

    @Test
    void tensorsFoundByNameAreEqualToTheOriginals() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = graph.tensor("x", 8);
            Tensor y = graph.relu(x);
            assertEquals(y, graph.tensorByName(y.name()));
            assertEquals(y.hashCode(), graph.tensorByName(y.name()).hashCode());
            assertNotEquals(x, y);
            assertEquals(graph, y.graph());
        }
    }

    @Test
    void settersChainAndOverrideInference() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = graph.tensor("x", 2, 8).setUid(7).setName("input");
            assertEquals(7, x.uid());
            assertEquals("input", x.name());
            Tensor y = graph.gelu(x).setDataType(DataType.FLOAT).setOutput(true);
            assertEquals(DataType.FLOAT, y.dataType());
            y.setStrides(1, 2);
            assertArrayEquals(new long[] {1, 2}, y.strides());
        }
    }

    @Test
    void pointwiseScalarsAndReductions() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = graph.tensor("x", 4, 16, 32);
            Tensor half = graph.scalar("half", 0.5, DataType.FLOAT);
            Tensor scaled = graph.scale(graph.silu(x), half);
            Tensor clipped = graph.pointwise(PointwiseMode.RELU_FWD, scaled, null, null,
                    new PointwiseOptions().reluUpperClip(6).name("relu6"));
            assertEquals("relu6::Y", clipped.name());
            assertEquals("bias_out::Y", graph.bias(clipped, half, new PointwiseOptions().name("bias_out")).name());
            assertEquals("clip::Y", graph.relu(x, new PointwiseOptions().reluUpperClip(6).name("clip")).name());
            Tensor rowMax = graph.reduction(clipped, ReductionMode.MAX, new ReductionOptions().reduceAxes(2));
            assertArrayEquals(new long[] {4, 16, 1}, rowMax.dims());
            Tensor all = graph.reduction(clipped, ReductionMode.ADD, new ReductionOptions().reduceAxes(1, 2));
            assertArrayEquals(new long[] {4, 1, 1}, all.dims());
        }
    }

    @Test
    void attentionInfersOutputAndStats() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor q = graph.tensor("q", 2, 8, 128, 64);
            Tensor k = graph.tensor("k", 2, 2, 256, 64);
            Tensor v = graph.tensor("v", 2, 2, 256, 32);
            SdpaResult inference = graph.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).causalMask(CausalMask.BOTTOM_RIGHT));
            assertArrayEquals(new long[] {2, 8, 128, 32}, inference.o.dims());
            assertNull(inference.stats);
            SdpaResult training = graph.sdpa(q, k, v, new SdpaOptions().generateStats(true));
            assertArrayEquals(new long[] {2, 8, 128, 1}, training.stats.dims());
            assertEquals(DataType.FLOAT, training.stats.dataType());
        }
    }

    @Test
    void attentionBackwardGivesGradientsShapedLikeTheInputs() {
        try (Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor q = graph.tensor("q", 1, 4, 64, 64);
            Tensor k = graph.tensor("k", 1, 4, 64, 64);
            Tensor v = graph.tensor("v", 1, 4, 64, 64);
            Tensor o = graph.tensor("o", 1, 4, 64, 64);
            Tensor dO = graph.tensor("dO", 1, 4, 64, 64);
            Tensor stats = graph.tensor("stats", new long[] {1, 4, 64, 1}, null, DataType.FLOAT);
            SdpaGradients g = graph.sdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions().attnScale(0.125));
            assertArrayEquals(q.dims(), g.dq.dims());
            assertArrayEquals(k.dims(), g.dk.dims());
            assertArrayEquals(v.dims(), g.dv.dims());
        }
    }

    @Test
    void describeListsTheTensors() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            String text = graph.describe();
            assertTrue(text.contains("image"), text);
            assertTrue(text.contains("conv_fprop_0::Y"), text);
        }
    }

    @Test
    void strideHelpersAndLibraryInformation() {
        assertArrayEquals(new long[] {200704, 1, 3584, 64}, CudnnFe.stridesChannelsLast(8, 64, 56, 56));
        assertArrayEquals(new long[] {200704, 3136, 56, 1}, CudnnFe.stridesPacked(8, 64, 56, 56));
        assertEquals(CudnnFe.versionString(), (CudnnFe.version() / 10000) + "." + (CudnnFe.version() / 100 % 100) + "."
                + (CudnnFe.version() % 100));
        assertEquals(2, DataType.HALF.size());
        assertEquals(16, DataType.HALF.bits());
        assertEquals(4, DataType.INT4.bits());
        assertEquals(0, DataType.UINT4.size());
        assertEquals("uint4", DataType.UINT4.libraryName());
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor w = g.tensor("w", new long[] {1, 256, 128}, new long[] {256 * 128, 1, 256}, DataType.INT4);
            assertEquals(DataType.INT4, w.dataType());
            assertEquals(256 * 128 / 2, w.sizeBytes());
        }
        // Complex operands give a complex product, 8 bytes an element.
        assertEquals(8, DataType.COMPLEX_FP32.size());
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.FLOAT))) {
            long[] dims = {2, 16, 16}, strides = {256, 16, 1};
            Tensor c = g.matmul(g.tensor("a", dims, strides, DataType.COMPLEX_FP32),
                                g.tensor("b", dims, strides, DataType.COMPLEX_FP32));
            c.setOutput(true);
            g.validate();
            assertEquals(DataType.COMPLEX_FP32, c.dataType());
            assertEquals(2 * 16 * 16 * 8, c.sizeBytes());
        }
        String schema = CudnnFe.opSchemaJson();
        assertTrue(schema.contains("\"entry_point\":\"fe_graph_conv_fprop\""), schema);
        assertTrue(schema.contains("\"c_type\":\"fe_resample_padding\""), schema);
        float[] slopes = CudnnFe.alibiSlopes(8);
        assertEquals(0.5f, slopes[0], 1e-6f);
        assertEquals(1.0f / 256, slopes[7], 1e-9f);
        CudnnFe.setLogLevel(LogLevel.OFF);
    }

    /** The key is the SHA-256 of the graph's JSON (none described here), the same for the same graph. */
    @Test
    void theKeyIsTheSha256OfTheJsonAndAUidFindsItsTensor() throws Exception {
        try (Graph a = TestSupport.seedConvGraph(); Graph b = TestSupport.seedConvGraph()) {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(a.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte d : digest) hex.append(String.format("%02x", d));
            assertEquals(hex.toString(), a.key());
            assertEquals(a.key(), b.key());
            Tensor w = b.tensorByName("weight");
            w.setUid(42);
            assertNotEquals(a.key(), b.key());
            assertEquals(w.pointer(), b.tensorByUid(42).pointer());
            TestSupport.assertFails(Status.NOT_FOUND, "Graph.tensorByUid: graph 'first_graph' has no tensor with uid 43",
                    () -> b.tensorByUid(43));
        }
    }

    /** The carried sm 90 description describes a graph's target; another version is refused, naming it. */
    @Test
    void theCarriedSm90DescriptionIsATarget() {
        String json = CudnnFe.devicePropertiesForSm(90);
        assertTrue(json.contains("\"deviceVer\":900"), json);
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.setDeviceProperties(json);
        }
        TestSupport.assertFails(Status.NOT_SUPPORTED,
                "CudnnFe.devicePropertiesForSm: no description of an sm 80 GPU is carried (the library has 90)",
                () -> CudnnFe.devicePropertiesForSm(80));
    }
}
