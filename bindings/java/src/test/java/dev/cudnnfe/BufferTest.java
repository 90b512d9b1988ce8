package dev.cudnnfe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Device buffers: transfers on a GPU; without one, creation fails with the library's CUDA error. */
class BufferTest {
    @Test
    void withoutAGpuCreationFailsWithTheCudaStatus() {
        assumeFalse(TestSupport.gpuAvailable(), "this machine has a GPU");
        CudnnFeException e = assertThrows(CudnnFeException.class, () -> DeviceBuffer.allocate(0, 1024));
        assertTrue(e.status() == Status.NO_DEVICE || e.status() == Status.CUDA_ERROR
                || e.status() == Status.LIBRARY_UNAVAILABLE, e.status() + ": " + e.getMessage());
        assertTrue(e.getMessage().startsWith("DeviceBuffer.allocate"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertThrows(CudnnFeException.class, () -> new Handle(0));
    }

    @Test
    void floatsRoundTripThroughHalfAndFloat() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (DeviceBuffer buffer = DeviceBuffer.allocate(0, 64)) {
            assertEquals(64, buffer.size());
            assertEquals(0, buffer.devicePointer() % 16);
            float[] values = {0.5f, -1.25f, 3.0f, 1024.0f};
            buffer.upload(values, DataType.HALF);
            assertArrayEquals(values, buffer.downloadFloats(4, DataType.HALF));
            buffer.upload(values, DataType.FLOAT);
            assertArrayEquals(values, buffer.downloadFloats(4, DataType.FLOAT));
            buffer.upload(new float[] {1.0f + 1.0f / 1024}, DataType.BFLOAT16);
            assertEquals(1.0f, buffer.downloadFloats(1, DataType.BFLOAT16)[0]);
        }
    }

    @Test
    void shortsAndByteBuffersMoveBitsUnchanged() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (DeviceBuffer buffer = DeviceBuffer.allocate(0, 8)) {
            short[] bits = {0x3C00, (short) 0xC000, 0x7BFF, 0x0001}; // fp16 1, -2, max, smallest subnormal
            buffer.upload(bits);
            short[] back = new short[4];
            buffer.download(back);
            assertArrayEquals(bits, back);
            assertArrayEquals(new float[] {1, -2, 65504, 5.9604645e-8f}, buffer.downloadFloats(4, DataType.HALF));

            ByteBuffer direct = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
            buffer.download(direct);
            assertEquals(8, direct.position());
            direct.flip();
            assertEquals(0x3C00, direct.getShort(0));

            ByteBuffer heap = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            buffer.upload(heap);
            assertEquals(8, heap.position());
            ByteBuffer read = ByteBuffer.allocate(10);
            read.position(2);
            buffer.download(read);
            assertArrayEquals(new byte[] {0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, read.array());

            buffer.fill((byte) 0xFF);
            buffer.download(back);
            assertArrayEquals(new short[] {-1, -1, -1, -1}, back);
        }
    }

    @Test
    void aBufferForATensorHoldsIt() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        try (Graph graph = TestSupport.seedConvGraph()) {
            graph.validate(); // the tensors take the graph's io type, which sizes the buffer
            try (DeviceBuffer buffer = DeviceBuffer.forTensor(0, graph.tensorByName("image"))) {
                assertTrue(buffer.size() >= graph.tensorByName("image").sizeBytes());
            }
        }
    }
}
