package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Attention's sinks, Max/SumExp outputs, two-bound bands and soft-capping through the generated
 * options: each option reaches the graph (its description, its outputs found by name) and each bad
 * combination is refused with the C library's reason. No GPU needed.
 */
class AttentionBandSinkTest {
    private static Graph graph(DataType io) {
        return new Graph(new GraphOptions().ioDataType(io));
    }

    private static Tensor floatTensor(Graph g, String name, long... dims) {
        return g.tensor(name, dims, null, DataType.FLOAT);
    }

    private static void assertDescribes(Graph g, String... fragments) {
        String text = g.describe();
        for (String fragment : fragments) assertTrue(text.contains(fragment), fragment + " in " + text);
    }

    @Test
    void sinksWithACausalMaskAndStatsReachTheGraph() {
        try (Graph g = graph(DataType.BFLOAT16)) {
            Tensor q = g.tensor("q", 2, 8, 256, 64);
            Tensor k = g.tensor("k", 2, 8, 256, 64);
            Tensor v = g.tensor("v", 2, 8, 256, 64);
            Tensor sink = floatTensor(g, "sink", 1, 8, 1, 1);
            SdpaResult fwd = g.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).causalMask(CausalMask.TOP_LEFT)
                    .generateStats(true).sinkToken(sink));
            assertArrayEquals(new long[] {2, 8, 256, 64}, fwd.o.dims());
            assertArrayEquals(new long[] {2, 8, 256, 1}, fwd.stats.dims());
            assertEquals(DataType.FLOAT, fwd.stats.dataType());
            assertDescribes(g, "sink=sink", "causal=top_left");
            Tensor fourHeads = floatTensor(g, "four_heads", 1, 4, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "it must be [1, 8, 1, 1]",
                    () -> g.sdpa(q, k, v, new SdpaOptions().sinkToken(fourHeads)));
        }
    }

    @Test
    void maxAndSumExpAreOutputByNameInsteadOfTheStats() {
        try (Graph g = graph(DataType.HALF)) {
            Tensor q = g.tensor("q", 2, 8, 128, 64);
            Tensor k = g.tensor("k", 2, 2, 512, 64);
            Tensor v = g.tensor("v", 2, 2, 512, 64);
            SdpaResult fwd = g.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).outputMaxSumExp(true));
            assertArrayEquals(new long[] {2, 8, 128, 64}, fwd.o.dims());
            for (String port : new String[] {"sdpa_0::Max", "sdpa_0::SumExp"}) {
                Tensor t = g.tensorByName(port);
                assertArrayEquals(new long[] {2, 8, 128, 1}, t.dims(), port);
                assertEquals(DataType.FLOAT, t.dataType(), port);
            }
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "the stats or Max and SumExp, not both",
                    () -> g.sdpa(q, k, v, new SdpaOptions().outputMaxSumExp(true).generateStats(true)));
        }
    }

    @Test
    void aBandOfBothBoundsKeepsItsBoundsAndAlignment() {
        try (Graph g = graph(DataType.BFLOAT16)) {
            Tensor q = g.tensor("q", 2, 8, 128, 64);
            Tensor k = g.tensor("k", 2, 8, 256, 64);
            Tensor v = g.tensor("v", 2, 8, 256, 64);
            SdpaResult fwd = g.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).slidingWindow(64).rightBound(16)
                    .diagonalAlignment(DiagonalAlignment.BOTTOM_RIGHT).generateStats(true));
            assertArrayEquals(new long[] {2, 8, 128, 64}, fwd.o.dims());
            assertDescribes(g, "window=64", "right_bound=16", "diagonal=bottom_right");
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "a causal mask is right_bound 0: give one of them",
                    () -> g.sdpa(q, k, v, new SdpaOptions().causalMask(CausalMask.TOP_LEFT)
                            .diagonalAlignment(DiagonalAlignment.TOP_LEFT).rightBound(4)));
        }
    }

    @Test
    void softCappingReachesTheGraphAndANegativeCapIsRefused() {
        try (Graph g = graph(DataType.HALF)) {
            Tensor q = g.tensor("q", 2, 8, 256, 64);
            Tensor k = g.tensor("k", 2, 8, 256, 64);
            Tensor v = g.tensor("v", 2, 8, 256, 64);
            g.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).softcap(50).generateStats(true));
            assertDescribes(g, "softcap=50");
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "options.softcap is -1",
                    () -> g.sdpa(q, k, v, new SdpaOptions().softcap(-1)));
        }
    }

    @Test
    void dSinkIsOutputByNameAndNeedsTheSinks() {
        try (Graph g = graph(DataType.BFLOAT16)) {
            long[] qkv = {2, 8, 256, 64};
            Tensor q = g.tensor("q", qkv);
            Tensor k = g.tensor("k", qkv);
            Tensor v = g.tensor("v", qkv);
            Tensor o = g.tensor("o", qkv);
            Tensor dO = g.tensor("dO", qkv);
            Tensor stats = floatTensor(g, "stats", 2, 8, 256, 1);
            Tensor sink = floatTensor(g, "sink", 1, 8, 1, 1);
            SdpaGradients grads = g.sdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions().attnScale(0.125)
                    .causalMask(CausalMask.TOP_LEFT).sinkToken(sink).outputDsink(true));
            assertArrayEquals(qkv, grads.dq.dims());
            Tensor dSink = g.tensorByName("sdpa_backward_0::dSink");
            assertArrayEquals(new long[] {1, 8, 1, 1}, dSink.dims());
            assertEquals(DataType.FLOAT, dSink.dataType());
            assertDescribes(g, "sink=sink", "dsink");
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "output_dsink needs the forward's sinks",
                    () -> g.sdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions().outputDsink(true)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "sink_token in the backward serves only dSink",
                    () -> g.sdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions().sinkToken(sink)));
        }
    }

    @Test
    void theBackwardTakesTheBandAndTheCapOfTheForward() {
        try (Graph g = graph(DataType.HALF)) {
            long[] qkv = {2, 8, 128, 64};
            long[] kv = {2, 8, 256, 64};
            Tensor q = g.tensor("q", qkv);
            SdpaGradients grads = g.sdpaBackward(q, g.tensor("k", kv), g.tensor("v", kv), g.tensor("o", qkv),
                    g.tensor("dO", qkv), floatTensor(g, "stats", 2, 8, 128, 1), new SdpaBackwardOptions()
                            .attnScale(0.125).slidingWindow(64).rightBound(16)
                            .diagonalAlignment(DiagonalAlignment.BOTTOM_RIGHT).softcap(50));
            assertArrayEquals(kv, grads.dk.dims());
            assertDescribes(g, "right_bound=16", "diagonal=bottom_right", "softcap=50");
        }
    }

    /** Soft-capping written as the caller's own chain: cap * tanh(s / cap) on a stand-in for the scores. */
    private static Tensor softcapChain(Graph g, Tensor scores, Tensor cap) {
        Tensor divided = g.pointwise(PointwiseMode.DIV, scores, cap, null, null);
        Tensor tanh = g.pointwise(PointwiseMode.TANH_FWD, divided, null, null, null);
        return g.pointwise(PointwiseMode.MUL, tanh, cap, null, null);
    }

    @Test
    void theCallersScoreModifierRunsInsideTheAttention() {
        try (Graph g = graph(DataType.HALF)) {
            Tensor q = g.tensor("q", 2, 4, 128, 64);
            Tensor k = g.tensor("k", 2, 4, 128, 64);
            Tensor v = g.tensor("v", 2, 4, 128, 64);
            Tensor scores = floatTensor(g, "scores", 2, 4, 128, 128);
            Tensor capped = softcapChain(g, scores, g.scalar("cap", 30, DataType.FLOAT));
            g.sdpa(q, k, v, new SdpaOptions().attnScale(0.125).scoreModInput(scores).scoreModOutput(capped));
            assertDescribes(g, "score_mod=mul_0::Y(3 ops)", "stands for the scores in sdpa 'sdpa_0'",
                    "inside sdpa 'sdpa_0'");
            assertEquals(3, g.inputs().size(), "the stand-in is not a graph input");
            Tensor other = floatTensor(g, "other", 2, 4, 128, 128);
            Tensor unrelated = g.pointwise(PointwiseMode.TANH_FWD, other, null, null, null);
            Tensor fresh = floatTensor(g, "fresh", 2, 4, 128, 128);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "does not depend on options.score_mod_input 'fresh'",
                    () -> g.sdpa(q, k, v, new SdpaOptions().scoreModInput(fresh).scoreModOutput(unrelated)));
        }
    }

    @Test
    void theBackwardTakesTheCallersDerivative() {
        try (Graph g = graph(DataType.HALF)) {
            long[] qkv = {2, 4, 128, 64};
            Tensor q = g.tensor("q", qkv), k = g.tensor("k", qkv), v = g.tensor("v", qkv);
            Tensor o = g.tensor("o", qkv), dO = g.tensor("dO", qkv), stats = floatTensor(g, "stats", 2, 4, 128, 1);
            Tensor cap = g.scalar("cap", 30, DataType.FLOAT);
            Tensor scores = floatTensor(g, "scores", 2, 4, 128, 128);
            Tensor capped = softcapChain(g, scores, cap);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "its derivative is the caller's to give",
                    () -> g.sdpaBackward(q, k, v, o, dO, stats,
                            new SdpaBackwardOptions().scoreModInput(scores).scoreModOutput(capped)));
            Tensor dScores = floatTensor(g, "d_scores", 2, 4, 128, 128);
            Tensor before = g.tensorByName("div_0::Y");
            Tensor timesCap = g.pointwise(PointwiseMode.MUL, dScores, cap, null, null);
            Tensor throughTanh = g.pointwise(PointwiseMode.TANH_BWD, timesCap, before, null, null);
            Tensor dIn = g.pointwise(PointwiseMode.DIV, throughTanh, cap, null, null);
            SdpaGradients grads = g.sdpaBackward(q, k, v, o, dO, stats, new SdpaBackwardOptions().attnScale(0.125)
                    .scoreModInput(scores).scoreModOutput(capped).scoreModGradInput(dScores).scoreModGradOutput(dIn));
            assertArrayEquals(qkv, grads.dq.dims());
            assertDescribes(g, "score_mod=mul_0::Y(3 ops)", "score_mod_grad=div_1::Y(3 ops)");
        }
    }
}
