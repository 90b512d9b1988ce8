package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
        assumeTrue(TestSupport.cudnnAvailable(), "cuDNN is not loadable here");
        json = TestSupport.deviceJson();
        assumeTrue(json != null, "no device description: set CUDNNFE_DEVICE_JSON");
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

    @Test
    void matmulWithBiasIsSupported() {
        try (Graph graph = new Graph(new GraphOptions().name("matmul_bias").ioDataType(DataType.HALF))) {
            Tensor c = graph.bias(graph.matmul(graph.tensor("A", 16, 128, 512), graph.tensor("B", 16, 512, 128)),
                    graph.tensor("D", 1, 128, 128));
            c.setOutput(true);
            expectSupported(graph);
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

    /** Heuristics and the support check pass; the plan builds, or fails only for want of a driver. */
    private void expectSupported(Graph graph) {
        graph.setDeviceProperties(json);
        graph.validate();
        graph.buildOperationGraph(null);
        graph.createExecutionPlans();
        if (graph.viableCount() == 0) {
            // No driver library at all: cuDNN lists no runtime-compiled engine, and says so.
            assertFalse(TestSupport.gpuAvailable() || stubDriverVisible(),
                    "no viable engine although a CUDA driver library is visible");
            TestSupport.assertFails(Status.NOT_SUPPORTED, "fe_graph_check_support", graph::checkSupport);
            return;
        }
        graph.checkSupport();
        try {
            graph.buildPlans(BuildPolicy.HEURISTICS_CHOICE);
            assertTrue(graph.isBuilt());
        } catch (CudnnFeException e) {
            assertEquals(Status.NOT_SUPPORTED, e.status(), e.getMessage());
            assertTrue(e.getMessage().contains("cuLibraryLoadData") || e.getMessage().contains("CUDA_DRIVER"),
                    "the plan build failed for a reason other than the missing driver: " + e.getMessage());
        }
    }

    private static boolean stubDriverVisible() {
        String path = System.getenv("LD_LIBRARY_PATH");
        return path != null && path.contains("stub-driver");
    }
}
