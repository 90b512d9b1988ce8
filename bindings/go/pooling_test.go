package cudnnfe

import "testing"

// Pooling and the layout operations: dims inference and errors.

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
	expectError(t, err, StatusInvalidArgument, "Graph.Resample")
}

func TestTransposeInfersItsDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 3, 4)
	y, err := g.Transpose(x, []int64{2, 0, 1}, "")
	expectDims(t, y, err, 4, 2, 3)
	_, err = g.Transpose(x, []int64{0, 0, 1}, "")
	expectError(t, err, StatusInvalidArgument, "Graph.Transpose")
}

func TestSliceReshapeAndConcatenateInferTheirDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	qkv := tensor(t, g, "qkv", 2, 64, 96)
	k, err := g.Slice(qkv, []int64{0, 0, 32}, []int64{2, 64, 64}, "k")
	expectDims(t, k, err, 2, 64, 32)
	strides, err := k.Strides()
	must(t, err)
	if len(strides) != 3 || strides[0] != 64*96 || strides[1] != 96 || strides[2] != 1 {
		t.Errorf("slice strides %v, want the input's [6144 96 1]", strides)
	}
	_, err = g.Slice(qkv, []int64{0, 0, 0}, []int64{2, 64, 97}, "")
	expectError(t, err, StatusInvalidArgument, "Graph.Slice")
	flat := tensor(t, g, "flat", 128, 32)
	r, err := g.Reshape(flat, []int64{2, 64, 32}, "")
	expectDims(t, r, err, 2, 64, 32)
	_, err = g.Reshape(flat, []int64{5, 5}, "")
	expectError(t, err, StatusInvalidArgument, "Graph.Reshape")
	cache := tensor(t, g, "cache", 2, 8, 60, 16)
	fresh := tensor(t, g, "fresh", 2, 8, 4, 16)
	c, err := g.Concatenate([]*Tensor{cache, fresh}, 2, 0, "")
	expectDims(t, c, err, 2, 8, 64, 16)
	_, err = g.Concatenate([]*Tensor{cache, fresh}, 1, -1, "")
	expectError(t, err, StatusInvalidArgument, "Graph.Concatenate")
}
