package cudnnfe

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// Building graphs and the inference of dims, strides and types (no cuDNN needed).

func TestGraphHasItsNameAndTensorsTheDefaultType(t *testing.T) {
	g, err := NewGraph(&GraphOptions{Name: "g", IODataType: DataBFloat16})
	must(t, err)
	defer g.Close()
	name, err := g.Name()
	must(t, err)
	if name != "g" {
		t.Errorf("name %q", name)
	}
	x := tensor(t, g, "x", 2, 3)
	dims, err := x.Dims()
	must(t, err)
	strides, err := x.Strides()
	must(t, err)
	if !equalDims(dims, []int64{2, 3}) || !equalDims(strides, []int64{3, 1}) {
		t.Errorf("dims %v strides %v", dims, strides)
	}
	y, err := g.Relu(x, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	if dt, _ := x.DataType(); dt != DataNotSet {
		t.Errorf("before validation the type is %v", dt)
	}
	must(t, g.Validate())
	if dt, _ := x.DataType(); dt != DataBFloat16 {
		t.Errorf("after validation the type is %v", dt)
	}
	if size, _ := x.SizeBytes(); size != 12 {
		t.Errorf("size %d", size)
	}
}

func TestATensorLikeAnotherHasItsDimsStridesAndTypeOnly(t *testing.T) {
	first, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer first.Close()
	second, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer second.Close()
	c, err := first.Matmul(tensor(t, first, "a", 3, 40, 24), tensor(t, first, "b", 3, 24, 56), nil)
	must(t, err)
	in, err := second.TensorLike(c, "c_in")
	must(t, err)
	dims, _ := in.Dims()
	strides, _ := in.Strides()
	want, _ := c.Strides()
	if name, _ := in.Name(); name != "c_in" || !equalDims(dims, []int64{3, 40, 56}) || !equalDims(strides, want) {
		t.Errorf("name %q dims %v strides %v (want %v)", name, dims, strides, want)
	}
	x, err := second.Tensor("x", []int64{2, 8}, nil, DataBFloat16)
	must(t, err)
	x2, err := second.TensorLike(x, "x2")
	must(t, err)
	if dt, _ := x2.DataType(); dt != DataBFloat16 {
		t.Errorf("type %v", dt)
	}
	_, err = second.TensorLike(x, "x2")
	expectError(t, err, StatusDuplicate, "Graph.TensorLike")
	_, err = second.TensorLike(nil, "y")
	expectError(t, err, StatusNullPointer, "Graph.TensorLike: like is nil")
}

func TestConvInfersTheSeedsShapeAndKeepsChannelsLast(t *testing.T) {
	g := seedConvGraph(t)
	defer g.Close()
	y, err := g.TensorByName("conv_fprop_0::Y")
	must(t, err)
	dims, _ := y.Dims()
	strides, _ := y.Strides()
	if !equalDims(dims, []int64{8, 32, 56, 56}) || !equalDims(strides, []int64{100352, 1, 1792, 32}) {
		t.Errorf("dims %v strides %v", dims, strides)
	}
	if out, _ := y.IsOutput(); !out {
		t.Error("y is not an output")
	}
}

func TestConvStrideAndDilationChangeTheOutputDims(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	y, err := g.ConvFprop(tensor(t, g, "x", 2, 3, 224, 224), tensor(t, g, "w", 64, 3, 7, 7),
		&ConvOptions{Name: "stem", Padding: []int64{3, 3}, Stride: []int64{2, 2}})
	must(t, err)
	if dims, _ := y.Dims(); !equalDims(dims, []int64{2, 64, 112, 112}) {
		t.Errorf("dims %v", dims)
	}
	if name, _ := y.Name(); name != "stem::Y" {
		t.Errorf("name %q", name)
	}
	y1, err := g.ConvFprop(tensor(t, g, "x1", 4, 8, 100), tensor(t, g, "w1", 16, 8, 5), &ConvOptions{Dilation: []int64{2}})
	must(t, err)
	if dims, _ := y1.Dims(); !equalDims(dims, []int64{4, 16, 92}) {
		t.Errorf("dims %v", dims)
	}
}

func TestMatmulAndBiasInferDimsAndStayVirtualUntilMarked(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	ab, err := g.Matmul(tensor(t, g, "A", 16, 128, 512), tensor(t, g, "B", 16, 512, 64), nil)
	must(t, err)
	c, err := g.Bias(ab, tensor(t, g, "D", 1, 128, 64), nil)
	must(t, err)
	if dims, _ := c.Dims(); !equalDims(dims, []int64{16, 128, 64}) {
		t.Errorf("dims %v", dims)
	}
	if v, _ := c.IsVirtual(); !v {
		t.Error("c should be virtual")
	}
	must(t, c.SetOutput(true))
	if v, _ := c.IsVirtual(); v {
		t.Error("c should not be virtual")
	}
	must(t, g.Validate())
	if dt, _ := ab.DataType(); dt != DataFloat {
		t.Errorf("intermediate type %v", dt)
	}
	if dt, _ := c.DataType(); dt != DataHalf {
		t.Errorf("output type %v", dt)
	}
}

func TestInputsAndOutputsComeInExecutionOrderAsTheSameTensors(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	a, b := tensor(t, g, "a", 4, 4), tensor(t, g, "b", 4, 4)
	named, err := g.Relu(a, &PointwiseOptions{Name: "clip", ReluUpperClip: 6})
	must(t, err)
	if name, _ := named.Name(); name != "clip::Y" {
		t.Errorf("the relu is named %q", name)
	}
	sum, err := g.Add(a, b, nil)
	must(t, err)
	product, err := g.Mul(a, b, nil)
	must(t, err)
	must(t, sum.SetOutput(true))
	must(t, product.SetOutput(true))
	inputs, err := g.Inputs()
	must(t, err)
	outputs, err := g.Outputs()
	must(t, err)
	if len(inputs) != 2 || inputs[0] != a || inputs[1] != b {
		t.Errorf("inputs %v", inputs)
	}
	if len(outputs) != 2 || outputs[0] != sum || outputs[1] != product {
		t.Errorf("outputs %v", outputs)
	}
	name, _ := sum.Name()
	if found, _ := g.TensorByName(name); found != sum {
		t.Error("TensorByName gave another *Tensor")
	}
	if sum.Graph() != g {
		t.Error("a tensor knows its graph")
	}
}

func TestSettersOverrideInference(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8)
	must(t, x.SetUID(7))
	must(t, x.SetName("input"))
	if uid, _ := x.UID(); uid != 7 {
		t.Errorf("uid %d", uid)
	}
	y, err := g.Gelu(x, nil)
	must(t, err)
	must(t, y.SetDataType(DataFloat))
	must(t, y.SetStrides(1, 2))
	if dt, _ := y.DataType(); dt != DataFloat {
		t.Errorf("type %v", dt)
	}
	if s, _ := y.Strides(); !equalDims(s, []int64{1, 2}) {
		t.Errorf("strides %v", s)
	}
}

func TestPointwiseScalarsAndReductions(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	x := tensor(t, g, "x", 4, 16, 32)
	half, err := g.Scalar("half", 0.5, DataFloat)
	must(t, err)
	act, err := g.Silu(x, nil)
	must(t, err)
	scaled, err := g.Scale(act, half, nil)
	must(t, err)
	clipped, err := g.Pointwise(PointwiseReluFwd, scaled, nil, nil, &PointwiseOptions{Name: "relu6", ReluUpperClip: 6})
	must(t, err)
	if name, _ := clipped.Name(); name != "relu6::Y" {
		t.Errorf("name %q", name)
	}
	rowMax, err := g.Reduction(clipped, ReduceMax, &ReductionOptions{Axes: []int{2}})
	must(t, err)
	if dims, _ := rowMax.Dims(); !equalDims(dims, []int64{4, 16, 1}) {
		t.Errorf("dims %v", dims)
	}
}

func TestAttentionInfersOutputAndStats(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 2, 8, 128, 64), tensor(t, g, "k", 2, 2, 256, 64), tensor(t, g, "v", 2, 2, 256, 32)
	o, stats, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, CausalMask: CausalBottomRight})
	must(t, err)
	if dims, _ := o.Dims(); !equalDims(dims, []int64{2, 8, 128, 32}) {
		t.Errorf("dims %v", dims)
	}
	if stats != nil {
		t.Error("inference has no stats")
	}
	_, stats, err = g.Sdpa(q, k, v, &SdpaOptions{GenerateStats: true})
	must(t, err)
	if dims, _ := stats.Dims(); !equalDims(dims, []int64{2, 8, 128, 1}) {
		t.Errorf("stats dims %v", dims)
	}
	dO := tensor(t, g, "dO", 2, 8, 128, 32)
	oIn := tensor(t, g, "o", 2, 8, 128, 32)
	statsIn, err := g.Tensor("stats", []int64{2, 8, 128, 1}, nil, DataFloat)
	must(t, err)
	dq, dk, dv, err := g.SdpaBackward(q, k, v, oIn, dO, statsIn, &SdpaBackwardOptions{AttnScale: 0.125})
	must(t, err)
	for _, pair := range [][2]*Tensor{{dq, q}, {dk, k}, {dv, v}} {
		got, _ := pair[0].Dims()
		want, _ := pair[1].Dims()
		if !equalDims(got, want) {
			t.Errorf("gradient dims %v, expected %v", got, want)
		}
	}
}

func TestDescribeAndLibraryInformation(t *testing.T) {
	g := seedConvGraph(t)
	defer g.Close()
	text, err := g.Describe()
	must(t, err)
	if !strings.Contains(text, "conv_fprop_0::Y") {
		t.Errorf("describe: %s", text)
	}
	if s, _ := StridesChannelsLast(8, 64, 56, 56); !equalDims(s, []int64{200704, 1, 3584, 64}) {
		t.Errorf("channels-last strides %v", s)
	}
	if s, _ := StridesPacked(8, 64, 56, 56); !equalDims(s, []int64{200704, 3136, 56, 1}) {
		t.Errorf("packed strides %v", s)
	}
	v := Version()
	if VersionString() == "" || v == 0 && VersionString() != "0.0.0" {
		t.Errorf("version %d %q", v, VersionString())
	}
	if DataHalf.Size() != 2 || DataHalf.String() != "half" {
		t.Errorf("half: %d %q", DataHalf.Size(), DataHalf.String())
	}
	if DataHalf.Bits() != 16 || DataInt4.Bits() != 4 || DataUint4.Size() != 0 || DataUint4.String() != "uint4" {
		t.Errorf("4-bit types: %d %d %d %q", DataHalf.Bits(), DataInt4.Bits(), DataUint4.Size(), DataUint4.String())
	}
	g4, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	defer g4.Close()
	w, err := g4.Tensor("w", []int64{1, 256, 128}, []int64{256 * 128, 1, 256}, DataInt4)
	must(t, err)
	if dt, _ := w.DataType(); dt != DataInt4 {
		t.Errorf("w is %v", dt)
	}
	if n, _ := w.SizeBytes(); n != 256*128/2 {
		t.Errorf("w takes %d bytes", n)
	}
	// Complex operands give a complex product, 8 bytes an element.
	if DataComplexFp32.Size() != 8 {
		t.Errorf("complex_fp32 takes %d bytes", DataComplexFp32.Size())
	}
	gc, err := NewGraph(&GraphOptions{IODataType: DataFloat})
	must(t, err)
	defer gc.Close()
	dims, strides := []int64{2, 16, 16}, []int64{256, 16, 1}
	ca, err := gc.Tensor("a", dims, strides, DataComplexFp32)
	must(t, err)
	cb, err := gc.Tensor("b", dims, strides, DataComplexFp32)
	must(t, err)
	c, err := gc.Matmul(ca, cb, nil)
	must(t, err)
	must(t, c.SetOutput(true))
	must(t, gc.Validate())
	if dt, _ := c.DataType(); dt != DataComplexFp32 {
		t.Errorf("the complex product is %v", dt)
	}
	schema, err := OpSchemaJSON()
	must(t, err)
	if !strings.Contains(schema, `"entry_point":"fe_graph_conv_fprop"`) || !strings.Contains(schema, `"c_type":"fe_resample_padding"`) {
		t.Errorf("the op schema lacks conv_fprop or fe_resample_padding: %.200s", schema)
	}
	slopes, err := AlibiSlopes(8)
	must(t, err)
	if slopes[0] != 0.5 || slopes[7] != 1.0/256 {
		t.Errorf("slopes %v", slopes)
	}
	must(t, SetLogLevel(LogOff))
}

// The key is the SHA-256 of the graph's JSON (none described here), the same for the same graph.
func TestTheKeyIsTheSha256OfTheJSONAndAUIDFindsItsTensor(t *testing.T) {
	a, b := seedConvGraph(t), seedConvGraph(t)
	defer a.Close()
	defer b.Close()
	json, err := a.ToJSON()
	must(t, err)
	key, err := a.Key()
	must(t, err)
	if want := fmt.Sprintf("%x", sha256.Sum256([]byte(json))); key != want {
		t.Errorf("key %s, the JSON's SHA-256 %s", key, want)
	}
	if other, _ := b.Key(); other != key {
		t.Errorf("the same graph has keys %s and %s", key, other)
	}
	w, err := b.TensorByName("weight")
	must(t, err)
	must(t, w.SetUID(42))
	if other, _ := b.Key(); other == key {
		t.Error("a uid set did not change the key")
	}
	found, err := b.TensorByUID(42)
	must(t, err)
	if found != w {
		t.Error("TensorByUID(42) is not the tensor given uid 42")
	}
	_, err = b.TensorByUID(43)
	expectError(t, err, StatusNotFound, "Graph.TensorByUID: graph 'first_graph' has no tensor with uid 43")
}

// The carried sm 90 description describes a graph's target; another version is refused, naming it.
func TestTheCarriedSM90DescriptionIsATarget(t *testing.T) {
	json, err := DevicePropertiesForSM(90)
	must(t, err)
	if !strings.Contains(json, `"deviceVer":900`) {
		t.Errorf("not an sm 90 description: %s", json)
	}
	g := seedConvGraph(t)
	defer g.Close()
	must(t, g.SetDeviceProperties(json))
	_, err = DevicePropertiesForSM(80)
	expectError(t, err, StatusNotSupported,
		"cudnnfe.DevicePropertiesForSM: no description of an sm 80 GPU is carried (the library has 90)")
}
