using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The operation families beyond the first graph: each builds, infers its results' dims, and turns
    /// a bad argument into a CudnnFeException with the library's status and message. No GPU needed.
    /// </summary>
    [TestFixture]
    public class OperationsTests
    {
        private static Graph NewGraph() => new Graph(new GraphOptions { IoDataType = DataType.Half });

        private static Tensor Float(Graph g, string name, params long[] dims) => g.Tensor(name, dims, null, DataType.Float);

        [Test]
        public void ConvolutionGradientsInferTheirDims()
        {
            using (Graph g = NewGraph())
            {
                var options = new ConvOptions { Padding = new long[] { 1, 1 } };
                Tensor dy = g.Tensor("dy", 4, 32, 16, 16), w = g.Tensor("w", 32, 16, 3, 3), x = g.Tensor("x", 4, 16, 16, 16);
                CollectionAssert.AreEqual(new long[] { 4, 16, 16, 16 }, g.ConvDgrad(dy, w, new long[] { 4, 16, 16, 16 }, options).Dims);
                CollectionAssert.AreEqual(new long[] { 32, 16, 3, 3 }, g.ConvWgrad(x, dy, null, options).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.ConvDgrad",
                                        () => g.ConvDgrad(dy, w, new long[] { 4, 16, 40, 40 }, options));
            }
        }

        [Test]
        public void TransposedAndGroupedConvolutionsInferTheirDims()
        {
            using (Graph g = NewGraph())
            {
                Tensor image = g.Tensor("image", 1, 8, 4, 4), up = g.Tensor("up", 8, 4, 3, 3);
                var upsample = new ConvOptions { Padding = new long[] { 1, 1 }, Stride = new long[] { 2, 2 }, OutputPadding = new long[] { 1, 1 } };
                CollectionAssert.AreEqual(new long[] { 1, 4, 8, 8 }, g.ConvTranspose(image, up, upsample).Dims);
                Tensor depthwise = g.Tensor("depthwise", 8, 1, 3, 3);
                CollectionAssert.AreEqual(new long[] { 1, 8, 4, 4 },
                                          g.ConvFprop(image, depthwise, new ConvOptions { Padding = new long[] { 1, 1 }, Groups = 8 }).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "groups",
                                        () => g.ConvFprop(image, depthwise, new ConvOptions { Padding = new long[] { 1, 1 }, Groups = 3 }));
            }
        }

        [Test]
        public void LayerAndRmsNormalizationReturnTheirStatistics()
        {
            using (Graph g = NewGraph())
            {
                Tensor x = g.Tensor("x", 4, 64), scale = Float(g, "scale", 1, 64), bias = Float(g, "bias", 1, 64);
                NormResult training = g.Layernorm(x, scale, bias, new NormOptions { Phase = NormPhase.Training, Epsilon = 1e-5 });
                CollectionAssert.AreEqual(new long[] { 4, 64 }, training.Y.Dims);
                CollectionAssert.AreEqual(new long[] { 4, 1 }, training.Mean.Dims);
                CollectionAssert.AreEqual(new long[] { 4, 1 }, training.InvVariance.Dims);
                NormResult inference = g.Layernorm(x, scale, bias);
                Assert.IsNull(inference.Mean);
                Assert.IsNull(inference.InvVariance);
                NormResult rms = g.Rmsnorm(x, scale, null, new NormOptions { Phase = NormPhase.Training });
                Assert.IsNull(rms.Mean);
                CollectionAssert.AreEqual(new long[] { 4, 1 }, rms.InvVariance.Dims);

                Tensor dy = g.Tensor("dy", 4, 64);
                NormGradients ln = g.LayernormBackward(dy, x, scale, training.Mean, training.InvVariance);
                CollectionAssert.AreEqual(new long[] { 4, 64 }, ln.DX.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 64 }, ln.DScale.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 64 }, ln.DBias.Dims);
                NormGradients rg = g.RmsnormBackward(dy, x, scale, rms.InvVariance);
                CollectionAssert.AreEqual(new long[] { 1, 64 }, rg.DScale.Dims);
                Assert.IsNull(rg.DBias);

                Tensor wrong = Float(g, "wrong", 1, 32);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Layernorm", () => g.Layernorm(x, wrong, bias));
            }
        }

        [Test]
        public void BatchInstanceAndAdaptiveNormalizations()
        {
            using (Graph g = NewGraph())
            {
                Tensor x = g.Tensor("x", 2, 8, 4, 4), scale = Float(g, "scale", 1, 8, 1, 1), bias = Float(g, "bias", 1, 8, 1, 1);
                BatchnormResult bn = g.Batchnorm(x, scale, bias, new BatchnormOptions
                {
                    RunningMean = Float(g, "running_mean", 1, 8, 1, 1),
                    RunningVar = Float(g, "running_var", 1, 8, 1, 1),
                    Momentum = 0.1,
                });
                CollectionAssert.AreEqual(new long[] { 1, 8, 1, 1 }, bn.Mean.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 8, 1, 1 }, bn.NextRunningVar.Dims);
                Assert.IsNull(g.Batchnorm(x, scale, bias).NextRunningMean);
                Tensor dy = g.Tensor("dy", 2, 8, 4, 4);
                CollectionAssert.AreEqual(new long[] { 2, 8, 4, 4 }, g.BatchnormBackward(dy, x, scale, bn.Mean, bn.InvVariance).DX.Dims);
                CollectionAssert.AreEqual(new long[] { 2, 8, 4, 4 }, g.BatchnormInference(x, bn.Mean, bn.InvVariance, scale, bias, "bn_inference").Dims);

                NormResult inorm = g.Instancenorm(x, scale, bias, new NormOptions { Phase = NormPhase.Training });
                CollectionAssert.AreEqual(new long[] { 2, 8, 1, 1 }, inorm.Mean.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 8, 1, 1 }, g.InstancenormBackward(dy, x, scale, inorm.Mean, inorm.InvVariance).DScale.Dims);

                Tensor tokens = g.Tensor("tokens", 2, 4, 16), perSample = Float(g, "ada_scale", 2, 1, 16);
                NormResult ada = g.Adalayernorm(tokens, perSample, Float(g, "ada_bias", 2, 1, 16), new NormOptions { Phase = NormPhase.Training });
                CollectionAssert.AreEqual(new long[] { 2, 4, 1 }, ada.Mean.Dims);
                NormGradients adaGrad = g.AdalayernormBackward(g.Tensor("ada_dy", 2, 4, 16), tokens, perSample, ada.Mean, ada.InvVariance);
                CollectionAssert.AreEqual(new long[] { 2, 1, 16 }, adaGrad.DScale.Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "zero",
                                        () => g.Instancenorm(x, scale, bias, new NormOptions { ZeroCenteredGamma = true }));
            }
        }

        [Test]
        public void DbnWeightGivesFivePerChannelFloatOutputs()
        {
            using (Graph g = NewGraph())
            {
                Tensor dy = g.Tensor("dy", 2, 8, 4, 4), x = g.Tensor("x", 2, 8, 4, 4);
                Tensor mean = Float(g, "mean", 1, 8, 1, 1), inv = Float(g, "inv_variance", 1, 8, 1, 1);
                Tensor scale = Float(g, "scale", 1, 8, 1, 1);
                DbnWeightResult r = g.DbnWeight(dy, x, mean, inv, scale);
                foreach (Tensor t in new[] { r.DScale, r.DBias, r.EqScaleDy, r.EqScaleX, r.EqBias })
                {
                    CollectionAssert.AreEqual(new long[] { 1, 8, 1, 1 }, t.Dims);
                    Assert.AreEqual(DataType.Float, t.DataType);
                }
                Tensor wide = Float(g, "wide", 1, 16, 1, 1);
                TestSupport.AssertFails(Status.InvalidArgument, "scale 'wide' is [1,16,1,1]",
                                        () => g.DbnWeight(dy, x, mean, inv, wide));
            }
        }

        [Test]
        public void GenstatsGivesFloatStatisticsPerChannel()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor y = g.ConvFprop(g.Tensor("x", 4, 32, 16, 16), g.Tensor("w", 64, 32, 3, 3),
                                       new ConvOptions { Padding = new long[] { 1 } });
                Tensor sqSum;
                Tensor sum = g.Genstats(y, new GenstatsOptions { Name = "stats", ComputeDataType = DataType.Float }, out sqSum);
                CollectionAssert.AreEqual(new long[] { 1, 64, 1, 1 }, sum.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 64, 1, 1 }, sqSum.Dims);
                Assert.AreEqual(DataType.Float, sqSum.DataType);
                Assert.AreEqual("stats::SQ_SUM", sqSum.Name);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Genstats: x 'v' has rank 2",
                                        () => g.Genstats(g.Tensor("v", 4, 4), null, out sqSum));
            }
        }

        [Test]
        public void SoftmaxRngAndBlockScaling()
        {
            using (Graph g = NewGraph())
            {
                Tensor x = g.Tensor("x", 2, 4, 64), stats;
                CollectionAssert.AreEqual(new long[] { 2, 4, 64 }, g.Softmax(x, out stats, true, "softmax").Dims);
                CollectionAssert.AreEqual(new long[] { 2, 4, 1 }, stats.Dims);
                g.Softmax(x, out stats);
                Assert.IsNull(stats);

                Tensor seed = g.Scalar("seed", 7, DataType.Int64), offset = g.Scalar("offset", 0, DataType.Int64);
                CollectionAssert.AreEqual(new long[] { 2, 4, 64 },
                                          g.Rng(seed, offset, RngDistribution.Normal, 0, 1, new long[] { 2, 4, 64 }, DataType.Float).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "std",
                                        () => g.Rng(seed, offset, RngDistribution.Normal, 0, -1, new long[] { 4 }, DataType.Float));

                Tensor wide = Float(g, "wide", 16, 64), scale;
                Tensor q = g.BlockScaleQuantize(wide, out scale, 32, "quantize");
                CollectionAssert.AreEqual(new long[] { 16, 64 }, q.Dims);
                Assert.IsNotNull(scale);
                CollectionAssert.AreEqual(new long[] { 16, 64 }, g.BlockScaleDequantize(q, scale).Dims);
            }
        }

        [Test]
        public void Fp8MatmulAndAttention()
        {
            using (Graph g = NewGraph())
            {
                Tensor a = g.Tensor("a", new long[] { 4, 128, 64 }, null, DataType.Fp8E4M3);
                Tensor b = g.Tensor("b", new long[] { 4, 64, 256 }, null, DataType.Fp8E4M3);
                Tensor one = Float(g, "one", 1, 1, 1), amax;
                CollectionAssert.AreEqual(new long[] { 4, 128, 256 }, g.MatmulFp8(a, b, one, one, one, out amax).Dims);
                CollectionAssert.AreEqual(new long[] { 1, 1, 1 }, amax.Dims);
                Tensor badK = g.Tensor("bad_k", new long[] { 4, 32, 256 }, null, DataType.Fp8E4M3);
                TestSupport.AssertFails(Status.InvalidArgument, "K=64", () => g.MatmulFp8(a, badK, one, one, one, out amax));

                long[] qkv = { 1, 2, 64, 64 };
                Tensor q = g.Tensor("q", qkv, null, DataType.Fp8E4M3), k = g.Tensor("k", qkv, null, DataType.Fp8E4M3),
                       v = g.Tensor("v", qkv, null, DataType.Fp8E4M3), s = Float(g, "s", 1, 1, 1, 1);
                var scales = new SdpaFp8Scales { DescaleQ = s, DescaleK = s, DescaleV = s, DescaleS = s, ScaleS = s, ScaleO = s };
                SdpaFp8Result fwd = g.SdpaFp8(q, k, v, scales, new SdpaOptions { GenerateStats = true, AttnScale = 0.125 });
                CollectionAssert.AreEqual(qkv, fwd.O.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 2, 64, 1 }, fwd.Stats.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 1, 1, 1 }, fwd.AmaxO.Dims);
                scales.ScaleO = null;
                TestSupport.AssertFails(Status.NullPointer, "scale_o", () => g.SdpaFp8(q, k, v, scales));

                var bs = new SdpaFp8BackwardScales
                {
                    DescaleQ = s, DescaleK = s, DescaleV = s, DescaleO = s, DescaleDO = s, DescaleS = s, DescaleDP = s,
                    ScaleS = s, ScaleDP = s, ScaleDQ = s, ScaleDK = s, ScaleDV = s,
                };
                SdpaFp8Gradients grads = g.SdpaFp8Backward(q, k, v, fwd.O, g.Tensor("dO", qkv, null, DataType.Fp8E4M3), fwd.Stats, bs,
                                                           new SdpaBackwardOptions { AttnScale = 0.125 });
                CollectionAssert.AreEqual(qkv, grads.DQ.Dims);
                CollectionAssert.AreEqual(new long[] { 1, 1, 1, 1 }, grads.AmaxDP.Dims);
            }
        }

        [Test]
        public void AttentionImplementationIsReportedOnceLowered()
        {
            using (Graph g = NewGraph())
            {
                long[] qkv = { 1, 2, 64, 64 };
                SdpaResult fwd = g.Sdpa(g.Tensor("q", qkv), g.Tensor("k", qkv), g.Tensor("v", qkv), new SdpaOptions
                {
                    GenerateStats = true, AttnScale = 0.125, Implementation = SdpaImplementation.Composite, Name = "attention",
                });
                fwd.O.SetOutput(true);
                fwd.Stats.SetOutput(true);
                TestSupport.AssertFails(Status.BadState, "Graph.AttentionImplementation", () => g.AttentionImplementation("attention"));
                string json = TestSupport.DeviceJson();
                if (!TestSupport.CudnnAvailable() || json == null) Assert.Ignore("lowering needs cuDNN and the device description");
                g.SetDeviceProperties(json);
                g.Validate();
                g.BuildOperationGraph(null);
                Assert.AreEqual(SdpaImplementation.Composite, g.AttentionImplementation("attention"));
                Assert.AreEqual(SdpaImplementation.Composite, g.AttentionImplementation());
                TestSupport.AssertFails(Status.NotFound, "no_such_node", () => g.AttentionImplementation("no_such_node"));
            }
        }

        [Test]
        public void AttentionBackwardCanOutputTheBiasGradient()
        {
            using (Graph g = NewGraph())
            {
                long[] qkv = { 1, 2, 64, 64 };
                Tensor q = g.Tensor("q", qkv), k = g.Tensor("k", qkv), v = g.Tensor("v", qkv), bias = g.Tensor("bias", 1, 2, 64, 64);
                SdpaResult fwd = g.Sdpa(q, k, v, new SdpaOptions { GenerateStats = true, Bias = bias });
                g.SdpaBackward(q, k, v, fwd.O, g.Tensor("dO", qkv), fwd.Stats, new SdpaBackwardOptions
                {
                    Bias = bias, OutputDbias = true, Deterministic = true, Implementation = SdpaImplementation.Auto, Name = "bwd",
                });
                CollectionAssert.AreEqual(new long[] { 1, 2, 64, 64 }, g.TensorByName("bwd::dBias").Dims);
            }
        }

        [Test]
        public void StatusAndTypeNamesComeFromTheLibrary()
        {
            Assert.AreEqual("FE_STATUS_NOT_SUPPORTED", Status.NotSupported.LibraryName());
            Assert.AreEqual("bfloat16", DataType.BFloat16.LibraryName());
        }
    }
}
