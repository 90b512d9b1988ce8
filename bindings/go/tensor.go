package cudnnfe

import (
	"fmt"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Tensor is a tensor of a graph. The graph owns it: it lives as long as the graph is open, and it
// keeps its graph reachable. A graph returns the same *Tensor for the same tensor, so tensors
// compare with ==. Setters are allowed until the graph is built.
type Tensor struct {
	graph *Graph
	ptr   uintptr
}

// Graph is the tensor's graph.
func (t *Tensor) Graph() *Graph {
	return t.graph
}

// pointer is the C tensor, or an error when the graph is closed (the tensor died with it).
func (t *Tensor) pointer() (uintptr, error) {
	if t == nil {
		return 0, invalid("a nil *Tensor")
	}
	if _, err := t.graph.pointer(); err != nil {
		return 0, err
	}
	return t.ptr, nil
}

// String is the tensor's name and dims ("Tensor(x [2 3])"; fmt.Stringer); "Tensor(closed graph)"
// once its graph is closed.
func (t *Tensor) String() string {
	if _, err := t.pointer(); err != nil {
		return "Tensor(closed graph)"
	}
	name, err := t.Name()
	if err != nil {
		return "Tensor(" + err.Error() + ")"
	}
	dims, err := t.Dims()
	if err != nil {
		return "Tensor(" + name + ")"
	}
	return fmt.Sprintf("Tensor(%s %v)", name, dims)
}

// Name is the tensor's name ("<op name>::<port>" for results of operations).
func (t *Tensor) Name() (string, error) {
	p, err := t.pointer()
	if err != nil {
		return "", err
	}
	var name string
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_tensor_get_name(p, &name) }); err != nil {
		return "", err
	}
	return name, nil
}

// SetName renames the tensor (names are unique in a graph).
func (t *Tensor) SetName(name string) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_name(p, name) })
}

// Rank is the number of dims.
func (t *Tensor) Rank() (int, error) {
	out := []int64{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_get_ndims(p, out) })
	return int(out[0]), err
}

// Dims are the tensor's dims (inferred for results of operations).
func (t *Tensor) Dims() ([]int64, error) {
	return t.shape(capi.Fe_tensor_get_dims)
}

// Strides are the tensor's strides in elements.
func (t *Tensor) Strides() ([]int64, error) {
	return t.shape(capi.Fe_tensor_get_strides)
}

func (t *Tensor) shape(get func(uintptr, []int64, int64) capi.Enum_SS_fe_status) ([]int64, error) {
	rank, err := t.Rank()
	if err != nil {
		return nil, err
	}
	values := make([]int64, rank)
	err = t.do(func(p uintptr) capi.Enum_SS_fe_status { return get(p, values, int64(rank)) })
	return values, err
}

// SetDims overrides the dims.
func (t *Tensor) SetDims(dims ...int64) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_dims(p, int64(len(dims)), dims) })
}

// SetStrides overrides the strides.
func (t *Tensor) SetStrides(strides ...int64) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_tensor_set_strides(p, int64(len(strides)), strides)
	})
}

// DataType is the element type (DataNotSet until validation resolves the graph's default).
func (t *Tensor) DataType() (DataType, error) {
	out := []int32{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_get_data_type(p, out) })
	return dataTypeOf(out[0]), err
}

// SetDataType overrides the element type.
func (t *Tensor) SetDataType(dt DataType) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_data_type(p, dt.code()) })
}

// UID is the uid set, or the one the build assigned (StatusBadState before either).
func (t *Tensor) UID() (int64, error) {
	out := []int64{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_get_uid(p, out) })
	return out[0], err
}

// SetUID sets a uid, unique in the graph.
func (t *Tensor) SetUID(uid int64) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_uid(p, uid) })
}

// SetAlignment promises that every pointer bound to the tensor is aligned to bytes (a power of
// two, 16 to 4096); execution refuses one that is not.
func (t *Tensor) SetAlignment(bytes int64) error {
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_alignment(p, bytes) })
}

// SetRaggedOffset gives the tensor a packed variable-length layout: batch i starts at element
// offsets[i]. nil removes it.
func (t *Tensor) SetRaggedOffset(offsets *Tensor) error {
	op, err := optionalTensor(offsets)
	if err != nil {
		return err
	}
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_ragged_offset(p, op) })
}

// SetOutput makes an operation's result a graph output (non-virtual), or undoes it.
func (t *Tensor) SetOutput(isOutput bool) error {
	flag := 0
	if isOutput {
		flag = 1
	}
	return t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_set_output(p, flag) })
}

// IsOutput says whether the tensor is a graph output.
func (t *Tensor) IsOutput() (bool, error) {
	out := []int32{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_is_output(p, out) })
	return out[0] != 0, err
}

// IsVirtual says whether the tensor is an intermediate that never reaches memory.
func (t *Tensor) IsVirtual() (bool, error) {
	out := []int32{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_is_virtual(p, out) })
	return out[0] != 0, err
}

// SizeBytes is the size a buffer for the tensor needs.
func (t *Tensor) SizeBytes() (int64, error) {
	out := []int64{0}
	err := t.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_tensor_size_bytes(p, out) })
	return out[0], err
}

// do runs a C call on the tensor, once it is known to be alive.
func (t *Tensor) do(f func(p uintptr) capi.Enum_SS_fe_status) error {
	p, err := t.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return f(p) })
}

func optionalTensor(t *Tensor) (uintptr, error) {
	if t == nil {
		return 0, nil
	}
	return t.pointer()
}
