package cudnnfe

import "testing"

// The mixture-of-experts grouped matmul's modes and routing tensors through the generated options,
// and the packed backward's MaxTotalSeqLenQ and MaxTotalSeqLenKV: each option reaches the graph (its description, its
// output's dims) and each bad routing setup is refused with the C library's reason. No GPU needed.

// moeWeight is eight experts' [k, n] weights, K-contiguous as the reference frontend lays them out.
func moeWeight(t *testing.T, g *Graph, k, n int64) *Tensor {
	t.Helper()
	w, err := g.Tensor("w", []int64{8, k, n}, []int64{k * n, 1, k}, DataNotSet)
	must(t, err)
	return w
}

func TestModeNoneKeepsTheTokenRowsAndTakesUntypedOffsetsAsInt32(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	x, w, offsets := tensor(t, g, "x", 1, 1024, 1024), moeWeight(t, g, 1024, 4096), tensor(t, g, "offsets", 8, 1, 1)
	y, err := g.MoeGroupedMatmul(x, w, offsets, nil)
	expectDims(t, y, err, 1, 1024, 4096)
	dt, err := offsets.DataType()
	must(t, err)
	if dt != DataInt32 {
		t.Errorf("offsets declared without a type are %v, expected int32", dt)
	}
	named, err := g.MoeGroupedMatmul(x, w, offsets, &MoeGroupedMatmulOptions{Mode: MoeModeNone})
	expectDims(t, named, err, 1, 1024, 4096)
	expectDescribed(t, g, "mode=none")
}

func TestScatterWithTopKWritesOneRowPerTokenRow(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	y, err := g.MoeGroupedMatmul(tensor(t, g, "x", 1, 384, 256), moeWeight(t, g, 256, 1024),
		typed(t, g, "offsets", DataInt32, 8, 1, 1), &MoeGroupedMatmulOptions{Mode: MoeModeScatter,
			TokenIndex: typed(t, g, "token_index", DataInt32, 1, 384, 1),
			TokenKs:    typed(t, g, "token_ks", DataInt32, 1, 384, 1), TopK: 2})
	expectDims(t, y, err, 1, 384, 1024)
	expectDescribed(t, g, "mode=scatter top_k=2")
}

func TestGatherWritesOneRowPerTokenIndexRow(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	y, err := g.MoeGroupedMatmul(tensor(t, g, "x", 1, 256, 256), moeWeight(t, g, 256, 1024),
		typed(t, g, "offsets", DataInt32, 8, 1, 1), &MoeGroupedMatmulOptions{Mode: MoeModeGather,
			TokenIndex: typed(t, g, "token_index", DataInt32, 1, 512, 1)})
	expectDims(t, y, err, 1, 512, 1024)
	expectDescribed(t, g, "mode=gather")
}

func TestBadRoutingIsRefusedWithItsReason(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	x, w, offsets := tensor(t, g, "x", 1, 512, 256), moeWeight(t, g, 256, 512), typed(t, g, "offsets", DataInt32, 8, 1, 1)
	index, ks := typed(t, g, "token_index", DataInt32, 1, 512, 1), typed(t, g, "token_ks", DataInt32, 1, 512, 1)
	refused := func(x, offsets *Tensor, opts *MoeGroupedMatmulOptions, why string) {
		t.Helper()
		y, err := g.MoeGroupedMatmul(x, w, offsets, opts)
		if y != nil {
			t.Errorf("a tensor for a refused call (%s)", why)
		}
		expectError(t, err, StatusInvalidArgument, why)
	}
	refused(x, offsets, &MoeGroupedMatmulOptions{Mode: MoeModeGather}, "mode GATHER needs options.token_index")
	refused(x, offsets, &MoeGroupedMatmulOptions{TokenIndex: index}, "mode NONE takes no token_index")
	refused(x, offsets, &MoeGroupedMatmulOptions{TopK: 2}, "options.top_k is 2; it applies to mode SCATTER only")
	refused(x, offsets, &MoeGroupedMatmulOptions{Mode: MoeModeScatter, TokenIndex: index, TokenKs: ks},
		"mode SCATTER needs options.top_k")
	refused(tensor(t, g, "x_wide", 1, 512, 128), offsets, nil, "has K = 128 but weight 'w' has 256 rows per expert")
	refused(tensor(t, g, "x_batched", 2, 512, 256), offsets, nil, "it must be [1, rows, K]")
	refused(x, typed(t, g, "offsets_7", DataInt32, 7, 1, 1), nil, "groups a multiple of the 8 experts")
	refused(x, typed(t, g, "offsets_i64", DataInt64, 8, 1, 1), nil, "it must be int32")
}

func TestMaxTotalSeqLenNeedsPackedTensors(t *testing.T) {
	const b, h, s, d = 3, 4, 128, 64
	dims, strides := []int64{b, h, s, d}, []int64{s * h * d, d, h * d, 1}
	// Packed with both sizes; then unpacked with one or the other, refused at build.
	for c, refusal := range []string{"", "Q 'q' is not packed", "K 'k' and V 'v' are not both packed"} {
		packed := refusal == ""
		g := ioGraph(t, DataBFloat16)
		var qkvo []*Tensor
		for _, name := range []string{"q", "k", "v", "o", "dO"} {
			x, err := g.Tensor(name, dims, strides, DataNotSet)
			must(t, err)
			qkvo = append(qkvo, x)
		}
		stats := typed(t, g, "stats", DataFloat, b, h, s, 1)
		if packed {
			offsets := typed(t, g, "offsets", DataInt64, b+1, 1, 1, 1)
			for _, x := range qkvo {
				must(t, x.SetRaggedOffset(offsets))
			}
			must(t, stats.SetStrides(s*h, 1, h, 1))
			must(t, stats.SetRaggedOffset(typed(t, g, "stats_offsets", DataInt64, b+1, 1, 1, 1)))
		}
		opts := &SdpaBackwardOptions{AttnScale: 0.125, SeqLenQ: typed(t, g, "lq", DataInt32, b, 1, 1, 1),
			SeqLenKV: typed(t, g, "lkv", DataInt32, b, 1, 1, 1)}
		if c != 2 {
			opts.MaxTotalSeqLenQ = 200
		}
		if c != 1 {
			opts.MaxTotalSeqLenKV = 200
		}
		dq, dk, dv, err := g.SdpaBackward(qkvo[0], qkvo[1], qkvo[2], qkvo[3], qkvo[4], stats, opts)
		expectDims(t, dq, err, dims...)
		if !packed {
			lowerUnpacked(t, g, refusal, dq, dk, dv)
		}
		g.Close()
	}
}

// lowerUnpacked builds g's operation graph for the described GPU and expects it refused, naming the cause.
func lowerUnpacked(t *testing.T, g *Graph, refusal string, outputs ...*Tensor) {
	json := needDeviceless(t)
	for _, x := range outputs {
		must(t, x.SetOutput(true))
	}
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	expectError(t, g.BuildOperationGraph(nil), StatusInvalidArgument, refusal)
}
