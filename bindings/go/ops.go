package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Operations add a node and return its result, virtual until SetOutput(true), named
// "<op name>::<port>". Option arguments may be nil.

// ConvFprop is a forward convolution: image [N, C, spatial...], weight [K, C, filter...].
func (g *Graph) ConvFprop(image, weight *Tensor, opts *ConvOptions) (*Tensor, error) {
	ip, wp, err := twoPointers(image, weight)
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
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_conv_fprop(p, ip, wp, native, out)
	})
}

// Matmul is C = A x B over the last two dims, with broadcast batch dims.
func (g *Graph) Matmul(a, b *Tensor, opts *MatmulOptions) (*Tensor, error) {
	ap, bp, err := twoPointers(a, b)
	if err != nil {
		return nil, err
	}
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_matmul_options(native)
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_matmul(p, ap, bp, native, out)
	})
}

// Pointwise applies mode: unary modes use in0, binary in0 and in1, BinarySelect in0, in1 and the
// mask in2; unused inputs are nil.
func (g *Graph) Pointwise(mode PointwiseMode, in0, in1, in2 *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	p0, err := in0.pointer()
	if err != nil {
		return nil, err
	}
	p1, err := optionalTensor(in1)
	if err != nil {
		return nil, err
	}
	p2, err := optionalTensor(in2)
	if err != nil {
		return nil, err
	}
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_pointwise_options(native)
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_pointwise(p, capi.Enum_SS_fe_pointwise_mode(mode), p0, p1, p2, native, out)
	})
}

// binary adds one of the seeds' two-input conveniences; opts (nil: defaults) name the node and
// set its compute type.
func (g *Graph) binary(f func(uintptr, uintptr, uintptr, capi.Fe_pointwise_options, []uintptr) capi.Enum_SS_fe_status,
	a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	ap, bp, err := twoPointers(a, b)
	if err != nil {
		return nil, err
	}
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_pointwise_options(native)
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status { return f(p, ap, bp, native, out) })
}

func (g *Graph) unary(f func(uintptr, uintptr, capi.Fe_pointwise_options, []uintptr) capi.Enum_SS_fe_status, x *Tensor,
	opts *PointwiseOptions) (*Tensor, error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, err
	}
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_pointwise_options(native)
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status { return f(p, xp, native, out) })
}

// Bias is input + bias (broadcast). opts may be nil.
func (g *Graph) Bias(input, bias *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary(capi.Fe_graph_bias, input, bias, opts)
}

// Scale is input * scale (broadcast). opts may be nil.
func (g *Graph) Scale(input, scale *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary(capi.Fe_graph_scale, input, scale, opts)
}

// Add is a + b. opts may be nil.
func (g *Graph) Add(a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary(capi.Fe_graph_add, a, b, opts)
}

// Mul is a * b. opts may be nil.
func (g *Graph) Mul(a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary(capi.Fe_graph_mul, a, b, opts)
}

// Relu is max(x, 0); opts (nil: defaults) may also clip it.
func (g *Graph) Relu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary(capi.Fe_graph_relu, x, opts)
}

// Gelu is the GELU activation. opts may be nil.
func (g *Graph) Gelu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary(capi.Fe_graph_gelu, x, opts)
}

// Silu is x * sigmoid(x). opts may be nil.
func (g *Graph) Silu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary(capi.Fe_graph_silu, x, opts)
}

// Reduction reduces input over opts.Axes (required); reduced dims become 1.
func (g *Graph) Reduction(input *Tensor, mode ReductionMode, opts *ReductionOptions) (*Tensor, error) {
	xp, err := input.pointer()
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_reduction_options(native)
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_reduction(p, xp, capi.Enum_SS_fe_reduction_mode(mode), native, out)
	})
}

// Sdpa is scaled dot-product attention, forward. stats is nil unless opts.GenerateStats.
func (g *Graph) Sdpa(q, k, v *Tensor, opts *SdpaOptions) (o, stats *Tensor, err error) {
	qp, kp, vp, err := threePointers(q, k, v)
	if err != nil {
		return nil, nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, nil, err
	}
	if native != nil {
		defer capi.DeleteFe_sdpa_options(native)
	}
	outO, outStats := []uintptr{0}, []uintptr{0}
	err = g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_sdpa(p, qp, kp, vp, native, outO, outStats)
	})
	if err != nil {
		return nil, nil, err
	}
	return g.wrap(outO[0]), g.wrap(outStats[0]), nil
}

// SdpaBackward computes dQ, dK, dV from the forward's Q, K, V, output O, stats and the gradient dO.
func (g *Graph) SdpaBackward(q, k, v, o, dO, stats *Tensor, opts *SdpaBackwardOptions) (dq, dk, dv *Tensor, err error) {
	qp, kp, vp, err := threePointers(q, k, v)
	if err != nil {
		return nil, nil, nil, err
	}
	op, dop, sp, err := threePointers(o, dO, stats)
	if err != nil {
		return nil, nil, nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, nil, nil, err
	}
	if native != nil {
		defer capi.DeleteFe_sdpa_backward_options(native)
	}
	outQ, outK, outV := []uintptr{0}, []uintptr{0}, []uintptr{0}
	err = g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_sdpa_backward(p, qp, kp, vp, op, dop, sp, native, outQ, outK, outV)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	return g.wrap(outQ[0]), g.wrap(outK[0]), g.wrap(outV[0]), nil
}

func twoPointers(a, b *Tensor) (uintptr, uintptr, error) {
	ap, err := a.pointer()
	if err != nil {
		return 0, 0, err
	}
	bp, err := b.pointer()
	return ap, bp, err
}

func threePointers(a, b, c *Tensor) (uintptr, uintptr, uintptr, error) {
	ap, bp, err := twoPointers(a, b)
	if err != nil {
		return 0, 0, 0, err
	}
	cp, err := c.pointer()
	return ap, bp, cp, err
}
