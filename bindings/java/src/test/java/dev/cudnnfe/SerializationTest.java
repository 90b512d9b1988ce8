package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Plans that last: serialized bytes, JSON text, the plan cache. Plans are built devicelessly for the
 * captured H100 description; the GPU test executes a deserialized plan next to the original.
 */
class SerializationTest {
    private static String needDevicelessBuilds() {
        assumeTrue(TestSupport.cudnnAvailable(), "cuDNN is not loadable here");
        String json = TestSupport.deviceJson();
        assumeTrue(json != null, "no device description: set CUDNNFE_DEVICE_JSON");
        return json;
    }

    /** The seed convolution built for the H100 description, outside the plan cache. */
    private static Graph builtSeedConv(String json) {
        Graph graph = TestSupport.seedConvGraph();
        graph.build(null, new BuildOptions().devicePropertiesJson(json).usePlanCache(false));
        return graph;
    }

    @Test
    void aDevicelessPlanRoundTripsThroughBytes() {
        String json = needDevicelessBuilds();
        try (Graph graph = builtSeedConv(json)) {
            byte[] bytes = graph.serialize();
            assertTrue(bytes.length > 64, "only " + bytes.length + " bytes");
            String text = Graph.describeSerialized(bytes);
            assertTrue(text.contains(graph.engineTag()), text);
            assertTrue(text.contains("H100"), text);
            try (Graph copy = Graph.deserialize(null, bytes, new DeserializeOptions().devicePropertiesJson(json))) {
                assertNotSame(graph, copy);
                assertTrue(copy.isBuilt());
                assertEquals(graph.engineTag(), copy.engineTag());
                assertEquals(graph.workspaceSize(), copy.workspaceSize());
                for (String name : new String[] {"image", "weight"}) {
                    Tensor a = graph.tensorByName(name);
                    Tensor b = copy.tensorByName(name);
                    assertArrayEquals(a.dims(), b.dims(), name);
                    assertArrayEquals(a.strides(), b.strides(), name);
                    assertEquals(a.uid(), b.uid(), name);
                }
                assertEquals(Graph.describeSerialized(bytes), Graph.describeSerialized(copy.serialize()));
            }
        }
    }

    @Test
    void corruptedBytesAreAnError() {
        String json = needDevicelessBuilds();
        try (Graph graph = builtSeedConv(json)) {
            byte[] bytes = graph.serialize();
            bytes[bytes.length / 2] ^= 1;
            DeserializeOptions options = new DeserializeOptions().devicePropertiesJson(json);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "checksum", () -> Graph.deserialize(null, bytes, options));
            byte[] cut = Arrays.copyOf(graph.serialize(), 40);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.deserialize",
                    () -> Graph.deserialize(null, cut, options));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.describeSerialized", () -> Graph.describeSerialized(cut));
        }
    }

    @Test
    void bytesThatAreNoGraphAreAnError() {
        byte[] garbage = new byte[100];
        Arrays.fill(garbage, (byte) 'x');
        TestSupport.assertFails(Status.INVALID_ARGUMENT, "magic", () -> Graph.describeSerialized(garbage));
    }

    @Test
    void anUnbuiltGraphDoesNotSerialize() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            TestSupport.assertFails(Status.BAD_STATE, "not built", graph::serialize);
        }
    }

    @Test
    void aClosedGraphDoesNotSerialize() {
        Graph graph = TestSupport.seedConvGraph();
        graph.close();
        graph.close();
        TestSupport.assertClosed("Graph.serialize", "Graph", graph::serialize);
        TestSupport.assertClosed("Graph.toJson", "Graph", graph::toJson);
    }

    @Test
    void jsonRoundTrips() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            String json = graph.toJson();
            assertTrue(json.contains("conv_fprop"), json);
            try (Graph copy = Graph.fromJson(json)) {
                assertEquals(json, copy.toJson());
                assertEquals("first_graph", copy.name());
                Tensor y = copy.outputs().get(0);
                assertArrayEquals(new long[] {8, 32, 56, 56}, y.dims());
            }
        }
    }

    @Test
    void badJsonNamesTheLineAndField() {
        TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.fromJson: line 1", () -> Graph.fromJson("{\"format\": 7"));
        try (Graph graph = TestSupport.seedConvGraph()) {
            String json = graph.toJson().replace("conv_fprop", "conv_forward");
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "unknown operation 'conv_forward'", () -> Graph.fromJson(json));
        }
    }

    @Test
    void aCacheKeyGivesTheBuiltGraphBack() {
        String json = needDevicelessBuilds();
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.build(null, new BuildOptions().devicePropertiesJson(json).cacheKey("java-seed-conv"));
            try (Graph cached = Graph.fromCache(null, "java-seed-conv")) {
                assertTrue(cached.isBuilt());
                assertEquals(graph.engineTag(), cached.engineTag());
            }
        }
        TestSupport.assertFails(Status.NOT_FOUND, "java-no-such-key", () -> Graph.fromCache(null, "java-no-such-key"));
    }

    @Test
    void anIdenticalGraphHitsThePlanCache() {
        String json = needDevicelessBuilds();
        PlanCache.clear();
        PlanCache.Stats before = PlanCache.stats();
        for (int i = 0; i < 2; ++i) {
            try (Graph graph = TestSupport.seedConvGraph()) {
                graph.build(null, new BuildOptions().devicePropertiesJson(json));
            }
        }
        PlanCache.Stats after = PlanCache.stats();
        assertEquals(before.misses + 1, after.misses, after.toString());
        assertEquals(before.memoryHits + 1, after.memoryHits, after.toString());
    }

    @Test
    void autotuneNeedsBuiltPlans() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            TestSupport.assertFails(Status.BAD_STATE, "Graph.planTimeUs", () -> graph.planTimeUs(0));
        }
    }

    /** On a GPU: the deserialized plan computes what the original computes, bit for bit. */
    @Test
    void aDeserializedPlanExecutesLikeTheOriginal() {
        assumeTrue(TestSupport.cudnnAvailable() && TestSupport.gpuAvailable(), "needs a GPU");
        try (Handle handle = new Handle(0); Graph graph = TestSupport.seedConvGraph()) {
            graph.build(handle, new BuildOptions().usePlanCache(false));
            byte[] bytes = graph.serialize();
            try (Graph copy = Graph.deserialize(handle, bytes, null)) {
                Tensor x = graph.tensorByName("image");
                Tensor w = graph.tensorByName("weight");
                Tensor y = graph.outputs().get(0);
                long[] uids = {x.uid(), w.uid(), y.uid()};
                try (DeviceBuffer xb = DeviceBuffer.forTensor(0, x); DeviceBuffer wb = DeviceBuffer.forTensor(0, w);
                     DeviceBuffer ya = DeviceBuffer.forTensor(0, y); DeviceBuffer yb = DeviceBuffer.forTensor(0, y)) {
                    xb.upload(ramp((int) (x.sizeBytes() / 2)), DataType.HALF);
                    wb.upload(ramp((int) (w.sizeBytes() / 2)), DataType.HALF);
                    ya.fill((byte) 0xFF);
                    yb.fill((byte) 0xFF);
                    graph.executeByUid(handle, uids, new long[] {xb.devicePointer(), wb.devicePointer(), ya.devicePointer()}, 0);
                    copy.executeByUid(handle, uids, new long[] {xb.devicePointer(), wb.devicePointer(), yb.devicePointer()}, 0);
                    handle.synchronize();
                    int n = (int) (y.sizeBytes() / 2);
                    float[] a = ya.downloadFloats(n, DataType.HALF);
                    float[] b = yb.downloadFloats(n, DataType.HALF);
                    for (float v : a) assertTrue(Float.isFinite(v), "the original left an element unwritten");
                    assertArrayEquals(a, b);
                }
            }
        }
    }

    /** On a GPU: autotuning times every built plan and keeps the fastest. */
    @Test
    void autotuningTimesEveryPlan() {
        assumeTrue(TestSupport.cudnnAvailable() && TestSupport.gpuAvailable(), "needs a GPU");
        try (Handle handle = new Handle(0); Graph graph = TestSupport.seedConvGraph()) {
            graph.build(handle, new BuildOptions().policy(BuildPolicy.ALL).usePlanCache(false));
            double best = graph.autotune(handle, 1, 3);
            assertTrue(best > 0, "best " + best);
            assertEquals(best, graph.planTimeUs(0), 1e-9);
            for (long i = 1; i < graph.planCount(); ++i) assertTrue(graph.planTimeUs(i) >= best);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.planTimeUs", () -> graph.planTimeUs(graph.planCount()));
        }
    }

    /** On a GPU: a plan stored in a cache directory serves the next identical build. */
    @Test
    void aCacheDirectoryServesIdenticalGraphs() throws Exception {
        assumeTrue(TestSupport.cudnnAvailable() && TestSupport.gpuAvailable(), "needs a GPU");
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("cudnnfe-java-cache");
        try (Handle handle = new Handle(0)) {
            handle.setCacheDirectory(dir.toString());
            handle.setCacheLimit(64L << 20);
            try (Graph graph = TestSupport.seedConvGraph()) {
                graph.build(handle);
            }
            PlanCache.clear();
            PlanCache.Stats before = PlanCache.stats();
            try (Graph graph = TestSupport.seedConvGraph()) {
                graph.build(handle);
                assertTrue(graph.isBuilt());
            }
            assertEquals(before.diskHits + 1, PlanCache.stats().diskHits, PlanCache.stats().toString());
            handle.setCacheDirectory(null);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Handle.setCacheDirectory", () -> handle.setCacheDirectory(""));
        }
    }

    private static float[] ramp(int n) {
        float[] values = new float[n];
        for (int i = 0; i < n; ++i) values[i] = ((i * 37) % 17 - 8) / 16.0f;
        return values;
    }
}
