package cudnnfe

// Convenience forms of ops whose regular method (generated from the op schema, named
// <Op>WithOptions) takes an options struct: these take the few values their callers set, as the
// API did before the schema. Results are virtual until SetOutput(true); name "" gives the default.

// BatchnormInference is batch normalization from given statistics (invVariance is
// 1 / sqrt(var + epsilon)).
func (g *Graph) BatchnormInference(x, mean, invVariance, scale, bias *Tensor, name string) (*Tensor, error) {
	return g.BatchnormInferenceWithOptions(x, mean, invVariance, scale, bias, &BatchnormInferenceOptions{Name: name})
}

// LayernormBackward is layer normalization backward, from the forward's x, scale and training
// statistics.
func (g *Graph) LayernormBackward(dy, x, scale, mean, invVariance *Tensor, zeroCenteredGamma bool) (*NormGradients, error) {
	return g.LayernormBackwardWithOptions(dy, x, scale, mean, invVariance,
		&NormBackwardOptions{ZeroCenteredGamma: zeroCenteredGamma})
}

// RmsnormBackward is RMS normalization backward, from the forward's inverse RMS; withBias: the
// forward had a bias.
func (g *Graph) RmsnormBackward(dy, x, scale, invRms *Tensor, zeroCenteredGamma, withBias bool) (*NormGradients, error) {
	return g.RmsnormBackwardWithOptions(dy, x, scale, invRms, withBias,
		&NormBackwardOptions{ZeroCenteredGamma: zeroCenteredGamma})
}

// InstancenormBackward is instance normalization backward.
func (g *Graph) InstancenormBackward(dy, x, scale, mean, invVariance *Tensor) (*NormGradients, error) {
	return g.InstancenormBackwardWithOptions(dy, x, scale, mean, invVariance, nil)
}

// AdalayernormBackward is AdaLN backward; withBias: the forward had a bias.
func (g *Graph) AdalayernormBackward(dy, x, scale, mean, invVariance *Tensor, withBias bool) (*NormGradients, error) {
	return g.AdalayernormBackwardWithOptions(dy, x, scale, mean, invVariance, withBias, nil)
}

// BatchnormBackward is batch normalization backward, from the forward's batch statistics.
func (g *Graph) BatchnormBackward(dy, x, scale, mean, invVariance *Tensor) (*NormGradients, error) {
	return g.BatchnormBackwardWithOptions(dy, x, scale, mean, invVariance, nil)
}

// Softmax is softmax over the last dim; stats are the float log-sum-exp statistics when
// generateStats, else nil. On its own cuDNN runs it only fused between two matmuls.
func (g *Graph) Softmax(x *Tensor, generateStats bool, name string) (y, stats *Tensor, err error) {
	return g.SoftmaxWithOptions(x, &SoftmaxOptions{Name: name, GenerateStats: generateStats})
}

// Rng draws random numbers (Philox) of the given dims: Bernoulli(a), Uniform[a, b) or
// Normal(a, b); seed and offset are int64 tensors of one element. dt DataNotSet: the graph's
// intermediate type.
func (g *Graph) Rng(seed, offset *Tensor, dist RngDistribution, a, b float64, dims []int64, dt DataType) (*Tensor, error) {
	if len(dims) < 1 || len(dims) > 8 {
		return nil, invalid("Graph.Rng: %d dims, expected 1 to 8", len(dims))
	}
	opts := &RngOptions{Distribution: dist, Dims: dims, DataType: dt}
	switch dist {
	case RngBernoulli:
		opts.Probability = &a
	case RngUniform:
		opts.Min, opts.Max = a, &b
	default:
		opts.Mean, opts.Std = a, &b
	}
	return g.RngWithOptions(seed, offset, opts)
}

// MatmulFp8 is C = (A * descaleA) x (B * descaleB) * scaleC with amax, the float amax of the
// product before quantization. The scales are one-element float tensors.
func (g *Graph) MatmulFp8(a, b, descaleA, descaleB, scaleC *Tensor, opts *MatmulOptions) (c, amax *Tensor, err error) {
	// the scales are required: a nil one is refused here, as before, rather than passed as NULL
	if _, err := pointers([]*Tensor{descaleA, descaleB, scaleC}); err != nil {
		return nil, nil, err
	}
	return g.MatmulFp8WithOptions(a, b, MatmulFp8Scales{DescaleA: descaleA, DescaleB: descaleB, ScaleC: scaleC}, opts)
}

// BlockScaleQuantize quantizes x in blocks (MXFP8): the FP8 values and the per-block E8M0
// scales. blockSize 0: 32.
func (g *Graph) BlockScaleQuantize(x *Tensor, blockSize int32, name string) (y, scale *Tensor, err error) {
	return g.BlockScaleQuantizeWithOptions(x, &BlockScaleOptions{Name: name, BlockSize: blockSize})
}

// BlockScaleDequantize is x times its per-block scales.
func (g *Graph) BlockScaleDequantize(x, scale *Tensor, blockSize int32, name string) (*Tensor, error) {
	return g.BlockScaleDequantizeWithOptions(x, scale, &BlockScaleOptions{Name: name, BlockSize: blockSize})
}

// Transpose is y = x.permute(permutation).
func (g *Graph) Transpose(x *Tensor, permutation []int64, name string) (*Tensor, error) {
	return g.TransposeWithOptions(x, permutation, &TransposeOptions{Name: name})
}

// Reshape views x (packed row-major) under other dims with the same element count.
func (g *Graph) Reshape(x *Tensor, dims []int64, name string) (*Tensor, error) {
	return g.ReshapeWithOptions(x, dims, &ReshapeOptions{Name: name})
}

// Slice is x[start[0]:end[0], ...] (end exclusive): a view of graph input x read in place, for
// other operations of the graph to read (not an output).
func (g *Graph) Slice(x *Tensor, start, end []int64, name string) (*Tensor, error) {
	return g.SliceWithOptions(x, start, end, &SliceOptions{Name: name})
}

// Concatenate joins the inputs along axis; inPlaceIndex names the input already inside the
// result's buffer, -1 for none.
func (g *Graph) Concatenate(inputs []*Tensor, axis, inPlaceIndex int64, name string) (*Tensor, error) {
	return g.ConcatenateWithOptions(inputs, axis, &ConcatenateOptions{Name: name, InPlaceIndex: &inPlaceIndex})
}
