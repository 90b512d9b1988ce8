package dev.cudnnfe;

import static dev.cudnnfe.TestSupport.assertClosed;
import static dev.cudnnfe.TestSupport.assertFails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The kernel cache without a GPU, as the C deviceless tier tests it
 * (tests/deviceless/kernel_cache_test.cpp): a dynamic-shape operation graph binds the cache, which
 * then serializes to cuDNN's JSON and reads back; what is read is checked first; names are plain.
 * (Building plans from it compiles kernels, which needs a GPU.)
 */
class KernelCacheTest {
    private String json;

    @BeforeEach
    void needCudnnAndTheDescription() {
        json = TestSupport.cudnnAndDeviceJsonOrSkip();
    }

    /** A half matmul [1, m, 64] x [1, 64, 32] with the cache, lowered for the described GPU. */
    private Graph loweredWithCache(String name, long m, KernelCache cache) {
        Graph graph = matmul(name, m);
        graph.setKernelCache(cache);
        graph.setDeviceProperties(json);
        graph.buildOperationGraph(null);
        return graph;
    }

    private static Graph matmul(String name, long m) {
        Graph graph = new Graph(new GraphOptions().name(name).ioDataType(DataType.HALF));
        graph.matmul(graph.tensor("a", 1, m, 64), graph.tensor("b", 1, 64, 32)).setOutput(true);
        return graph;
    }

    @Test
    void anUnusedCacheHasNothingToSerialize() {
        try (KernelCache cache = new KernelCache()) {
            assertFails(Status.BAD_STATE, "build a graph with it", cache::serialize);
            assertFails(Status.BAD_STATE, "KernelCache.store", () -> cache.store(null, "unused"));
        }
    }

    @Test
    void whatIsReadIsCheckedBeforeCudnnSeesIt() {
        assertFails(Status.INVALID_ARGUMENT, "is an array, not a JSON object", () -> KernelCache.deserialize("[1, 2]"));
        assertFails(Status.INVALID_ARGUMENT, "line 1", () -> KernelCache.deserialize("not json"));
        TestSupport.assertNullArgument("KernelCache.deserialize: json is null", () -> KernelCache.deserialize(null));
    }

    @Test
    void aDynamicShapeGraphBindsTheCacheWhichThenReadsBack() {
        try (KernelCache cache = new KernelCache(); Graph first = loweredWithCache("first", 64, cache)) {
            first.createExecutionPlans();
            assertTrue(first.candidateCount() >= 1);
            // Dynamic-shape kernels are compiled at run time.
            ConfigInfo info = first.candidateInfo(0);
            assertTrue(info.behaviorNotes.contains(BehaviorNote.RUNTIME_COMPILATION), info.toString());
            String text = cache.serialize();
            assertTrue(text.startsWith("{") && text.endsWith("}"), text.substring(0, Math.min(200, text.length())));
            // Read back, it is cuDNN's again once a graph is lowered with it.
            try (KernelCache back = KernelCache.deserialize(text); Graph reader = loweredWithCache("reader", 96, back)) {
                assertFalse(reader.isBuilt());
                assertTrue(back.serialize().startsWith("{"));
            }
            // A graph of other dims shares it; a lowered graph takes no other cache.
            try (Graph second = loweredWithCache("second", 200, cache)) {
                assertFails(Status.BAD_STATE, "Graph.setKernelCache", () -> second.setKernelCache(null));
            }
            assertFails(Status.INVALID_ARGUMENT, "name", () -> cache.store(null, "a/b"));
            assertFails(Status.INVALID_ARGUMENT, "name", () -> cache.store(null, "../escape"));
            TestSupport.assertNullArgument("KernelCache.store: ", () -> cache.store(null, null));
        }
    }

    @Test
    void theBuildOptionBindsTheCache() {
        try (KernelCache cache = new KernelCache(); Graph graph = matmul("option", 64)) {
            try {
                graph.build(null, new BuildOptions().devicePropertiesJson(json).usePlanCache(false).kernelCache(cache));
            } catch (CannotTellException e) {
                // The plan's kernels are compiled at run time, which needs a GPU.
            }
            assertTrue(cache.serialize().startsWith("{"), "the build did not bind the cache");
        }
    }

    @Test
    void aGraphKeepsItsCacheAfterTheCallerClosesIt() {
        KernelCache cache = new KernelCache();
        try (Graph graph = matmul("kept", 64)) {
            graph.setKernelCache(cache);
            cache.close();
            cache.close();
            graph.setDeviceProperties(json);
            graph.buildOperationGraph(null);
            graph.createExecutionPlans();
            assertTrue(graph.candidateCount() >= 1);
        }
        assertClosed("KernelCache.serialize", "KernelCache", cache::serialize);
        assertClosed("KernelCache.store", "KernelCache", () -> cache.store(null, "closed"));
        try (Graph graph = matmul("closed", 64)) {
            assertClosed("Graph.setKernelCache", "KernelCache", () -> graph.setKernelCache(cache));
            assertClosed("Graph.build", "KernelCache",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).kernelCache(cache)));
        }
    }

    @Test
    void loadingNeedsAHandle() {
        TestSupport.assertNullArgument("KernelCache.load: handle is null", () -> KernelCache.load(null, "name"));
    }
}
