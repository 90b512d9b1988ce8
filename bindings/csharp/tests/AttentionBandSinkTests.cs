using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Attention's sinks, Max/SumExp outputs, two-bound bands and soft-capping through the generated
    /// options: each option reaches the graph (its description, its outputs found by name) and each
    /// bad combination is refused with the C library's reason. No GPU needed.
    /// </summary>
    [TestFixture]
    public class AttentionBandSinkTests
    {
        private static Graph NewGraph(DataType io) => new Graph(new GraphOptions { IoDataType = io });

        private static Tensor Float(Graph g, string name, params long[] dims) => g.Tensor(name, dims, null, DataType.Float);

        private static void AssertDescribes(Graph g, params string[] fragments)
        {
            string text = g.Describe();
            foreach (string fragment in fragments) StringAssert.Contains(fragment, text);
        }

        [Test]
        public void SinksWithACausalMaskAndStatsReachTheGraph()
        {
            using (Graph g = NewGraph(DataType.BFloat16))
            {
                Tensor q = g.Tensor("q", 2, 8, 256, 64), k = g.Tensor("k", 2, 8, 256, 64), v = g.Tensor("v", 2, 8, 256, 64);
                Tensor sink = Float(g, "sink", 1, 8, 1, 1);
                SdpaResult fwd = g.Sdpa(q, k, v, new SdpaOptions
                {
                    AttnScale = 0.125, CausalMask = CausalMask.TopLeft, GenerateStats = true, SinkToken = sink,
                });
                CollectionAssert.AreEqual(new long[] { 2, 8, 256, 64 }, fwd.O.Dims);
                CollectionAssert.AreEqual(new long[] { 2, 8, 256, 1 }, fwd.Stats.Dims);
                Assert.AreEqual(DataType.Float, fwd.Stats.DataType);
                AssertDescribes(g, "sink=sink", "causal=top_left");
                Tensor fourHeads = Float(g, "four_heads", 1, 4, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "it must be [1, 8, 1, 1]",
                                        () => g.Sdpa(q, k, v, new SdpaOptions { SinkToken = fourHeads }));
            }
        }

        [Test]
        public void MaxAndSumExpAreOutputByNameInsteadOfTheStats()
        {
            using (Graph g = NewGraph(DataType.Half))
            {
                Tensor q = g.Tensor("q", 2, 8, 128, 64), k = g.Tensor("k", 2, 2, 512, 64), v = g.Tensor("v", 2, 2, 512, 64);
                SdpaResult fwd = g.Sdpa(q, k, v, new SdpaOptions { AttnScale = 0.125, OutputMaxSumExp = true });
                CollectionAssert.AreEqual(new long[] { 2, 8, 128, 64 }, fwd.O.Dims);
                foreach (string port in new[] { "sdpa_0::Max", "sdpa_0::SumExp" })
                {
                    Tensor t = g.TensorByName(port);
                    CollectionAssert.AreEqual(new long[] { 2, 8, 128, 1 }, t.Dims, port);
                    Assert.AreEqual(DataType.Float, t.DataType, port);
                }
                TestSupport.AssertFails(Status.InvalidArgument, "the stats or Max and SumExp, not both",
                                        () => g.Sdpa(q, k, v, new SdpaOptions { OutputMaxSumExp = true, GenerateStats = true }));
            }
        }

        [Test]
        public void ABandOfBothBoundsKeepsItsBoundsAndAlignment()
        {
            using (Graph g = NewGraph(DataType.BFloat16))
            {
                Tensor q = g.Tensor("q", 2, 8, 128, 64), k = g.Tensor("k", 2, 8, 256, 64), v = g.Tensor("v", 2, 8, 256, 64);
                SdpaResult fwd = g.Sdpa(q, k, v, new SdpaOptions
                {
                    AttnScale = 0.125, SlidingWindow = 64, RightBound = 16, DiagonalAlignment = DiagonalAlignment.BottomRight,
                    GenerateStats = true,
                });
                CollectionAssert.AreEqual(new long[] { 2, 8, 128, 64 }, fwd.O.Dims);
                AssertDescribes(g, "window=64", "right_bound=16", "diagonal=bottom_right");
                TestSupport.AssertFails(Status.InvalidArgument, "a causal mask is right_bound 0: give one of them",
                                        () => g.Sdpa(q, k, v, new SdpaOptions
                                        {
                                            CausalMask = CausalMask.TopLeft, DiagonalAlignment = DiagonalAlignment.TopLeft, RightBound = 4,
                                        }));
            }
        }

        [Test]
        public void SoftCappingReachesTheGraphAndANegativeCapIsRefused()
        {
            using (Graph g = NewGraph(DataType.Half))
            {
                Tensor q = g.Tensor("q", 2, 8, 256, 64), k = g.Tensor("k", 2, 8, 256, 64), v = g.Tensor("v", 2, 8, 256, 64);
                g.Sdpa(q, k, v, new SdpaOptions { AttnScale = 0.125, Softcap = 50, GenerateStats = true });
                AssertDescribes(g, "softcap=50");
                TestSupport.AssertFails(Status.InvalidArgument, "options.softcap is -1",
                                        () => g.Sdpa(q, k, v, new SdpaOptions { Softcap = -1 }));
            }
        }

        [Test]
        public void DSinkIsOutputByNameAndNeedsTheSinks()
        {
            using (Graph g = NewGraph(DataType.BFloat16))
            {
                long[] qkv = { 2, 8, 256, 64 };
                Tensor q = g.Tensor("q", qkv), k = g.Tensor("k", qkv), v = g.Tensor("v", qkv);
                Tensor o = g.Tensor("o", qkv), dO = g.Tensor("dO", qkv), stats = Float(g, "stats", 2, 8, 256, 1);
                Tensor sink = Float(g, "sink", 1, 8, 1, 1);
                SdpaGradients grads = g.SdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions
                {
                    AttnScale = 0.125, CausalMask = CausalMask.TopLeft, SinkToken = sink, OutputDsink = true,
                });
                CollectionAssert.AreEqual(qkv, grads.DQ.Dims);
                Tensor dSink = g.TensorByName("sdpa_backward_0::dSink");
                CollectionAssert.AreEqual(new long[] { 1, 8, 1, 1 }, dSink.Dims);
                Assert.AreEqual(DataType.Float, dSink.DataType);
                AssertDescribes(g, "sink=sink", "dsink");
                TestSupport.AssertFails(Status.InvalidArgument, "output_dsink needs the forward's sinks",
                                        () => g.SdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions { OutputDsink = true }));
                TestSupport.AssertFails(Status.InvalidArgument, "sink_token in the backward serves only dSink",
                                        () => g.SdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions { SinkToken = sink }));
            }
        }

        [Test]
        public void TheBackwardTakesTheBandAndTheCapOfTheForward()
        {
            using (Graph g = NewGraph(DataType.Half))
            {
                long[] qkv = { 2, 8, 128, 64 }, kv = { 2, 8, 256, 64 };
                SdpaGradients grads = g.SdpaBackward(g.Tensor("q", qkv), g.Tensor("k", kv), g.Tensor("v", kv), g.Tensor("o", qkv),
                                                     g.Tensor("dO", qkv), Float(g, "stats", 2, 8, 128, 1), new SdpaBackwardOptions
                                                     {
                                                         AttnScale = 0.125, SlidingWindow = 64, RightBound = 16,
                                                         DiagonalAlignment = DiagonalAlignment.BottomRight, Softcap = 50,
                                                     });
                CollectionAssert.AreEqual(kv, grads.DK.Dims);
                AssertDescribes(g, "right_bound=16", "diagonal=bottom_right", "softcap=50");
            }
        }

        // Soft-capping written as the caller's own chain: cap * tanh(s / cap) on a stand-in for the scores.
        private static Tensor SoftcapChain(Graph g, Tensor scores, Tensor cap)
        {
            Tensor divided = g.Pointwise(PointwiseMode.Div, scores, cap, null, null);
            Tensor tanh = g.Pointwise(PointwiseMode.TanhFwd, divided, null, null, null);
            return g.Pointwise(PointwiseMode.Mul, tanh, cap, null, null);
        }

        [Test]
        public void TheCallersScoreModifierRunsInsideTheAttention()
        {
            using (Graph g = NewGraph(DataType.Half))
            {
                Tensor q = g.Tensor("q", 2, 4, 128, 64), k = g.Tensor("k", 2, 4, 128, 64), v = g.Tensor("v", 2, 4, 128, 64);
                Tensor scores = Float(g, "scores", 2, 4, 128, 128);
                Tensor capped = SoftcapChain(g, scores, g.Scalar("cap", 30, DataType.Float));
                g.Sdpa(q, k, v, new SdpaOptions { AttnScale = 0.125, ScoreModInput = scores, ScoreModOutput = capped });
                AssertDescribes(g, "score_mod=mul_0::Y(3 ops)", "stands for the scores in sdpa 'sdpa_0'", "inside sdpa 'sdpa_0'");
                Assert.AreEqual(3, g.Inputs.Count, "the stand-in is not a graph input");
                Tensor unrelated = g.Pointwise(PointwiseMode.TanhFwd, Float(g, "other", 2, 4, 128, 128), null, null, null);
                Tensor fresh = Float(g, "fresh", 2, 4, 128, 128);
                TestSupport.AssertFails(Status.InvalidArgument, "does not depend on options.score_mod_input 'fresh'",
                                        () => g.Sdpa(q, k, v, new SdpaOptions { ScoreModInput = fresh, ScoreModOutput = unrelated }));
            }
        }

        [Test]
        public void TheBackwardTakesTheCallersDerivative()
        {
            using (Graph g = NewGraph(DataType.Half))
            {
                long[] qkv = { 2, 4, 128, 64 };
                Tensor q = g.Tensor("q", qkv), k = g.Tensor("k", qkv), v = g.Tensor("v", qkv);
                Tensor o = g.Tensor("o", qkv), dO = g.Tensor("dO", qkv), stats = Float(g, "stats", 2, 4, 128, 1);
                Tensor cap = g.Scalar("cap", 30, DataType.Float);
                Tensor scores = Float(g, "scores", 2, 4, 128, 128);
                Tensor capped = SoftcapChain(g, scores, cap);
                TestSupport.AssertFails(Status.InvalidArgument, "its derivative is the caller's to give",
                                        () => g.SdpaBackward(q, k, v, o, dO, stats,
                                                             new SdpaBackwardOptions { ScoreModInput = scores, ScoreModOutput = capped }));
                Tensor dScores = Float(g, "d_scores", 2, 4, 128, 128);
                Tensor timesCap = g.Pointwise(PointwiseMode.Mul, dScores, cap, null, null);
                Tensor throughTanh = g.Pointwise(PointwiseMode.TanhBwd, timesCap, g.TensorByName("div_0::Y"), null, null);
                Tensor dIn = g.Pointwise(PointwiseMode.Div, throughTanh, cap, null, null);
                SdpaGradients grads = g.SdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions
                {
                    AttnScale = 0.125, ScoreModInput = scores, ScoreModOutput = capped, ScoreModGradInput = dScores,
                    ScoreModGradOutput = dIn,
                });
                CollectionAssert.AreEqual(qkv, grads.DQ.Dims);
                AssertDescribes(g, "score_mod=mul_0::Y(3 ops)", "score_mod_grad=div_1::Y(3 ops)");
            }
        }
    }
}
