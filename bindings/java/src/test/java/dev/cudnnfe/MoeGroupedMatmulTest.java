package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The mixture-of-experts grouped matmul's modes and routing tensors through the generated options,
 * and the packed backward's max_total_seq_len_q: each option reaches the graph (its description, its
 * output's dims) and each bad routing setup is refused with the C library's reason. No GPU needed.
 */
class MoeGroupedMatmulTest {
    private static Graph graph() {
        return new Graph(new GraphOptions().ioDataType(DataType.BFLOAT16));
    }

    /** Eight experts' [k, n] weights, K-contiguous as the reference frontend lays them out. */
    private static Tensor weight(Graph g, long k, long n) {
        return g.tensor("w", new long[] {8, k, n}, new long[] {k * n, 1, k}, DataType.NOT_SET);
    }

    private static Tensor int32(Graph g, String name, long... dims) {
        return g.tensor(name, dims, null, DataType.INT32);
    }

    private static void assertDescribes(Graph g, String... fragments) {
        String text = g.describe();
        for (String fragment : fragments) assertTrue(text.contains(fragment), fragment + " in " + text);
    }

    @Test
    void modeNoneKeepsTheTokenRowsAndTakesUntypedOffsetsAsInt32() {
        try (Graph g = graph()) {
            Tensor x = g.tensor("x", 1, 1024, 1024);
            Tensor w = weight(g, 1024, 4096);
            Tensor offsets = g.tensor("offsets", 8, 1, 1);
            Tensor y = g.moeGroupedMatmul(x, w, offsets, null);
            assertArrayEquals(new long[] {1, 1024, 4096}, y.dims());
            assertEquals(DataType.INT32, offsets.dataType());
            Tensor named = g.moeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions().mode(MoeMode.NONE));
            assertArrayEquals(new long[] {1, 1024, 4096}, named.dims());
            assertDescribes(g, "mode=none");
        }
    }

    @Test
    void scatterWithTopKWritesOneRowPerTokenRow() {
        try (Graph g = graph()) {
            Tensor y = g.moeGroupedMatmul(g.tensor("x", 1, 384, 256), weight(g, 256, 1024), int32(g, "offsets", 8, 1, 1),
                    new MoeGroupedMatmulOptions().mode(MoeMode.SCATTER).tokenIndex(int32(g, "token_index", 1, 384, 1))
                            .tokenKs(int32(g, "token_ks", 1, 384, 1)).topK(2));
            assertArrayEquals(new long[] {1, 384, 1024}, y.dims());
            assertDescribes(g, "mode=scatter top_k=2");
        }
    }

    @Test
    void gatherWritesOneRowPerTokenIndexRow() {
        try (Graph g = graph()) {
            Tensor y = g.moeGroupedMatmul(g.tensor("x", 1, 256, 256), weight(g, 256, 1024), int32(g, "offsets", 8, 1, 1),
                    new MoeGroupedMatmulOptions().mode(MoeMode.GATHER).tokenIndex(int32(g, "token_index", 1, 512, 1)));
            assertArrayEquals(new long[] {1, 512, 1024}, y.dims());
            assertDescribes(g, "mode=gather");
        }
    }

    @Test
    void badRoutingIsRefusedWithItsReason() {
        try (Graph g = graph()) {
            Tensor x = g.tensor("x", 1, 512, 256);
            Tensor w = weight(g, 256, 512);
            Tensor offsets = int32(g, "offsets", 8, 1, 1);
            Tensor index = int32(g, "token_index", 1, 512, 1);
            Tensor ks = int32(g, "token_ks", 1, 512, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "mode GATHER needs options.token_index",
                    () -> g.moeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions().mode(MoeMode.GATHER)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "mode NONE takes no token_index",
                    () -> g.moeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions().tokenIndex(index)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "options.top_k is 2; it applies to mode SCATTER only",
                    () -> g.moeGroupedMatmul(x, w, offsets, new MoeGroupedMatmulOptions().topK(2)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "mode SCATTER needs options.top_k",
                    () -> g.moeGroupedMatmul(x, w, offsets,
                            new MoeGroupedMatmulOptions().mode(MoeMode.SCATTER).tokenIndex(index).tokenKs(ks)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "has K = 128 but weight 'w' has 256 rows per expert",
                    () -> g.moeGroupedMatmul(g.tensor("x_wide", 1, 512, 128), w, offsets, null));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "it must be [1, rows, K]",
                    () -> g.moeGroupedMatmul(g.tensor("x_batched", 2, 512, 256), w, offsets, null));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "groups a multiple of the 8 experts",
                    () -> g.moeGroupedMatmul(x, w, int32(g, "offsets_7", 7, 1, 1), null));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "it must be int32",
                    () -> g.moeGroupedMatmul(x, w, g.tensor("offsets_i64", new long[] {8, 1, 1}, null, DataType.INT64),
                            null));
        }
    }

    @Test
    void maxTotalSeqLenNeedsPackedTensors() {
        final long b = 3, h = 4, s = 128, d = 64;
        long[] dims = {b, h, s, d};
        long[] strides = {s * h * d, d, h * d, 1};
        // Packed with both sizes; then unpacked with one or the other, refused at build.
        String[] refusals = {null, "Q 'q' is not packed", "K 'k' and V 'v' are not both packed"};
        for (int c = 0; c < refusals.length; ++c) {
            final boolean packed = refusals[c] == null;
            try (Graph g = graph()) {
                String[] names = {"q", "k", "v", "o", "dO"};
                Tensor[] t = new Tensor[names.length];
                for (int i = 0; i < names.length; ++i) t[i] = g.tensor(names[i], dims, strides, DataType.NOT_SET);
                Tensor stats = g.tensor("stats", new long[] {b, h, s, 1}, null, DataType.FLOAT);
                if (packed) {
                    Tensor offsets = g.tensor("offsets", new long[] {b + 1, 1, 1, 1}, null, DataType.INT64);
                    for (Tensor x : t) x.setRaggedOffset(offsets);
                    stats.setStrides(s * h, 1, h, 1)
                            .setRaggedOffset(g.tensor("stats_offsets", new long[] {b + 1, 1, 1, 1}, null, DataType.INT64));
                }
                SdpaBackwardOptions options = new SdpaBackwardOptions().attnScale(0.125)
                        .seqLenQ(int32(g, "lq", b, 1, 1, 1)).seqLenKv(int32(g, "lkv", b, 1, 1, 1))
                        .maxTotalSeqLenQ(c != 2 ? 200 : 0).maxTotalSeqLenKv(c != 1 ? 200 : 0);
                SdpaGradients grads = g.sdpaBackward(t[0], t[1], t[2], t[3], t[4], stats, options);
                assertArrayEquals(dims, grads.dq.dims());
                if (packed) continue;
                String json = TestSupport.deviceJson();
                assumeTrue(TestSupport.cudnnAvailable() && json != null, "lowering needs cuDNN and the device description");
                for (Tensor x : new Tensor[] {grads.dq, grads.dk, grads.dv}) x.setOutput(true);
                g.setDeviceProperties(json);
                g.validate();
                TestSupport.assertFails(Status.INVALID_ARGUMENT, refusals[c], () -> g.buildOperationGraph(null));
            }
        }
    }
}
