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
)

// The C library's values of the data types above, in order.
var dataTypeCodes = [...]int32{-1, 0, 1, 2, 3, 4, 6, 9, 10, 11, 12, 13, 15}

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

// Size is the size in bytes of one element (0 for DataNotSet).
func (t DataType) Size() int64 {
	return capi.Fe_data_type_size(t.code())
}

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
	ReduceAdd   ReductionMode = 0
	ReduceMul   ReductionMode = 1
	ReduceMin   ReductionMode = 2
	ReduceMax   ReductionMode = 3
	ReduceAmax  ReductionMode = 4
	ReduceAvg   ReductionMode = 5
	ReduceNorm1 ReductionMode = 6
	ReduceNorm2 ReductionMode = 7
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
