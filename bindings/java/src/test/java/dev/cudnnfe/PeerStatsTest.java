package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Synchronized batchnorm's peer statistics buffers through the generated options mean what they
 * mean in C (fe_batchnorm_options_set_peer_stats, fe_norm_backward_options_set_peer_stats): the
 * buffers given become the op's inputs peer_stats_0, peer_stats_1, ... in order, and each malformed
 * setup is refused with the C library's reason. No GPU needed.
 */
class PeerStatsTest {
    /** x [4, 32, 8, 8] half channels-last, its scale and bias, and peer buffers [2, 128, 1, 1]. */
    private static final class Setup {
        final Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF));
        final Tensor x = g.tensor("x", new long[] {4, 32, 8, 8}, new long[] {2048, 1, 256, 32}, DataType.HALF);
        final Tensor scale = g.tensor("scale", new long[] {1, 32, 1, 1}, null, DataType.FLOAT);
        final Tensor bias = g.tensor("bias", new long[] {1, 32, 1, 1}, null, DataType.FLOAT);
        private int made;

        /** n more peer buffers, named peer0, peer1, ... across calls. */
        Tensor[] peers(int n) {
            Tensor[] out = new Tensor[n];
            for (int i = 0; i < n; ++i) out[i] = peer("peer" + made++, 2, 128, 1, 1);
            return out;
        }

        Tensor peer(String name, long... dims) {
            return g.tensor(name, dims, new long[] {dims[1], 1, dims[1], dims[1]}, DataType.FLOAT);
        }

        Tensor dy() {
            return g.tensor("dy", new long[] {4, 32, 8, 8}, new long[] {2048, 1, 256, 32}, DataType.HALF);
        }
    }

    @Test
    void peerStatsBecomeTheInputsOfBatchnormAndItsBackwardInOrder() {
        Setup s = new Setup();
        try (Graph g = s.g) {
            BatchnormResult r = g.batchnorm(s.x, s.scale, s.bias,
                    new BatchnormOptions().name("bn").peerStats(s.peers(2)));
            r.y.setOutput(true);
            assertArrayEquals(new long[] {4, 32, 8, 8}, r.y.dims());
            NormGradients d = g.batchnormBackward(s.dy(), s.x, s.scale, r.mean, r.invVariance,
                    new NormBackwardOptions().name("bn_bwd").peerStats(s.peers(2)));
            for (Tensor t : new Tensor[] {d.dx, d.dscale, d.dbias}) t.setOutput(true);
            g.validate();

            String json = g.toJson();
            assertTrue(json.contains("\"name\":\"bn\""), json);
            assertTrue(json.contains("\"bias\":\"bias\",\"peer_stats_0\":\"peer0\",\"peer_stats_1\":\"peer1\"}"), json);
            assertTrue(json.contains("\"inv_variance\":\"bn::InvVariance\",\"peer_stats_0\":\"peer2\","
                    + "\"peer_stats_1\":\"peer3\"}"), json);
        }
    }

    @Test
    void badPeerStatsAreRefusedWithTheCReason() {
        Setup s = new Setup();
        try (Graph g = s.g) {
            Tensor[] peers = s.peers(9);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "at most 8",
                    () -> g.batchnorm(s.x, s.scale, s.bias, new BatchnormOptions().peerStats(peers)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "two or more",
                    () -> g.batchnorm(s.x, s.scale, s.bias, new BatchnormOptions().peerStats(peers[0])));
            TestSupport.assertFails(Status.NULL_POINTER, "peer_stats[1] is NULL",
                    () -> g.batchnorm(s.x, s.scale, s.bias, new BatchnormOptions().peerStats(peers[0], null)));
            Tensor narrow = s.peer("narrow", 2, 64, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT,
                    "peer_stats_0 'narrow' is [2,64,1,1]; it must be [2,128,1,1]",
                    () -> g.batchnorm(s.x, s.scale, s.bias, new BatchnormOptions().peerStats(narrow, peers[1])));
        }
    }

    @Test
    void layernormBackwardTakesNoPeerStats() {
        Setup s = new Setup();
        try (Graph g = s.g) {
            Tensor dy = s.dy();
            Tensor scale = g.tensor("ln_scale", new long[] {1, 32, 8, 8}, null, DataType.FLOAT);
            Tensor mean = g.tensor("mean", new long[] {4, 1, 1, 1}, null, DataType.FLOAT);
            Tensor invVariance = g.tensor("inv_variance", new long[] {4, 1, 1, 1}, null, DataType.FLOAT);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "is not taken by layernorm_backward",
                    () -> g.layernormBackward(dy, s.x, scale, mean, invVariance,
                            new NormBackwardOptions().peerStats(s.peers(2))));
        }
    }

    @Test
    void aPeerBufferResizedAfterTheOpIsRefusedAtValidation() {
        Setup s = new Setup();
        try (Graph g = s.g) {
            Tensor[] peers = s.peers(2);
            BatchnormResult r = g.batchnorm(s.x, s.scale, s.bias, new BatchnormOptions().peerStats(peers));
            for (Tensor t : new Tensor[] {r.y, r.mean, r.invVariance}) t.setOutput(true);
            g.validate();
            peers[0].setDims(2, 64, 1, 1);
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "peer_stats_0 'peer0' is [2,64,1,1]", g::validate);
        }
    }
}
