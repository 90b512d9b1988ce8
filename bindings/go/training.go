package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Convolution gradients and variants, normalizations, softmax, random numbers, FP8 and block
// scaling. Each result is virtual until SetOutput(true); option arguments may be nil.

// NormPhase says whether a normalization also returns the statistics its backward pass reads.
type NormPhase int32

const (
	NormInference NormPhase = 0 // y only
	NormTraining  NormPhase = 1 // y and the float statistics
)

// SdpaImplementation is how attention is lowered.
type SdpaImplementation int32

const (
	// SdpaAuto: native where it takes every option given and has an engine for the GPU, else
	// composite.
	SdpaAuto      SdpaImplementation = 0
	SdpaComposite SdpaImplementation = 1
	// SdpaNative fails at build, naming the option or version, when the native operation cannot
	// take the graph.
	SdpaNative SdpaImplementation = 2
)

// RngDistribution is a distribution of random numbers drawn by cuDNN (Philox).
type RngDistribution int32

const (
	RngBernoulli RngDistribution = 0 // 1 with probability A, else 0
	RngUniform   RngDistribution = 1 // uniform in [A, B)
	RngNormal    RngDistribution = 2 // mean A, standard deviation B
)

// NormOptions are the options of layernorm, rmsnorm, instancenorm and adalayernorm. Zero values:
// inference, epsilon 1e-5.
type NormOptions struct {
	Name    string
	Phase   NormPhase
	Epsilon float64 // 0: 1e-5
	// EpsilonTensor: epsilon as a one-element float scalar made with Scalar; it replaces Epsilon.
	EpsilonTensor *Tensor
	// ZeroCenteredGamma multiplies by (1 + scale) instead of scale (layernorm and rmsnorm).
	ZeroCenteredGamma bool
}

func (o *NormOptions) toNative() (capi.Fe_norm_options, error) {
	if o == nil {
		return nil, nil
	}
	eps, err := optionalTensor(o.EpsilonTensor)
	if err != nil {
		return nil, err
	}
	n := capi.NewFe_norm_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	n.SetPhase(capi.Enum_SS_fe_norm_phase(o.Phase))
	if o.Epsilon != 0 {
		n.SetEpsilon(o.Epsilon)
	}
	n.SetEpsilon_tensor(eps)
	n.SetZero_centered_gamma(boolInt(o.ZeroCenteredGamma))
	return n, nil
}

// BatchnormOptions are batchnorm's options. Zero values: epsilon 1e-5, no running statistics,
// momentum 0.1.
type BatchnormOptions struct {
	Name          string
	Epsilon       float64 // 0: 1e-5
	EpsilonTensor *Tensor
	// RunningMean and RunningVar (float [1, C, 1, ...] inputs, both or neither): batchnorm then
	// also returns the updated ones, (1 - momentum) * running + momentum * batch statistic.
	RunningMean, RunningVar *Tensor
	Momentum                float64 // 0: 0.1
	MomentumTensor          *Tensor
}

func (o *BatchnormOptions) toNative() (capi.Fe_batchnorm_options, error) {
	if o == nil {
		return nil, nil
	}
	var ptrs [4]uintptr
	for i, t := range []*Tensor{o.EpsilonTensor, o.RunningMean, o.RunningVar, o.MomentumTensor} {
		p, err := optionalTensor(t)
		if err != nil {
			return nil, err
		}
		ptrs[i] = p
	}
	n := capi.NewFe_batchnorm_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.Epsilon != 0 {
		n.SetEpsilon(o.Epsilon)
	}
	if o.Momentum != 0 {
		n.SetMomentum(o.Momentum)
	}
	n.SetEpsilon_tensor(ptrs[0])
	n.SetRunning_mean(ptrs[1])
	n.SetRunning_var(ptrs[2])
	n.SetMomentum_tensor(ptrs[3])
	return n, nil
}

// NormResult is a normalization's outputs: Y, and in training the float statistics (nil in
// inference). For rmsnorm, Mean is nil and InvVariance is the inverse RMS.
type NormResult struct {
	Y, Mean, InvVariance *Tensor
}

// BatchnormResult is batchnorm's outputs; the next running statistics are nil without running
// statistics.
type BatchnormResult struct {
	Y, Mean, InvVariance            *Tensor
	NextRunningMean, NextRunningVar *Tensor
}

// NormGradients is a normalization backward's outputs; DBias is nil where the forward had no bias.
type NormGradients struct {
	DX, DScale, DBias *Tensor
}

// pointers checks that every tensor is open (nil allowed where optional[i]) and returns them.
func pointers(tensors []*Tensor, optional ...bool) ([]uintptr, error) {
	out := make([]uintptr, len(tensors))
	for i, t := range tensors {
		var err error
		if t == nil && i < len(optional) && optional[i] {
			continue
		}
		if out[i], err = t.pointer(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ConvDgrad is the data gradient: dx from dy [N, K, out...] and the weight, with the forward
// pass's options. dxDims (the image's dims) are required: with a stride above 1 several image
// sizes give the same dy.
func (g *Graph) ConvDgrad(dy, weight *Tensor, dxDims []int64, opts *ConvOptions) (*Tensor, error) {
	p, err := pointers([]*Tensor{dy, weight})
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_conv_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_conv_dgrad(gp, p[0], p[1], int64(len(dxDims)), dxDims, native, out)
	})
}

// ConvWgrad is the weight gradient from the image and dy; dwDims may be nil when exactly one
// filter size gives dy (always with stride 1).
func (g *Graph) ConvWgrad(image, dy *Tensor, dwDims []int64, opts *ConvOptions) (*Tensor, error) {
	p, err := pointers([]*Tensor{image, dy})
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_conv_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_conv_wgrad(gp, p[0], p[1], int64(len(dwDims)), dwDims, native, out)
	})
}

// ConvTranspose is a transposed convolution (upsampling); weight [C_in, C_out / groups, filter...].
func (g *Graph) ConvTranspose(image, weight *Tensor, opts *ConvOptions) (*Tensor, error) {
	p, err := pointers([]*Tensor{image, weight})
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_conv_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_conv_transpose(gp, p[0], p[1], native, out)
	})
}

type normCall func(g, x, scale, bias uintptr, o capi.Fe_norm_options, y, mean, inv []uintptr) capi.Enum_SS_fe_status

func (g *Graph) norm(f normCall, x, scale, bias *Tensor, opts *NormOptions) (*NormResult, error) {
	p, err := pointers([]*Tensor{x, scale, bias}, false, false, true)
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_norm_options(native)
	}
	y, mean, inv := []uintptr{0}, []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status { return f(gp, p[0], p[1], p[2], native, y, mean, inv) }); err != nil {
		return nil, err
	}
	return &NormResult{Y: g.wrap(y[0]), Mean: g.wrap(mean[0]), InvVariance: g.wrap(inv[0])}, nil
}

// Layernorm is layer normalization; in training also the mean and inverse variance.
func (g *Graph) Layernorm(x, scale, bias *Tensor, opts *NormOptions) (*NormResult, error) {
	return g.norm(capi.Fe_graph_layernorm, x, scale, bias, opts)
}

// Rmsnorm is RMS normalization (bias may be nil); in training InvVariance is the inverse RMS.
func (g *Graph) Rmsnorm(x, scale, bias *Tensor, opts *NormOptions) (*NormResult, error) {
	return g.norm(func(gp, xp, sp, bp uintptr, o capi.Fe_norm_options, y, mean, inv []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_rmsnorm(gp, xp, sp, bp, o, y, inv)
	}, x, scale, bias, opts)
}

// Instancenorm is instance normalization: per image and channel, over the spatial dims.
func (g *Graph) Instancenorm(x, scale, bias *Tensor, opts *NormOptions) (*NormResult, error) {
	return g.norm(capi.Fe_graph_instancenorm, x, scale, bias, opts)
}

// Adalayernorm is adaptive layer normalization: scale and (nillable) bias may differ per sample.
func (g *Graph) Adalayernorm(x, scale, bias *Tensor, opts *NormOptions) (*NormResult, error) {
	return g.norm(capi.Fe_graph_adalayernorm, x, scale, bias, opts)
}

// Batchnorm is batch normalization, training: per-channel statistics over the batch and
// spatial dims.
func (g *Graph) Batchnorm(x, scale, bias *Tensor, opts *BatchnormOptions) (*BatchnormResult, error) {
	p, err := pointers([]*Tensor{x, scale, bias})
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_batchnorm_options(native)
	}
	y, mean, inv, nextMean, nextVar := []uintptr{0}, []uintptr{0}, []uintptr{0}, []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_batchnorm(gp, p[0], p[1], p[2], native, y, mean, inv, nextMean, nextVar)
	}); err != nil {
		return nil, err
	}
	return &BatchnormResult{Y: g.wrap(y[0]), Mean: g.wrap(mean[0]), InvVariance: g.wrap(inv[0]),
		NextRunningMean: g.wrap(nextMean[0]), NextRunningVar: g.wrap(nextVar[0])}, nil
}

// BatchnormInference is batch normalization from given statistics (invVariance is
// 1 / sqrt(var + epsilon)).
func (g *Graph) BatchnormInference(x, mean, invVariance, scale, bias *Tensor, name string) (*Tensor, error) {
	p, err := pointers([]*Tensor{x, mean, invVariance, scale, bias})
	if err != nil {
		return nil, err
	}
	native := capi.NewFe_batchnorm_inference_options()
	defer capi.DeleteFe_batchnorm_inference_options(native)
	if name != "" {
		native.SetName(name)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_batchnorm_inference(gp, p[0], p[1], p[2], p[3], p[4], native, out)
	})
}

type normBackwardCall func(g, dy, x, scale, mean, inv uintptr, o capi.Fe_norm_backward_options,
	dx, dscale, dbias []uintptr) capi.Enum_SS_fe_status

func (g *Graph) normBackward(f normBackwardCall, dy, x, scale, mean, inv *Tensor, zeroCentered, withBias bool) (*NormGradients, error) {
	p, err := pointers([]*Tensor{dy, x, scale, mean, inv}, false, false, false, true)
	if err != nil {
		return nil, err
	}
	native := capi.NewFe_norm_backward_options()
	defer capi.DeleteFe_norm_backward_options(native)
	native.SetZero_centered_gamma(boolInt(zeroCentered))
	dx, dscale := []uintptr{0}, []uintptr{0}
	var dbias []uintptr
	if withBias {
		dbias = []uintptr{0}
	}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return f(gp, p[0], p[1], p[2], p[3], p[4], native, dx, dscale, dbias)
	}); err != nil {
		return nil, err
	}
	grads := &NormGradients{DX: g.wrap(dx[0]), DScale: g.wrap(dscale[0])}
	if withBias {
		grads.DBias = g.wrap(dbias[0])
	}
	return grads, nil
}

// LayernormBackward is layer normalization backward, from the forward's x, scale and training
// statistics.
func (g *Graph) LayernormBackward(dy, x, scale, mean, invVariance *Tensor, zeroCenteredGamma bool) (*NormGradients, error) {
	return g.normBackward(capi.Fe_graph_layernorm_backward, dy, x, scale, mean, invVariance, zeroCenteredGamma, true)
}

// RmsnormBackward is RMS normalization backward, from the forward's inverse RMS; withBias: the
// forward had a bias.
func (g *Graph) RmsnormBackward(dy, x, scale, invRms *Tensor, zeroCenteredGamma, withBias bool) (*NormGradients, error) {
	return g.normBackward(func(gp, dyp, xp, sp, mean, inv uintptr, o capi.Fe_norm_backward_options,
		dx, ds, db []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_rmsnorm_backward(gp, dyp, xp, sp, inv, o, dx, ds, db)
	}, dy, x, scale, nil, invRms, zeroCenteredGamma, withBias)
}

// InstancenormBackward is instance normalization backward.
func (g *Graph) InstancenormBackward(dy, x, scale, mean, invVariance *Tensor) (*NormGradients, error) {
	return g.normBackward(capi.Fe_graph_instancenorm_backward, dy, x, scale, mean, invVariance, false, true)
}

// AdalayernormBackward is AdaLN backward; withBias: the forward had a bias.
func (g *Graph) AdalayernormBackward(dy, x, scale, mean, invVariance *Tensor, withBias bool) (*NormGradients, error) {
	return g.normBackward(capi.Fe_graph_adalayernorm_backward, dy, x, scale, mean, invVariance, false, withBias)
}

// BatchnormBackward is batch normalization backward, from the forward's batch statistics.
func (g *Graph) BatchnormBackward(dy, x, scale, mean, invVariance *Tensor) (*NormGradients, error) {
	return g.normBackward(capi.Fe_graph_batchnorm_backward, dy, x, scale, mean, invVariance, false, true)
}

// Softmax is softmax over the last dim; stats are the float log-sum-exp statistics when
// generateStats, else nil. On its own cuDNN runs it only fused between two matmuls.
func (g *Graph) Softmax(x *Tensor, generateStats bool, name string) (y, stats *Tensor, err error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, nil, err
	}
	native := capi.NewFe_softmax_options()
	defer capi.DeleteFe_softmax_options(native)
	if name != "" {
		native.SetName(name)
	}
	native.SetGenerate_stats(boolInt(generateStats))
	outY, outStats := []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_softmax(gp, xp, native, outY, outStats)
	}); err != nil {
		return nil, nil, err
	}
	return g.wrap(outY[0]), g.wrap(outStats[0]), nil
}

// Rng draws random numbers (Philox) of the given dims: Bernoulli(a), Uniform[a, b) or
// Normal(a, b); seed and offset are int64 tensors of one element. dt DataNotSet: the graph's
// intermediate type.
func (g *Graph) Rng(seed, offset *Tensor, dist RngDistribution, a, b float64, dims []int64, dt DataType) (*Tensor, error) {
	if len(dims) < 1 || len(dims) > 8 {
		return nil, invalid("Rng: %d dims, expected 1 to 8", len(dims))
	}
	p, err := pointers([]*Tensor{seed, offset})
	if err != nil {
		return nil, err
	}
	native := capi.NewFe_rng_options()
	defer capi.DeleteFe_rng_options(native)
	native.SetDistribution(capi.Enum_SS_fe_rng_distribution(dist))
	switch dist {
	case RngBernoulli:
		native.SetProbability(a)
	case RngUniform:
		native.SetMin(a)
		native.SetMax(b)
	default:
		native.SetMean(a)
		native.SetStd(b)
	}
	all := make([]int64, 8)
	copy(all, dims)
	native.SetNdims(int64(len(dims)))
	native.SetDims(all)
	native.SetData_type(dt.code())
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_rng(gp, p[0], p[1], native, out)
	})
}

// MatmulFp8 is C = (A * descaleA) x (B * descaleB) * scaleC with amax, the float amax of the
// product before quantization. The scales are one-element float tensors.
func (g *Graph) MatmulFp8(a, b, descaleA, descaleB, scaleC *Tensor, opts *MatmulOptions) (c, amax *Tensor, err error) {
	p, err := pointers([]*Tensor{a, b, descaleA, descaleB, scaleC})
	if err != nil {
		return nil, nil, err
	}
	scales := capi.NewFe_matmul_fp8_scales()
	defer capi.DeleteFe_matmul_fp8_scales(scales)
	scales.SetDescale_a(p[2])
	scales.SetDescale_b(p[3])
	scales.SetScale_c(p[4])
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_matmul_options(native)
	}
	outC, outAmax := []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_matmul_fp8(gp, p[0], p[1], scales, native, outC, outAmax)
	}); err != nil {
		return nil, nil, err
	}
	return g.wrap(outC[0]), g.wrap(outAmax[0]), nil
}

func blockScaleOptions(blockSize int32, name string) capi.Fe_block_scale_options {
	native := capi.NewFe_block_scale_options()
	if blockSize > 0 {
		native.SetBlock_size(int(blockSize))
	}
	if name != "" {
		native.SetName(name)
	}
	return native
}

// BlockScaleQuantize quantizes x in blocks (MXFP8): the FP8 values and the per-block E8M0
// scales. blockSize 0: 32.
func (g *Graph) BlockScaleQuantize(x *Tensor, blockSize int32, name string) (y, scale *Tensor, err error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, nil, err
	}
	native := blockScaleOptions(blockSize, name)
	defer capi.DeleteFe_block_scale_options(native)
	outY, outScale := []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_block_scale_quantize(gp, xp, native, outY, outScale)
	}); err != nil {
		return nil, nil, err
	}
	return g.wrap(outY[0]), g.wrap(outScale[0]), nil
}

// BlockScaleDequantize is x times its per-block scales.
func (g *Graph) BlockScaleDequantize(x, scale *Tensor, blockSize int32, name string) (*Tensor, error) {
	p, err := pointers([]*Tensor{x, scale})
	if err != nil {
		return nil, err
	}
	native := blockScaleOptions(blockSize, name)
	defer capi.DeleteFe_block_scale_options(native)
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_block_scale_dequantize(gp, p[0], p[1], native, out)
	})
}

// SdpaFp8Scales are FP8 attention's scaling factors: one-element float tensors, all required.
type SdpaFp8Scales struct {
	DescaleQ, DescaleK, DescaleV *Tensor
	DescaleS                     *Tensor // of the FP8 probabilities fed to P.V
	ScaleS                       *Tensor // quantizes P to FP8 before P.V
	ScaleO                       *Tensor // quantizes O
}

// SdpaFp8Result is FP8 attention forward's outputs: O, the stats (nil unless asked for), and the
// float amax of S and O.
type SdpaFp8Result struct {
	O, Stats, AmaxS, AmaxO *Tensor
}

// SdpaFp8 is FP8 attention forward (Hopper and later). A nil scale passes NULL, which the library
// names in its error.
func (g *Graph) SdpaFp8(q, k, v *Tensor, scales SdpaFp8Scales, opts *SdpaOptions) (*SdpaFp8Result, error) {
	p, err := pointers([]*Tensor{q, k, v, scales.DescaleQ, scales.DescaleK, scales.DescaleV, scales.DescaleS,
		scales.ScaleS, scales.ScaleO}, false, false, false, true, true, true, true, true, true)
	if err != nil {
		return nil, err
	}
	ns := capi.NewFe_sdpa_fp8_scales()
	defer capi.DeleteFe_sdpa_fp8_scales(ns)
	ns.SetDescale_q(p[3])
	ns.SetDescale_k(p[4])
	ns.SetDescale_v(p[5])
	ns.SetDescale_s(p[6])
	ns.SetScale_s(p[7])
	ns.SetScale_o(p[8])
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_sdpa_options(native)
	}
	o, stats, amaxS, amaxO := []uintptr{0}, []uintptr{0}, []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_sdpa_fp8(gp, p[0], p[1], p[2], ns, native, o, stats, amaxS, amaxO)
	}); err != nil {
		return nil, err
	}
	return &SdpaFp8Result{O: g.wrap(o[0]), Stats: g.wrap(stats[0]), AmaxS: g.wrap(amaxS[0]), AmaxO: g.wrap(amaxO[0])}, nil
}

// SdpaFp8BackwardScales are FP8 attention backward's scaling factors: one-element float tensors,
// all required.
type SdpaFp8BackwardScales struct {
	DescaleQ, DescaleK, DescaleV, DescaleO, DescaleDO, DescaleS, DescaleDP *Tensor
	ScaleS, ScaleDP, ScaleDQ, ScaleDK, ScaleDV                             *Tensor
}

// SdpaFp8Gradients is FP8 attention backward's outputs: dQ, dK, dV and the float amax of each and
// of dP.
type SdpaFp8Gradients struct {
	DQ, DK, DV                     *Tensor
	AmaxDQ, AmaxDK, AmaxDV, AmaxDP *Tensor
}

// SdpaFp8Backward is FP8 attention backward (Hopper and later).
func (g *Graph) SdpaFp8Backward(q, k, v, o, dO, stats *Tensor, scales SdpaFp8BackwardScales,
	opts *SdpaBackwardOptions) (*SdpaFp8Gradients, error) {
	p, err := pointers([]*Tensor{q, k, v, o, dO, stats})
	if err != nil {
		return nil, err
	}
	s, err := pointers([]*Tensor{scales.DescaleQ, scales.DescaleK, scales.DescaleV, scales.DescaleO, scales.DescaleDO,
		scales.DescaleS, scales.DescaleDP, scales.ScaleS, scales.ScaleDP, scales.ScaleDQ, scales.ScaleDK, scales.ScaleDV},
		true, true, true, true, true, true, true, true, true, true, true, true)
	if err != nil {
		return nil, err
	}
	ns := capi.NewFe_sdpa_fp8_backward_scales()
	defer capi.DeleteFe_sdpa_fp8_backward_scales(ns)
	for i, set := range []func(uintptr){ns.SetDescale_q, ns.SetDescale_k, ns.SetDescale_v, ns.SetDescale_o,
		ns.SetDescale_do, ns.SetDescale_s, ns.SetDescale_dp, ns.SetScale_s, ns.SetScale_dp, ns.SetScale_dq,
		ns.SetScale_dk, ns.SetScale_dv} {
		set(s[i])
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_sdpa_backward_options(native)
	}
	out := make([][]uintptr, 7)
	for i := range out {
		out[i] = []uintptr{0}
	}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_sdpa_fp8_backward(gp, p[0], p[1], p[2], p[3], p[4], p[5], ns, native,
			out[0], out[1], out[2], out[3], out[4], out[5], out[6])
	}); err != nil {
		return nil, err
	}
	return &SdpaFp8Gradients{DQ: g.wrap(out[0][0]), DK: g.wrap(out[1][0]), DV: g.wrap(out[2][0]),
		AmaxDQ: g.wrap(out[3][0]), AmaxDK: g.wrap(out[4][0]), AmaxDV: g.wrap(out[5][0]), AmaxDP: g.wrap(out[6][0])}, nil
}

// AttentionImplementation says how attention node nodeName ("": the first) was lowered, once its
// operation graph exists.
func (g *Graph) AttentionImplementation(nodeName string) (SdpaImplementation, error) {
	out := []int32{0}
	err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_attention_implementation(gp, nodeName, out)
	})
	return SdpaImplementation(out[0]), err
}
