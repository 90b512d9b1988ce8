using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// A matmul's M, N and K overrides and padding value through the generated options mean what they
    /// mean in C (tests/deviceless/matmul_overrides_support_test.cpp): they reach the graph's description
    /// and its JSON, survive a JSON round trip, and each malformed setup is refused with the C library's
    /// reason. No GPU needed.
    /// </summary>
    [TestFixture]
    public class MatmulOverridesTests
    {
        private static Graph NewGraph(DataType io) => new Graph(new GraphOptions { IoDataType = io });

        private static Tensor Typed(Graph g, string name, DataType type, params long[] dims) => g.Tensor(name, dims, null, type);

        /// <summary>An FP8 matmul's three one-element float scales.</summary>
        private static MatmulFp8Scales UnitScales(Graph f) => new MatmulFp8Scales
        {
            DescaleA = Typed(f, "da", DataType.Float, 1, 1, 1), DescaleB = Typed(f, "db", DataType.Float, 1, 1, 1),
            ScaleC = Typed(f, "sc", DataType.Float, 1, 1, 1),
        };

        [Test]
        public void MAndKOverridesWithAPaddingValueReachTheGraphAndItsJson()
        {
            using (Graph g = NewGraph(DataType.BFloat16))
            {
                Tensor a = g.Tensor("a", 4, 128, 192), b = g.Tensor("b", 4, 192, 256);
                Tensor m = g.Tensor("m", 4, 1, 1), k = Typed(g, "k", DataType.Int32, 4, 1, 1);
                Tensor c = g.Matmul(a, b, new MatmulOptions { MOverride = m, KOverride = k, PaddingValue = -7.5 });
                c.SetOutput(true);
                CollectionAssert.AreEqual(new long[] { 4, 128, 256 }, c.Dims);
                StringAssert.Contains("M=m K=k padding=-7.5", g.Describe());
                Assert.AreEqual(DataType.Int32, m.DataType);

                string json = g.ToJson();
                StringAssert.Contains("\"m_override\":\"m\"", json);
                StringAssert.Contains("\"padding_value\":-7.5", json);
                using (Graph back = Graph.FromJson(json))
                {
                    Assert.AreEqual(json, back.ToJson());
                }
            }
        }

        [Test]
        public void MalformedOverridesAreRefusedWithTheirReason()
        {
            using (Graph g = NewGraph(DataType.BFloat16))
            {
                Tensor a = g.Tensor("a", 4, 128, 192), b = g.Tensor("b", 4, 192, 256);
                Tensor wrong = Typed(g, "m_wrong", DataType.Int32, 4, 128, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "options.m_override 'm_wrong' is [4,128,1]; it must be [4,1,1]",
                                        () => g.Matmul(a, b, new MatmulOptions { MOverride = wrong }));
                Tensor wide = Typed(g, "m_long", DataType.Int64, 4, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "the sizes are int32",
                                        () => g.Matmul(a, b, new MatmulOptions { MOverride = wide }));
                Tensor k = Typed(g, "k", DataType.Int32, 4, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "it fills what an M or N override leaves out",
                                        () => g.Matmul(a, b, new MatmulOptions { KOverride = k, PaddingValue = 1.0 }));
            }
        }

        [Test]
        public void Fp8MatmulsTakeNoOverrides()
        {
            using (Graph f = NewGraph(DataType.Fp8E4M3))
            {
                Tensor a = f.Tensor("a", 4, 128, 192), b = f.Tensor("b", 4, 192, 256);
                var scales = UnitScales(f);
                Tensor m = Typed(f, "m", DataType.Int32, 4, 1, 1);
                Tensor amax;
                TestSupport.AssertFails(Status.InvalidArgument, "options.m_override is not taken by matmul_fp8",
                                        () => f.MatmulFp8(a, b, scales, new MatmulOptions { MOverride = m }, out amax));
            }
        }
    
        /// <summary>Fast accumulation is an FP8 matmul's option (in its graph JSON); a plain matmul refuses it.</summary>
        [Test]
        public void FastAccumulationIsAnFp8MatmulsOption()
        {
            using (Graph f = NewGraph(DataType.Fp8E4M3))
            {
                Tensor a = f.Tensor("a", 4, 128, 192), b = f.Tensor("b", 4, 192, 256);
                var scales = UnitScales(f);
                Tensor amax;
                Tensor c = f.MatmulFp8(a, b, scales, new MatmulOptions { FastAccumulate = true }, out amax);
                c.SetOutput(true);
                amax.SetOutput(true);
                StringAssert.Contains("\"fast_accumulate\":true", f.ToJson());
                TestSupport.AssertFails(Status.InvalidArgument, "options.fast_accumulate is not taken by matmul",
                                        () => f.Matmul(Typed(f, "x", DataType.Half, 4, 128, 192),
                                                       Typed(f, "w", DataType.Half, 4, 192, 256),
                                                       new MatmulOptions { FastAccumulate = true }));
            }
        }
    }
}
