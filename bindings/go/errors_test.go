package cudnnfe

import (
	"errors"
	"strings"
	"testing"
)

// Every failure is an *Error with the library's status and one-line message.

func newTestGraph(t *testing.T) *Graph {
	g, err := NewGraph(&GraphOptions{Name: "g", IODataType: DataHalf})
	must(t, err)
	t.Cleanup(func() { g.Close() })
	return g
}

func TestInvalidArgumentNamesTheCallAndTheCause(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.ConvFprop(tensor(t, g, "x", 8, 64, 56, 56), tensor(t, g, "w", 32, 32, 3, 3), nil)
	expectError(t, err, StatusInvalidArgument, "fe_graph_conv_fprop: weight has 32 input channels, image has 64")
	_, err = g.Tensor("zero", []int64{4, 0}, nil, DataNotSet)
	expectError(t, err, StatusInvalidArgument, "fe_graph_tensor")
	_, err = StridesChannelsLast(2, 3)
	expectError(t, err, StatusInvalidArgument, "fe_strides_channels_last")
}

func TestNotFound(t *testing.T) {
	_, err := newTestGraph(t).TensorByName("missing")
	expectError(t, err, StatusNotFound, "fe_graph_tensor_by_name")
}

func TestDuplicateNamesAndUIDs(t *testing.T) {
	g := newTestGraph(t)
	a, b := tensor(t, g, "a", 4), tensor(t, g, "b", 4)
	_, err := g.Tensor("a", []int64{4}, nil, DataNotSet)
	expectError(t, err, StatusDuplicate, "fe_graph_tensor")
	must(t, a.SetUID(5))
	expectError(t, b.SetUID(5), StatusDuplicate, "uid 5 is already used by 'a'")
}

func TestAlignmentPromisesAreCheckedAndWritten(t *testing.T) {
	g := newTestGraph(t)
	a := tensor(t, g, "a", 1, 32, 64)
	expectError(t, a.SetAlignment(48), StatusInvalidArgument, "fe_tensor_set_alignment: an alignment of 48 bytes for 'a'")
	must(t, a.SetAlignment(256))
	y, err := g.Relu(a, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	text, err := g.ToJSON()
	must(t, err)
	if !strings.Contains(text, `"alignment":256`) {
		t.Fatalf("the graph JSON lacks the promise: %s", text)
	}
}

func TestValidationOfTheWholeGraph(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.Relu(tensor(t, g, "x", 4), nil)
	must(t, err)
	expectError(t, g.Validate(), StatusValidation, "graph 'g' has no outputs")
}

func TestBadStateForCallsOutOfOrder(t *testing.T) {
	g := newTestGraph(t)
	_, err := tensor(t, g, "x", 4).UID()
	expectError(t, err, StatusBadState, "fe_tensor_get_uid")
	_, err = g.WorkspaceSize()
	expectError(t, err, StatusBadState, "fe_graph_workspace_size")
	_, err = g.EngineTag()
	expectError(t, err, StatusBadState, "fe_graph_engine_tag")
}

func TestChecksOfTheBindingUseTheSameError(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.Tensor("x", []int64{2, 3}, []int64{1}, DataHalf)
	expectError(t, err, StatusInvalidArgument, "2 dims but 1 strides")
	_, err = g.ConvFprop(tensor(t, g, "i", 1, 1, 4, 4), tensor(t, g, "k", 1, 1, 1, 1), &ConvOptions{Stride: []int64{1, 1, 1, 1}})
	expectError(t, err, StatusInvalidArgument, "4 stride values; give 1 (every spatial dim) or one per spatial dim")
	_, err = g.Reduction(tensor(t, g, "r", 4), ReduceAdd, &ReductionOptions{Axes: []int{40}})
	expectError(t, err, StatusInvalidArgument, "axis 40")
	_, err = g.Relu(nil, nil)
	expectError(t, err, StatusInvalidArgument, "nil *Tensor")
}

func TestErrorsMatchByStatus(t *testing.T) {
	_, err := newTestGraph(t).TensorByName("missing")
	if !errors.Is(err, &Error{Status: StatusNotFound}) {
		t.Errorf("errors.Is by status failed for %v", err)
	}
	if errors.Is(err, &Error{Status: StatusDuplicate}) {
		t.Error("errors.Is matched another status")
	}
	if StatusNotSupported.String() != "FE_STATUS_NOT_SUPPORTED" {
		t.Errorf("status name %q", StatusNotSupported.String())
	}
	if err.Error() != "FE_STATUS_NOT_FOUND: "+err.(*Error).Message {
		t.Errorf("error text %q", err.Error())
	}
}
