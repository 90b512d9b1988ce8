using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;
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
            json = TestSupport.CudnnAndDeviceJsonOrIgnore();
        }

        /// <summary>Without a GPU the library tells three answers apart. With the toolkit's stub (as
        /// this suite runs), a supported graph whose engines compile their kernels passes the support
        /// check and cannot be built here (CannotTell), and a graph no engine runs is NotSupported;
        /// with no driver library at all (a child process without the stub), neither can be judged
        /// (CannotTell).</summary>
        [Test]
        public void WithoutAGpuCannotTellIsNotNotSupported()
        {
            if (TestSupport.GpuAvailable()) Assert.Ignore("a GPU is here: every answer is the GPU's");
            Assert.AreEqual("matmul check Ok build CannotTell; softmax check NotSupported", UnavailableProbe.Answers(json));
            string directory = System.IO.Path.GetDirectoryName(typeof(DevicelessBuildTests).Assembly.Location);
            var start = new System.Diagnostics.ProcessStartInfo(System.Diagnostics.Process.GetCurrentProcess().MainModule.FileName,
                "\"" + System.IO.Path.Combine(directory, "UnavailableProbe.exe") + "\" answers")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
            };
            string paths = Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "";
            start.EnvironmentVariables["LD_LIBRARY_PATH"] = string.Join(":", paths.Split(':').Where(p => !p.Contains("stub-driver")));
            start.EnvironmentVariables["CUDNNFE_STUB_DRIVER"] = "0";
            start.EnvironmentVariables["MONO_PATH"] = directory;
            using (var child = System.Diagnostics.Process.Start(start))
            {
                string output = child.StandardOutput.ReadToEnd();
                child.WaitForExit();
                Assert.AreEqual(0, child.ExitCode, output);
                if (output.Contains("matmul check Ok")) Assert.Ignore("a CUDA driver library is installed here: the no-driver case cannot be made");
                StringAssert.Contains("answers: matmul check CannotTell build not tried; softmax check CannotTell", output);
            }
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

        /// <summary>The candidates' engine notes, read before any plan, select them as in C.</summary>
        [Test]
        public void CandidatesCarryTheirNotesAndAreSelectedByThem()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.SetDeviceProperties(json);
                graph.Validate();
                graph.BuildOperationGraph(null);
                graph.CreateExecutionPlans(HeurMode.A, HeurMode.Fallback);
                long count = graph.CandidateCount, compiled = 0;
                for (long i = 0; i < count; ++i)
                {
                    CandidateNotes notes = graph.GetCandidateNotes(i);
                    StringAssert.StartsWith("eng", notes.Tag);
                    if ((notes.Behavior & BehaviorNote.RuntimeCompilation) != 0) ++compiled;
                }
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.SelectByNotes: deselect_numerical is 0x400",
                    () => graph.SelectByNotes((NumericalNote)1024, BehaviorNote.None, NumericalNote.None, BehaviorNote.None));
                graph.SelectByNotes(NumericalNote.None, BehaviorNote.RuntimeCompilation, NumericalNote.None, BehaviorNote.None);
                Assert.AreEqual(count - compiled, graph.ViableCount);
            }
            // The same selection as a build option: the plan's engine is not runtime-compiled.
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Build(null, new BuildOptions { DevicePropertiesJson = json, UsePlanCache = false,
                                                     DeselectBehaviorNotes = BehaviorNote.RuntimeCompilation });
                for (long i = 0; i < graph.CandidateCount; ++i)
                {
                    CandidateNotes notes = graph.GetCandidateNotes(i);
                    if (notes.Tag == graph.EngineTag)
                        Assert.AreEqual(BehaviorNote.None, notes.Behavior & BehaviorNote.RuntimeCompilation, notes.ToString());
                }
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

        // SwiGLU's first half: the gate and up projections read one x, joined by silu(gate) * up.
        [Test]
        public void SwigluInOneGraphIsSupported()
        {
            using (var graph = new Graph(new GraphOptions { Name = "swiglu", IoDataType = DataType.BFloat16 }))
            {
                Tensor x = graph.Tensor("x", 1, 256, 512);
                Tensor gate = graph.Matmul(x, graph.Tensor("w_gate", 1, 512, 1024));
                Tensor up = graph.Matmul(x, graph.Tensor("w_up", 1, 512, 1024));
                graph.Mul(graph.Silu(gate), up).SetOutput(true);
                ExpectSupported(graph);
            }
        }

        // FP8 attention takes the band's right bound aligned bottom-right; soft-capping, which cuDNN
        // 9.19 computes wrongly there, is refused at build.
        [Test]
        public void Fp8AttentionTakesTheBandAndRefusesSoftCapping()
        {
            foreach (double softcap in new double[] { 0, 25 })
            {
                using (var graph = new Graph(new GraphOptions { Name = "fp8_band", IoDataType = DataType.Fp8E4M3 }))
                {
                    Tensor q = graph.Tensor("q", new long[] { 2, 4, 128, 128 }, null, DataType.Fp8E4M3);
                    Tensor k = graph.Tensor("k", new long[] { 2, 4, 256, 128 }, null, DataType.Fp8E4M3);
                    Tensor v = graph.Tensor("v", new long[] { 2, 4, 256, 128 }, null, DataType.Fp8E4M3);
                    Tensor s = graph.Tensor("s", new long[] { 1, 1, 1, 1 }, null, DataType.Float);
                    var scales = new SdpaFp8Scales { DescaleQ = s, DescaleK = s, DescaleV = s, DescaleS = s, ScaleS = s, ScaleO = s };
                    SdpaFp8Result fwd = graph.SdpaFp8(q, k, v, scales, new SdpaOptions {
                        AttnScale = 0.125, GenerateStats = true, RightBound = 16,
                        DiagonalAlignment = DiagonalAlignment.BottomRight, Softcap = softcap });
                    foreach (Tensor output in new[] { fwd.O, fwd.Stats, fwd.AmaxS, fwd.AmaxO }) output.SetOutput(true);
                    if (softcap == 0)
                        ExpectSupported(graph);
                    else
                        TestSupport.AssertFails(Status.NotSupported, "FP8 attention forward with soft-capping or a score modifier",
                                                () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json }));
                }
            }
        }

        [Test]
        public void ACompileTimeConstantNeedsTheCudnnThatCompilesIt()
        {
            using (var graph = new Graph(new GraphOptions { Name = "constant", IoDataType = DataType.Half }))
            {
                Tensor c = graph.Matmul(graph.Tensor("A", 4, 256, 128), graph.Tensor("B", 4, 128, 64));
                graph.Pointwise(PointwiseMode.Mul, c, graph.Constant("half", 0.5, DataType.Float), null, null).SetOutput(true);
                StringAssert.Contains("value=0.5 (compile-time constant)", graph.Describe());
                TestSupport.AssertFails(Status.NotSupported, "compile-time constant scalars (Graph.Constant) needs cuDNN >= 9.22.0",
                                        () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json }));
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

        [Test]
        public void TheDefaultPlansEngineHasItsTagsKnobs()
        {
            string tag = DefaultEngineTag();
            long engine = TagEngine(tag);
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                OperationGraph(graph);
                Assert.Greater(graph.EngineCount, 0);
                Assert.Less(engine, graph.EngineCount, tag);
                IList<KnobRange> knobs = graph.EngineKnobs(engine);
                Assert.IsNotEmpty(knobs, "engine " + engine + " has no knobs");
                foreach (KnobChoice choice in TagKnobs(tag))
                {
                    List<KnobRange> ranges = knobs.Where(k => k.Type == choice.Type).ToList();
                    Assert.AreEqual(1, ranges.Count, choice + " of " + tag + " among " + string.Join(", ", knobs));
                    Assert.IsTrue(ranges[0].Min <= choice.Value && choice.Value <= ranges[0].Max, choice + " outside " + ranges[0]);
                }
            }
        }

        [Test]
        public void ACandidateAddedByHandBuildsItsConfig()
        {
            string tag = DefaultEngineTag();
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                OperationGraph(graph);
                graph.AddCandidate(TagEngine(tag), TagKnobs(tag));
                Assert.AreEqual(1, graph.CandidateCount);
                graph.CheckSupport();
                graph.BuildPlans(BuildPolicy.All);
                Assert.IsTrue(graph.IsBuilt);
                Assert.AreEqual(tag, graph.EngineTag);
            }
        }

        [Test]
        public void ACandidateAddedTwiceIsADuplicate()
        {
            string tag = DefaultEngineTag();
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                OperationGraph(graph);
                KnobChoice[] knobs = TagKnobs(tag).ToArray();
                graph.AddCandidate(TagEngine(tag), knobs);
                TestSupport.AssertFails(Status.InvalidArgument, "a duplicate", () => graph.AddCandidate(TagEngine(tag), knobs));
            }
        }

        [Test]
        public void AnEngineIndexPastTheCountIsOutOfRange()
        {
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                OperationGraph(graph);
                long count = graph.EngineCount;
                TestSupport.AssertFails(Status.InvalidArgument, "out of range", () => graph.EngineKnobs(count));
                TestSupport.AssertFails(Status.InvalidArgument, "out of range", () => graph.AddCandidate(count));
                TestSupport.AssertFails(Status.InvalidArgument, "out of range", () => graph.EngineKnobs(-1));
            }
        }

        [Test]
        public void ANegativeKnobSearchIsRefused()
        {
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                TestSupport.AssertFails(Status.InvalidArgument, "autotune_knob_search",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, AutotuneKnobSearch = -1 }));
                Assert.IsFalse(graph.IsBuilt);
            }
        }

        /// <summary>The engine tag of the 1x1 convolution's plan from an ordinary build.</summary>
        private string DefaultEngineTag()
        {
            using (Graph graph = TestSupport.PointwiseConvGraph())
            {
                graph.Build(null, new BuildOptions { DevicePropertiesJson = json, UsePlanCache = false });
                return graph.EngineTag;
            }
        }

        private void OperationGraph(Graph graph)
        {
            graph.SetDeviceProperties(json);
            graph.Validate();
            graph.BuildOperationGraph(null);
        }

        /// <summary>"eng62_k2=0_k13=1": 62.</summary>
        private static long TagEngine(string tag)
        {
            StringAssert.IsMatch("^eng[0-9]+(_k[0-9]+=-?[0-9]+)*$", tag);
            return long.Parse(tag.Split('_')[0].Substring("eng".Length));
        }

        /// <summary>"eng62_k2=0_k13=1": k2 = 0, k13 = 1.</summary>
        private static List<KnobChoice> TagKnobs(string tag)
        {
            return Regex.Matches(tag, "_k([0-9]+)=(-?[0-9]+)").Cast<Match>()
                .Select(m => new KnobChoice(int.Parse(m.Groups[1].Value), long.Parse(m.Groups[2].Value))).ToList();
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
                // No driver library at all: cuDNN lists no runtime-compiled engine, and the library
                // says it cannot tell.
                string path = Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "";
                Assert.IsFalse(TestSupport.GpuAvailable() || path.Contains("stub-driver"),
                               "no viable engine although a CUDA driver library is visible");
                TestSupport.AssertFails(Status.CannotTell, "Graph.CheckSupport", graph.CheckSupport);
                return;
            }
            graph.CheckSupport();
            try
            {
                graph.BuildPlans(BuildPolicy.HeuristicsChoice);
                Assert.IsTrue(graph.IsBuilt);
            }
            catch (CannotTellException e)
            {
                Assert.AreEqual(Status.CannotTell, e.Status, e.Message);
                Assert.IsTrue(e.Message.Contains("cuLibraryLoadData") || e.Message.Contains("CUDA_DRIVER"),
                              "the plan build failed for a reason other than the missing driver: " + e.Message);
            }
        }
    }
}
