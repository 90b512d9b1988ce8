using System;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Plans for the captured H100 description with no GPU. Convolutions build whole plans; matmuls
    /// and attention (runtime-compiled engines) are supported up to the plan build, which needs a
    /// CUDA driver (with the toolkit's stub driver on the library path, cuDNN lists their engines).
    /// </summary>
    [TestFixture]
    public class DevicelessBuildTests
    {
        private string json;

        [SetUp]
        public void NeedCudnnAndTheDescription()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            json = TestSupport.DeviceJson();
            if (json == null) Assert.Ignore("no device description: set CUDNNFE_DEVICE_JSON");
        }

        [Test]
        public void TheSeedConvolutionBuildsAWholePlan()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Build(null, new BuildOptions
                {
                    DevicePropertiesJson = json,
                    HeurModes = new[] { HeurMode.A, HeurMode.Fallback },
                    Policy = BuildPolicy.HeuristicsChoice,
                    MaxWorkspaceBytes = 1L << 30,
                });
                Assert.IsTrue(graph.IsBuilt);
                Assert.GreaterOrEqual(graph.PlanCount, 1);
                StringAssert.StartsWith("eng", graph.EngineTag);
                Assert.GreaterOrEqual(graph.EngineIndex, 0);
                Assert.GreaterOrEqual(graph.WorkspaceSize, 0);
            }
        }

        [Test]
        public void TheConvolutionBuildsStepByStep()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.SetDeviceProperties(json);
                graph.Validate();
                graph.BuildOperationGraph(null);
                graph.CreateExecutionPlans(HeurMode.A, HeurMode.Fallback);
                Assert.GreaterOrEqual(graph.CandidateCount, 1);
                graph.DeselectWorkspaceGreaterThan(1L << 30);
                graph.CheckSupport();
                graph.BuildPlans(BuildPolicy.All);
                Assert.GreaterOrEqual(graph.PlanCount, 1);
            }
        }

        [Test]
        public void MatmulWithBiasIsSupported()
        {
            using (var graph = new Graph(new GraphOptions { Name = "matmul_bias", IoDataType = DataType.Half }))
            {
                graph.Bias(graph.Matmul(graph.Tensor("A", 16, 128, 512), graph.Tensor("B", 16, 512, 128)),
                           graph.Tensor("D", 1, 128, 128)).SetOutput(true);
                ExpectSupported(graph);
            }
        }

        [Test]
        public void AttentionIsSupported()
        {
            using (var graph = new Graph(new GraphOptions { Name = "sdpa", IoDataType = DataType.Half }))
            {
                Tensor q = graph.Tensor("q", 1, 8, 256, 64), k = graph.Tensor("k", 1, 8, 256, 64), v = graph.Tensor("v", 1, 8, 256, 64);
                graph.Sdpa(q, k, v, new SdpaOptions { AttnScale = 0.125, CausalMask = CausalMask.TopLeft }).O.SetOutput(true);
                ExpectSupported(graph);
            }
        }

        /// <summary>Heuristics and the support check pass; the plan builds, or fails only for want of a driver.</summary>
        private void ExpectSupported(Graph graph)
        {
            graph.SetDeviceProperties(json);
            graph.Validate();
            graph.BuildOperationGraph(null);
            graph.CreateExecutionPlans();
            if (graph.ViableCount == 0)
            {
                // No driver library at all: cuDNN lists no runtime-compiled engine, and says so.
                string path = Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "";
                Assert.IsFalse(TestSupport.GpuAvailable() || path.Contains("stub-driver"),
                               "no viable engine although a CUDA driver library is visible");
                TestSupport.AssertFails(Status.NotSupported, "fe_graph_check_support", graph.CheckSupport);
                return;
            }
            graph.CheckSupport();
            try
            {
                graph.BuildPlans(BuildPolicy.HeuristicsChoice);
                Assert.IsTrue(graph.IsBuilt);
            }
            catch (CudnnFeException e)
            {
                Assert.AreEqual(Status.NotSupported, e.Status, e.Message);
                Assert.IsTrue(e.Message.Contains("cuLibraryLoadData") || e.Message.Contains("CUDA_DRIVER"),
                              "the plan build failed for a reason other than the missing driver: " + e.Message);
            }
        }
    }
}
