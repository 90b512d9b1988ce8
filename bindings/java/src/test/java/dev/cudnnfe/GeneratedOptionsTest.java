package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The options classes are generated from the op schema: every option of genstats and resample, set
 * through its generated setter, reaches the graph (its JSON), so no setter is lost or means another
 * field.
 */
class GeneratedOptionsTest {
    private static void assertHas(String json, String... fragments) {
        for (String fragment : fragments) assertTrue(json.contains(fragment), fragment + " in " + json);
    }

    @Test
    void everyGenstatsOptionReachesTheGraph() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            TensorPair stats = g.genstats(g.tensor("x", 2, 8, 16, 16),
                    new GenstatsOptions().name("stats").computeDataType(DataType.HALF));
            stats.first.setOutput(true);
            stats.second.setOutput(true);
            assertHas(g.toJson(), "{\"op\":\"genstats\",\"name\":\"stats\",\"compute_data_type\":\"half\"",
                    "\"SUM\":\"stats::SUM\"", "\"SQ_SUM\":\"stats::SQ_SUM\"");
        }
    }

    @Test
    void everyResampleOptionReachesTheGraph() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 2, 8, 16, 16);
            TensorPair max = g.resample(x, new ResampleOptions().name("max").mode(ResampleMode.MAXPOOL)
                    .paddingMode(ResamplePadding.EDGE).spatialDims(2).window(3).stride(2, 1).prePadding(1, 0)
                    .postPadding(0, 1).computeDataType(DataType.HALF).generateIndex(true)
                    .indexDataType(DataType.INT32));
            assertArrayEquals(new long[] {2, 8, 8, 15}, max.first.dims());
            max.first.setOutput(true);
            max.second.setOutput(true);
            TensorPair average = g.resample(x, new ResampleOptions().name("average")
                    .mode(ResampleMode.AVGPOOL_EXCLUDE_PADDING).window(2, 4).padding(1));
            average.first.setOutput(true);
            String json = g.toJson();
            assertHas(json, "{\"op\":\"resample\",\"name\":\"max\",\"compute_data_type\":\"half\"",
                    "\"mode\":\"maxpool\",\"padding_mode\":\"edge\",\"window\":[3,3],\"stride\":[2,1],"
                            + "\"pre_padding\":[1,0],\"post_padding\":[0,1],\"generate_index\":true,"
                            + "\"index_data_type\":\"int32\"",
                    "\"Index\":\"max::Index\"",
                    "{\"op\":\"resample\",\"name\":\"average\"",
                    "\"mode\":\"avgpool_exclude_padding\"", "\"window\":[2,4]",
                    "\"pre_padding\":[1,1],\"post_padding\":[1,1]");
        }
    }

    /** An option of another pointwise mode would be ignored: refused, naming the mode. */
    @Test
    void anOptionOfAnotherPointwiseModeIsRefused() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 4, 16, 32);
            PointwiseOptions swish = new PointwiseOptions().swishBeta(1.702).name("swish");
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> g.pointwise(PointwiseMode.RELU_FWD, x, null, null, swish));
            assertTrue(e.getMessage().contains("options.swish_beta is not taken by relu"), e.getMessage());
            assertEquals("swish::Y", g.pointwise(PointwiseMode.SWISH_FWD, x, null, null, swish).name());
        }
    }
}
