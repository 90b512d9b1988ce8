package cudnnfe

import "testing"

// Pooling and transpose: dims inference and errors.

func TestPoolingInfersItsDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8, 16, 16)
	y, index, err := g.Resample(x, &ResampleOptions{Window: []int64{2, 2}, Stride: []int64{2, 2}})
	expectDims(t, y, err, 2, 8, 8, 8)
	if index != nil {
		t.Error("an index without GenerateIndex")
	}
	_, index, err = g.Resample(x, &ResampleOptions{Window: []int64{3, 3}, Stride: []int64{2, 2}, Padding: []int64{1, 1},
		GenerateIndex: true})
	must(t, err)
	if index == nil {
		t.Error("no index with GenerateIndex")
	}
	avg := &ResampleOptions{Mode: ResampleAvgPoolExcludePadding, Window: []int64{4, 4}, Stride: []int64{4, 4}}
	y, _, err = g.Resample(x, avg)
	expectDims(t, y, err, 2, 8, 4, 4)
	dx, err := g.ResampleBackward(tensor(t, g, "dy", 2, 8, 4, 4), nil, nil, nil, []int64{2, 8, 16, 16}, avg)
	expectDims(t, dx, err, 2, 8, 16, 16)
	_, _, err = g.Resample(x, &ResampleOptions{})
	expectError(t, err, StatusInvalidArgument, "fe_graph_resample")
}

func TestTransposeInfersItsDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 3, 4)
	y, err := g.Transpose(x, []int64{2, 0, 1}, "")
	expectDims(t, y, err, 4, 2, 3)
	_, err = g.Transpose(x, []int64{0, 0, 1}, "")
	expectError(t, err, StatusInvalidArgument, "fe_graph_transpose")
}
