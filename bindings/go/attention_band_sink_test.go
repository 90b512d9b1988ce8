package cudnnfe

import (
	"strings"
	"testing"
)

// Attention's sinks, Max/SumExp outputs, two-bound bands and soft-capping through the generated
// options: each option reaches the graph (its description, its outputs found by name) and each bad
// combination is refused with the C library's reason. No GPU needed.

func ioGraph(t *testing.T, io DataType) *Graph {
	t.Helper()
	g, err := NewGraph(&GraphOptions{IODataType: io})
	must(t, err)
	return g
}

// expectDescribed fails unless the graph's description contains every fragment.
func expectDescribed(t *testing.T, g *Graph, fragments ...string) {
	t.Helper()
	text, err := g.Describe()
	must(t, err)
	for _, fragment := range fragments {
		if !strings.Contains(text, fragment) {
			t.Errorf("the description lacks %s:\n%s", fragment, text)
		}
	}
}

// expectFloat fails unless the tensor is float.
func expectFloat(t *testing.T, x *Tensor) {
	t.Helper()
	dt, err := x.DataType()
	must(t, err)
	if dt != DataFloat {
		t.Errorf("data type %v, expected float", dt)
	}
}

func TestSinksWithACausalMaskAndStatsReachTheGraph(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 2, 8, 256, 64), tensor(t, g, "k", 2, 8, 256, 64), tensor(t, g, "v", 2, 8, 256, 64)
	sink := typed(t, g, "sink", DataFloat, 1, 8, 1, 1)
	o, stats, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, CausalMask: CausalTopLeft, GenerateStats: true,
		SinkToken: sink})
	expectDims(t, o, err, 2, 8, 256, 64)
	expectDims(t, stats, nil, 2, 8, 256, 1)
	expectFloat(t, stats)
	expectDescribed(t, g, "sink=sink", "causal=top_left")
	fourHeads := typed(t, g, "four_heads", DataFloat, 1, 4, 1, 1)
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{SinkToken: fourHeads})
	expectError(t, err, StatusInvalidArgument, "it must be [1, 8, 1, 1]")
}

func TestMaxAndSumExpAreOutputByNameInsteadOfTheStats(t *testing.T) {
	g := ioGraph(t, DataHalf)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 2, 8, 128, 64), tensor(t, g, "k", 2, 2, 512, 64), tensor(t, g, "v", 2, 2, 512, 64)
	o, _, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, OutputMaxSumExp: true})
	expectDims(t, o, err, 2, 8, 128, 64)
	for _, port := range []string{"sdpa_0::Max", "sdpa_0::SumExp"} {
		x, err := g.TensorByName(port)
		expectDims(t, x, err, 2, 8, 128, 1)
		expectFloat(t, x)
	}
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{OutputMaxSumExp: true, GenerateStats: true})
	expectError(t, err, StatusInvalidArgument, "the stats or Max and SumExp, not both")
}

func TestABandOfBothBoundsKeepsItsBoundsAndAlignment(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 2, 8, 128, 64), tensor(t, g, "k", 2, 8, 256, 64), tensor(t, g, "v", 2, 8, 256, 64)
	right := int64(16)
	o, _, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, SlidingWindow: 64, RightBound: &right,
		DiagonalAlignment: DiagonalAlignmentBottomRight, GenerateStats: true})
	expectDims(t, o, err, 2, 8, 128, 64)
	expectDescribed(t, g, "window=64", "right_bound=16", "diagonal=bottom_right")
	four := int64(4)
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{CausalMask: CausalTopLeft, DiagonalAlignment: DiagonalAlignmentTopLeft,
		RightBound: &four})
	expectError(t, err, StatusInvalidArgument, "a causal mask is right_bound 0: give one of them")
}

func TestSoftCappingReachesTheGraphAndANegativeCapIsRefused(t *testing.T) {
	g := ioGraph(t, DataHalf)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 2, 8, 256, 64), tensor(t, g, "k", 2, 8, 256, 64), tensor(t, g, "v", 2, 8, 256, 64)
	_, _, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, Softcap: 50, GenerateStats: true})
	must(t, err)
	expectDescribed(t, g, "softcap=50")
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{Softcap: -1})
	expectError(t, err, StatusInvalidArgument, "options.softcap is -1")
}

func TestDSinkIsOutputByNameAndNeedsTheSinks(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	qkv := []int64{2, 8, 256, 64}
	q, k, v := tensor(t, g, "q", qkv...), tensor(t, g, "k", qkv...), tensor(t, g, "v", qkv...)
	o, dO, stats := tensor(t, g, "o", qkv...), tensor(t, g, "dO", qkv...), typed(t, g, "stats", DataFloat, 2, 8, 256, 1)
	sink := typed(t, g, "sink", DataFloat, 1, 8, 1, 1)
	dq, _, _, err := g.SdpaBackward(q, k, v, o, dO, stats, &SdpaBackwardOptions{AttnScale: 0.125,
		CausalMask: CausalTopLeft, SinkToken: sink, OutputDsink: true})
	expectDims(t, dq, err, qkv...)
	dSink, err := g.TensorByName("sdpa_backward_0::dSink")
	expectDims(t, dSink, err, 1, 8, 1, 1)
	expectFloat(t, dSink)
	expectDescribed(t, g, "sink=sink", "dsink")
	_, _, _, err = g.SdpaBackward(q, k, v, o, dO, stats, &SdpaBackwardOptions{OutputDsink: true})
	expectError(t, err, StatusInvalidArgument, "output_dsink needs the forward's sinks")
	_, _, _, err = g.SdpaBackward(q, k, v, o, dO, stats, &SdpaBackwardOptions{SinkToken: sink})
	expectError(t, err, StatusInvalidArgument, "sink_token in the backward serves only dSink")
}

func TestTheBackwardTakesTheBandAndTheCapOfTheForward(t *testing.T) {
	g := ioGraph(t, DataHalf)
	defer g.Close()
	qkv, kv := []int64{2, 8, 128, 64}, []int64{2, 8, 256, 64}
	right := int64(16)
	_, dk, _, err := g.SdpaBackward(tensor(t, g, "q", qkv...), tensor(t, g, "k", kv...), tensor(t, g, "v", kv...),
		tensor(t, g, "o", qkv...), tensor(t, g, "dO", qkv...), typed(t, g, "stats", DataFloat, 2, 8, 128, 1),
		&SdpaBackwardOptions{AttnScale: 0.125, SlidingWindow: 64, RightBound: &right,
			DiagonalAlignment: DiagonalAlignmentBottomRight, Softcap: 50})
	expectDims(t, dk, err, kv...)
	expectDescribed(t, g, "right_bound=16", "diagonal=bottom_right", "softcap=50")
}

// softcapChain writes soft-capping as the caller's own chain: cap * tanh(s / cap) on a stand-in for the scores.
func softcapChain(t *testing.T, g *Graph, scores, capValue *Tensor) *Tensor {
	t.Helper()
	divided, err := g.Pointwise(PointwiseDiv, scores, capValue, nil, nil)
	must(t, err)
	tanh, err := g.Pointwise(PointwiseTanhFwd, divided, nil, nil, nil)
	must(t, err)
	capped, err := g.Pointwise(PointwiseMul, tanh, capValue, nil, nil)
	must(t, err)
	return capped
}

func TestTheCallersScoreModifierRunsInsideTheAttention(t *testing.T) {
	g := ioGraph(t, DataHalf)
	defer g.Close()
	qkv := []int64{2, 4, 128, 64}
	q, k, v := tensor(t, g, "q", qkv...), tensor(t, g, "k", qkv...), tensor(t, g, "v", qkv...)
	scores := typed(t, g, "scores", DataFloat, 2, 4, 128, 128)
	capValue, err := g.Scalar("cap", 30, DataFloat)
	must(t, err)
	capped := softcapChain(t, g, scores, capValue)
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, ScoreModInput: scores, ScoreModOutput: capped})
	must(t, err)
	expectDescribed(t, g, "score_mod=mul_0::Y(3 ops)", "stands for the scores in sdpa 'sdpa_0'", "inside sdpa 'sdpa_0'")
	if inputs, err := g.Inputs(); err != nil || len(inputs) != 3 {
		t.Errorf("the stand-in is not a graph input: %d inputs (%v)", len(inputs), err)
	}
	unrelated, err := g.Pointwise(PointwiseTanhFwd, typed(t, g, "other", DataFloat, 2, 4, 128, 128), nil, nil, nil)
	must(t, err)
	fresh := typed(t, g, "fresh", DataFloat, 2, 4, 128, 128)
	_, _, err = g.Sdpa(q, k, v, &SdpaOptions{ScoreModInput: fresh, ScoreModOutput: unrelated})
	expectError(t, err, StatusInvalidArgument, "does not depend on options.score_mod_input 'fresh'")
}

func TestTheBackwardTakesTheCallersDerivative(t *testing.T) {
	g := ioGraph(t, DataHalf)
	defer g.Close()
	qkv := []int64{2, 4, 128, 64}
	q, k, v := tensor(t, g, "q", qkv...), tensor(t, g, "k", qkv...), tensor(t, g, "v", qkv...)
	o, dO, stats := tensor(t, g, "o", qkv...), tensor(t, g, "dO", qkv...), typed(t, g, "stats", DataFloat, 2, 4, 128, 1)
	capValue, err := g.Scalar("cap", 30, DataFloat)
	must(t, err)
	scores := typed(t, g, "scores", DataFloat, 2, 4, 128, 128)
	capped := softcapChain(t, g, scores, capValue)
	_, _, _, err = g.SdpaBackward(q, k, v, o, dO, stats, &SdpaBackwardOptions{ScoreModInput: scores, ScoreModOutput: capped})
	expectError(t, err, StatusInvalidArgument, "its derivative is the caller's to give")
	dScores := typed(t, g, "d_scores", DataFloat, 2, 4, 128, 128)
	before, err := g.TensorByName("div_0::Y")
	must(t, err)
	timesCap, err := g.Pointwise(PointwiseMul, dScores, capValue, nil, nil)
	must(t, err)
	throughTanh, err := g.Pointwise(PointwiseTanhBwd, timesCap, before, nil, nil)
	must(t, err)
	dIn, err := g.Pointwise(PointwiseDiv, throughTanh, capValue, nil, nil)
	must(t, err)
	dq, _, _, err := g.SdpaBackward(q, k, v, o, dO, stats, &SdpaBackwardOptions{AttnScale: 0.125, ScoreModInput: scores,
		ScoreModOutput: capped, ScoreModGradInput: dScores, ScoreModGradOutput: dIn})
	expectDims(t, dq, err, qkv...)
	expectDescribed(t, g, "score_mod=mul_0::Y(3 ops)", "score_mod_grad=div_1::Y(3 ops)")
}
