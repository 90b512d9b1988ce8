package cudnnfe

import (
	"strings"
	"testing"
)

// Every option of genstats and resample, set through the generated options structs, reaches the
// graph: its JSON shows each value given (none is the C default), so no option is dropped or
// sent to another field on the way.

func expectJSON(t *testing.T, g *Graph, wants ...string) {
	t.Helper()
	text, err := g.ToJSON()
	must(t, err)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("the graph's JSON lacks %s:\n%s", want, text)
		}
	}
}

func TestEveryGenstatsOptionReachesTheGraph(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8, 16, 16)
	sum, sqSum, err := g.Genstats(x, &GenstatsOptions{Name: "stats", ComputeDataType: DataDouble})
	must(t, err)
	must(t, sum.SetOutput(true))
	must(t, sqSum.SetOutput(true))
	expectJSON(t, g, `"op":"genstats","name":"stats","compute_data_type":"double"`)
}

func TestEveryResampleOptionOfTheGeneratedStructReachesTheGraph(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8, 16, 16)
	y, index, err := g.Resample(x, &ResampleOptions{Name: "maxpool", Mode: ResampleMaxPool,
		PaddingMode: ResamplePaddingNegInf, SpatialDims: 2, Window: []int64{3, 2}, Stride: []int64{2, 1},
		Padding: []int64{1}, PostPadding: []int64{2, 0}, ComputeDataType: DataDouble, GenerateIndex: true,
		IndexDataType: DataInt64})
	must(t, err)
	if index == nil {
		t.Fatal("GenerateIndex: no index")
	}
	must(t, y.SetOutput(true))
	must(t, index.SetOutput(true))
	avg, _, err := g.Resample(x, &ResampleOptions{Name: "avgpool", Mode: ResampleAvgPoolExcludePadding,
		PrePadding: []int64{0, 1}, Window: []int64{2}})
	must(t, err)
	must(t, avg.SetOutput(true))
	expectJSON(t, g, `"name":"maxpool","compute_data_type":"double"`, `"mode":"maxpool"`,
		`"padding_mode":"neg_inf"`, `"window":[3,2]`, `"stride":[2,1]`, `"pre_padding":[1,1]`,
		`"post_padding":[2,0]`, `"generate_index":true`, `"index_data_type":"int64"`,
		`"mode":"avgpool_exclude_padding"`, `"pre_padding":[0,1]`)
	// the JSON does not hold spatial_dims: a count other than x's shows it reached the C options
	_, _, err = g.Resample(x, &ResampleOptions{SpatialDims: 3, Window: []int64{2}})
	if err == nil || !strings.Contains(err.Error(), "spatial_dims is 3") {
		t.Errorf("SpatialDims 3 for a 2-d image: got %v", err)
	}
}

// An option of another pointwise mode would be ignored: refused, naming the mode.
func TestAnOptionOfAnotherPointwiseModeIsRefused(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 4, 16, 32)
	swish := &PointwiseOptions{SwishBeta: 1.702, Name: "swish"}
	_, err := g.Pointwise(PointwiseReluFwd, x, nil, nil, swish)
	expectError(t, err, StatusInvalidArgument, "options.swish_beta is not taken by relu")
	y, err := g.Pointwise(PointwiseSwishFwd, x, nil, nil, swish)
	must(t, err)
	if name, _ := y.Name(); name != "swish::Y" {
		t.Errorf("the swish is named %q", name)
	}
}
