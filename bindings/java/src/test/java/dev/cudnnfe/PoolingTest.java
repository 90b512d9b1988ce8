package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Pooling and the layout operations: dims inference and errors. */
class PoolingTest {
    @Test
    void poolingInfersItsDims() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 2, 8, 16, 16);
            TensorPair max = g.resample(x, new ResampleOptions().window(2, 2).stride(2, 2));
            assertArrayEquals(new long[] {2, 8, 8, 8}, max.first.dims());
            assertNull(max.second);
            TensorPair training = g.resample(x, new ResampleOptions().window(3, 3).stride(2, 2).padding(1, 1).generateIndex(true));
            assertArrayEquals(new long[] {2, 8, 8, 8}, training.first.dims());
            assertNotNull(training.second);
            TensorPair avg = g.resample(x, new ResampleOptions().mode(ResampleMode.AVGPOOL_EXCLUDE_PADDING).window(4, 4).stride(4, 4));
            assertArrayEquals(new long[] {2, 8, 4, 4}, avg.first.dims());
            Tensor dy = g.tensor("dy", 2, 8, 4, 4);
            assertArrayEquals(new long[] {2, 8, 16, 16}, g.resampleBackward(dy, null, null, null, new long[] {2, 8, 16, 16},
                    new ResampleOptions().mode(ResampleMode.AVGPOOL_EXCLUDE_PADDING).window(4, 4).stride(4, 4)).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.resample", () -> g.resample(x, new ResampleOptions()));
        }
    }

    @Test
    void transposeInfersItsDims() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor x = g.tensor("x", 2, 3, 4);
            assertArrayEquals(new long[] {4, 2, 3}, g.transpose(x, new long[] {2, 0, 1}, null).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.transpose", () -> g.transpose(x, new long[] {0, 0, 1}, null));
        }
    }

    @Test
    void sliceReshapeAndConcatenateInferTheirDims() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            Tensor qkv = g.tensor("qkv", 2, 64, 96);
            Tensor k = g.slice(qkv, new long[] {0, 0, 32}, new long[] {2, 64, 64}, "k");
            assertArrayEquals(new long[] {2, 64, 32}, k.dims());
            assertArrayEquals(new long[] {64 * 96, 96, 1}, k.strides());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.slice",
                    () -> g.slice(qkv, new long[] {0, 0, 0}, new long[] {2, 64, 97}, null));
            Tensor flat = g.tensor("flat", 128, 32);
            assertArrayEquals(new long[] {2, 64, 32}, g.reshape(flat, new long[] {2, 64, 32}, null).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.reshape", () -> g.reshape(flat, new long[] {5, 5}, null));
            Tensor cache = g.tensor("cache", 2, 8, 60, 16);
            Tensor fresh = g.tensor("fresh", 2, 8, 4, 16);
            assertArrayEquals(new long[] {2, 8, 64, 16}, g.concatenate(new Tensor[] {cache, fresh}, 2, 0, null).dims());
            TestSupport.assertFails(Status.INVALID_ARGUMENT, "Graph.concatenate",
                    () -> g.concatenate(new Tensor[] {cache, fresh}, 1, -1, null));
        }
    }
}
