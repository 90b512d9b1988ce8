package dev.cudnnfe;

import static dev.cudnnfe.TestSupport.assertFails;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every failure is a CudnnFeException with the library's status and one-line message. */
class ErrorTest {
    private Graph graph;

    @BeforeEach
    void createGraph() {
        graph = new Graph(new GraphOptions().name("g").ioDataType(DataType.HALF));
    }

    @AfterEach
    void closeGraph() {
        graph.close();
    }

    @Test
    void invalidArgumentNamesTheCallAndTheCause() {
        Tensor x = graph.tensor("x", 8, 64, 56, 56);
        Tensor w = graph.tensor("w", 32, 32, 3, 3);
        assertFails(Status.INVALID_ARGUMENT, "Graph.convFprop: weight has 32 input channels, image has 64",
                () -> graph.convFprop(x, w, null));
        assertFails(Status.INVALID_ARGUMENT, "Graph.tensor", () -> graph.tensor("zero", 4, 0));
        assertFails(Status.INVALID_ARGUMENT, "CudnnFe.stridesChannelsLast", () -> CudnnFe.stridesChannelsLast(2, 3));
    }

    @Test
    void notFound() {
        assertFails(Status.NOT_FOUND, "Graph.tensorByName", () -> graph.tensorByName("missing"));
    }

    @Test
    void duplicateNamesAndUids() {
        Tensor a = graph.tensor("a", 4);
        Tensor b = graph.tensor("b", 4);
        assertFails(Status.DUPLICATE, "Graph.tensor", () -> graph.tensor("a", 4));
        a.setUid(5);
        assertFails(Status.DUPLICATE, "uid 5 is already used by 'a'", () -> b.setUid(5));
    }

    @Test
    void alignmentPromisesAreCheckedAndWritten() {
        Tensor a = graph.tensor("a", 1, 32, 64);
        assertFails(Status.INVALID_ARGUMENT, "Tensor.setAlignment: an alignment of 48 bytes for 'a'",
                () -> a.setAlignment(48));
        a.setAlignment(256);
        graph.relu(a).setOutput(true);
        assertTrue(graph.toJson().contains("\"alignment\":256"), graph.toJson());
    }

    @Test
    void vectorizedInt8LayoutsAreCheckedInferredAndWritten() {
        try (Graph g = new Graph(new GraphOptions().ioDataType(DataType.INT8))) {
            Tensor x = g.tensor("x", 2, 1, 8, 8), w = g.tensor("w", 32, 1, 3, 3);
            assertFails(Status.INVALID_ARGUMENT, "Tensor.setVectorization: vectors of 8 values for 'x'",
                    () -> x.setVectorization(8, 1));
            assertFails(Status.INVALID_ARGUMENT, "Tensor.setReordering: 'w' is in vectors of 1 values",
                    () -> w.setReordering(TensorReordering.INT8X32));
            x.setVectorization(32, 1);
            w.setVectorization(32, 1);
            w.setReordering(TensorReordering.INT8X32);
            assertEquals(TensorReordering.INT8X32, w.reordering());
            assertEquals(32, x.vectorCount());
            assertEquals(1, x.vectorDim());
            Tensor y = g.convFprop(x, w, null);
            y.setOutput(true);
            g.validate();
            assertEquals(2 * 32 * 8 * 8, x.sizeBytes());
            assertEquals(32, y.vectorCount());
            assertEquals(2 * 32 * 6 * 6, y.sizeBytes());
            assertTrue(g.toJson().contains("\"vector_count\":32,\"vector_dim\":1,\"reordering\":\"int8x32\""), g.toJson());
        }
    }

    @Test
    void validationOfTheWholeGraph() {
        graph.relu(graph.tensor("x", 4));
        assertFails(Status.VALIDATION, "graph 'g' has no outputs", graph::validate);
    }

    @Test
    void badStateForCallsOutOfOrder() {
        Tensor x = graph.tensor("x", 4);
        assertFails(Status.BAD_STATE, "Tensor.uid", x::uid);
        assertFails(Status.BAD_STATE, "Graph.workspaceSize", graph::workspaceSize);
    }

    @Test
    void checksOfTheBindingUseTheSameException() {
        assertFails(Status.INVALID_ARGUMENT, "Graph.tensor: tensor 'x': 2 dims but 1 strides",
                () -> graph.tensor("x", new long[] {2, 3}, new long[] {1}, DataType.HALF));
        assertFails(Status.INVALID_ARGUMENT, "4 stride values; give 1 (every spatial dim) or one per spatial dim",
                () -> graph.convFprop(graph.tensor("i", 1, 1, 4, 4), graph.tensor("k", 1, 1, 1, 1),
                        new ConvOptions().stride(1, 1, 1, 1)));
        assertFails(Status.INVALID_ARGUMENT, "axis 40", () -> new ReductionOptions().reduceAxes(40));
        assertFails(Status.INVALID_ARGUMENT, "execute: 1 tensors but 2 device pointers",
                () -> graph.execute(null, new Tensor[] {graph.tensor("t", 4)}, new long[2], 0));
    }

    @Test
    void eachStatusHasItsExceptionClass() {
        // The library's refusal (an empty dim) and the binding's own check: each the class of its
        // status, all of them a CudnnFeException; a closed object is Java's IllegalStateException.
        InvalidArgumentException library = assertThrows(InvalidArgumentException.class,
                () -> graph.tensor("x", new long[] {0}, null, DataType.HALF));
        assertEquals(Status.INVALID_ARGUMENT, library.status());
        assertThrows(InvalidArgumentException.class,
                () -> graph.tensor("x", new long[] {2, 3}, new long[] {1}, DataType.HALF));
        Graph closed = new Graph();
        closed.close();
        assertEquals("Graph.validate: the Graph is closed",
                assertThrows(IllegalStateException.class, closed::validate).getMessage());
        try (Graph fresh = new Graph()) {
            BadStateException state = assertThrows(BadStateException.class, fresh::createExecutionPlans);
            assertEquals(Status.BAD_STATE, state.status());
        }
        assertTrue(new CudnnFeException(99, "from the future").getClass() == CudnnFeException.class);
        assertTrue(CudnnFeException.class.isAssignableFrom(NotSupportedException.class));
    }

    @Test
    void statusCodesOfANewerLibraryStayReadable() {
        CudnnFeException e = new CudnnFeException(99, "from the future");
        assertEquals(Status.UNKNOWN, e.status());
        assertEquals(99, e.code());
        for (Status s : Status.values()) {
            if (s != Status.UNKNOWN) assertEquals(s, Status.of(s.code));
        }
    }

    @Test
    void theHeadlineIsTheJavaMethodAndTheCFunctionIsKept() {
        Tensor x = graph.tensor("x", 8, 64, 56, 56);
        Tensor w = graph.tensor("w", 32, 32, 3, 3);
        CudnnFeException e = assertFails(Status.INVALID_ARGUMENT, "Graph.convFprop: weight has 32 input channels",
                () -> graph.convFprop(x, w, null));
        assertTrue(e.getMessage().startsWith("Graph.convFprop: "), e.getMessage());
        assertEquals("fe_graph_conv_fprop", e.function());
        assertEquals("Graph.convFprop", e.method());
        assertTrue(e.reason().startsWith("weight has 32 input channels"), e.reason());
        assertFalse(e.getMessage().contains("fe_graph_conv_fprop"), e.getMessage());
    }

    @Test
    void adviceNamesTheJavaMethods() {
        graph.relu(graph.tensor("x", 4));
        CudnnFeException e = assertFails(Status.VALIDATION, "mark a result with Tensor.setOutput", graph::validate);
        assertEquals("fe_graph_validate", e.function());
        assertTrue(e.getMessage().startsWith("Graph.validate: "), e.getMessage());
        assertFalse(e.getMessage().contains("fe_tensor_set_output"), e.getMessage());
        assertFails(Status.BAD_STATE, "call Graph.buildOperationGraph first", () -> graph.createExecutionPlans());
    }

    @Test
    void theNameTableTranslatesTheCommonAdvice() {
        assertEquals("Tensor.setOutput", ApiNames.method("fe_tensor_set_output"));
        assertEquals("Graph.build", ApiNames.method("fe_graph_build"));
        assertEquals("Graph.buildOperationGraph", ApiNames.method("fe_graph_build_operation_graph"));
        assertEquals("Graph.validate", ApiNames.method("fe_graph_validate"));
        assertEquals("Graph.checkSupport", ApiNames.method("fe_graph_check_support"));
        assertEquals("Tensor.setStrides", ApiNames.method("fe_tensor_set_strides"));
        assertEquals("Tensor.setDataType", ApiNames.method("fe_tensor_set_data_type"));
        assertEquals("Tensor.dims", ApiNames.method("fe_tensor_get_dims"));
        assertEquals("DeviceBuffer.allocate", ApiNames.method("fe_buffer_create"));
        assertEquals("ConvOptions.stride", ApiNames.method("fe_conv_options_set_stride"));
        assertEquals("call Graph.checkSupport first; fe_conv_options stays",
                ApiNames.translate("call fe_graph_check_support first; fe_conv_options stays"));
    }

    @Test
    void aNullArgumentIsANullPointerExceptionNamingIt() {
        Tensor x = graph.tensor("x", 8, 64, 56, 56);
        NullPointerException e = assertThrows(NullPointerException.class, () -> graph.convFprop(x, null, null));
        assertEquals("Graph.convFprop: weight is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> graph.convFprop(null, x, null));
        assertEquals("Graph.convFprop: image is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> graph.pointwise(null, x, null, null, null));
        assertEquals("Graph.pointwise: mode is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> graph.add(x, null));
        assertEquals("Graph.add: b is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> graph.tensorLike(null, "y"));
        assertEquals("Graph.tensorLike: like is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> graph.autotune(null, 1, 1));
        assertEquals("Graph.autotune: handle is null", e.getMessage());
        e = assertThrows(NullPointerException.class, () -> DeviceBuffer.forTensor(0, null));
        assertEquals("DeviceBuffer.forTensor: tensor is null", e.getMessage());
        e = assertThrows(NullPointerException.class,
                () -> graph.execute(null, new Tensor[] {null}, new long[] {0}, 0));
        assertTrue(e.getMessage().startsWith("Graph.execute: "), e.getMessage());
        assertFalse(e.getMessage().contains("parameter"), e.getMessage());
    }

    @Test
    void toStringDescribes() {
        Tensor x = graph.tensor("x", 2, 3);
        graph.relu(x).setOutput(true);
        assertEquals(graph.describe(), graph.toString());
        assertTrue(graph.toString().contains("x"), graph.toString());
        assertEquals("Tensor(x [2, 3])", x.toString());
    }
}
