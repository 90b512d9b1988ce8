package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Plans for the captured H100 description with no GPU. Convolutions build whole plans; matmuls and
 * attention (runtime-compiled engines) are supported up to the plan build, which needs a CUDA
 * driver (with the toolkit's stub driver on the library path, cuDNN lists their engines).
 */
class DevicelessBuildTest {
    private String json;

    @BeforeEach
    void needCudnnAndTheDescription() {
        json = TestSupport.cudnnAndDeviceJsonOrSkip();
    }

    @Test
    void theSeedConvolutionBuildsAWholePlan() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.build(null, new BuildOptions().devicePropertiesJson(json).heurModes(HeurMode.A, HeurMode.FALLBACK)
                    .policy(BuildPolicy.HEURISTICS_CHOICE));
            assertTrue(graph.isBuilt());
            assertTrue(graph.planCount() >= 1);
            assertTrue(graph.engineTag().startsWith("eng"), graph.engineTag());
            assertTrue(graph.engineIndex() >= 0);
            assertTrue(graph.workspaceSize() >= 0);
            assertTrue(graph.describe().contains(graph.engineTag()));
        }
    }

    @Test
    void theConvolutionBuildsStepByStep() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.setDeviceProperties(json);
            graph.validate();
            graph.buildOperationGraph(null);
            graph.createExecutionPlans(HeurMode.A, HeurMode.FALLBACK);
            assertTrue(graph.candidateCount() >= 1);
            graph.deselectWorkspaceGreaterThan(1L << 30);
            graph.checkSupport();
            assertTrue(graph.viableCount() >= 1);
            graph.buildPlans(BuildPolicy.ALL);
            assertTrue(graph.planCount() >= 1);
            assertTrue(graph.isBuilt());
        }
    }

    /** The candidates' engine notes, read before any plan, select them as in C. */
    @Test
    void candidatesCarryTheirNotesAndAreSelectedByThem() {
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.setDeviceProperties(json);
            graph.validate();
            graph.buildOperationGraph(null);
            TestSupport.assertFails(Status.BAD_STATE, "Graph.selectByNotes",
                    () -> graph.selectByNotes(java.util.EnumSet.noneOf(NumericalNote.class),
                            java.util.EnumSet.of(BehaviorNote.RUNTIME_COMPILATION),
                            java.util.EnumSet.noneOf(NumericalNote.class), java.util.EnumSet.noneOf(BehaviorNote.class)));
            graph.createExecutionPlans(HeurMode.A, HeurMode.FALLBACK);
            long count = graph.candidateCount(), compiled = 0;
            for (long i = 0; i < count; ++i) {
                CandidateNotes notes = graph.candidateNotes(i);
                assertTrue(notes.tag.startsWith("eng"), notes.toString());
                if (notes.behavior.contains(BehaviorNote.RUNTIME_COMPILATION)) ++compiled;
            }
            graph.selectByNotes(java.util.EnumSet.noneOf(NumericalNote.class),
                    java.util.EnumSet.of(BehaviorNote.RUNTIME_COMPILATION), java.util.EnumSet.noneOf(NumericalNote.class),
                    java.util.EnumSet.noneOf(BehaviorNote.class));
            assertEquals(count - compiled, graph.viableCount());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.candidateNotes: index",
                    () -> graph.candidateNotes(count));
        }
        // The same selection as a build option: the plan's engine is not runtime-compiled.
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.build(null, new BuildOptions().devicePropertiesJson(json).usePlanCache(false).deselectNotes(
                    java.util.EnumSet.noneOf(NumericalNote.class), java.util.EnumSet.of(BehaviorNote.RUNTIME_COMPILATION)));
            for (long i = 0; i < graph.candidateCount(); ++i) {
                CandidateNotes notes = graph.candidateNotes(i);
                if (notes.tag.equals(graph.engineTag()))
                    assertFalse(notes.behavior.contains(BehaviorNote.RUNTIME_COMPILATION), notes.toString());
            }
        }
    }

    @Test
    void matmulWithBiasIsSupported() {
        try (Graph graph = new Graph(new GraphOptions().name("matmul_bias").ioDataType(DataType.HALF))) {
            Tensor c = graph.bias(graph.matmul(graph.tensor("A", 16, 128, 512), graph.tensor("B", 16, 512, 128)),
                    graph.tensor("D", 1, 128, 128));
            c.setOutput(true);
            expectSupported(graph);
        }
    }

    /** SwiGLU's first half: the gate and up projections read one x, joined by silu(gate) * up. */
    @Test
    void swigluInOneGraphIsSupported() {
        try (Graph graph = new Graph(new GraphOptions().name("swiglu").ioDataType(DataType.BFLOAT16))) {
            Tensor x = graph.tensor("x", 1, 256, 512);
            Tensor gate = graph.matmul(x, graph.tensor("w_gate", 1, 512, 1024));
            Tensor up = graph.matmul(x, graph.tensor("w_up", 1, 512, 1024));
            graph.mul(graph.silu(gate), up).setOutput(true);
            expectSupported(graph);
        }
    }

    /** FP8 attention takes the band's right bound aligned bottom-right; soft-capping, which cuDNN
     *  9.19 computes wrongly there, is refused at build. */
    @Test
    void fp8AttentionTakesTheBandAndRefusesSoftCapping() {
        for (double softcap : new double[] {0, 25}) {
            try (Graph graph = new Graph(new GraphOptions().name("fp8_band").ioDataType(DataType.FP8_E4M3))) {
                Tensor q = graph.tensor("q", new long[] {2, 4, 128, 128}, null, DataType.FP8_E4M3);
                Tensor k = graph.tensor("k", new long[] {2, 4, 256, 128}, null, DataType.FP8_E4M3);
                Tensor v = graph.tensor("v", new long[] {2, 4, 256, 128}, null, DataType.FP8_E4M3);
                SdpaFp8Scales scales = new SdpaFp8Scales();
                Tensor s = graph.tensor("s", new long[] {1, 1, 1, 1}, null, DataType.FLOAT);
                scales.descaleQ = scales.descaleK = scales.descaleV = scales.descaleS = scales.scaleS = scales.scaleO = s;
                SdpaFp8Result fwd = graph.sdpaFp8(q, k, v, scales, new SdpaOptions().attnScale(0.125).generateStats(true)
                        .rightBound(16).diagonalAlignment(DiagonalAlignment.BOTTOM_RIGHT).softcap(softcap));
                for (Tensor out : new Tensor[] {fwd.o, fwd.stats, fwd.amaxS, fwd.amaxO}) out.setOutput(true);
                if (softcap == 0) {
                    expectSupported(graph);
                } else {
                    TestSupport.assertFails(Status.NOT_SUPPORTED, "FP8 attention forward with soft-capping or a score modifier",
                            () -> graph.build(null, new BuildOptions().devicePropertiesJson(json)));
                }
            }
        }
    }

    @Test
    void aCompileTimeConstantNeedsTheCudnnThatCompilesIt() {
        try (Graph graph = new Graph(new GraphOptions().name("constant").ioDataType(DataType.HALF))) {
            Tensor c = graph.matmul(graph.tensor("A", 4, 256, 128), graph.tensor("B", 4, 128, 64));
            Tensor y = graph.pointwise(PointwiseMode.MUL, c, graph.constant("half", 0.5, DataType.FLOAT), null, null);
            y.setOutput(true);
            assertTrue(graph.describe().contains("value=0.5 (compile-time constant)"), graph.describe());
            TestSupport.assertFails(Status.NOT_SUPPORTED, "compile-time constant scalars (Graph.constant) needs cuDNN >= 9.22.0",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json)));
        }
    }

    @Test
    void attentionIsSupported() {
        try (Graph graph = new Graph(new GraphOptions().name("sdpa").ioDataType(DataType.HALF))) {
            Tensor q = graph.tensor("q", 1, 8, 256, 64);
            Tensor k = graph.tensor("k", 1, 8, 256, 64);
            Tensor v = graph.tensor("v", 1, 8, 256, 64);
            graph.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).causalMask(CausalMask.TOP_LEFT)).o.setOutput(true);
            expectSupported(graph);
        }
    }

    @Test
    void theDefaultPlansEngineHasItsTagsKnobs() {
        String tag = defaultEngineTag();
        long engine = tagEngine(tag);
        List<KnobChoice> tagKnobs = tagKnobs(tag);
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            operationGraph(graph);
            assertTrue(graph.engineCount() > 0);
            assertTrue(engine < graph.engineCount(), tag + " of " + graph.engineCount() + " engines");
            List<KnobRange> knobs = graph.engineKnobs(engine);
            assertFalse(knobs.isEmpty(), "engine " + engine + " has no knobs");
            for (KnobChoice choice : tagKnobs) {
                KnobRange range = knobs.stream().filter(k -> k.type == choice.type).findFirst().orElse(null);
                assertTrue(range != null, choice + " of " + tag + " is not among " + knobs);
                assertTrue(range.min <= choice.value && choice.value <= range.max, choice + " outside " + range);
            }
        }
    }

    @Test
    void aCandidateAddedByHandBuildsItsConfig() {
        String tag = defaultEngineTag();
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            operationGraph(graph);
            graph.addCandidate(tagEngine(tag), tagKnobs(tag));
            assertEquals(1, graph.candidateCount());
            graph.checkSupport();
            graph.buildPlans(BuildPolicy.ALL);
            assertTrue(graph.isBuilt());
            assertEquals(tag, graph.engineTag());
        }
    }

    @Test
    void aCandidateAddedTwiceIsADuplicate() {
        String tag = defaultEngineTag();
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            operationGraph(graph);
            KnobChoice[] knobs = tagKnobs(tag).toArray(new KnobChoice[0]);
            graph.addCandidate(tagEngine(tag), knobs);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "a duplicate", () -> graph.addCandidate(tagEngine(tag), knobs));
        }
    }

    @Test
    void anEngineIndexPastTheCountIsOutOfRange() {
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            operationGraph(graph);
            long count = graph.engineCount();
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "out of range", () -> graph.engineKnobs(count));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "out of range", () -> graph.addCandidate(count));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "out of range", () -> graph.engineKnobs(-1));
        }
    }

    @Test
    void aNegativeKnobSearchIsRefused() {
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "autotune_knob_search",
                    () -> graph.build(null, new BuildOptions().devicePropertiesJson(json).autotuneKnobSearch(-1)));
            assertFalse(graph.isBuilt());
        }
    }

    /** The engine tag of the 1x1 convolution's plan from an ordinary build. */
    private String defaultEngineTag() {
        try (Graph graph = TestSupport.pointwiseConvGraph()) {
            graph.build(null, new BuildOptions().devicePropertiesJson(json).usePlanCache(false));
            return graph.engineTag();
        }
    }

    private void operationGraph(Graph graph) {
        graph.setDeviceProperties(json);
        graph.validate();
        graph.buildOperationGraph(null);
    }

    /** "eng62_k2=0_k13=1": 62. */
    private static long tagEngine(String tag) {
        assertTrue(tag.matches("eng[0-9]+(_k[0-9]+=-?[0-9]+)*"), "engine tag " + tag);
        return Long.parseLong(tag.split("_")[0].substring("eng".length()));
    }

    /** "eng62_k2=0_k13=1": k2 = 0, k13 = 1. */
    private static List<KnobChoice> tagKnobs(String tag) {
        List<KnobChoice> knobs = new ArrayList<>();
        String[] parts = tag.split("_");
        for (int i = 1; i < parts.length; ++i) {
            String[] knob = parts[i].substring(1).split("=");
            knobs.add(new KnobChoice(Integer.parseInt(knob[0]), Long.parseLong(knob[1])));
        }
        return knobs;
    }

    /** Heuristics and the support check pass; the plan builds, or fails only for want of a driver. */
    private void expectSupported(Graph graph) {
        graph.setDeviceProperties(json);
        graph.validate();
        graph.buildOperationGraph(null);
        graph.createExecutionPlans();
        if (graph.viableCount() == 0) {
            // No driver library at all: cuDNN lists no runtime-compiled engine, and the library says
            // it cannot tell.
            assertFalse(TestSupport.gpuAvailable() || stubDriverVisible(),
                    "no viable engine although a CUDA driver library is visible");
            TestSupport.assertFails(Status.CANNOT_TELL, "Graph.checkSupport", graph::checkSupport);
            return;
        }
        graph.checkSupport();
        try {
            graph.buildPlans(BuildPolicy.HEURISTICS_CHOICE);
            assertTrue(graph.isBuilt());
        } catch (CannotTellException e) {
            assertEquals(Status.CANNOT_TELL, e.status(), e.getMessage());
            assertTrue(e.getMessage().contains("cuLibraryLoadData") || e.getMessage().contains("CUDA_DRIVER"),
                    "the plan build failed for a reason other than the missing driver: " + e.getMessage());
        }
    }

    /**
     * Without a GPU the library tells three answers apart. With the toolkit's stub (as this suite
     * runs), a supported graph whose engines compile their kernels passes the support check and
     * cannot be built here (CANNOT_TELL), and a graph no engine runs is NOT_SUPPORTED; with no driver
     * library at all (a child JVM without the stub), neither can be judged (CANNOT_TELL).
     */
    @Test
    void withoutAGpuCannotTellIsNotNotSupported() throws Exception {
        assumeFalse(TestSupport.gpuAvailable(), "a GPU is here: every answer is the GPU's");
        assertEquals("matmul check OK build CANNOT_TELL; softmax check NOT_SUPPORTED", DriverProbe.answers(json));
        ProcessBuilder child = TestSupport.childJvm(DriverProbe.class);
        String paths = child.environment().getOrDefault("LD_LIBRARY_PATH", "");
        child.environment().put("LD_LIBRARY_PATH", String.join(":", Arrays.stream(paths.split(":"))
                .filter(p -> !p.contains("stub-driver")).toArray(String[]::new)));
        child.environment().put("CUDNNFE_STUB_DRIVER", "0");
        String output = TestSupport.output(child.start());
        assumeFalse(output.contains("matmul check OK"), "a CUDA driver library is installed here: the no-driver case cannot be made");
        assertTrue(output.contains("answers: matmul check CANNOT_TELL build not tried; softmax check CANNOT_TELL"), output);
    }

    private static boolean stubDriverVisible() {
        String path = System.getenv("LD_LIBRARY_PATH");
        return path != null && path.contains("stub-driver");
    }
}
