using System;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Plans that last: serialized bytes, JSON text, the plan cache. Plans are built devicelessly
    /// for the captured H100 description; the GPU test executes a deserialized plan next to the
    /// original.
    /// </summary>
    [TestFixture]
    public class SerializationTests
    {
        private static string NeedDevicelessBuilds()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            string json = TestSupport.DeviceJson();
            if (json == null) Assert.Ignore("no device description: set CUDNNFE_DEVICE_JSON");
            return json;
        }

        /// <summary>The seed convolution built for the H100 description, outside the plan cache.</summary>
        private static Graph BuiltSeedConv(string json)
        {
            Graph graph = TestSupport.SeedConvGraph();
            graph.Build(null, new BuildOptions { DevicePropertiesJson = json, UsePlanCache = false });
            return graph;
        }

        [Test]
        public void ADevicelessPlanRoundTripsThroughBytes()
        {
            string json = NeedDevicelessBuilds();
            using (Graph graph = BuiltSeedConv(json))
            {
                byte[] bytes = graph.Serialize();
                Assert.Greater(bytes.Length, 64);
                string text = Graph.DescribeSerialized(bytes);
                StringAssert.Contains(graph.EngineTag, text);
                StringAssert.Contains("H100", text);
                using (Graph copy = Graph.Deserialize(null, bytes, new DeserializeOptions { DevicePropertiesJson = json }))
                {
                    Assert.AreNotSame(graph, copy);
                    Assert.IsTrue(copy.IsBuilt);
                    Assert.AreEqual(graph.EngineTag, copy.EngineTag);
                    Assert.AreEqual(graph.WorkspaceSize, copy.WorkspaceSize);
                    foreach (string name in new[] { "image", "weight" })
                    {
                        Tensor a = graph.TensorByName(name), b = copy.TensorByName(name);
                        CollectionAssert.AreEqual(a.Dims, b.Dims, name);
                        CollectionAssert.AreEqual(a.Strides, b.Strides, name);
                        Assert.AreEqual(a.Uid, b.Uid, name);
                    }
                    Assert.AreEqual(Graph.DescribeSerialized(bytes), Graph.DescribeSerialized(copy.Serialize()));
                }
            }
        }

        [Test]
        public void CorruptedBytesAreAnError()
        {
            string json = NeedDevicelessBuilds();
            using (Graph graph = BuiltSeedConv(json))
            {
                byte[] bytes = graph.Serialize();
                bytes[bytes.Length / 2] ^= 1;
                var options = new DeserializeOptions { DevicePropertiesJson = json };
                TestSupport.AssertFails(Status.InvalidArgument, "checksum", () => Graph.Deserialize(null, bytes, options));
                byte[] cut = new byte[40];
                Array.Copy(graph.Serialize(), cut, cut.Length);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Deserialize", () => Graph.Deserialize(null, cut, options));
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.DescribeSerialized", () => Graph.DescribeSerialized(cut));
            }
        }

        [Test]
        public void BytesThatAreNoGraphAreAnError()
        {
            byte[] garbage = new byte[100];
            for (int i = 0; i < garbage.Length; ++i) garbage[i] = (byte)'x';
            TestSupport.AssertFails(Status.InvalidArgument, "magic", () => Graph.DescribeSerialized(garbage));
            TestSupport.AssertNullArgument("data", "Graph.Deserialize: data is null", () => Graph.Deserialize(null, null));
        }

        [Test]
        public void AnUnbuiltGraphDoesNotSerialize()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
                TestSupport.AssertFails(Status.BadState, "not built", () => graph.Serialize());
        }

        [Test]
        public void ADisposedGraphDoesNotSerialize()
        {
            Graph graph = TestSupport.SeedConvGraph();
            graph.Dispose();
            graph.Dispose();
            TestSupport.AssertDisposed("Graph.Serialize", "Graph", () => graph.Serialize());
            TestSupport.AssertDisposed("Graph.ToJson", "Graph", () => graph.ToJson());
        }

        [Test]
        public void JsonRoundTrips()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                string json = graph.ToJson();
                StringAssert.Contains("conv_fprop", json);
                using (Graph copy = Graph.FromJson(json))
                {
                    Assert.AreEqual(json, copy.ToJson());
                    Assert.AreEqual("first_graph", copy.Name);
                    CollectionAssert.AreEqual(new long[] { 8, 32, 56, 56 }, copy.Outputs[0].Dims);
                }
            }
        }

        [Test]
        public void BadJsonNamesTheLineAndField()
        {
            TestSupport.AssertFails(Status.InvalidArgument, "Graph.FromJson: line 1", () => Graph.FromJson("{\"format\": 7"));
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                string json = graph.ToJson().Replace("conv_fprop", "conv_forward");
                TestSupport.AssertFails(Status.InvalidArgument, "unknown operation 'conv_forward'", () => Graph.FromJson(json));
            }
        }

        [Test]
        public void ACacheKeyGivesTheBuiltGraphBack()
        {
            string json = NeedDevicelessBuilds();
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Build(null, new BuildOptions { DevicePropertiesJson = json, CacheKey = "csharp-seed-conv" });
                using (Graph cached = Graph.FromCache(null, "csharp-seed-conv"))
                {
                    Assert.IsTrue(cached.IsBuilt);
                    Assert.AreEqual(graph.EngineTag, cached.EngineTag);
                }
            }
            TestSupport.AssertFails(Status.NotFound, "csharp-no-such-key", () => Graph.FromCache(null, "csharp-no-such-key"));
        }

        [Test]
        public void AnIdenticalGraphHitsThePlanCache()
        {
            string json = NeedDevicelessBuilds();
            PlanCache.Clear();
            PlanCache.Counters before = PlanCache.Stats();
            for (int i = 0; i < 2; ++i)
                using (Graph graph = TestSupport.SeedConvGraph())
                    graph.Build(null, new BuildOptions { DevicePropertiesJson = json });
            PlanCache.Counters after = PlanCache.Stats();
            Assert.AreEqual(before.Misses + 1, after.Misses, after.ToString());
            Assert.AreEqual(before.MemoryHits + 1, after.MemoryHits, after.ToString());
        }

        [Test]
        public void PlanTimesNeedAnAutotune()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
                TestSupport.AssertFails(Status.BadState, "Graph.PlanTimeUs", () => graph.PlanTimeUs(0));
        }

        /// <summary>On a GPU: the deserialized plan computes what the original computes, bit for bit.</summary>
        [Test]
        public void ADeserializedPlanExecutesLikeTheOriginal()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            TestSupport.NeedGpu();
            using (var handle = new Handle(0))
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Build(handle, new BuildOptions { UsePlanCache = false });
                using (Graph copy = Graph.Deserialize(handle, graph.Serialize()))
                {
                    Tensor x = graph.TensorByName("image"), w = graph.TensorByName("weight"), y = graph.Outputs[0];
                    long[] uids = { x.Uid, w.Uid, y.Uid };
                    using (DeviceBuffer xb = DeviceBuffer.For(0, x), wb = DeviceBuffer.For(0, w),
                           ya = DeviceBuffer.For(0, y), yb = DeviceBuffer.For(0, y))
                    {
                        xb.Upload(Ramp((int)(x.SizeBytes / 2)), DataType.Half);
                        wb.Upload(Ramp((int)(w.SizeBytes / 2)), DataType.Half);
                        ya.Fill(0xFF);
                        yb.Fill(0xFF);
                        graph.ExecuteByUid(handle, uids, new[] { xb.DevicePointer, wb.DevicePointer, ya.DevicePointer });
                        copy.ExecuteByUid(handle, uids, new[] { xb.DevicePointer, wb.DevicePointer, yb.DevicePointer });
                        handle.Synchronize();
                        int n = (int)(y.SizeBytes / 2);
                        float[] a = ya.DownloadFloats(n, DataType.Half), b = yb.DownloadFloats(n, DataType.Half);
                        foreach (float v in a) Assert.IsFalse(float.IsNaN(v) || float.IsInfinity(v), "the original left an element unwritten");
                        CollectionAssert.AreEqual(a, b);
                    }
                }
            }
        }

        /// <summary>On a GPU: autotuning times every built plan and keeps the fastest.</summary>
        [Test]
        public void AutotuningTimesEveryPlan()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            TestSupport.NeedGpu();
            using (var handle = new Handle(0))
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Build(handle, new BuildOptions { Policy = BuildPolicy.All, UsePlanCache = false });
                double best = graph.Autotune(handle, 1, 3);
                Assert.Greater(best, 0);
                Assert.AreEqual(best, graph.PlanTimeUs(0), 1e-9);
                for (long i = 1; i < graph.PlanCount; ++i) Assert.GreaterOrEqual(graph.PlanTimeUs(i), best);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.PlanTimeUs", () => graph.PlanTimeUs(graph.PlanCount));
            }
        }

        /// <summary>On a GPU: a plan stored in a cache directory serves the next identical build.</summary>
        [Test]
        public void ACacheDirectoryServesIdenticalGraphs()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            TestSupport.NeedGpu();
            string dir = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "cudnnfe-csharp-cache-" + Guid.NewGuid());
            System.IO.Directory.CreateDirectory(dir);
            using (var handle = new Handle(0))
            {
                handle.SetCacheDirectory(dir);
                handle.SetCacheLimit(64L << 20);
                using (Graph graph = TestSupport.SeedConvGraph()) graph.Build(handle);
                PlanCache.Clear();
                PlanCache.Counters before = PlanCache.Stats();
                using (Graph graph = TestSupport.SeedConvGraph()) graph.Build(handle);
                Assert.AreEqual(before.DiskHits + 1, PlanCache.Stats().DiskHits);
                handle.SetCacheDirectory(null);
                TestSupport.AssertFails(Status.InvalidArgument, "Handle.SetCacheDirectory", () => handle.SetCacheDirectory(""));
            }
        }

        private static float[] Ramp(int n)
        {
            var values = new float[n];
            for (int i = 0; i < n; ++i) values[i] = ((i * 37) % 17 - 8) / 16.0f;
            return values;
        }
    }
}
