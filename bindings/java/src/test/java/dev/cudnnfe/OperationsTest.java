package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The operation families beyond the first graph: each builds, infers its results' dims, and turns a
 * bad argument into a CudnnFeException with the library's status and message. No GPU needed.
 */
class OperationsTest {
    private static Graph graph() {
        return new Graph(new GraphOptions().ioDataType(DataType.HALF));
    }

    private static Tensor floatTensor(Graph g, String name, long... dims) {
        return g.tensor(name, dims, null, DataType.FLOAT);
    }

    @Test
    void convolutionGradientsInferTheirDims() {
        try (Graph g = graph()) {
            ConvOptions options = new ConvOptions().padding(1, 1);
            Tensor dy = g.tensor("dy", 4, 32, 16, 16);
            Tensor w = g.tensor("w", 32, 16, 3, 3);
            Tensor x = g.tensor("x", 4, 16, 16, 16);
            assertArrayEquals(new long[] {4, 16, 16, 16}, g.convDgrad(dy, w, new long[] {4, 16, 16, 16}, options).dims());
            assertArrayEquals(new long[] {32, 16, 3, 3}, g.convWgrad(x, dy, null, options).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.convDgrad",
                    () -> g.convDgrad(dy, w, new long[] {4, 16, 40, 40}, options));
        }
    }

    @Test
    void transposedAndGroupedConvolutionsInferTheirDims() {
        try (Graph g = graph()) {
            Tensor image = g.tensor("image", 1, 8, 4, 4);
            Tensor up = g.tensor("up", 8, 4, 3, 3);
            ConvOptions upsample = new ConvOptions().padding(1, 1).stride(2, 2).outputPadding(1, 1);
            assertArrayEquals(new long[] {1, 4, 8, 8}, g.convTranspose(image, up, upsample).dims());
            Tensor depthwise = g.tensor("depthwise", 8, 1, 3, 3);
            assertArrayEquals(new long[] {1, 8, 4, 4},
                    g.convFprop(image, depthwise, new ConvOptions().padding(1, 1).groups(8)).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "groups",
                    () -> g.convFprop(image, depthwise, new ConvOptions().padding(1, 1).groups(3)));
        }
    }

    @Test
    void layerAndRmsNormalizationReturnTheirStatistics() {
        try (Graph g = graph()) {
            Tensor x = g.tensor("x", 4, 64);
            Tensor scale = floatTensor(g, "scale", 1, 64);
            Tensor bias = floatTensor(g, "bias", 1, 64);
            NormResult training = g.layernorm(x, scale, bias, new NormOptions().phase(NormPhase.TRAINING).epsilon(1e-5));
            assertArrayEquals(new long[] {4, 64}, training.y.dims());
            assertArrayEquals(new long[] {4, 1}, training.mean.dims());
            assertArrayEquals(new long[] {4, 1}, training.invVariance.dims());
            NormResult inference = g.layernorm(x, scale, bias, null);
            assertNull(inference.mean);
            assertNull(inference.invVariance);
            NormResult rms = g.rmsnorm(x, scale, null, new NormOptions().phase(NormPhase.TRAINING));
            assertNull(rms.mean);
            assertArrayEquals(new long[] {4, 1}, rms.invVariance.dims());

            Tensor dy = g.tensor("dy", 4, 64);
            NormGradients ln = g.layernormBackward(dy, x, scale, training.mean, training.invVariance, false);
            assertArrayEquals(new long[] {4, 64}, ln.dx.dims());
            assertArrayEquals(new long[] {1, 64}, ln.dscale.dims());
            assertArrayEquals(new long[] {1, 64}, ln.dbias.dims());
            NormGradients rg = g.rmsnormBackward(dy, x, scale, rms.invVariance, false, false);
            assertArrayEquals(new long[] {1, 64}, rg.dscale.dims());
            assertNull(rg.dbias);

            Tensor wrong = floatTensor(g, "wrong", 1, 32);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.layernorm", () -> g.layernorm(x, wrong, bias, null));
        }
    }

    @Test
    void batchInstanceAndAdaptiveNormalizations() {
        try (Graph g = graph()) {
            Tensor x = g.tensor("x", 2, 8, 4, 4);
            Tensor scale = floatTensor(g, "scale", 1, 8, 1, 1);
            Tensor bias = floatTensor(g, "bias", 1, 8, 1, 1);
            BatchnormResult bn = g.batchnorm(x, scale, bias, new BatchnormOptions().runningStatistics(
                    floatTensor(g, "running_mean", 1, 8, 1, 1), floatTensor(g, "running_var", 1, 8, 1, 1)).momentum(0.1));
            assertArrayEquals(new long[] {1, 8, 1, 1}, bn.mean.dims());
            assertArrayEquals(new long[] {1, 8, 1, 1}, bn.nextRunningVar.dims());
            assertNull(g.batchnorm(x, scale, bias, null).nextRunningMean);
            Tensor dy = g.tensor("dy", 2, 8, 4, 4);
            assertArrayEquals(new long[] {2, 8, 4, 4}, g.batchnormBackward(dy, x, scale, bn.mean, bn.invVariance).dx.dims());
            assertArrayEquals(new long[] {2, 8, 4, 4},
                    g.batchnormInference(x, bn.mean, bn.invVariance, scale, bias, "bn_inference").dims());

            NormResult in = g.instancenorm(x, scale, bias, new NormOptions().phase(NormPhase.TRAINING));
            assertArrayEquals(new long[] {2, 8, 1, 1}, in.mean.dims());
            assertArrayEquals(new long[] {1, 8, 1, 1}, g.instancenormBackward(dy, x, scale, in.mean, in.invVariance).dscale.dims());

            Tensor tokens = g.tensor("tokens", 2, 4, 16);
            Tensor perSample = floatTensor(g, "ada_scale", 2, 1, 16);
            NormResult ada = g.adalayernorm(tokens, perSample, floatTensor(g, "ada_bias", 2, 1, 16),
                    new NormOptions().phase(NormPhase.TRAINING));
            assertArrayEquals(new long[] {2, 4, 1}, ada.mean.dims());
            NormGradients adaGrad = g.adalayernormBackward(g.tensor("ada_dy", 2, 4, 16), tokens, perSample, ada.mean,
                    ada.invVariance, true);
            assertArrayEquals(new long[] {2, 1, 16}, adaGrad.dscale.dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "zero",
                    () -> g.instancenorm(x, scale, bias, new NormOptions().zeroCenteredGamma(true)));
        }
    }

    @Test
    void dbnWeightGivesFivePerChannelFloatOutputs() {
        try (Graph g = graph()) {
            Tensor dy = g.tensor("dy", 2, 8, 4, 4);
            Tensor x = g.tensor("x", 2, 8, 4, 4);
            Tensor mean = floatTensor(g, "mean", 1, 8, 1, 1);
            Tensor inv = floatTensor(g, "inv_variance", 1, 8, 1, 1);
            Tensor scale = floatTensor(g, "scale", 1, 8, 1, 1);
            DbnWeightResult r = g.dbnWeight(dy, x, mean, inv, scale, null);
            for (Tensor t : new Tensor[] {r.dScale, r.dBias, r.eqScaleDy, r.eqScaleX, r.eqBias}) {
                assertArrayEquals(new long[] {1, 8, 1, 1}, t.dims());
                assertEquals(DataType.FLOAT, t.dataType());
            }
            Tensor wide = floatTensor(g, "wide", 1, 16, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "scale 'wide' is [1,16,1,1]",
                    () -> g.dbnWeight(dy, x, mean, inv, wide, null));
        }
    }

    @Test
    void genstatsGivesFloatStatisticsPerChannel() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor y = g.convFprop(g.tensor("x", 4, 32, 16, 16), g.tensor("w", 64, 32, 3, 3), new ConvOptions().padding(1));
            TensorPair stats = g.genstats(y, new GenstatsOptions().name("stats").computeDataType(DataType.FLOAT));
            assertArrayEquals(new long[] {1, 64, 1, 1}, stats.first.dims());
            assertArrayEquals(new long[] {1, 64, 1, 1}, stats.second.dims());
            assertEquals(DataType.FLOAT, stats.second.dataType());
            assertEquals("stats::SQ_SUM", stats.second.name());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.genstats: x 'v' has rank 2",
                    () -> g.genstats(g.tensor("v", 4, 4), null));
        }
    }

    @Test
    void softmaxRngAndBlockScaling() {
        try (Graph g = graph()) {
            Tensor x = g.tensor("x", 2, 4, 64);
            TensorPair softmax = g.softmax(x, true, "softmax");
            assertArrayEquals(new long[] {2, 4, 64}, softmax.first.dims());
            assertArrayEquals(new long[] {2, 4, 1}, softmax.second.dims());
            assertNull(g.softmax(x, false, null).second);

            Tensor seed = g.scalar("seed", 7, DataType.INT64);
            Tensor offset = g.scalar("offset", 0, DataType.INT64);
            Tensor noise = g.rng(seed, offset, RngDistribution.NORMAL, 0, 1, new long[] {2, 4, 64}, DataType.FLOAT);
            assertArrayEquals(new long[] {2, 4, 64}, noise.dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "std",
                    () -> g.rng(seed, offset, RngDistribution.NORMAL, 0, -1, new long[] {4}, DataType.FLOAT));

            Tensor wide = g.tensor("wide", new long[] {16, 64}, null, DataType.FLOAT);
            TensorPair q = g.blockScaleQuantize(wide, 32, "quantize");
            assertArrayEquals(new long[] {16, 64}, q.first.dims());
            assertNotNull(q.second);
            assertArrayEquals(new long[] {16, 64}, g.blockScaleDequantize(q.first, q.second, 32, null).dims());
        }
    }

    @Test
    void fp8MatmulAndAttention() {
        try (Graph g = graph()) {
            Tensor a = g.tensor("a", new long[] {4, 128, 64}, null, DataType.FP8_E4M3);
            Tensor b = g.tensor("b", new long[] {4, 64, 256}, null, DataType.FP8_E4M3);
            Tensor one = floatTensor(g, "one", 1, 1, 1);
            TensorPair c = g.matmulFp8(a, b, one, one, one, null);
            assertArrayEquals(new long[] {4, 128, 256}, c.first.dims());
            assertArrayEquals(new long[] {1, 1, 1}, c.second.dims());
            Tensor badK = g.tensor("bad_k", new long[] {4, 32, 256}, null, DataType.FP8_E4M3);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "K=64", () -> g.matmulFp8(a, badK, one, one, one, null));

            long[] qkv = {1, 2, 64, 64};
            Tensor q = g.tensor("q", qkv, null, DataType.FP8_E4M3);
            Tensor k = g.tensor("k", qkv, null, DataType.FP8_E4M3);
            Tensor v = g.tensor("v", qkv, null, DataType.FP8_E4M3);
            SdpaFp8Scales scales = new SdpaFp8Scales();
            Tensor s = floatTensor(g, "s", 1, 1, 1, 1);
            scales.descaleQ = scales.descaleK = scales.descaleV = scales.descaleS = scales.scaleS = scales.scaleO = s;
            SdpaFp8Result fwd = g.sdpaFp8(q, k, v, scales, new SdpaOptions().generateStats(true).attnScale(0.125));
            assertArrayEquals(qkv, fwd.o.dims());
            assertArrayEquals(new long[] {1, 2, 64, 1}, fwd.stats.dims());
            assertArrayEquals(new long[] {1, 1, 1, 1}, fwd.amaxO.dims());
            scales.scaleO = null;
            TestSupport.assertFails(Status.NULL_POINTER, "scale_o", () -> g.sdpaFp8(q, k, v, scales, null));

            SdpaFp8BackwardScales bs = new SdpaFp8BackwardScales();
            bs.descaleQ = bs.descaleK = bs.descaleV = bs.descaleO = bs.descaleDO = bs.descaleS = bs.descaleDP = s;
            bs.scaleS = bs.scaleDP = bs.scaleDQ = bs.scaleDK = bs.scaleDV = s;
            Tensor dO = g.tensor("dO", qkv, null, DataType.FP8_E4M3);
            SdpaFp8Gradients grads = g.sdpaFp8Backward(q, k, v, fwd.o, dO, fwd.stats, bs,
                    new SdpaBackwardOptions().attnScale(0.125));
            assertArrayEquals(qkv, grads.dq.dims());
            assertArrayEquals(new long[] {1, 1, 1, 1}, grads.amaxDp.dims());
        }
    }

    @Test
    void attentionOptionsAndItsImplementation() {
        try (Graph g = graph()) {
            long[] qkv = {1, 2, 64, 64};
            Tensor q = g.tensor("q", qkv);
            Tensor k = g.tensor("k", qkv);
            Tensor v = g.tensor("v", qkv);
            SdpaResult fwd = g.sdpa(q, k, v, new SdpaOptions().generateStats(true).attnScale(0.125)
                    .implementation(SdpaImplementation.COMPOSITE).name("attention"));
            fwd.o.setOutput(true);
            fwd.stats.setOutput(true);
            TestSupport.assertFails(Status.BAD_STATE, "Graph.attentionImplementation",
                    () -> g.attentionImplementation("attention"));
            String json = TestSupport.deviceJson();
            assumeTrue(TestSupport.cudnnAvailable() && json != null, "lowering needs cuDNN and the device description");
            g.setDeviceProperties(json);
            g.validate();
            g.buildOperationGraph(null);
            assertEquals(SdpaImplementation.COMPOSITE, g.attentionImplementation("attention"));
            assertEquals(SdpaImplementation.COMPOSITE, g.attentionImplementation(null));
            TestSupport.assertFails(Status.NOT_FOUND, "no_such_node", () -> g.attentionImplementation("no_such_node"));
        }
    }

    @Test
    void attentionBackwardCanOutputTheBiasGradient() {
        try (Graph g = graph()) {
            long[] qkv = {1, 2, 64, 64};
            Tensor q = g.tensor("q", qkv);
            Tensor k = g.tensor("k", qkv);
            Tensor v = g.tensor("v", qkv);
            Tensor bias = g.tensor("bias", 1, 2, 64, 64);
            SdpaResult fwd = g.sdpa(q, k, v, new SdpaOptions().generateStats(true).bias(bias));
            g.sdpaBackward(q, k, v, fwd.o, g.tensor("dO", qkv), fwd.stats,
                    new SdpaBackwardOptions().bias(bias).outputDbias(true).deterministic(true)
                            .implementation(SdpaImplementation.AUTO).name("bwd"));
            assertArrayEquals(new long[] {1, 2, 64, 64}, g.tensorByName("bwd::dBias").dims());
        }
    }

    @Test
    void statusAndTypeNamesComeFromTheLibrary() {
        assertEquals("FE_STATUS_NOT_SUPPORTED", Status.NOT_SUPPORTED.libraryName());
        assertEquals("bfloat16", DataType.BFLOAT16.libraryName());
    }
}
