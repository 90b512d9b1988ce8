package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// DataType is an element type. Its zero value, DataNotSet, means "the default": the graph's
// type for tensors, the library's default in options.
type DataType int32

// The data types.
const (
	DataNotSet DataType = iota
	DataFloat
	DataDouble
	DataHalf
	DataInt8
	DataInt32
	DataUint8
	DataBFloat16
	DataInt64
	DataBoolean
	DataFP8E4M3
	DataFP8E5M2
	DataFP8E8M0 // power-of-two block scales of MXFP8
	DataInt4    // 4-bit signed integers, two to a byte (the even element in the low bits)
	DataUint4   // 4-bit unsigned integers, two to a byte
)

// The C library's values of the data types above, in order.
var dataTypeCodes = [...]int32{-1, 0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 13, 15, 17, 18}

func (t DataType) code() capi.Enum_SS_fe_data_type {
	if t < 0 || int(t) >= len(dataTypeCodes) {
		return capi.Enum_SS_fe_data_type(-2) // the library rejects it with its own message
	}
	return capi.Enum_SS_fe_data_type(dataTypeCodes[t])
}

func dataTypeOf(code int32) DataType {
	for t, c := range dataTypeCodes {
		if c == code {
			return DataType(t)
		}
	}
	return DataNotSet
}

// String is the library's name of the type ("half", "bfloat16", ...).
func (t DataType) String() string {
	return capi.Fe_data_type_string(t.code())
}

// Size is the size in bytes of one element (0 for DataNotSet and the 4-bit types).
func (t DataType) Size() int64 {
	return capi.Fe_data_type_size(t.code())
}

// Bits is the size in bits of one element: 4 for DataInt4 and DataUint4 (0 for DataNotSet).
func (t DataType) Bits() int64 {
	return capi.Fe_data_type_bits(t.code())
}

// NumericalNote is one of an engine's numerical notes (cuDNN's CUDNN_NUMERICAL_NOTE_*), a bit of
// a mask; the values are the C library's.
type NumericalNote int64

// Numerical notes.
const (
	NumericalNoteTensorCore                NumericalNote = 1
	NumericalNoteDownConvertInputs         NumericalNote = 2
	NumericalNoteReducedPrecisionReduction NumericalNote = 4
	NumericalNoteFFT                       NumericalNote = 8
	NumericalNoteNondeterministic          NumericalNote = 16 // deselect it for bitwise-repeatable results
	NumericalNoteWinograd                  NumericalNote = 32
	NumericalNoteWinogradTile4x4           NumericalNote = 64
	NumericalNoteWinogradTile6x6           NumericalNote = 128
	NumericalNoteWinogradTile13x13         NumericalNote = 256
	NumericalNoteStrictNaNProp             NumericalNote = 512
)

// BehaviorNote is one of an engine's behaviour notes (cuDNN's CUDNN_BEHAVIOR_NOTE_*), a bit of a
// mask; the values are the C library's.
type BehaviorNote int64

// Behaviour notes.
const (
	BehaviorNoteRuntimeCompilation           BehaviorNote = 1
	BehaviorNoteRequiresFilterInt8x32Reorder BehaviorNote = 2
	BehaviorNoteRequiresBiasInt8x32Reorder   BehaviorNote = 4
	BehaviorNoteSupportsCUDAGraphNativeAPI   BehaviorNote = 8 // PopulateCUDAGraph works with its plans
)

// HeurMode is a cuDNN heuristic mode; the values are the C library's.
type HeurMode int32

// The heuristic modes.
const (
	HeurInstant  HeurMode = 0
	HeurB        HeurMode = 1
	HeurFallback HeurMode = 2
	HeurA        HeurMode = 3
)

func heurCodes(modes []HeurMode) []int32 {
	codes := make([]int32, len(modes))
	for i, m := range modes {
		codes[i] = int32(m)
	}
	return codes
}

// BuildPolicy says which plans a build finalizes.
type BuildPolicy int32

// The build policies.
const (
	// PolicyHeuristicsChoice builds candidates in order and keeps the first that builds.
	PolicyHeuristicsChoice BuildPolicy = 0
	// PolicyAll builds every supported candidate and uses the first.
	PolicyAll BuildPolicy = 1
)

// ConvMode is cross-correlation (the zero value and the default) or convolution.
type ConvMode int32

// The convolution modes.
const (
	ConvCrossCorrelation ConvMode = iota
	ConvConvolution
)

func (m ConvMode) code() int32 {
	if m == ConvConvolution {
		return 0
	}
	return 1
}

// ReductionMode says how a reduction combines elements; the values are the C library's.
type ReductionMode int32

// The reduction modes.
const (
	ReduceAdd        ReductionMode = 0
	ReduceMul        ReductionMode = 1
	ReduceMin        ReductionMode = 2
	ReduceMax        ReductionMode = 3
	ReduceAmax       ReductionMode = 4
	ReduceAvg        ReductionMode = 5
	ReduceNorm1      ReductionMode = 6
	ReduceNorm2      ReductionMode = 7
	ReduceMulNoZeros ReductionMode = 8 // the product of the non-zero elements
)

// CausalMask is attention's causal mask; the values are the C library's.
type CausalMask int32

// The causal masks.
const (
	CausalNone CausalMask = 0
	// CausalTopLeft: query i sees keys 0..i.
	CausalTopLeft CausalMask = 1
	// CausalBottomRight: aligned to the last key, query i sees keys 0..i + s_kv - s_q.
	CausalBottomRight CausalMask = 2
)

// LogLevel is the library's log level; the values are the C library's.
type LogLevel int32

// The log levels.
const (
	LogOff   LogLevel = 0
	LogError LogLevel = 1
	LogWarn  LogLevel = 2
	LogInfo  LogLevel = 3
	LogDebug LogLevel = 4
)

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
