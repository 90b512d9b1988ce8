package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Resampling (pooling) and transpose.

// ResampleMode is a pooling or upsampling mode.
type ResampleMode int32

const (
	ResampleMaxPool ResampleMode = 0
	// ResampleAvgPoolIncludePadding counts the padding in the average's divisor.
	ResampleAvgPoolIncludePadding ResampleMode = 1
	// ResampleAvgPoolExcludePadding counts only the window's elements inside x.
	ResampleAvgPoolExcludePadding ResampleMode = 2
	ResampleNearest               ResampleMode = 3
	ResampleBilinear              ResampleMode = 4
)

// ResamplePadding is what resampling's padding holds.
type ResamplePadding int32

const (
	// ResamplePaddingAuto is -infinity for max pooling, zero otherwise.
	ResamplePaddingAuto   ResamplePadding = 0
	ResamplePaddingZero   ResamplePadding = 1
	ResamplePaddingNegInf ResamplePadding = 2
	// ResamplePaddingEdge repeats the edge value.
	ResamplePaddingEdge ResamplePadding = 3
)

// ResampleOptions are resampling's options: Window is required; the stride defaults to 1, the
// padding to 0, the mode to max pooling. Each array takes one value for every spatial dim (as
// in PyTorch) or one per spatial dim (2 or 3), as in C.
type ResampleOptions struct {
	Name        string
	Mode        ResampleMode
	PaddingMode ResamplePadding
	SpatialDims int64 // 0: from x's rank
	Window      []int64
	Stride      []int64
	Padding     []int64 // before and after alike; PrePadding / PostPadding override it
	PrePadding  []int64
	PostPadding []int64
	// ComputeDataType is the math type (DataNotSet: the graph's).
	ComputeDataType DataType
	// GenerateIndex (max pooling for training) also returns which element of each window was
	// the largest.
	GenerateIndex bool
	// IndexDataType is the index's type (DataNotSet: int8).
	IndexDataType DataType
}

func (o *ResampleOptions) toNative() (capi.Fe_resample_options, error) {
	if o == nil {
		return nil, nil
	}
	n := capi.NewFe_resample_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	n.SetMode(capi.Enum_SS_fe_resample_mode(o.Mode))
	n.SetPadding_mode(capi.Enum_SS_fe_resample_padding(o.PaddingMode))
	n.SetSpatial_dims(o.SpatialDims)
	pre, post := sidePadding(o.Padding, o.PrePadding, o.PostPadding)
	if err := setSpatialValues([]spatialValues{
		{o.Window, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_resample_options_set_window(n, c, v) }},
		{o.Stride, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_resample_options_set_stride(n, c, v) }},
		{pre, func(c int64, v []int64) capi.Enum_SS_fe_status {
			return capi.Fe_resample_options_set_pre_padding(n, c, v)
		}},
		{post, func(c int64, v []int64) capi.Enum_SS_fe_status {
			return capi.Fe_resample_options_set_post_padding(n, c, v)
		}},
	}); err != nil {
		capi.DeleteFe_resample_options(n)
		return nil, err
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	n.SetGenerate_index(boolInt(o.GenerateIndex))
	if o.IndexDataType != DataNotSet {
		n.SetIndex_data_type(o.IndexDataType.code())
	}
	return n, nil
}

// Genstats is batch normalization's statistics of x [N, C, spatial...]: the per-channel sum and
// sum of squares, float [1, C, 1, ...]. cuDNN runs it fused after the convolution that produces x.
func (g *Graph) Genstats(x *Tensor, opts *GenstatsOptions) (sum, sqSum *Tensor, err error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, nil, err
	}
	native := opts.toNative()
	if native != nil {
		defer capi.DeleteFe_genstats_options(native)
	}
	outSum, outSq := []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_genstats(gp, xp, native, outSum, outSq)
	}); err != nil {
		return nil, nil, err
	}
	return g.wrap(outSum[0]), g.wrap(outSq[0]), nil
}

// Resample pools or upsamples x's spatial dims; index is the max-pooling index (or nil).
func (g *Graph) Resample(x *Tensor, opts *ResampleOptions) (y, index *Tensor, err error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, nil, err
	}
	if native != nil {
		defer capi.DeleteFe_resample_options(native)
	}
	outY, outIndex := []uintptr{0}, []uintptr{0}
	if err := g.do(func(gp uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_resample(gp, xp, native, outY, outIndex)
	}); err != nil {
		return nil, nil, err
	}
	return g.wrap(outY[0]), g.wrap(outIndex[0]), nil
}

// ResampleBackward is dx from dy with the forward's options; x, y, index and dxDims may be nil
// (see the header).
func (g *Graph) ResampleBackward(dy, x, y, index *Tensor, dxDims []int64, opts *ResampleOptions) (*Tensor, error) {
	p, err := pointers([]*Tensor{dy, x, y, index}, false, true, true, true)
	if err != nil {
		return nil, err
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_resample_options(native)
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_resample_backward(gp, p[0], p[1], p[2], p[3], int64(len(dxDims)), dxDims, native, out)
	})
}

// Transpose is y = x.permute(permutation); name "" gives the default.
func (g *Graph) Transpose(x *Tensor, permutation []int64, name string) (*Tensor, error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, err
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		o := capi.NewFe_transpose_options()
		defer capi.DeleteFe_transpose_options(o)
		if name != "" {
			o.SetName(name)
		}
		return capi.Fe_graph_transpose(gp, xp, int64(len(permutation)), permutation, o, out)
	})
}

// Reshape views x (packed row-major) under other dims with the same element count; name "" gives
// the default.
func (g *Graph) Reshape(x *Tensor, dims []int64, name string) (*Tensor, error) {
	xp, err := x.pointer()
	if err != nil {
		return nil, err
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		o := capi.NewFe_reshape_options()
		defer capi.DeleteFe_reshape_options(o)
		if name != "" {
			o.SetName(name)
		}
		return capi.Fe_graph_reshape(gp, xp, int64(len(dims)), dims, o, out)
	})
}

// Slice is x[start[0]:end[0], ...] (end exclusive): a view of graph input x read in place, for
// other operations of the graph to read (not an output).
func (g *Graph) Slice(x *Tensor, start, end []int64, name string) (*Tensor, error) {
	if len(start) != len(end) {
		return nil, invalid("Slice: %d start entries but %d end entries", len(start), len(end))
	}
	xp, err := x.pointer()
	if err != nil {
		return nil, err
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		o := capi.NewFe_slice_options()
		defer capi.DeleteFe_slice_options(o)
		if name != "" {
			o.SetName(name)
		}
		return capi.Fe_graph_slice(gp, xp, int64(len(start)), start, end, o, out)
	})
}

// Concatenate joins the inputs along axis; inPlaceIndex names the input already inside the
// result's buffer, -1 for none.
func (g *Graph) Concatenate(inputs []*Tensor, axis, inPlaceIndex int64, name string) (*Tensor, error) {
	tp, err := tensorPointers(inputs)
	if err != nil {
		return nil, err
	}
	return g.tensor(func(gp uintptr, out []uintptr) capi.Enum_SS_fe_status {
		o := capi.NewFe_concatenate_options()
		defer capi.DeleteFe_concatenate_options(o)
		if name != "" {
			o.SetName(name)
		}
		o.SetIn_place_index(inPlaceIndex)
		return capi.Fe_graph_concatenate(gp, int64(len(tp)), tp, axis, o, out)
	})
}
