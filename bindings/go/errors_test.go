package cudnnfe

import (
	"errors"
	"fmt"
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
	expectError(t, err, StatusInvalidArgument, "Graph.ConvFprop: weight has 32 input channels, image has 64")
	_, err = g.Tensor("zero", []int64{4, 0}, nil, DataNotSet)
	expectError(t, err, StatusInvalidArgument, "Graph.Tensor")
	_, err = StridesChannelsLast(2, 3)
	expectError(t, err, StatusInvalidArgument, "cudnnfe.StridesChannelsLast")
}

func TestNotFound(t *testing.T) {
	_, err := newTestGraph(t).TensorByName("missing")
	expectError(t, err, StatusNotFound, "Graph.TensorByName")
}

func TestDuplicateNamesAndUIDs(t *testing.T) {
	g := newTestGraph(t)
	a, b := tensor(t, g, "a", 4), tensor(t, g, "b", 4)
	_, err := g.Tensor("a", []int64{4}, nil, DataNotSet)
	expectError(t, err, StatusDuplicate, "Graph.Tensor")
	must(t, a.SetUID(5))
	expectError(t, b.SetUID(5), StatusDuplicate, "uid 5 is already used by 'a'")
}

func TestAlignmentPromisesAreCheckedAndWritten(t *testing.T) {
	g := newTestGraph(t)
	a := tensor(t, g, "a", 1, 32, 64)
	expectError(t, a.SetAlignment(48), StatusInvalidArgument, "Tensor.SetAlignment: an alignment of 48 bytes for 'a'")
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

func TestVectorizedInt8LayoutsAreCheckedInferredAndWritten(t *testing.T) {
	g := ioGraph(t, DataInt8)
	defer g.Close()
	x, w := tensor(t, g, "x", 2, 1, 8, 8), tensor(t, g, "w", 32, 1, 3, 3)
	expectError(t, x.SetVectorization(8, 1), StatusInvalidArgument, "Tensor.SetVectorization: vectors of 8 values for 'x'")
	expectError(t, w.SetReordering(TensorReorderingInt8x32), StatusInvalidArgument,
		"Tensor.SetReordering: 'w' is in vectors of 1 values")
	must(t, x.SetVectorization(32, 1))
	must(t, w.SetVectorization(32, 1))
	must(t, w.SetReordering(TensorReorderingInt8x32))
	if r, _ := w.Reordering(); r != TensorReorderingInt8x32 {
		t.Errorf("w is in order %v", r)
	}
	if n, _ := x.VectorCount(); n != 32 {
		t.Errorf("x holds %d values a vector", n)
	}
	if d, _ := x.VectorDim(); d != 1 {
		t.Errorf("x is vectorized along dim %d", d)
	}
	y, err := g.ConvFprop(x, w, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	must(t, g.Validate())
	if b, _ := x.SizeBytes(); b != 2*32*8*8 {
		t.Errorf("x takes %d bytes", b)
	}
	if n, _ := y.VectorCount(); n != 32 {
		t.Errorf("y holds %d values a vector", n)
	}
	if b, _ := y.SizeBytes(); b != 2*32*6*6 {
		t.Errorf("y takes %d bytes", b)
	}
	text, err := g.ToJSON()
	must(t, err)
	if !strings.Contains(text, `"vector_count":32,"vector_dim":1,"reordering":"int8x32"`) {
		t.Fatalf("the graph JSON lacks the layout: %s", text)
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
	expectError(t, err, StatusBadState, "Tensor.UID")
	_, err = g.WorkspaceSize()
	expectError(t, err, StatusBadState, "Graph.WorkspaceSize")
	_, err = g.EngineTag()
	expectError(t, err, StatusBadState, "Graph.EngineTag")
}

func TestChecksOfTheBindingUseTheSameError(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.Tensor("x", []int64{2, 3}, []int64{1}, DataHalf)
	expectError(t, err, StatusInvalidArgument, "Graph.Tensor: tensor 'x': 2 dims but 1 strides")
	_, err = g.ConvFprop(tensor(t, g, "i", 1, 1, 4, 4), tensor(t, g, "k", 1, 1, 1, 1), &ConvOptions{Stride: []int64{1, 1, 1, 1}})
	expectError(t, err, StatusInvalidArgument, "4 stride values; give 1 (every spatial dim) or one per spatial dim")
	_, err = g.Reduction(tensor(t, g, "r", 4), ReduceAdd, &ReductionOptions{Axes: []int{40}})
	expectError(t, err, StatusInvalidArgument, "axis 40")
	_, err = g.Relu(nil, nil)
	expectError(t, err, StatusNullPointer, "Graph.Relu: input is nil")
}

func TestErrorsMatchByStatus(t *testing.T) {
	_, err := newTestGraph(t).TensorByName("missing")
	if !errors.Is(err, &Error{Status: StatusNotFound}) {
		t.Errorf("errors.Is by status failed for %v", err)
	}
	if errors.Is(err, &Error{Status: StatusDuplicate}) {
		t.Error("errors.Is matched another status")
	}
	for status, name := range map[Status]string{StatusNotSupported: "StatusNotSupported", StatusOK: "StatusOK",
		StatusCudnnError: "StatusCudnnError", StatusBufferTooSmall: "StatusBufferTooSmall"} {
		if status.String() != name {
			t.Errorf("status %d is named %q, want %q", int32(status), status.String(), name)
		}
	}
	if err.Error() != "StatusNotFound: "+err.(*Error).Message {
		t.Errorf("error text %q", err.Error())
	}
}

func TestTheHeadlineIsTheGoMethodAndTheCFunctionIsKept(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.ConvFprop(tensor(t, g, "x", 8, 64, 56, 56), tensor(t, g, "w", 32, 32, 3, 3), nil)
	expectError(t, err, StatusInvalidArgument, "weight has 32 input channels")
	e := err.(*Error)
	if !strings.HasPrefix(e.Message, "Graph.ConvFprop: weight has 32 input channels") || strings.Contains(e.Message, "fe_graph_conv_fprop") {
		t.Errorf("message %q", e.Message)
	}
	if e.Function != "fe_graph_conv_fprop" || e.Method != "Graph.ConvFprop" || !strings.HasPrefix(e.Reason, "weight has 32") {
		t.Errorf("function %q method %q reason %q", e.Function, e.Method, e.Reason)
	}
}

func TestAdviceNamesTheGoMethods(t *testing.T) {
	g := newTestGraph(t)
	_, err := g.Relu(tensor(t, g, "x", 4), nil)
	must(t, err)
	err = g.Validate()
	expectError(t, err, StatusValidation, "mark a result with Tensor.SetOutput")
	if e := err.(*Error); e.Function != "fe_graph_validate" || !strings.HasPrefix(e.Message, "Graph.Validate: ") {
		t.Errorf("function %q message %q", e.Function, e.Message)
	}
	expectError(t, g.CreateExecutionPlans(), StatusBadState, "call Graph.BuildOperationGraph first")
}

func TestTheNameTableTranslatesTheCommonAdvice(t *testing.T) {
	for c, goName := range map[string]string{
		"fe_tensor_set_output":           "Tensor.SetOutput",
		"fe_graph_build":                 "Graph.Build",
		"fe_graph_build_operation_graph": "Graph.BuildOperationGraph",
		"fe_graph_validate":              "Graph.Validate",
		"fe_graph_check_support":         "Graph.CheckSupport",
		"fe_tensor_set_strides":          "Tensor.SetStrides",
		"fe_tensor_set_data_type":        "Tensor.SetDataType",
		"fe_tensor_get_dims":             "Tensor.Dims",
		"fe_conv_options_set_stride":     "ConvOptions.Stride",
		"fe_graph_create":                "cudnnfe.NewGraph",
	} {
		if got := methodName(c); got != goName {
			t.Errorf("%s: %s, expected %s", c, got, goName)
		}
	}
	if got := translateNames("call fe_graph_check_support first; fe_conv_options stays"); got != "call Graph.CheckSupport first; fe_conv_options stays" {
		t.Errorf("translated %q", got)
	}
}

func TestANilArgumentIsANullPointerErrorNamingIt(t *testing.T) {
	g := newTestGraph(t)
	x := tensor(t, g, "x", 8, 64, 56, 56)
	_, err := g.ConvFprop(x, nil, nil)
	expectError(t, err, StatusNullPointer, "Graph.ConvFprop: weight is nil")
	_, err = g.ConvFprop(nil, x, nil)
	expectError(t, err, StatusNullPointer, "Graph.ConvFprop: image is nil")
	_, err = g.Add(x, nil, nil)
	expectError(t, err, StatusNullPointer, "Graph.Add: b is nil")
	_, err = g.TensorLike(nil, "y")
	expectError(t, err, StatusNullPointer, "Graph.TensorLike: like is nil")
	_, err = g.Autotune(nil, 1, 1)
	expectError(t, err, StatusNullPointer, "Graph.Autotune: h is nil")
	_, err = NewDeviceBufferFor(0, nil)
	expectError(t, err, StatusNullPointer, "cudnnfe.NewDeviceBufferFor: t is nil")
	expectError(t, g.Execute(nil, []*Tensor{nil}, []uintptr{0}, 0), StatusNullPointer, "Graph.Execute: h is nil")
}

func TestStringDescribes(t *testing.T) {
	g := newTestGraph(t)
	x := tensor(t, g, "x", 2, 3)
	y, err := g.Relu(x, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	text, err := g.Describe()
	must(t, err)
	if got := fmt.Sprint(g); got != text {
		t.Errorf("String %q, Describe %q", got, text)
	}
	if got := fmt.Sprint(x); got != "Tensor(x [2 3])" {
		t.Errorf("tensor String %q", got)
	}
}

func TestErrorsMatchTheirStatusWithErrorsIs(t *testing.T) {
	g, err := NewGraph(nil)
	must(t, err)
	defer g.Close()
	_, err = g.Tensor("x", []int64{0}, nil, DataNotSet)
	if !errors.Is(err, StatusInvalidArgument) || errors.Is(err, StatusNotSupported) {
		t.Errorf("errors.Is by status: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Errorf("errors.As: %v", err)
	}
}

func TestANilGraphIsNotAClosedOne(t *testing.T) {
	var g *Graph
	_, err := g.Describe()
	expectError(t, err, StatusNullPointer, "Graph.Describe: a nil *Graph")
	g, err = NewGraph(nil)
	must(t, err)
	g.Close()
	_, err = g.Describe()
	expectError(t, err, StatusBadState, "Graph.Describe: the Graph is closed")
	expectError(t, g.Validate(), StatusBadState, "Graph.Validate: the Graph is closed")
	var x *Tensor
	_, err = x.Dims()
	expectError(t, err, StatusInvalidArgument, "Tensor.Dims: a nil *Tensor")
	_, err = AlibiSlopes(-1)
	expectError(t, err, StatusInvalidArgument, "cudnnfe.AlibiSlopes: -1 heads")
}
