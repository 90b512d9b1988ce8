package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Per-spatial-dim options mean what they mean in C: one value applies to every spatial dim (as in
 * PyTorch), one per spatial dim fixes their count, and another count is refused with the C
 * library's message. The C, C# and Go tests check the same cases.
 */
class SpatialOptionsTest {
    @Test
    void oneValueAppliesToEverySpatialDim() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 8, 64, 56, 56);
            Tensor w = g.tensor("w", 32, 64, 3, 3);
            assertArrayEquals(new long[] {8, 32, 28, 28}, g.convFprop(x, w, new ConvOptions().padding(1).stride(2)).dims());
            assertArrayEquals(new long[] {8, 32, 28, 28},
                    g.convFprop(x, w, new ConvOptions().padding(1, 1).stride(2, 2)).dims());
            TensorPair pooled = g.resample(x, new ResampleOptions().window(2).stride(2));
            assertArrayEquals(new long[] {8, 64, 28, 28}, pooled.first.dims());
        }
    }

    @Test
    void threeValuesForTwoDimsAreRefused() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 8, 64, 56, 56);
            Tensor w = g.tensor("w", 32, 64, 3, 3);
            TestSupport.assertFails(Status.INVALID_ARGUMENT,
                    "Graph.convFprop: options give 3 spatial dims (padding, stride, dilation) but image has 2",
                    () -> g.convFprop(x, w, new ConvOptions().padding(1, 1, 1)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT,
                    "ConvOptions.stride: 4 stride values; give 1 (every spatial dim) or one per spatial dim (2 or 3)",
                    () -> g.convFprop(x, w, new ConvOptions().stride(1, 1, 1, 1)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT,
                    "ConvOptions.stride: stride is given for 3 spatial dims but the options already have 2",
                    () -> g.convFprop(x, w, new ConvOptions().padding(1, 1).stride(2, 2, 2)));
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "ResampleOptions.window: 0 window values",
                    () -> g.resample(x, new ResampleOptions().window()));
        }
    }

    @Test
    void everyResampleOptionReachesTheGraph() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 2, 8, 16, 16);
            TensorPair pooled = g.resample(x, new ResampleOptions().window(3).stride(2).prePadding(1).postPadding(0)
                    .paddingMode(ResamplePadding.EDGE).generateIndex(true).indexDataType(DataType.INT32));
            assertArrayEquals(new long[] {2, 8, 8, 8}, pooled.first.dims());
            pooled.first.setOutput(true);
            pooled.second.setOutput(true);
            String json = g.toJson();
            assertTrue(json.contains("\"padding_mode\":\"edge\""), json);
            assertTrue(json.contains("\"index_data_type\":\"int32\""), json);
            assertTrue(json.contains("\"pre_padding\":[1,1]"), json);
            assertTrue(json.contains("\"post_padding\":[0,0]"), json);
        }
    }
}
