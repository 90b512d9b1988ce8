package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Options are plain structs whose zero values mean "the library's default" (taken from the C
// header's _INIT macros); a nil *XOptions is all defaults.

// GraphOptions are a graph's name and default data types.
type GraphOptions struct {
	Name                 string
	IODataType           DataType // inputs and outputs (default: each tensor carries its own)
	IntermediateDataType DataType // virtual tensors (default float)
	ComputeDataType      DataType // math (default float)
}

func (o *GraphOptions) toNative() capi.Fe_graph_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_graph_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.IODataType != DataNotSet {
		n.SetIo_data_type(o.IODataType.code())
	}
	if o.IntermediateDataType != DataNotSet {
		n.SetIntermediate_data_type(o.IntermediateDataType.code())
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	return n
}

// ConvOptions are a convolution's geometry, per spatial dimension (up to 3). Each array takes one
// value for every spatial dim (as in PyTorch) or one per spatial dim. Defaults: no padding,
// stride 1, dilation 1, cross-correlation, the graph's math type.
type ConvOptions struct {
	Name            string
	SpatialDims     int64   // 0: from the image's rank
	Padding         []int64 // before and after alike; PrePadding / PostPadding override it
	PrePadding      []int64
	PostPadding     []int64
	Stride          []int64
	Dilation        []int64
	Mode            ConvMode
	ComputeDataType DataType
	// Groups splits the channels (weight [K, C / groups, filter...]; depthwise: C); 0: 1.
	Groups int64
	// OutputPadding (transposed convolution only): extra result size on the far side of each
	// spatial dim.
	OutputPadding []int64
}

// spatialValues is one per-spatial-dim array of an options struct and its C setter.
type spatialValues struct {
	values []int64
	set    func(count int64, values []int64) capi.Enum_SS_fe_status
}

// sidePadding is the padding before and after: Padding for both sides, unless PrePadding or
// PostPadding overrides its side.
func sidePadding(both, pre, post []int64) ([]int64, []int64) {
	if pre == nil {
		pre = both
	}
	if post == nil {
		post = both
	}
	return pre, post
}

// setSpatialValues fills the arrays through their C setters, so that every count means what it
// means in C: one value applies to every spatial dim, one per spatial dim (2 or 3) fixes their
// count, and others are refused with the C library's message. Arrays not given are left alone.
func setSpatialValues(fields []spatialValues) error {
	for _, f := range fields {
		if f.values == nil {
			continue
		}
		values, set := f.values, f.set
		if err := call(func() capi.Enum_SS_fe_status { return set(int64(len(values)), values) }); err != nil {
			return err
		}
	}
	return nil
}

func (o *ConvOptions) toNative() (capi.Fe_conv_options, error) {
	if o == nil {
		return nil, nil
	}
	n := capi.NewFe_conv_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	n.SetSpatial_dims(o.SpatialDims)
	pre, post := sidePadding(o.Padding, o.PrePadding, o.PostPadding)
	if err := setSpatialValues([]spatialValues{
		{pre, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_conv_options_set_pre_padding(n, c, v) }},
		{post, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_conv_options_set_post_padding(n, c, v) }},
		{o.Stride, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_conv_options_set_stride(n, c, v) }},
		{o.Dilation, func(c int64, v []int64) capi.Enum_SS_fe_status { return capi.Fe_conv_options_set_dilation(n, c, v) }},
		{o.OutputPadding, func(c int64, v []int64) capi.Enum_SS_fe_status {
			return capi.Fe_conv_options_set_output_padding(n, c, v)
		}},
	}); err != nil {
		capi.DeleteFe_conv_options(n)
		return nil, err
	}
	n.SetMode(capi.Enum_SS_fe_conv_mode(o.Mode.code()))
	if o.Groups != 0 {
		n.SetGroups(o.Groups)
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	return n, nil
}

// GenstatsOptions name a genstats op (batch normalization's statistics) and set its math type.
type GenstatsOptions struct {
	Name            string
	ComputeDataType DataType
}

func (o *GenstatsOptions) toNative() capi.Fe_genstats_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_genstats_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	return n
}

// MatmulOptions name a matmul and set its math type.
type MatmulOptions struct {
	Name            string
	ComputeDataType DataType
}

func (o *MatmulOptions) toNative() capi.Fe_matmul_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_matmul_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	return n
}

// PointwiseOptions are the parameters of the modes that use them (zero: the default).
type PointwiseOptions struct {
	Name               string
	ComputeDataType    DataType
	ReluLowerClip      float64
	ReluUpperClip      float64 // default: no clip
	ReluLowerClipSlope float64
	EluAlpha           float64 // default 1
	SoftplusBeta       float64 // default 1
	SwishBeta          float64 // default 1 (silu)
	Axis               int64   // GenIndex: the dimension whose index is generated
}

func (o *PointwiseOptions) toNative() capi.Fe_pointwise_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_pointwise_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	n.SetRelu_lower_clip(o.ReluLowerClip)
	n.SetRelu_lower_clip_slope(o.ReluLowerClipSlope)
	n.SetAxis(o.Axis)
	for _, f := range []struct {
		value float64
		set   func(float64)
	}{{o.ReluUpperClip, n.SetRelu_upper_clip}, {o.EluAlpha, n.SetElu_alpha},
		{o.SoftplusBeta, n.SetSoftplus_beta}, {o.SwishBeta, n.SetSwish_beta}} {
		if f.value != 0 {
			f.set(f.value)
		}
	}
	return n
}

// ReductionOptions name the reduced axes (at least one).
type ReductionOptions struct {
	Name            string
	ComputeDataType DataType
	Axes            []int
}

func (o *ReductionOptions) toNative() (capi.Fe_reduction_options, error) {
	if o == nil {
		return nil, nil
	}
	var mask uint
	for _, axis := range o.Axes {
		if axis < 0 || axis >= 32 {
			return nil, invalid("ReductionOptions: axis %d is out of range", axis)
		}
		mask |= 1 << uint(axis)
	}
	n := capi.NewFe_reduction_options()
	if o.Name != "" {
		n.SetName(o.Name)
	}
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	n.SetReduce_axes(mask)
	return n, nil
}

// SdpaOptions are attention forward's options (see fe_graph_sdpa in cudnnfe.h).
type SdpaOptions struct {
	Name               string
	GenerateStats      bool    // training: also return the softmax stats
	AttnScale          float64 // 0: no scaling
	AttnScaleTensor    *Tensor
	CausalMask         CausalMask
	ComputeDataType    DataType
	Bias               *Tensor
	SlidingWindow      int64
	SeqLenQ, SeqLenKV  *Tensor // padding mask (both or neither)
	AlibiSlopes        *Tensor
	DropoutMask        *Tensor
	DropoutScale       float64 // with DropoutMask; default 1
	DropoutProbability float64
	DropoutSeed        *Tensor
	DropoutOffset      *Tensor
	OutputDropoutMask  bool
	PageTableK         *Tensor
	PageTableV         *Tensor
	MaxSeqLenKV        int64
	Implementation     SdpaImplementation // default SdpaAuto
}

func (o *SdpaOptions) toNative() (capi.Fe_sdpa_options, error) {
	if o == nil {
		return nil, nil
	}
	n := capi.NewFe_sdpa_options()
	tensors := []struct {
		t   *Tensor
		set func(uintptr)
	}{
		{o.AttnScaleTensor, n.SetAttn_scale_tensor}, {o.Bias, n.SetBias}, {o.SeqLenQ, n.SetSeq_len_q},
		{o.SeqLenKV, n.SetSeq_len_kv}, {o.AlibiSlopes, n.SetAlibi_slopes}, {o.DropoutMask, n.SetDropout_mask},
		{o.DropoutSeed, n.SetDropout_seed}, {o.DropoutOffset, n.SetDropout_offset},
		{o.PageTableK, n.SetPage_table_k}, {o.PageTableV, n.SetPage_table_v},
	}
	for _, f := range tensors {
		p, err := optionalTensor(f.t)
		if err != nil {
			capi.DeleteFe_sdpa_options(n)
			return nil, err
		}
		f.set(p)
	}
	if o.Name != "" {
		n.SetName(o.Name)
	}
	n.SetGenerate_stats(boolInt(o.GenerateStats))
	n.SetAttn_scale(o.AttnScale)
	n.SetCausal_mask(capi.Enum_SS_fe_causal_mask(o.CausalMask))
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	n.SetSliding_window(o.SlidingWindow)
	if o.DropoutScale != 0 {
		n.SetDropout_scale(o.DropoutScale)
	}
	n.SetDropout_probability(o.DropoutProbability)
	n.SetOutput_dropout_mask(boolInt(o.OutputDropoutMask))
	n.SetMax_seq_len_kv(o.MaxSeqLenKV)
	n.SetImplementation(capi.Enum_SS_fe_sdpa_implementation(o.Implementation))
	return n, nil
}

// SdpaBackwardOptions repeat the forward pass's score modifiers.
type SdpaBackwardOptions struct {
	Name               string
	AttnScale          float64
	AttnScaleTensor    *Tensor
	CausalMask         CausalMask
	ComputeDataType    DataType
	Bias               *Tensor
	SlidingWindow      int64
	SeqLenQ, SeqLenKV  *Tensor
	AlibiSlopes        *Tensor
	DropoutMask        *Tensor
	DropoutScale       float64
	DropoutProbability float64
	DropoutSeed        *Tensor
	DropoutOffset      *Tensor
	Implementation     SdpaImplementation // default SdpaAuto
	// OutputDbias: with a bias [1, h_q, s_q, s_kv], also output its gradient as
	// "<node>::dBias" (find it with TensorByName).
	OutputDbias bool
	// Deterministic: dQ, dK and dV accumulate in a fixed order, so repeated runs give
	// identical bits.
	Deterministic bool
}

func (o *SdpaBackwardOptions) toNative() (capi.Fe_sdpa_backward_options, error) {
	if o == nil {
		return nil, nil
	}
	n := capi.NewFe_sdpa_backward_options()
	tensors := []struct {
		t   *Tensor
		set func(uintptr)
	}{
		{o.AttnScaleTensor, n.SetAttn_scale_tensor}, {o.Bias, n.SetBias}, {o.SeqLenQ, n.SetSeq_len_q},
		{o.SeqLenKV, n.SetSeq_len_kv}, {o.AlibiSlopes, n.SetAlibi_slopes}, {o.DropoutMask, n.SetDropout_mask},
		{o.DropoutSeed, n.SetDropout_seed}, {o.DropoutOffset, n.SetDropout_offset},
	}
	for _, f := range tensors {
		p, err := optionalTensor(f.t)
		if err != nil {
			capi.DeleteFe_sdpa_backward_options(n)
			return nil, err
		}
		f.set(p)
	}
	if o.Name != "" {
		n.SetName(o.Name)
	}
	n.SetAttn_scale(o.AttnScale)
	n.SetCausal_mask(capi.Enum_SS_fe_causal_mask(o.CausalMask))
	if o.ComputeDataType != DataNotSet {
		n.SetCompute_data_type(o.ComputeDataType.code())
	}
	n.SetSliding_window(o.SlidingWindow)
	if o.DropoutScale != 0 {
		n.SetDropout_scale(o.DropoutScale)
	}
	n.SetDropout_probability(o.DropoutProbability)
	n.SetImplementation(capi.Enum_SS_fe_sdpa_implementation(o.Implementation))
	n.SetOutput_dbias(boolInt(o.OutputDbias))
	n.SetDeterministic(boolInt(o.Deterministic))
	return n, nil
}

// BuildOptions are the one-call build's options.
type BuildOptions struct {
	HeurModes []HeurMode // default: A, then FALLBACK
	Policy    BuildPolicy
	// MaxWorkspaceBytes skips plans needing more workspace; nil: no limit.
	MaxWorkspaceBytes *int64
	// DevicePropertiesJSON: build for the GPU this cuDNN device JSON describes (the handle may
	// then be nil).
	DevicePropertiesJSON string
	// NoPlanCache turns off the lookup of identical graphs built before in this process.
	NoPlanCache bool
	// CacheKey also registers the built graph under this key, for GraphFromCache.
	CacheKey string
	// Autotune times the candidates on the handle's GPU and keeps the fastest (needs a GPU);
	// AutotuneCandidates is how many plans it builds and times (0: 8).
	Autotune           bool
	AutotuneCandidates int32
	// AutotuneKnobSearch: autotuning also times the configs one knob away from the fastest plans,
	// for up to this many rounds (0: off).
	AutotuneKnobSearch int32
}

func (o *BuildOptions) toNative() capi.Fe_build_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_build_options()
	if len(o.HeurModes) > 0 {
		n.Set_heur_modes(heurCodes(o.HeurModes), int64(len(o.HeurModes)))
	}
	n.SetPolicy(capi.Enum_SS_fe_build_policy(o.Policy))
	if o.MaxWorkspaceBytes != nil {
		n.SetMax_workspace_bytes(*o.MaxWorkspaceBytes)
	}
	if o.DevicePropertiesJSON != "" {
		n.SetDevice_properties_json(o.DevicePropertiesJSON)
	}
	if o.NoPlanCache {
		n.SetUse_plan_cache(0)
	}
	if o.CacheKey != "" {
		n.SetCache_key(o.CacheKey)
	}
	n.SetAutotune(boolInt(o.Autotune))
	n.SetAutotune_candidates(int(o.AutotuneCandidates))
	n.SetAutotune_knob_search(int(o.AutotuneKnobSearch))
	return n
}

// MismatchPolicy is what deserializing does with bytes made for another cuDNN version or GPU.
type MismatchPolicy int32

const (
	// MismatchRefuse fails with StatusNotSupported, naming the mismatch.
	MismatchRefuse MismatchPolicy = 0
	// MismatchRebuild rebuilds the plan from the graph the bytes carry.
	MismatchRebuild MismatchPolicy = 1
)

// DeserializeOptions are Deserialize's options.
type DeserializeOptions struct {
	OnMismatch MismatchPolicy
	// DevicePropertiesJSON: load the plan for the GPU this cuDNN device JSON describes (the
	// handle may then be nil); the graph can be inspected and serialized again, not executed.
	DevicePropertiesJSON string
}

func (o *DeserializeOptions) toNative() capi.Fe_deserialize_options {
	if o == nil {
		return nil
	}
	n := capi.NewFe_deserialize_options()
	n.SetOn_mismatch(capi.Enum_SS_fe_mismatch_policy(o.OnMismatch))
	if o.DevicePropertiesJSON != "" {
		n.SetDevice_properties_json(o.DevicePropertiesJSON)
	}
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
