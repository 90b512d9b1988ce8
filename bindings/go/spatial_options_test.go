package cudnnfe

import (
	"strings"
	"testing"
)

// Per-spatial-dim options mean what they mean in C: one value applies to every spatial dim (as
// in PyTorch), one per spatial dim fixes their count, and another count is refused with the C
// library's message. The C, Java and C# tests check the same cases.

func TestOneValueAppliesToEverySpatialDim(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x, w := tensor(t, g, "x", 8, 64, 56, 56), tensor(t, g, "w", 32, 64, 3, 3)
	y, err := g.ConvFprop(x, w, &ConvOptions{Padding: []int64{1}, Stride: []int64{2}})
	expectDims(t, y, err, 8, 32, 28, 28)
	y, err = g.ConvFprop(x, w, &ConvOptions{Padding: []int64{1, 1}, Stride: []int64{2, 2}})
	expectDims(t, y, err, 8, 32, 28, 28)
	pooled, _, err := g.Resample(x, &ResampleOptions{Window: []int64{2}, Stride: []int64{2}})
	expectDims(t, pooled, err, 8, 64, 28, 28)
}

func TestThreeValuesForTwoDimsAreRefused(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x, w := tensor(t, g, "x", 8, 64, 56, 56), tensor(t, g, "w", 32, 64, 3, 3)
	_, err := g.ConvFprop(x, w, &ConvOptions{Padding: []int64{1, 1, 1}})
	expectError(t, err, StatusInvalidArgument,
		"Graph.ConvFprop: options give 3 spatial dims (padding, stride, dilation) but image has 2")
	_, err = g.ConvFprop(x, w, &ConvOptions{Stride: []int64{1, 1, 1, 1}})
	expectError(t, err, StatusInvalidArgument,
		"ConvOptions.Stride: 4 stride values; give 1 (every spatial dim) or one per spatial dim (2 or 3)")
	_, err = g.ConvFprop(x, w, &ConvOptions{Padding: []int64{1, 1}, Stride: []int64{2, 2, 2}})
	expectError(t, err, StatusInvalidArgument,
		"ConvOptions.Stride: stride is given for 3 spatial dims but the options already have 2")
	_, _, err = g.Resample(x, &ResampleOptions{Window: []int64{}})
	expectError(t, err, StatusInvalidArgument, "ResampleOptions.Window: 0 window values")
}

func TestEveryResampleOptionReachesTheGraph(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8, 16, 16)
	y, index, err := g.Resample(x, &ResampleOptions{Window: []int64{3}, Stride: []int64{2}, PrePadding: []int64{1},
		PostPadding: []int64{0}, PaddingMode: ResamplePaddingEdge, GenerateIndex: true, IndexDataType: DataInt32})
	expectDims(t, y, err, 2, 8, 8, 8)
	must(t, y.SetOutput(true))
	must(t, index.SetOutput(true))
	text, err := g.ToJSON()
	must(t, err)
	for _, want := range []string{`"padding_mode":"edge"`, `"index_data_type":"int32"`, `"pre_padding":[1,1]`,
		`"post_padding":[0,0]`} {
		if !strings.Contains(text, want) {
			t.Errorf("the graph's JSON lacks %s:\n%s", want, text)
		}
	}
}
