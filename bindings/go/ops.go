package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// The seeds' pointwise conveniences, each its own C entry point (fe_graph_bias, fe_graph_relu,
// ...); every op's regular method (Pointwise among them) is generated from the op schema. Results
// are virtual until SetOutput(true), named "<op name>::<port>". Option arguments may be nil.

// binary adds one of the seeds' two-input conveniences; opts (nil: defaults) name the node and
// set its compute type.
func (g *Graph) binary(method string, names []string,
	f func(uintptr, uintptr, uintptr, capi.Fe_pointwise_options, []uintptr) capi.Enum_SS_fe_status,
	a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	p, err := argumentPointers(method, names, []*Tensor{a, b})
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_pointwise_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status { return f(gp, p[0], p[1], native, out) })
}

func (g *Graph) unary(method string, f func(uintptr, uintptr, capi.Fe_pointwise_options, []uintptr) capi.Enum_SS_fe_status,
	x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	xp, err := tensorArgument(x, method, "x")
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_pointwise_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status { return f(gp, xp, native, out) })
}

// Bias is input + bias (broadcast). opts may be nil.
func (g *Graph) Bias(input, bias *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary("Graph.Bias", []string{"input", "bias"}, capi.Fe_graph_bias, input, bias, opts)
}

// Scale is input * scale (broadcast). opts may be nil.
func (g *Graph) Scale(input, scale *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary("Graph.Scale", []string{"input", "scale"}, capi.Fe_graph_scale, input, scale, opts)
}

// Add is a + b. opts may be nil.
func (g *Graph) Add(a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary("Graph.Add", []string{"a", "b"}, capi.Fe_graph_add, a, b, opts)
}

// Mul is a * b. opts may be nil.
func (g *Graph) Mul(a, b *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.binary("Graph.Mul", []string{"a", "b"}, capi.Fe_graph_mul, a, b, opts)
}

// Relu is max(x, 0); opts (nil: defaults) may also clip it.
func (g *Graph) Relu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary("Graph.Relu", capi.Fe_graph_relu, x, opts)
}

// Gelu is the GELU activation. opts may be nil.
func (g *Graph) Gelu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary("Graph.Gelu", capi.Fe_graph_gelu, x, opts)
}

// Silu is x * sigmoid(x). opts may be nil.
func (g *Graph) Silu(x *Tensor, opts *PointwiseOptions) (*Tensor, error) {
	return g.unary("Graph.Silu", capi.Fe_graph_silu, x, opts)
}
