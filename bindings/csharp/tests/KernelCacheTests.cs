using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The kernel cache without a GPU, as the C deviceless tier tests it
    /// (tests/deviceless/kernel_cache_test.cpp): a dynamic-shape operation graph binds the cache,
    /// which then serializes to cuDNN's JSON and reads back; what is read is checked first; names
    /// are plain. (Building plans from it compiles kernels, which needs a GPU.)
    /// </summary>
    [TestFixture]
    public class KernelCacheTests
    {
        private string json;

        [SetUp]
        public void NeedCudnnAndTheDescription()
        {
            json = TestSupport.CudnnAndDeviceJsonOrIgnore();
        }

        /// <summary>A half matmul [1, m, 64] x [1, 64, 32].</summary>
        private static Graph Matmul(string name, long m)
        {
            var graph = new Graph(new GraphOptions { Name = name, IoDataType = DataType.Half });
            graph.Matmul(graph.Tensor("a", 1, m, 64), graph.Tensor("b", 1, 64, 32)).SetOutput(true);
            return graph;
        }

        /// <summary>The matmul with the cache, lowered for the described GPU.</summary>
        private Graph LoweredWithCache(string name, long m, KernelCache cache)
        {
            Graph graph = Matmul(name, m);
            graph.SetKernelCache(cache);
            graph.SetDeviceProperties(json);
            graph.BuildOperationGraph(null);
            return graph;
        }

        [Test]
        public void AnUnusedCacheHasNothingToSerialize()
        {
            using (var cache = new KernelCache())
            {
                TestSupport.AssertFails(Status.BadState, "build a graph with it", () => cache.Serialize());
                TestSupport.AssertFails(Status.BadState, "KernelCache.Store", () => cache.Store(null, "unused"));
            }
        }

        [Test]
        public void WhatIsReadIsCheckedBeforeCudnnSeesIt()
        {
            TestSupport.AssertFails(Status.InvalidArgument, "is an array, not a JSON object", () => KernelCache.Deserialize("[1, 2]"));
            TestSupport.AssertFails(Status.InvalidArgument, "line 1", () => KernelCache.Deserialize("not json"));
            TestSupport.AssertNullArgument("json", "KernelCache.Deserialize: json is null", () => KernelCache.Deserialize(null));
        }

        [Test]
        public void ADynamicShapeGraphBindsTheCacheWhichThenReadsBack()
        {
            using (var cache = new KernelCache())
            using (Graph first = LoweredWithCache("first", 64, cache))
            {
                first.CreateExecutionPlans();
                Assert.GreaterOrEqual(first.CandidateCount, 1);
                // Dynamic-shape kernels are compiled at run time.
                ConfigInfo info = first.GetCandidateInfo(0);
                Assert.AreEqual(BehaviorNote.RuntimeCompilation, info.BehaviorNotes & BehaviorNote.RuntimeCompilation, info.ToString());
                string text = cache.Serialize();
                StringAssert.StartsWith("{", text);
                StringAssert.EndsWith("}", text);
                // Read back, it is cuDNN's again once a graph is lowered with it.
                using (KernelCache back = KernelCache.Deserialize(text))
                using (Graph reader = LoweredWithCache("reader", 96, back))
                {
                    Assert.IsFalse(reader.IsBuilt);
                    StringAssert.StartsWith("{", back.Serialize());
                }
                // A graph of other dims shares it; a lowered graph takes no other cache.
                using (Graph second = LoweredWithCache("second", 200, cache))
                    TestSupport.AssertFails(Status.BadState, "Graph.SetKernelCache", () => second.SetKernelCache(null));
                TestSupport.AssertFails(Status.InvalidArgument, "name", () => cache.Store(null, "a/b"));
                TestSupport.AssertFails(Status.InvalidArgument, "name", () => cache.Store(null, "../escape"));
                TestSupport.AssertNullArgument("name", "KernelCache.Store: name is null", () => cache.Store(null, null));
            }
        }

        [Test]
        public void TheBuildOptionBindsTheCache()
        {
            using (var cache = new KernelCache())
            using (Graph graph = Matmul("option", 64))
            {
                try
                {
                    graph.Build(null, new BuildOptions { DevicePropertiesJson = json, UsePlanCache = false, KernelCache = cache });
                }
                catch (CannotTellException)
                {
                    // The plan's kernels are compiled at run time, which needs a GPU.
                }
                StringAssert.StartsWith("{", cache.Serialize(), "the build did not bind the cache");
            }
        }

        [Test]
        public void AGraphKeepsItsCacheAfterTheCallerDisposesIt()
        {
            var cache = new KernelCache();
            using (Graph graph = Matmul("kept", 64))
            {
                graph.SetKernelCache(cache);
                cache.Dispose();
                cache.Dispose();
                Assert.IsTrue(cache.IsDisposed);
                graph.SetDeviceProperties(json);
                graph.BuildOperationGraph(null);
                graph.CreateExecutionPlans();
                Assert.GreaterOrEqual(graph.CandidateCount, 1);
            }
            TestSupport.AssertDisposed("KernelCache.Serialize", "KernelCache", () => cache.Serialize());
            TestSupport.AssertDisposed("KernelCache.Store", "KernelCache", () => cache.Store(null, "disposed"));
            using (Graph graph = Matmul("disposed", 64))
            {
                TestSupport.AssertDisposed("Graph.SetKernelCache", "KernelCache", () => graph.SetKernelCache(cache));
                TestSupport.AssertDisposed("Graph.Build", "KernelCache",
                    () => graph.Build(null, new BuildOptions { DevicePropertiesJson = json, KernelCache = cache }));
            }
        }

        [Test]
        public void LoadingNeedsAHandle()
        {
            TestSupport.AssertNullArgument("handle", "KernelCache.Load: handle is null", () => KernelCache.Load(null, "name"));
        }
    }
}
