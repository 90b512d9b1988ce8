using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Engine and plan control for the captured H100 description with no GPU, as the C deviceless
    /// tier tests it (tests/deviceless/engine_control_test.cpp): candidates' and plans' info,
    /// deselection by engine name and by shared memory, plans built on several threads or one by
    /// index, any plan selected to run, and the build options that do the same in one call.
    /// </summary>
    [TestFixture]
    public class EngineControlTests
    {
        private string json;

        [SetUp]
        public void NeedCudnnAndTheDescription()
        {
            json = TestSupport.CudnnAndDeviceJsonOrIgnore();
        }

        /// <summary>A bf16 channels-last 3x3 convolution: many precompiled engines build whole plans here.</summary>
        private static Graph Conv(string name)
        {
            var graph = new Graph(new GraphOptions { Name = name, IoDataType = DataType.BFloat16, ComputeDataType = DataType.Float });
            long[] xDims = { 16, 64, 28, 28 }, wDims = { 64, 64, 3, 3 };
            Tensor x = graph.Tensor("x", xDims, Library.StridesChannelsLast(xDims), DataType.NotSet);
            Tensor w = graph.Tensor("w", wDims, Library.StridesChannelsLast(wDims), DataType.NotSet);
            graph.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 } }).SetOutput(true);
            return graph;
        }

        /// <summary>Lowered for the described GPU, with heuristics' candidates.</summary>
        private Graph WithCandidates(string name)
        {
            Graph graph = Conv(name);
            graph.SetDeviceProperties(json);
            graph.BuildOperationGraph(null);
            graph.CreateExecutionPlans();
            return graph;
        }

        private static List<ConfigInfo> Candidates(Graph graph)
        {
            var list = new List<ConfigInfo>();
            for (long i = 0; i < graph.CandidateCount; ++i) list.Add(graph.GetCandidateInfo(i));
            return list;
        }

        private static List<string> PlanTags(Graph graph)
        {
            var tags = new List<string>();
            for (long i = 0; i < graph.PlanCount; ++i) tags.Add(graph.GetPlanInfo(i).Tag);
            return tags;
        }

        [Test]
        public void CandidatesReportTheirEngineWorkspaceSharedMemoryAndNotes()
        {
            using (Graph graph = WithCandidates("info"))
            {
                List<ConfigInfo> list = Candidates(graph);
                Assert.IsNotEmpty(list);
                for (int i = 0; i < list.Count; ++i)
                {
                    ConfigInfo c = list[i];
                    StringAssert.StartsWith("eng" + c.EngineIndex, c.Tag);
                    Assert.GreaterOrEqual(c.WorkspaceBytes, 0, c.ToString());
                    Assert.GreaterOrEqual(c.SharedMemoryBytes, -1, c.ToString());
                    Assert.IsTrue(c.Viable, c.ToString());
                    CandidateNotes notes = graph.GetCandidateNotes(i);
                    Assert.AreEqual(notes.Tag, c.Tag);
                    Assert.AreEqual(notes.Numerical, c.NumericalNotes);
                    Assert.AreEqual(notes.Behavior, c.BehaviorNotes);
                    Assert.AreEqual(c, graph.GetCandidateInfo(i));
                }
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.GetCandidateInfo: index",
                                        () => graph.GetCandidateInfo(list.Count));
                TestSupport.AssertFails(Status.BadState, "Graph.GetPlanInfo", () => graph.GetPlanInfo(0));
            }
        }

        [Test]
        public void AnEngineNameDeselectsEverySettingOfItAndATagOnlyThatOne()
        {
            using (Graph graph = WithCandidates("by_name"))
            {
                List<ConfigInfo> list = Candidates(graph);
                if (list.Count < 2) Assert.Ignore("one candidate only");
                long firstEngine = list[0].EngineIndex;
                string secondTag = list[1].Tag;
                graph.DeselectEngines("eng" + firstEngine, secondTag);
                foreach (ConfigInfo c in Candidates(graph))
                {
                    bool named = c.EngineIndex == firstEngine || c.Tag == secondTag;
                    Assert.AreEqual(!named, c.Viable, c.ToString());
                }
            }
            // A name no candidate has deselects nothing.
            using (Graph graph = WithCandidates("unknown_name"))
            {
                graph.DeselectEngines(new List<string> { "eng99999", "eng5_k2=-1" });
                foreach (ConfigInfo c in Candidates(graph)) Assert.IsTrue(c.Viable, c.ToString());
            }
        }

        [Test]
        public void AMalformedEngineNameIsRefused()
        {
            using (Graph graph = WithCandidates("malformed"))
            {
                TestSupport.AssertFails(Status.InvalidArgument, "is not an engine name", () => graph.DeselectEngines("eng6;eng7"));
                TestSupport.AssertFails(Status.InvalidArgument, "is not an engine name", () => graph.DeselectEngines("eng6", ""));
                TestSupport.AssertFails(Status.InvalidArgument, "is not an engine name", () => graph.DeselectEngines());
                TestSupport.AssertNullArgument("names", "Graph.DeselectEngines: names is null",
                                        () => graph.DeselectEngines((string[])null));
                foreach (ConfigInfo c in Candidates(graph)) Assert.IsTrue(c.Viable, "a refused list deselected " + c);
            }
            using (Graph early = Conv("early"))
                TestSupport.AssertFails(Status.BadState, "Graph.DeselectEngines", () => early.DeselectEngines("eng0"));
        }

        [Test]
        public void ASharedMemoryLimitDeselectsTheConfigsReportedOverIt()
        {
            using (Graph graph = WithCandidates("shared_memory"))
            {
                List<ConfigInfo> list = Candidates(graph);
                long most = list.Max(c => c.SharedMemoryBytes);
                if (most <= 0) Assert.Ignore("no candidate reports its shared memory (no runtime-compiled engine listed)");
                graph.DeselectSharedMemoryGreaterThan(most - 1);
                int kept = 0;
                foreach (ConfigInfo c in Candidates(graph))
                {
                    // Over the limit: deselected. Not reported (-1): kept.
                    Assert.AreEqual(c.SharedMemoryBytes < most, c.Viable, c.ToString());
                    if (c.Viable) ++kept;
                }
                Assert.Less(kept, list.Count);
                TestSupport.AssertFails(Status.InvalidArgument, "a shared-memory limit is 0 or more",
                                        () => graph.DeselectSharedMemoryGreaterThan(-1));
            }
        }

        [Test]
        public void PlansBuiltOnSeveralThreadsAreThoseBuiltOnOne()
        {
            using (Graph one = WithCandidates("one_thread"))
            using (Graph four = WithCandidates("four_threads"))
            {
                one.CheckSupport();
                one.BuildPlans(BuildPolicy.All);
                four.CheckSupport();
                four.BuildPlansOnThreads(BuildPolicy.All, 4);
                Assert.GreaterOrEqual(PlanTags(one).Count, 2);
                Assert.AreEqual(PlanTags(one), PlanTags(four));
                Assert.AreEqual(one.EngineTag, four.EngineTag);
            }
            using (Graph bad = WithCandidates("bad_threads"))
            {
                bad.CheckSupport();
                TestSupport.AssertFails(Status.InvalidArgument, "threads", () => bad.BuildPlansOnThreads(BuildPolicy.All, 65));
                TestSupport.AssertFails(Status.InvalidArgument, "threads", () => bad.BuildPlansOnThreads(BuildPolicy.All, 0));
            }
        }

        [Test]
        public void AnyBuiltPlanCanBeTheOneThatRuns()
        {
            using (Graph graph = WithCandidates("select"))
            {
                graph.CheckSupport();
                TestSupport.AssertFails(Status.BadState, "Graph.SelectPlan", () => graph.SelectPlan(0));
                graph.BuildPlans(BuildPolicy.All);
                long plans = graph.PlanCount;
                Assert.GreaterOrEqual(plans, 2);
                Assert.AreEqual(graph.GetPlanInfo(0).Tag, graph.EngineTag, "the first plan runs");
                graph.SelectPlan(1);
                ConfigInfo second = graph.GetPlanInfo(1);
                Assert.AreEqual(second.Tag, graph.EngineTag);
                Assert.AreEqual(second.WorkspaceBytes, graph.WorkspaceSize);
                Assert.IsTrue(second.Viable);
                StringAssert.Contains(second.Tag, graph.Describe());
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.SelectPlan", () => graph.SelectPlan(plans));
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.GetPlanInfo", () => graph.GetPlanInfo(plans));
                Assert.AreEqual(second.Tag, graph.EngineTag, "a refused selection changes nothing");
            }
        }

        [Test]
        public void OnePlanIsBuiltByItsCandidateIndex()
        {
            using (Graph graph = WithCandidates("by_index"))
            {
                graph.CheckSupport();
                List<ConfigInfo> list = Candidates(graph);
                // Candidates that need a runtime compilation fail without a driver; take two that build.
                var built = new List<int>();
                for (int i = list.Count - 1; i >= 0 && built.Count < 2; --i)
                {
                    try
                    {
                        graph.BuildPlanAtIndex(i);
                        built.Add(i);
                    }
                    catch (CudnnFeException e)
                    {
                        Assert.AreEqual(Status.NotSupported, e.Status, e.Message);
                        StringAssert.Contains("did not build a plan", e.Message);
                    }
                }
                Assert.AreEqual(2, built.Count);
                Assert.AreEqual(new[] { list[built[0]].Tag, list[built[1]].Tag }, PlanTags(graph));
                Assert.AreEqual(PlanTags(graph)[0], graph.EngineTag, "the first plan built runs");
                graph.SelectPlan(1);
                Assert.AreEqual(PlanTags(graph)[1], graph.EngineTag);
                Assert.AreEqual(list[built[1]].NumericalNotes, graph.GetPlanInfo(1).NumericalNotes);
                TestSupport.AssertFails(Status.InvalidArgument, "has a plan already", () => graph.BuildPlanAtIndex(built[0]));
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.BuildPlanAtIndex",
                                        () => graph.BuildPlanAtIndex(list.Count));
            }
        }

        [Test]
        public void BuildOptionsDeselectByNameSharedMemoryAndNondeterminism()
        {
            long avoided;
            using (Graph probe = WithCandidates("probe"))
                avoided = probe.GetCandidateInfo(0).EngineIndex;
            using (Graph graph = Conv("options"))
            {
                graph.Build(null, new BuildOptions
                {
                    DevicePropertiesJson = json,
                    UsePlanCache = false,
                    Policy = BuildPolicy.All,
                    DeselectEngines = new[] { "eng" + avoided },
                    Deterministic = true,
                    BuildThreads = 3,
                    MaxSharedMemoryBytes = 32 * 1024,
                });
                Assert.GreaterOrEqual(graph.PlanCount, 1);
                for (long i = 0; i < graph.PlanCount; ++i)
                {
                    ConfigInfo info = graph.GetPlanInfo(i);
                    Assert.AreNotEqual(avoided, info.EngineIndex, info.ToString());
                    Assert.AreEqual(NumericalNote.None, info.NumericalNotes & NumericalNote.Nondeterministic, info.ToString());
                    Assert.LessOrEqual(info.SharedMemoryBytes, 32 * 1024, info.ToString());
                }
            }
        }

        [Test]
        public void BuildOptionsOutOfRangeAreRefused()
        {
            using (Graph graph = Conv("refused_option"))
            {
                TestSupport.AssertFails(Status.InvalidArgument, "options.build_threads",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, BuildThreads = 65 }));
                TestSupport.AssertFails(Status.InvalidArgument, "options.build_threads",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, BuildThreads = -1 }));
                TestSupport.AssertFails(Status.InvalidArgument, "options.max_shared_memory_bytes",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, MaxSharedMemoryBytes = -1 }));
                TestSupport.AssertFails(Status.InvalidArgument, "is not an engine name",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, DeselectEngines = new[] { "eng6;eng7" } }));
                Assert.IsFalse(graph.IsBuilt);
            }
        }

        [Test]
        public void BackgroundStaticReachesTheLibrary()
        {
            using (Graph graph = Conv("background_static"))
            using (var cache = new KernelCache())
            {
                TestSupport.AssertFails(Status.InvalidArgument, "give options.kernel_cache",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, BackgroundStatic = true }));
                TestSupport.AssertFails(Status.InvalidArgument, "options.background_static needs a handle",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, KernelCache = cache, BackgroundStatic = true }));
                Assert.AreEqual(BackgroundState.None, graph.BackgroundState);
                graph.WaitBackground();
            }
        }

        [Test]
        public void SmCountTargetReachesTheLibrary()
        {
            using (Graph graph = Conv("sm_count_target"))
            using (var cache = new KernelCache())
            {
                TestSupport.AssertFails(Status.InvalidArgument, "options.sm_count_target is -1",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, SmCountTarget = -1 }));
                TestSupport.AssertFails(Status.InvalidArgument, "the cache's engine configs were chosen for every SM",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, KernelCache = cache, SmCountTarget = 16 }));
                Assert.IsFalse(graph.IsBuilt);
            }
        }

        [Test]
        public void TheStepsOfADisposedGraphThrowBadState()
        {
            Graph graph = Conv("disposed");
            graph.Dispose();
            TestSupport.AssertDisposed("Graph.DeselectEngines", "Graph", () => graph.DeselectEngines("eng0"));
            TestSupport.AssertDisposed("Graph.GetCandidateInfo", "Graph", () => graph.GetCandidateInfo(0));
            TestSupport.AssertDisposed("Graph.GetPlanInfo", "Graph", () => graph.GetPlanInfo(0));
            TestSupport.AssertDisposed("Graph.SelectPlan", "Graph", () => graph.SelectPlan(0));
            TestSupport.AssertDisposed("Graph.BuildPlansOnThreads", "Graph", () => graph.BuildPlansOnThreads(BuildPolicy.All, 2));
        }
    }
}
