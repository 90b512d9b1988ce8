package cudnnfe

import "testing"

// The operation families beyond the first graph: each builds, infers its results' dims, and turns
// a bad argument into an *Error with the library's status and message. No GPU needed.

func halfGraph(t *testing.T) *Graph {
	t.Helper()
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	return g
}

func typed(t *testing.T, g *Graph, name string, dt DataType, dims ...int64) *Tensor {
	t.Helper()
	x, err := g.Tensor(name, dims, nil, dt)
	must(t, err)
	return x
}

// expectDims fails unless the call succeeded with a tensor of these dims.
func expectDims(t *testing.T, x *Tensor, err error, want ...int64) {
	t.Helper()
	must(t, err)
	if x == nil {
		t.Fatalf("no tensor, expected dims %v", want)
	}
	dims, err := x.Dims()
	must(t, err)
	if !equalDims(dims, want) {
		t.Errorf("dims %v, expected %v", dims, want)
	}
}

func TestConvolutionGradientsInferTheirDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	opts := &ConvOptions{Padding: []int64{1, 1}}
	dy, w, x := tensor(t, g, "dy", 4, 32, 16, 16), tensor(t, g, "w", 32, 16, 3, 3), tensor(t, g, "x", 4, 16, 16, 16)
	dx, err := g.ConvDgrad(dy, w, []int64{4, 16, 16, 16}, opts)
	expectDims(t, dx, err, 4, 16, 16, 16)
	dw, err := g.ConvWgrad(x, dy, nil, opts)
	expectDims(t, dw, err, 32, 16, 3, 3)
	_, err = g.ConvDgrad(dy, w, []int64{4, 16, 40, 40}, opts)
	expectError(t, err, StatusInvalidArgument, "Graph.ConvDgrad")
}

func TestTransposedAndGroupedConvolutionsInferTheirDims(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	image, up := tensor(t, g, "image", 1, 8, 4, 4), tensor(t, g, "up", 8, 4, 3, 3)
	y, err := g.ConvTranspose(image, up, &ConvOptions{Padding: []int64{1, 1}, Stride: []int64{2, 2}, OutputPadding: []int64{1, 1}})
	expectDims(t, y, err, 1, 4, 8, 8)
	depthwise := tensor(t, g, "depthwise", 8, 1, 3, 3)
	y, err = g.ConvFprop(image, depthwise, &ConvOptions{Padding: []int64{1, 1}, Groups: 8})
	expectDims(t, y, err, 1, 8, 4, 4)
	_, err = g.ConvFprop(image, depthwise, &ConvOptions{Padding: []int64{1, 1}, Groups: 3})
	expectError(t, err, StatusInvalidArgument, "groups")
}

func TestLayerAndRmsNormalizationReturnTheirStatistics(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 4, 64)
	scale, bias := typed(t, g, "scale", DataFloat, 1, 64), typed(t, g, "bias", DataFloat, 1, 64)
	training, err := g.Layernorm(x, scale, bias, &NormOptions{Phase: NormTraining, Epsilon: 1e-5})
	must(t, err)
	expectDims(t, training.Y, nil, 4, 64)
	expectDims(t, training.Mean, nil, 4, 1)
	expectDims(t, training.InvVariance, nil, 4, 1)
	inference, err := g.Layernorm(x, scale, bias, nil)
	must(t, err)
	if inference.Mean != nil || inference.InvVariance != nil {
		t.Error("inference returned statistics")
	}
	rms, err := g.Rmsnorm(x, scale, nil, &NormOptions{Phase: NormTraining})
	must(t, err)
	if rms.Mean != nil {
		t.Error("rmsnorm returned a mean")
	}
	expectDims(t, rms.InvVariance, nil, 4, 1)

	dy := tensor(t, g, "dy", 4, 64)
	ln, err := g.LayernormBackward(dy, x, scale, training.Mean, training.InvVariance, false)
	must(t, err)
	expectDims(t, ln.DX, nil, 4, 64)
	expectDims(t, ln.DScale, nil, 1, 64)
	expectDims(t, ln.DBias, nil, 1, 64)
	rg, err := g.RmsnormBackward(dy, x, scale, rms.InvVariance, false, false)
	must(t, err)
	expectDims(t, rg.DScale, nil, 1, 64)
	if rg.DBias != nil {
		t.Error("rmsnorm without bias returned a bias gradient")
	}
	_, err = g.Layernorm(x, typed(t, g, "wrong", DataFloat, 1, 32), bias, nil)
	expectError(t, err, StatusInvalidArgument, "Graph.Layernorm")
}

func TestBatchInstanceAndAdaptiveNormalizations(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 8, 4, 4)
	scale, bias := typed(t, g, "scale", DataFloat, 1, 8, 1, 1), typed(t, g, "bias", DataFloat, 1, 8, 1, 1)
	bn, err := g.Batchnorm(x, scale, bias, &BatchnormOptions{RunningMean: typed(t, g, "running_mean", DataFloat, 1, 8, 1, 1),
		RunningVar: typed(t, g, "running_var", DataFloat, 1, 8, 1, 1), Momentum: 0.1})
	must(t, err)
	expectDims(t, bn.Mean, nil, 1, 8, 1, 1)
	expectDims(t, bn.NextRunningVar, nil, 1, 8, 1, 1)
	plain, err := g.Batchnorm(x, scale, bias, nil)
	must(t, err)
	if plain.NextRunningMean != nil {
		t.Error("running statistics without running inputs")
	}
	dy := tensor(t, g, "dy", 2, 8, 4, 4)
	grads, err := g.BatchnormBackward(dy, x, scale, bn.Mean, bn.InvVariance)
	must(t, err)
	expectDims(t, grads.DX, nil, 2, 8, 4, 4)
	y, err := g.BatchnormInference(x, bn.Mean, bn.InvVariance, scale, bias, "bn_inference")
	expectDims(t, y, err, 2, 8, 4, 4)

	in, err := g.Instancenorm(x, scale, bias, &NormOptions{Phase: NormTraining})
	must(t, err)
	expectDims(t, in.Mean, nil, 2, 8, 1, 1)
	ig, err := g.InstancenormBackward(dy, x, scale, in.Mean, in.InvVariance)
	must(t, err)
	expectDims(t, ig.DScale, nil, 1, 8, 1, 1)

	tokens, perSample := tensor(t, g, "tokens", 2, 4, 16), typed(t, g, "ada_scale", DataFloat, 2, 1, 16)
	ada, err := g.Adalayernorm(tokens, perSample, typed(t, g, "ada_bias", DataFloat, 2, 1, 16), &NormOptions{Phase: NormTraining})
	must(t, err)
	expectDims(t, ada.Mean, nil, 2, 4, 1)
	ag, err := g.AdalayernormBackward(tensor(t, g, "ada_dy", 2, 4, 16), tokens, perSample, ada.Mean, ada.InvVariance, true)
	must(t, err)
	expectDims(t, ag.DScale, nil, 2, 1, 16)
	_, err = g.Instancenorm(x, scale, bias, &NormOptions{ZeroCenteredGamma: true})
	expectError(t, err, StatusInvalidArgument, "zero")
}

func TestDbnWeightGivesFivePerChannelFloatOutputs(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	dy, x := tensor(t, g, "dy", 2, 8, 4, 4), tensor(t, g, "x", 2, 8, 4, 4)
	mean, inv := typed(t, g, "mean", DataFloat, 1, 8, 1, 1), typed(t, g, "inv_variance", DataFloat, 1, 8, 1, 1)
	scale := typed(t, g, "scale", DataFloat, 1, 8, 1, 1)
	r, err := g.DbnWeight(dy, x, mean, inv, scale, nil)
	must(t, err)
	for _, out := range []*Tensor{r.DScale, r.DBias, r.EqScaleDy, r.EqScaleX, r.EqBias} {
		expectDims(t, out, nil, 1, 8, 1, 1)
		expectFloat(t, out)
	}
	_, err = g.DbnWeight(dy, x, mean, inv, typed(t, g, "wide", DataFloat, 1, 16, 1, 1), nil)
	expectError(t, err, StatusInvalidArgument, "scale 'wide' is [1,16,1,1]")
}

func TestGenstatsGivesFloatStatisticsPerChannel(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	y, err := g.ConvFprop(tensor(t, g, "x", 4, 32, 16, 16), tensor(t, g, "w", 64, 32, 3, 3), &ConvOptions{Padding: []int64{1}})
	must(t, err)
	sum, sqSum, err := g.Genstats(y, &GenstatsOptions{Name: "stats", ComputeDataType: DataFloat})
	expectDims(t, sum, err, 1, 64, 1, 1)
	expectDims(t, sqSum, err, 1, 64, 1, 1)
	if typ, err := sqSum.DataType(); err != nil || typ != DataFloat {
		t.Errorf("sq_sum type %v (%v), want float", typ, err)
	}
	if name, err := sqSum.Name(); err != nil || name != "stats::SQ_SUM" {
		t.Errorf("sq_sum name %q (%v)", name, err)
	}
	_, _, err = g.Genstats(tensor(t, g, "v", 4, 4), nil)
	expectError(t, err, StatusInvalidArgument, "Graph.Genstats: x 'v' has rank 2")
}

func TestSoftmaxRngAndBlockScaling(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	x := tensor(t, g, "x", 2, 4, 64)
	y, stats, err := g.Softmax(x, true, "softmax")
	expectDims(t, y, err, 2, 4, 64)
	expectDims(t, stats, nil, 2, 4, 1)
	_, stats, err = g.Softmax(x, false, "")
	must(t, err)
	if stats != nil {
		t.Error("stats without generateStats")
	}
	seed, err := g.Scalar("seed", 7, DataInt64)
	must(t, err)
	offset, err := g.Scalar("offset", 0, DataInt64)
	must(t, err)
	noise, err := g.Rng(seed, offset, RngNormal, 0, 1, []int64{2, 4, 64}, DataFloat)
	expectDims(t, noise, err, 2, 4, 64)
	_, err = g.Rng(seed, offset, RngNormal, 0, -1, []int64{4}, DataFloat)
	expectError(t, err, StatusInvalidArgument, "std")

	wide := typed(t, g, "wide", DataFloat, 16, 64)
	q, scale, err := g.BlockScaleQuantize(wide, 32, "quantize")
	expectDims(t, q, err, 16, 64)
	if scale == nil {
		t.Fatal("no scales")
	}
	back, err := g.BlockScaleDequantize(q, scale, 32, "")
	expectDims(t, back, err, 16, 64)
}

func TestFp8MatmulAndAttention(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	a, b := typed(t, g, "a", DataFP8E4M3, 4, 128, 64), typed(t, g, "b", DataFP8E4M3, 4, 64, 256)
	one := typed(t, g, "one", DataFloat, 1, 1, 1)
	c, amax, err := g.MatmulFp8(a, b, one, one, one, nil)
	expectDims(t, c, err, 4, 128, 256)
	expectDims(t, amax, nil, 1, 1, 1)
	_, _, err = g.MatmulFp8(a, typed(t, g, "bad_k", DataFP8E4M3, 4, 32, 256), one, one, one, nil)
	expectError(t, err, StatusInvalidArgument, "K=64")

	qkv := []int64{1, 2, 64, 64}
	q, k, v := typed(t, g, "q", DataFP8E4M3, qkv...), typed(t, g, "k", DataFP8E4M3, qkv...), typed(t, g, "v", DataFP8E4M3, qkv...)
	s := typed(t, g, "s", DataFloat, 1, 1, 1, 1)
	scales := SdpaFp8Scales{DescaleQ: s, DescaleK: s, DescaleV: s, DescaleS: s, ScaleS: s, ScaleO: s}
	fwd, err := g.SdpaFp8(q, k, v, scales, &SdpaOptions{GenerateStats: true, AttnScale: 0.125})
	must(t, err)
	expectDims(t, fwd.O, nil, qkv...)
	expectDims(t, fwd.Stats, nil, 1, 2, 64, 1)
	expectDims(t, fwd.AmaxO, nil, 1, 1, 1, 1)
	scales.ScaleO = nil
	_, err = g.SdpaFp8(q, k, v, scales, nil)
	expectError(t, err, StatusNullPointer, "scale_o")

	bs := SdpaFp8BackwardScales{DescaleQ: s, DescaleK: s, DescaleV: s, DescaleO: s, DescaleDO: s, DescaleS: s, DescaleDP: s,
		ScaleS: s, ScaleDP: s, ScaleDQ: s, ScaleDK: s, ScaleDV: s}
	grads, err := g.SdpaFp8Backward(q, k, v, fwd.O, typed(t, g, "dO", DataFP8E4M3, qkv...), fwd.Stats, bs,
		&SdpaBackwardOptions{AttnScale: 0.125})
	must(t, err)
	expectDims(t, grads.DQ, nil, qkv...)
	expectDims(t, grads.AmaxDP, nil, 1, 1, 1, 1)
}

func TestAttentionImplementationIsReportedOnceLowered(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	qkv := []int64{1, 2, 64, 64}
	o, stats, err := g.Sdpa(tensor(t, g, "q", qkv...), tensor(t, g, "k", qkv...), tensor(t, g, "v", qkv...),
		&SdpaOptions{GenerateStats: true, AttnScale: 0.125, Implementation: SdpaComposite, Name: "attention"})
	must(t, err)
	must(t, o.SetOutput(true))
	must(t, stats.SetOutput(true))
	_, err = g.AttentionImplementation("attention")
	expectError(t, err, StatusBadState, "Graph.AttentionImplementation")
	json := needDeviceless(t)
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	must(t, g.BuildOperationGraph(nil))
	for _, name := range []string{"attention", ""} {
		impl, err := g.AttentionImplementation(name)
		must(t, err)
		if impl != SdpaComposite {
			t.Errorf("node %q lowered as %d", name, impl)
		}
	}
	_, err = g.AttentionImplementation("no_such_node")
	expectError(t, err, StatusNotFound, "no_such_node")
}

func TestAttentionBackwardCanOutputTheBiasGradient(t *testing.T) {
	g := halfGraph(t)
	defer g.Close()
	qkv := []int64{1, 2, 64, 64}
	q, k, v, bias := tensor(t, g, "q", qkv...), tensor(t, g, "k", qkv...), tensor(t, g, "v", qkv...), tensor(t, g, "bias", 1, 2, 64, 64)
	o, stats, err := g.Sdpa(q, k, v, &SdpaOptions{GenerateStats: true, Bias: bias})
	must(t, err)
	_, _, _, err = g.SdpaBackward(q, k, v, o, tensor(t, g, "dO", qkv...), stats, &SdpaBackwardOptions{Bias: bias,
		OutputDbias: true, Deterministic: true, Implementation: SdpaAuto, Name: "bwd"})
	must(t, err)
	dbias, err := g.TensorByName("bwd::dBias")
	expectDims(t, dbias, err, 1, 2, 64, 64)
}
