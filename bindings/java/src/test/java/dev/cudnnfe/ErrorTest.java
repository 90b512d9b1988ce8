package dev.cudnnfe;

import static dev.cudnnfe.TestSupport.assertFails;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
        assertFails(Status.INVALID_ARGUMENT, "fe_graph_conv_fprop: weight has 32 input channels, image has 64",
                () -> graph.convFprop(x, w, null));
        assertFails(Status.INVALID_ARGUMENT, "fe_graph_tensor", () -> graph.tensor("zero", 4, 0));
        assertFails(Status.INVALID_ARGUMENT, "fe_strides_channels_last", () -> CudnnFe.stridesChannelsLast(2, 3));
    }

    @Test
    void notFound() {
        assertFails(Status.NOT_FOUND, "fe_graph_tensor_by_name", () -> graph.tensorByName("missing"));
    }

    @Test
    void duplicateNamesAndUids() {
        Tensor a = graph.tensor("a", 4);
        Tensor b = graph.tensor("b", 4);
        assertFails(Status.DUPLICATE, "fe_graph_tensor", () -> graph.tensor("a", 4));
        a.setUid(5);
        assertFails(Status.DUPLICATE, "uid 5 is already used by 'a'", () -> b.setUid(5));
    }

    @Test
    void alignmentPromisesAreCheckedAndWritten() {
        Tensor a = graph.tensor("a", 1, 32, 64);
        assertFails(Status.INVALID_ARGUMENT, "fe_tensor_set_alignment: an alignment of 48 bytes for 'a'",
                () -> a.setAlignment(48));
        a.setAlignment(256);
        graph.relu(a).setOutput(true);
        assertTrue(graph.toJson().contains("\"alignment\":256"), graph.toJson());
    }

    @Test
    void validationOfTheWholeGraph() {
        graph.relu(graph.tensor("x", 4));
        assertFails(Status.VALIDATION, "graph 'g' has no outputs", graph::validate);
    }

    @Test
    void badStateForCallsOutOfOrder() {
        Tensor x = graph.tensor("x", 4);
        assertFails(Status.BAD_STATE, "fe_tensor_get_uid", x::uid);
        assertFails(Status.BAD_STATE, "fe_graph_workspace_size", graph::workspaceSize);
    }

    @Test
    void checksOfTheBindingUseTheSameException() {
        assertFails(Status.INVALID_ARGUMENT, "2 dims but 1 strides",
                () -> graph.tensor("x", new long[] {2, 3}, new long[] {1}, DataType.HALF));
        assertFails(Status.INVALID_ARGUMENT, "4 stride values; give 1 (every spatial dim) or one per spatial dim",
                () -> graph.convFprop(graph.tensor("i", 1, 1, 4, 4), graph.tensor("k", 1, 1, 1, 1),
                        new ConvOptions().stride(1, 1, 1, 1)));
        assertFails(Status.INVALID_ARGUMENT, "axis 40", () -> new ReductionOptions().reduceAxes(40));
        assertFails(Status.INVALID_ARGUMENT, "execute: 1 tensors but 2 device pointers",
                () -> graph.execute(null, new Tensor[] {graph.tensor("t", 4)}, new long[2], 0));
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
}
