package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// The element type's own methods (its type and constants are generated from the schema).

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

func heurCodes(modes []HeurMode) []int32 {
	codes := make([]int32, len(modes))
	for i, m := range modes {
		codes[i] = int32(m)
	}
	return codes
}
