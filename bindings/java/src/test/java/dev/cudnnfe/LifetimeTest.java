package dev.cudnnfe;

import static dev.cudnnfe.TestSupport.assertClosed;
import static dev.cudnnfe.TestSupport.assertFails;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** close() is deterministic and idempotent; use after close is an error, never a crash. */
class LifetimeTest {
    @Test
    void closingTwiceIsHarmless() {
        Graph graph = new Graph();
        graph.close();
        graph.close();
    }

    @Test
    void useOfAClosedGraphThrowsBadState() {
        Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF));
        Tensor x = graph.tensor("x", 4, 4);
        graph.close();
        assertClosed("Graph.validate", "Graph", graph::validate);
        assertClosed("Graph.tensor", "Graph", () -> graph.tensor("y", 2));
        assertClosed("Tensor.dims", "Graph", x::dims);
        assertClosed("Tensor.setOutput", "Graph", () -> x.setOutput(true));
        assertEquals("Tensor(closed graph)", x.toString());
    }

    @Test
    void aTensorOfAClosedGraphCannotJoinAnotherGraph() {
        Graph first = new Graph(new GraphOptions().ioDataType(DataType.HALF));
        Tensor x = first.tensor("x", 4);
        first.close();
        try (Graph second = new Graph(new GraphOptions().ioDataType(DataType.HALF))) {
            assertClosed("Graph.relu", "Graph", () -> second.relu(x));
        }
    }

    @Test
    void aTensorOutlivesTheLastReferenceToItsGraph() throws InterruptedException {
        Tensor y = tensorOfAGraphNobodyHolds();
        for (int i = 0; i < 5; ++i) {
            System.gc();
            Thread.sleep(10);
        }
        // The tensor holds its graph: the graph is still open and usable through it.
        assertArrayEquals(new long[] {3, 5}, y.dims());
        y.setOutput(true);
        y.graph().validate();
        y.graph().close();
        assertClosed("Tensor.dims", "Graph", y::dims);
    }

    private static Tensor tensorOfAGraphNobodyHolds() {
        Graph graph = new Graph(new GraphOptions().ioDataType(DataType.HALF));
        return graph.relu(graph.tensor("x", 3, 5));
    }

    @Test
    void handlesAndBuffersCloseTwiceAndRefuseUseAfterClose() {
        assumeTrue(TestSupport.gpuAvailable(), "no GPU here");
        Handle handle = new Handle(0);
        DeviceBuffer buffer = DeviceBuffer.allocate(0, 256);
        handle.close();
        handle.close();
        buffer.close();
        buffer.close();
        assertClosed("Handle.synchronize", "Handle", handle::synchronize);
        assertClosed("DeviceBuffer.devicePointer", "DeviceBuffer", buffer::devicePointer);
    }
}
