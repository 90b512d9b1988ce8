package dev.cudnnfe;

import static dev.cudnnfe.TestSupport.assertClosed;
import static dev.cudnnfe.TestSupport.assertFails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Engine and plan control for the captured H100 description with no GPU, as the C deviceless tier
 * tests it (tests/deviceless/engine_control_test.cpp): candidates' and plans' info, deselection by
 * engine name and by shared memory, plans built on several threads or one by index, any plan
 * selected to run, and the build options that do the same in one call.
 */
class EngineControlTest {
    private String json;

    @BeforeEach
    void needCudnnAndTheDescription() {
        json = TestSupport.cudnnAndDeviceJsonOrSkip();
    }

    /** A bf16 channels-last 3x3 convolution: many precompiled engines build whole plans here. */
    private static Graph conv(String name) {
        Graph graph = new Graph(new GraphOptions().name(name).ioDataType(DataType.BFLOAT16)
                .computeDataType(DataType.FLOAT));
        long[] xDims = {16, 64, 28, 28};
        long[] wDims = {64, 64, 3, 3};
        Tensor x = graph.tensor("x", xDims, CudnnFe.stridesChannelsLast(xDims), DataType.NOT_SET);
        Tensor w = graph.tensor("w", wDims, CudnnFe.stridesChannelsLast(wDims), DataType.NOT_SET);
        graph.convFprop(x, w, new ConvOptions().padding(1, 1)).setOutput(true);
        return graph;
    }

    /** Lowered for the described GPU, with heuristics' candidates. */
    private Graph withCandidates(String name) {
        Graph graph = conv(name);
        graph.setDeviceProperties(json);
        graph.buildOperationGraph(null);
        graph.createExecutionPlans();
        return graph;
    }

    private static List<ConfigInfo> candidates(Graph graph) {
        List<ConfigInfo> list = new ArrayList<>();
        for (long i = 0; i < graph.candidateCount(); ++i) list.add(graph.candidateInfo(i));
        return list;
    }

    private static List<String> planTags(Graph graph) {
        List<String> tags = new ArrayList<>();
        for (long i = 0; i < graph.planCount(); ++i) tags.add(graph.planInfo(i).tag);
        return tags;
    }

    @Test
    void candidatesReportTheirEngineWorkspaceSharedMemoryAndNotes() {
        try (Graph graph = withCandidates("info")) {
            List<ConfigInfo> list = candidates(graph);
            assertFalse(list.isEmpty());
            for (int i = 0; i < list.size(); ++i) {
                ConfigInfo c = list.get(i);
                assertTrue(c.tag.startsWith("eng" + c.engineIndex), c.toString());
                assertTrue(c.workspaceBytes >= 0, c.toString());
                assertTrue(c.sharedMemoryBytes >= -1, c.toString());
                assertTrue(c.viable, c.toString());
                CandidateNotes notes = graph.candidateNotes(i);
                assertEquals(notes.tag, c.tag);
                assertEquals(notes.numerical, c.numericalNotes);
                assertEquals(notes.behavior, c.behaviorNotes);
                assertEquals(c, graph.candidateInfo(i));
            }
            ConfigInfo first = list.get(0);
            assertThrows(UnsupportedOperationException.class, () -> first.numericalNotes.add(NumericalNote.FFT));
            assertThrows(UnsupportedOperationException.class, () -> first.behaviorNotes.clear());
            assertFails(Status.INVALID_ARGUMENT, "Graph.candidateInfo: index", () -> graph.candidateInfo(list.size()));
            assertFails(Status.BAD_STATE, "Graph.planInfo", () -> graph.planInfo(0));
        }
    }

    @Test
    void anEngineNameDeselectsEverySettingOfItAndATagOnlyThatOne() {
        try (Graph graph = withCandidates("by_name")) {
            List<ConfigInfo> list = candidates(graph);
            assumeTrue(list.size() >= 2, "one candidate only");
            long firstEngine = list.get(0).engineIndex;
            String secondTag = list.get(1).tag;
            graph.deselectEngines("eng" + firstEngine, secondTag);
            for (ConfigInfo c : candidates(graph)) {
                boolean named = c.engineIndex == firstEngine || c.tag.equals(secondTag);
                assertEquals(!named, c.viable, c.toString());
            }
        }
        // A name no candidate has deselects nothing.
        try (Graph graph = withCandidates("unknown_name")) {
            graph.deselectEngines(java.util.Arrays.asList("eng99999", "eng5_k2=-1"));
            for (ConfigInfo c : candidates(graph)) assertTrue(c.viable, c.toString());
        }
    }

    @Test
    void aMalformedEngineNameIsRefused() {
        try (Graph graph = withCandidates("malformed")) {
            assertFails(Status.INVALID_ARGUMENT, "is not an engine name", () -> graph.deselectEngines("eng6;eng7"));
            assertFails(Status.INVALID_ARGUMENT, "is not an engine name", () -> graph.deselectEngines("eng6", ""));
            assertFails(Status.INVALID_ARGUMENT, "is not an engine name", () -> graph.deselectEngines());
            TestSupport.assertNullArgument("Graph.deselectEngines: names is null", () -> graph.deselectEngines((String[]) null));
            for (ConfigInfo c : candidates(graph)) assertTrue(c.viable, "a refused list deselected " + c);
        }
        try (Graph early = conv("early")) {
            assertFails(Status.BAD_STATE, "Graph.deselectEngines", () -> early.deselectEngines("eng0"));
        }
    }

    @Test
    void aSharedMemoryLimitDeselectsTheConfigsReportedOverIt() {
        try (Graph graph = withCandidates("shared_memory")) {
            List<ConfigInfo> list = candidates(graph);
            long most = list.stream().mapToLong(c -> c.sharedMemoryBytes).max().orElse(-1);
            assumeTrue(most > 0, "no candidate reports its shared memory (no runtime-compiled engine listed)");
            graph.deselectSharedMemoryGreaterThan(most - 1);
            int kept = 0;
            for (ConfigInfo c : candidates(graph)) {
                // Over the limit: deselected. Not reported (-1): kept.
                assertEquals(c.sharedMemoryBytes < most, c.viable, c.toString());
                if (c.viable) ++kept;
            }
            assertTrue(kept < list.size());
            assertFails(Status.INVALID_ARGUMENT, "a shared-memory limit is 0 or more",
                    () -> graph.deselectSharedMemoryGreaterThan(-1));
        }
    }

    @Test
    void plansBuiltOnSeveralThreadsAreThoseBuiltOnOne() {
        try (Graph one = withCandidates("one_thread"); Graph four = withCandidates("four_threads")) {
            one.checkSupport();
            one.buildPlans(BuildPolicy.ALL);
            four.checkSupport();
            four.buildPlansOnThreads(BuildPolicy.ALL, 4);
            assertTrue(planTags(one).size() >= 2, planTags(one).toString());
            assertEquals(planTags(one), planTags(four));
            assertEquals(one.engineTag(), four.engineTag());
        }
        try (Graph bad = withCandidates("bad_threads")) {
            bad.checkSupport();
            assertFails(Status.INVALID_ARGUMENT, "threads", () -> bad.buildPlansOnThreads(BuildPolicy.ALL, 65));
            assertFails(Status.INVALID_ARGUMENT, "threads", () -> bad.buildPlansOnThreads(BuildPolicy.ALL, 0));
        }
    }

    @Test
    void anyBuiltPlanCanBeTheOneThatRuns() {
        try (Graph graph = withCandidates("select")) {
            graph.checkSupport();
            assertFails(Status.BAD_STATE, "Graph.selectPlan", () -> graph.selectPlan(0));
            graph.buildPlans(BuildPolicy.ALL);
            long plans = graph.planCount();
            assertTrue(plans >= 2, plans + " plans");
            assertEquals(graph.planInfo(0).tag, graph.engineTag(), "the first plan runs");
            graph.selectPlan(1);
            ConfigInfo second = graph.planInfo(1);
            assertEquals(second.tag, graph.engineTag());
            assertEquals(second.workspaceBytes, graph.workspaceSize());
            assertTrue(second.viable);
            assertTrue(graph.describe().contains(second.tag));
            assertFails(Status.INVALID_ARGUMENT, "Graph.selectPlan", () -> graph.selectPlan(plans));
            assertFails(Status.INVALID_ARGUMENT, "Graph.planInfo", () -> graph.planInfo(plans));
            assertEquals(second.tag, graph.engineTag(), "a refused selection changes nothing");
        }
    }

    @Test
    void onePlanIsBuiltByItsCandidateIndex() {
        try (Graph graph = withCandidates("by_index")) {
            graph.checkSupport();
            List<ConfigInfo> list = candidates(graph);
            // Candidates that need a runtime compilation fail without a driver; take two that build.
            List<Integer> built = new ArrayList<>();
            for (int i = list.size() - 1; i >= 0 && built.size() < 2; --i) {
                try {
                    graph.buildPlanAtIndex(i);
                    built.add(i);
                } catch (CudnnFeException e) {
                    assertEquals(Status.NOT_SUPPORTED, e.status(), e.getMessage());
                    assertTrue(e.getMessage().contains("did not build a plan"), e.getMessage());
                }
            }
            assertEquals(2, built.size());
            assertEquals(List.of(list.get(built.get(0)).tag, list.get(built.get(1)).tag), planTags(graph));
            assertEquals(planTags(graph).get(0), graph.engineTag(), "the first plan built runs");
            graph.selectPlan(1);
            assertEquals(planTags(graph).get(1), graph.engineTag());
            assertEquals(list.get(built.get(1)).numericalNotes, graph.planInfo(1).numericalNotes);
            assertFails(Status.INVALID_ARGUMENT, "has a plan already", () -> graph.buildPlanAtIndex(built.get(0)));
            assertFails(Status.INVALID_ARGUMENT, "Graph.buildPlanAtIndex", () -> graph.buildPlanAtIndex(list.size()));
        }
    }

    @Test
    void buildOptionsDeselectByNameSharedMemoryAndNondeterminism() {
        long avoided;
        try (Graph probe = withCandidates("probe")) {
            avoided = probe.candidateInfo(0).engineIndex;
        }
        try (Graph graph = conv("options")) {
            graph.build(null, new BuildOptions().devicePropertiesJson(json).usePlanCache(false).policy(BuildPolicy.ALL)
                    .deselectEngines("eng" + avoided).deterministic(true).buildThreads(3)
                    .maxSharedMemoryBytes(32 * 1024));
            assertTrue(graph.planCount() >= 1);
            for (long i = 0; i < graph.planCount(); ++i) {
                ConfigInfo info = graph.planInfo(i);
                assertNotEquals(avoided, info.engineIndex, info.toString());
                assertFalse(info.numericalNotes.contains(NumericalNote.NONDETERMINISTIC), info.toString());
                assertTrue(info.sharedMemoryBytes <= 32 * 1024, info.toString());
            }
        }
    }

    @Test
    void buildOptionsOutOfRangeAreRefused() {
        try (Graph graph = conv("refused_option")) {
            assertFails(Status.INVALID_ARGUMENT, "options.build_threads",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).buildThreads(65)));
            assertFails(Status.INVALID_ARGUMENT, "options.build_threads",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).buildThreads(-1)));
            assertFails(Status.INVALID_ARGUMENT, "options.max_shared_memory_bytes",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).maxSharedMemoryBytes(-1)));
            assertFails(Status.INVALID_ARGUMENT, "is not an engine name",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).deselectEngines("eng6;eng7")));
            assertFalse(graph.isBuilt());
        }
    }

    @Test
    void backgroundStaticReachesTheLibrary() {
        try (Graph graph = conv("background_static"); KernelCache cache = new KernelCache()) {
            assertFails(Status.INVALID_ARGUMENT, "give options.kernel_cache",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).backgroundStatic(true)));
            assertFails(Status.INVALID_ARGUMENT, "options.background_static needs a handle",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).kernelCache(cache)
                            .backgroundStatic(true)));
            assertEquals(BackgroundState.NONE, graph.backgroundState());
            graph.waitBackground();
        }
    }

    @Test
    void smCountTargetReachesTheLibrary() {
        try (Graph graph = conv("sm_count_target"); KernelCache cache = new KernelCache()) {
            assertFails(Status.INVALID_ARGUMENT, "options.sm_count_target is -1",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).smCountTarget(-1)));
            assertFails(Status.INVALID_ARGUMENT, "the cache's engine configs were chosen for every SM",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).kernelCache(cache)
                            .smCountTarget(16)));
            assertFalse(graph.isBuilt());
        }
    }

    @Test
    void theStepsOfAClosedGraphThrowBadState() {
        Graph graph = conv("closed");
        graph.close();
        assertClosed("Graph.deselectEngines", "Graph", () -> graph.deselectEngines("eng0"));
        assertClosed("Graph.candidateInfo", "Graph", () -> graph.candidateInfo(0));
        assertClosed("Graph.planInfo", "Graph", () -> graph.planInfo(0));
        assertClosed("Graph.selectPlan", "Graph", () -> graph.selectPlan(0));
        assertClosed("Graph.buildPlansOnThreads", "Graph", () -> graph.buildPlansOnThreads(BuildPolicy.ALL, 2));
    }
}
