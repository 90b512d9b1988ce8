package cudnnfe

import (
	"testing"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// The SWIG layer's typemaps, seen from Go.

func TestANullHandleIsTheLibrarysNullPointerError(t *testing.T) {
	expectError(t, call(func() capi.Enum_SS_fe_status { return capi.Fe_graph_validate(0) }),
		StatusNullPointer, "Graph.Validate: graph is nil")
}

func TestNumberSlicesAreWrittenInPlace(t *testing.T) {
	g := newTestGraph(t)
	x := tensor(t, g, "x", 2, 3, 4)
	dims := make([]int64, 3)
	must(t, call(func() capi.Enum_SS_fe_status { return capi.Fe_tensor_get_dims(x.ptr, dims, 3) }))
	if !equalDims(dims, []int64{2, 3, 4}) {
		t.Errorf("dims %v", dims)
	}
	small := make([]int64, 1)
	expectError(t, call(func() capi.Enum_SS_fe_status { return capi.Fe_tensor_get_dims(x.ptr, small, 1) }),
		StatusBufferTooSmall, "Tensor.Dims")
}

func TestOptionStructsStartFromTheirInitMacros(t *testing.T) {
	conv := capi.NewFe_conv_options()
	defer capi.DeleteFe_conv_options(conv)
	if conv.GetStruct_size() == 0 || !equalDims(conv.GetStride(), []int64{1, 1, 1}) ||
		!equalDims(conv.GetPre_padding(), []int64{0, 0, 0}) {
		t.Errorf("conv defaults: size %d, stride %v", conv.GetStruct_size(), conv.GetStride())
	}
	conv.SetStride([]int64{2, 3, 4})
	if !equalDims(conv.GetStride(), []int64{2, 3, 4}) {
		t.Errorf("stride %v", conv.GetStride())
	}
	pointwise := capi.NewFe_pointwise_options()
	defer capi.DeleteFe_pointwise_options(pointwise)
	if pointwise.GetRelu_upper_clip() != 1e300 {
		t.Errorf("relu upper clip %v", pointwise.GetRelu_upper_clip())
	}
	graph := capi.NewFe_graph_options()
	defer capi.DeleteFe_graph_options(graph)
	graph.SetName("first")
	graph.SetName("second")
	if graph.GetName() != "second" {
		t.Errorf("name %q", graph.GetName())
	}
}
