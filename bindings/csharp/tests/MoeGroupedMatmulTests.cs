using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The mixture-of-experts grouped matmul's modes and routing tensors through the generated options,
    /// and the packed backward's MaxTotalSeqLenQ and MaxTotalSeqLenKv: each option reaches the graph (its description, its
    /// output's dims) and each bad routing setup is refused with the C library's reason. No GPU needed.
    /// </summary>
    [TestFixture]
    public class MoeGroupedMatmulTests
    {
        private static Graph NewGraph() => new Graph(new GraphOptions { IoDataType = DataType.BFloat16 });

        /// <summary>Eight experts' [k, n] weights, K-contiguous as the reference frontend lays them out.</summary>
        private static Tensor Weight(Graph g, long k, long n) =>
            g.Tensor("w", new long[] { 8, k, n }, new long[] { k * n, 1, k }, DataType.NotSet);

        private static Tensor Int32(Graph g, string name, params long[] dims) => g.Tensor(name, dims, null, DataType.Int32);

        private static void AssertDescribes(Graph g, params string[] fragments)
        {
            string text = g.Describe();
            foreach (string fragment in fragments) StringAssert.Contains(fragment, text);
        }

        [Test]
        public void ModeNoneKeepsTheTokenRowsAndTakesUntypedOffsetsAsInt32()
        {
            using (Graph g = NewGraph())
            {
                Tensor x = g.Tensor("x", 1, 1024, 1024), w = Weight(g, 1024, 4096), offsets = g.Tensor("offsets", 8, 1, 1);
                Tensor y = g.MoeGroupedMatmul(x, w, offsets);
                CollectionAssert.AreEqual(new long[] { 1, 1024, 4096 }, y.Dims);
                Assert.AreEqual(DataType.Int32, offsets.DataType);
                Tensor named = g.MoeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions { Mode = MoeMode.None });
                CollectionAssert.AreEqual(new long[] { 1, 1024, 4096 }, named.Dims);
                AssertDescribes(g, "mode=none");
            }
        }

        [Test]
        public void ScatterWithTopKWritesOneRowPerTokenRow()
        {
            using (Graph g = NewGraph())
            {
                Tensor y = g.MoeGroupedMatmul(g.Tensor("x", 1, 384, 256), Weight(g, 256, 1024), Int32(g, "offsets", 8, 1, 1),
                                              new MoeGroupedMatmulOptions
                                              {
                                                  Mode = MoeMode.Scatter, TokenIndex = Int32(g, "token_index", 1, 384, 1),
                                                  TokenKs = Int32(g, "token_ks", 1, 384, 1), TopK = 2,
                                              });
                CollectionAssert.AreEqual(new long[] { 1, 384, 1024 }, y.Dims);
                AssertDescribes(g, "mode=scatter top_k=2");
            }
        }

        [Test]
        public void GatherWritesOneRowPerTokenIndexRow()
        {
            using (Graph g = NewGraph())
            {
                Tensor y = g.MoeGroupedMatmul(g.Tensor("x", 1, 256, 256), Weight(g, 256, 1024), Int32(g, "offsets", 8, 1, 1),
                                              new MoeGroupedMatmulOptions
                                              {
                                                  Mode = MoeMode.Gather, TokenIndex = Int32(g, "token_index", 1, 512, 1),
                                              });
                CollectionAssert.AreEqual(new long[] { 1, 512, 1024 }, y.Dims);
                AssertDescribes(g, "mode=gather");
            }
        }

        [Test]
        public void BadRoutingIsRefusedWithItsReason()
        {
            using (Graph g = NewGraph())
            {
                Tensor x = g.Tensor("x", 1, 512, 256), w = Weight(g, 256, 512), offsets = Int32(g, "offsets", 8, 1, 1);
                Tensor index = Int32(g, "token_index", 1, 512, 1), ks = Int32(g, "token_ks", 1, 512, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "mode GATHER needs options.token_index",
                                        () => g.MoeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions { Mode = MoeMode.Gather }));
                TestSupport.AssertFails(Status.InvalidArgument, "mode NONE takes no token_index",
                                        () => g.MoeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions { TokenIndex = index }));
                TestSupport.AssertFails(Status.InvalidArgument, "options.top_k is 2; it applies to mode SCATTER only",
                                        () => g.MoeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions { TopK = 2 }));
                TestSupport.AssertFails(Status.InvalidArgument, "mode SCATTER needs options.top_k",
                                        () => g.MoeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions
                                        {
                                            Mode = MoeMode.Scatter, TokenIndex = index, TokenKs = ks,
                                        }));
                TestSupport.AssertFails(Status.InvalidArgument, "has K = 128 but weight 'w' has 256 rows per expert",
                                        () => g.MoeGroupedMatmul(g.Tensor("x_wide", 1, 512, 128), w, offsets));
                TestSupport.AssertFails(Status.InvalidArgument, "it must be [1, rows, K]",
                                        () => g.MoeGroupedMatmul(g.Tensor("x_batched", 2, 512, 256), w, offsets));
                TestSupport.AssertFails(Status.InvalidArgument, "groups a multiple of the 8 experts",
                                        () => g.MoeGroupedMatmul(x, w, Int32(g, "offsets_7", 7, 1, 1)));
                TestSupport.AssertFails(Status.InvalidArgument, "it must be int32",
                                        () => g.MoeGroupedMatmul(x, w, g.Tensor("offsets_i64", new long[] { 8, 1, 1 }, null, DataType.Int64)));
            }
        }

        [Test]
        public void MaxTotalSeqLenNeedsPackedTensors()
        {
            const long B = 3, H = 4, S = 128, D = 64;
            long[] dims = { B, H, S, D }, strides = { S * H * D, D, H * D, 1 };
            // Packed with both sizes; then unpacked with one or the other, refused at build.
            string[] refusals = { null, "Q 'q' is not packed", "K 'k' and V 'v' are not both packed" };
            for (int c = 0; c < refusals.Length; ++c)
            {
                bool packed = refusals[c] == null;
                using (Graph g = NewGraph())
                {
                    string[] names = { "q", "k", "v", "o", "dO" };
                    var t = new Tensor[names.Length];
                    for (int i = 0; i < names.Length; ++i) t[i] = g.Tensor(names[i], dims, strides, DataType.NotSet);
                    Tensor stats = g.Tensor("stats", new long[] { B, H, S, 1 }, null, DataType.Float);
                    if (packed)
                    {
                        Tensor offsets = g.Tensor("offsets", new long[] { B + 1, 1, 1, 1 }, null, DataType.Int64);
                        foreach (Tensor x in t) x.SetRaggedOffset(offsets);
                        stats.SetStrides(S * H, 1, H, 1)
                             .SetRaggedOffset(g.Tensor("stats_offsets", new long[] { B + 1, 1, 1, 1 }, null, DataType.Int64));
                    }
                    var options = new SdpaBackwardOptions
                    {
                        AttnScale = 0.125, SeqLenQ = Int32(g, "lq", B, 1, 1, 1), SeqLenKv = Int32(g, "lkv", B, 1, 1, 1),
                        MaxTotalSeqLenQ = c != 2 ? 200 : 0, MaxTotalSeqLenKv = c != 1 ? 200 : 0,
                    };
                    SdpaGradients grads = g.SdpaBackward(t[0], t[1], t[2], t[3], t[4], stats, options);
                    CollectionAssert.AreEqual(dims, grads.DQ.Dims);
                    if (packed) continue;
                    string json = TestSupport.CudnnAndDeviceJsonOrIgnore();
                    foreach (Tensor x in new[] { grads.DQ, grads.DK, grads.DV }) x.SetOutput(true);
                    g.SetDeviceProperties(json);
                    g.Validate();
                    TestSupport.AssertFails(Status.InvalidArgument, refusals[c], () => g.BuildOperationGraph(null));
                }
            }
        }
    }
}
