using System;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Building graphs and the inference of dims, strides and types (no cuDNN needed).</summary>
    [TestFixture]
    public class GraphTests
    {
        [Test]
        public void GraphHasItsNameAndTensorsTheDefaultType()
        {
            using (var graph = new Graph(new GraphOptions { Name = "g", IoDataType = DataType.BFloat16 }))
            {
                Assert.AreEqual("g", graph.Name);
                Tensor x = graph.Tensor("x", 2, 3);
                Assert.AreEqual("x", x.Name);
                Assert.AreEqual(new long[] { 2, 3 }, x.Dims);
                Assert.AreEqual(new long[] { 3, 1 }, x.Strides);
                Assert.AreEqual(2, x.Rank);
                Assert.IsFalse(x.IsVirtual);
                Tensor y = graph.Relu(x).SetOutput(true);
                Assert.AreEqual(DataType.NotSet, x.DataType); // the graph's default applies at validation
                graph.Validate();
                Assert.AreEqual(DataType.BFloat16, x.DataType);
                Assert.AreEqual(DataType.BFloat16, y.DataType);
                Assert.AreEqual(12, x.SizeBytes);
            }
        }

        [Test]
        public void ATensorLikeAnotherHasItsDimsStridesAndTypeOnly()
        {
            using (var first = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            using (var second = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor c = first.Matmul(first.Tensor("a", 3, 40, 24), first.Tensor("b", 3, 24, 56));
                Tensor input = second.TensorLike(c, "c_in");
                Assert.AreEqual("c_in", input.Name);
                Assert.AreEqual(new long[] { 3, 40, 56 }, input.Dims);
                Assert.AreEqual(c.Strides, input.Strides);
                Tensor x = second.Tensor("x", new long[] { 2, 8 }, null, DataType.BFloat16);
                Assert.AreEqual(DataType.BFloat16, second.TensorLike(x, "x2").DataType);
                TestSupport.AssertFails(Status.Duplicate, "Graph.TensorLike", () => second.TensorLike(x, "x2"));
                Assert.Throws<System.ArgumentNullException>(() => second.TensorLike(null, "y"));
            }
        }

        [Test]
        public void ConvInfersTheSeedsShapeAndKeepsChannelsLast()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                Tensor y = graph.TensorByName("conv_fprop_0::Y");
                Assert.AreEqual(new long[] { 8, 32, 56, 56 }, y.Dims);
                Assert.AreEqual(new long[] { 100352, 1, 1792, 32 }, y.Strides);
                Assert.IsTrue(y.IsOutput);
            }
        }

        [Test]
        public void ConvStrideAndDilationChangeTheOutputDims()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor y = graph.ConvFprop(graph.Tensor("x", 2, 3, 224, 224), graph.Tensor("w", 64, 3, 7, 7),
                    new ConvOptions { Name = "stem", Padding = new long[] { 3, 3 }, Stride = new long[] { 2, 2 } });
                Assert.AreEqual(new long[] { 2, 64, 112, 112 }, y.Dims);
                Assert.AreEqual("stem::Y", y.Name);
                Tensor y1 = graph.ConvFprop(graph.Tensor("x1", 4, 8, 100), graph.Tensor("w1", 16, 8, 5),
                    new ConvOptions { Dilation = new long[] { 2 } });
                Assert.AreEqual(new long[] { 4, 16, 92 }, y1.Dims);
            }
        }

        [Test]
        public void MatmulAndBiasInferDimsAndStayVirtualUntilMarked()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor ab = graph.Matmul(graph.Tensor("A", 16, 128, 512), graph.Tensor("B", 16, 512, 64));
                Tensor c = graph.Bias(ab, graph.Tensor("D", 1, 128, 64));
                Assert.AreEqual(new long[] { 16, 128, 64 }, c.Dims);
                Assert.IsTrue(c.IsVirtual);
                c.SetOutput(true);
                Assert.IsFalse(c.IsVirtual);
                graph.Validate();
                Assert.AreEqual(DataType.Float, ab.DataType);
                Assert.AreEqual(DataType.Half, c.DataType);
            }
        }

        [Test]
        public void InputsAndOutputsComeInExecutionOrder()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor a = graph.Tensor("a", 4, 4), b = graph.Tensor("b", 4, 4);
                Tensor sum = graph.Add(a, b).SetOutput(true);
                Tensor product = graph.Mul(a, b).SetOutput(true);
                Assert.AreEqual(new[] { a, b }, graph.Inputs);
                Assert.AreEqual(new[] { sum, product }, graph.Outputs);
                Assert.AreEqual(sum, graph.TensorByName(sum.Name));
                Assert.AreEqual(sum.GetHashCode(), graph.TensorByName(sum.Name).GetHashCode());
                Assert.AreNotEqual(sum, product);
                Assert.AreSame(graph, sum.Graph);
            }
        }

        [Test]
        public void SettersChainAndOverrideInference()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = graph.Tensor("x", 2, 8).SetUid(7);
                x.Name = "input";
                Assert.AreEqual(7, x.Uid);
                Assert.AreEqual("input", x.Name);
                Tensor y = graph.Gelu(x).SetDataType(DataType.Float).SetStrides(1, 2);
                Assert.AreEqual(DataType.Float, y.DataType);
                Assert.AreEqual(new long[] { 1, 2 }, y.Strides);
            }
        }

        [Test]
        public void TheEngineTagOfAGraphNotBuiltIsABadState()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                graph.Relu(graph.Tensor("x", 2, 3)).SetOutput(true);
                TestSupport.AssertFails(Status.BadState, "Graph.EngineTag", () => { string tag = graph.EngineTag; });
            }
        }

        [Test]
        public void PointwiseScalarsAndReductions()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = graph.Tensor("x", 4, 16, 32);
                Tensor scaled = graph.Scale(graph.Silu(x), graph.Scalar("half", 0.5, DataType.Float));
                Tensor clipped = graph.Pointwise(PointwiseMode.ReluFwd, scaled,
                    options: new PointwiseOptions { Name = "relu6", ReluUpperClip = 6 });
                Assert.AreEqual("relu6::Y", clipped.Name);
                Assert.AreEqual("clip::Y", graph.Relu(x, new PointwiseOptions { Name = "clip", ReluUpperClip = 6 }).Name);
                Assert.AreEqual("sum::Y", graph.Add(x, x, new PointwiseOptions { Name = "sum" }).Name);
                Tensor rowMax = graph.Reduction(clipped, ReductionMode.Max, new ReductionOptions { Axes = new[] { 2 } });
                Assert.AreEqual(new long[] { 4, 16, 1 }, rowMax.Dims);
            }
        }

        [Test]
        public void AttentionInfersOutputStatsAndGradients()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor q = graph.Tensor("q", 2, 8, 128, 64), k = graph.Tensor("k", 2, 2, 256, 64), v = graph.Tensor("v", 2, 2, 256, 32);
                SdpaResult inference = graph.Sdpa(q, k, v, new SdpaOptions { AttnScale = 0.125, CausalMask = CausalMask.BottomRight });
                Assert.AreEqual(new long[] { 2, 8, 128, 32 }, inference.O.Dims);
                Assert.IsNull(inference.Stats);
                SdpaResult training = graph.Sdpa(q, k, v, new SdpaOptions { GenerateStats = true });
                Assert.AreEqual(new long[] { 2, 8, 128, 1 }, training.Stats.Dims);
                Tensor o = graph.Tensor("o", 2, 8, 128, 32), dO = graph.Tensor("dO", 2, 8, 128, 32);
                Tensor stats = graph.Tensor("stats", new long[] { 2, 8, 128, 1 }, null, DataType.Float);
                SdpaGradients g = graph.SdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions { AttnScale = 0.125 });
                Assert.AreEqual(q.Dims, g.DQ.Dims);
                Assert.AreEqual(k.Dims, g.DK.Dims);
                Assert.AreEqual(v.Dims, g.DV.Dims);
            }
        }

        [Test]
        public void DescribeAndLibraryInformation()
        {
            using (Graph graph = TestSupport.SeedConvGraph())
                StringAssert.Contains("conv_fprop_0::Y", graph.Describe());
            Assert.AreEqual(new long[] { 200704, 1, 3584, 64 }, Library.StridesChannelsLast(8, 64, 56, 56));
            Assert.AreEqual(new long[] { 200704, 3136, 56, 1 }, Library.StridesPacked(8, 64, 56, 56));
            uint v = Library.Version;
            Assert.AreEqual(v / 10000 + "." + v / 100 % 100 + "." + v % 100, Library.VersionString);
            Assert.AreEqual(2, DataType.Half.Size());
            Assert.AreEqual(16, DataType.Half.Bits());
            Assert.AreEqual(4, DataType.Int4.Bits());
            Assert.AreEqual(0, DataType.UInt4.Size());
            Assert.AreEqual("uint4", DataType.UInt4.LibraryName());
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor w = g.Tensor("w", new long[] { 1, 256, 128 }, new long[] { 256 * 128, 1, 256 }, DataType.Int4);
                Assert.AreEqual(DataType.Int4, w.DataType);
                Assert.AreEqual(256 * 128 / 2, w.SizeBytes);
            }
            // Complex operands give a complex product, 8 bytes an element.
            Assert.AreEqual(8, DataType.ComplexFp32.Size());
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Float }))
            {
                long[] dims = { 2, 16, 16 }, strides = { 256, 16, 1 };
                Tensor c = g.Matmul(g.Tensor("a", dims, strides, DataType.ComplexFp32),
                                    g.Tensor("b", dims, strides, DataType.ComplexFp32));
                c.SetOutput(true);
                g.Validate();
                Assert.AreEqual(DataType.ComplexFp32, c.DataType);
                Assert.AreEqual(2 * 16 * 16 * 8, c.SizeBytes);
            }
            StringAssert.Contains("\"entry_point\":\"fe_graph_conv_fprop\"", Library.OpSchemaJson());
            StringAssert.Contains("\"c_type\":\"fe_resample_padding\"", Library.OpSchemaJson());
            float[] slopes = Library.AlibiSlopes(8);
            Assert.AreEqual(0.5f, slopes[0]);
            Assert.AreEqual(1.0f / 256, slopes[7]);
            Library.SetLogLevel(LogLevel.Off);
        }

        /// <summary>The key is the SHA-256 of the graph's JSON (none described here), the same for the same graph.</summary>
        [Test]
        public void TheKeyIsTheSha256OfTheJsonAndAUidFindsItsTensor()
        {
            using (Graph a = TestSupport.SeedConvGraph())
            using (Graph b = TestSupport.SeedConvGraph())
            {
                byte[] digest = System.Security.Cryptography.SHA256.Create().ComputeHash(System.Text.Encoding.UTF8.GetBytes(a.ToJson()));
                Assert.AreEqual(BitConverter.ToString(digest).Replace("-", "").ToLowerInvariant(), a.Key());
                Assert.AreEqual(a.Key(), b.Key());
                Tensor w = b.TensorByName("weight");
                w.SetUid(42);
                Assert.AreNotEqual(a.Key(), b.Key());
                Assert.AreEqual(w.Pointer, b.TensorByUid(42).Pointer);
                TestSupport.AssertFails(Status.NotFound, "Graph.TensorByUid: graph 'first_graph' has no tensor with uid 43",
                                        () => b.TensorByUid(43));
            }
        }

        /// <summary>The carried sm 90 description describes a graph's target; another version is refused, naming it.</summary>
        [Test]
        public void TheCarriedSm90DescriptionIsATarget()
        {
            string json = Library.DevicePropertiesForSm(90);
            StringAssert.Contains("\"deviceVer\":900", json);
            using (Graph graph = TestSupport.SeedConvGraph()) graph.SetDeviceProperties(json);
            TestSupport.AssertFails(Status.NotSupported,
                                    "Library.DevicePropertiesForSm: no description of an sm 80 GPU is carried (the library has 90)",
                                    () => Library.DevicePropertiesForSm(80));
        }
    }
}
