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
		return 0, invalid("%s: a nil *Tensor", publicCaller())
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
