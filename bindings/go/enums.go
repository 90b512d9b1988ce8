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
