using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Synchronized batchnorm's peer statistics buffers through the generated options mean what they
    /// mean in C (fe_batchnorm_options_set_peer_stats, fe_norm_backward_options_set_peer_stats): the
    /// buffers given become the op's inputs peer_stats_0, peer_stats_1, ... in order, and each
    /// malformed setup is refused with the C library's reason. No GPU needed.
    /// </summary>
    [TestFixture]
    public class PeerStatsTests
    {
        private static readonly long[] XDims = { 4, 32, 8, 8 };
        private static readonly long[] XStrides = { 2048, 1, 256, 32 };

        /// <summary>x [4, 32, 8, 8] half channels-last, its scale and bias, and peer buffers [2, 128, 1, 1].</summary>
        private sealed class Setup
        {
            internal readonly Graph G = new Graph(new GraphOptions { IoDataType = DataType.Half });
            internal readonly Tensor X, Scale, Bias;
            private int made;

            internal Setup()
            {
                X = G.Tensor("x", XDims, XStrides, DataType.Half);
                Scale = G.Tensor("scale", new long[] { 1, 32, 1, 1 }, null, DataType.Float);
                Bias = G.Tensor("bias", new long[] { 1, 32, 1, 1 }, null, DataType.Float);
            }

            /// <summary>n more peer buffers, named peer0, peer1, ... across calls.</summary>
            internal Tensor[] Peers(int n)
            {
                var peers = new Tensor[n];
                for (int i = 0; i < n; ++i) peers[i] = Peer("peer" + made++, 2, 128, 1, 1);
                return peers;
            }

            internal Tensor Peer(string name, params long[] dims) =>
                G.Tensor(name, dims, new[] { dims[1], 1, dims[1], dims[1] }, DataType.Float);

            internal Tensor Dy() => G.Tensor("dy", XDims, XStrides, DataType.Half);
        }

        [Test]
        public void PeerStatsBecomeTheInputsOfBatchnormAndItsBackwardInOrder()
        {
            var s = new Setup();
            using (Graph g = s.G)
            {
                BatchnormResult r = g.Batchnorm(s.X, s.Scale, s.Bias, new BatchnormOptions { Name = "bn", PeerStats = s.Peers(2) });
                r.Y.SetOutput(true);
                CollectionAssert.AreEqual(XDims, r.Y.Dims);
                NormGradients d = g.BatchnormBackward(s.Dy(), s.X, s.Scale, r.Mean, r.InvVariance,
                                                      new NormBackwardOptions { Name = "bn_bwd", PeerStats = s.Peers(2) });
                foreach (Tensor t in new[] { d.DX, d.DScale, d.DBias }) t.SetOutput(true);
                g.Validate();

                string json = g.ToJson();
                StringAssert.Contains("\"name\":\"bn\"", json);
                StringAssert.Contains("\"bias\":\"bias\",\"peer_stats_0\":\"peer0\",\"peer_stats_1\":\"peer1\"}", json);
                StringAssert.Contains("\"inv_variance\":\"bn::InvVariance\",\"peer_stats_0\":\"peer2\",\"peer_stats_1\":\"peer3\"}",
                                      json);
            }
        }

        [Test]
        public void BadPeerStatsAreRefusedWithTheCReason()
        {
            var s = new Setup();
            using (Graph g = s.G)
            {
                Tensor[] peers = s.Peers(9);
                TestSupport.AssertFails(Status.InvalidArgument, "at most 8",
                                        () => g.Batchnorm(s.X, s.Scale, s.Bias, new BatchnormOptions { PeerStats = peers }));
                TestSupport.AssertFails(Status.InvalidArgument, "two or more",
                                        () => g.Batchnorm(s.X, s.Scale, s.Bias,
                                                          new BatchnormOptions { PeerStats = new[] { peers[0] } }));
                TestSupport.AssertFails(Status.NullPointer, "peer_stats[1] is NULL",
                                        () => g.Batchnorm(s.X, s.Scale, s.Bias,
                                                          new BatchnormOptions { PeerStats = new[] { peers[0], null } }));
                Tensor narrow = s.Peer("narrow", 2, 64, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "peer_stats_0 'narrow' is [2,64,1,1]; it must be [2,128,1,1]",
                                        () => g.Batchnorm(s.X, s.Scale, s.Bias,
                                                          new BatchnormOptions { PeerStats = new[] { narrow, peers[1] } }));
            }
        }

        [Test]
        public void LayernormBackwardTakesNoPeerStats()
        {
            var s = new Setup();
            using (Graph g = s.G)
            {
                Tensor dy = s.Dy();
                Tensor scale = g.Tensor("ln_scale", new long[] { 1, 32, 8, 8 }, null, DataType.Float);
                Tensor mean = g.Tensor("mean", new long[] { 4, 1, 1, 1 }, null, DataType.Float);
                Tensor invVariance = g.Tensor("inv_variance", new long[] { 4, 1, 1, 1 }, null, DataType.Float);
                Tensor[] peers = s.Peers(2);
                TestSupport.AssertFails(Status.InvalidArgument, "is not taken by layernorm_backward",
                                        () => g.LayernormBackward(dy, s.X, scale, mean, invVariance,
                                                                  new NormBackwardOptions { PeerStats = peers }));
            }
        }

        [Test]
        public void APeerBufferResizedAfterTheOpIsRefusedAtValidation()
        {
            var s = new Setup();
            using (Graph g = s.G)
            {
                Tensor[] peers = s.Peers(2);
                BatchnormResult r = g.Batchnorm(s.X, s.Scale, s.Bias, new BatchnormOptions { PeerStats = peers });
                foreach (Tensor t in new[] { r.Y, r.Mean, r.InvVariance }) t.SetOutput(true);
                g.Validate();
                peers[0].SetDims(2, 64, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "peer_stats_0 'peer0' is [2,64,1,1]", () => g.Validate());
            }
        }
    }
}
