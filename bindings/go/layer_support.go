package cudnnfe

import (
	"fmt"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// What the generated layer (generate_layer.py) calls to pass tensors, arrays and outputs to C.

// pointers checks that every tensor is open (nil allowed where optional[i]) and returns them.
func pointers(tensors []*Tensor, optional ...bool) ([]uintptr, error) {
	out := make([]uintptr, len(tensors))
	for i, t := range tensors {
		var err error
		if t == nil && i < len(optional) && optional[i] {
			continue
		}
		if out[i], err = t.pointer(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// argumentPointers is pointers for the inputs of the Graph method named method: a nil one that is
// not optional is a StatusNullPointer error naming its parameter (names[i]).
func argumentPointers(method string, names []string, tensors []*Tensor, optional ...bool) ([]uintptr, error) {
	for i, t := range tensors {
		if t == nil && !(i < len(optional) && optional[i]) {
			return nil, nilArgument(method, names[i])
		}
	}
	return pointers(tensors, optional...)
}

// tensorList is the C array of a list of tensors, none nil: a nil one is a StatusNullPointer error
// naming it (name[i]).
func tensorList(method, name string, tensors []*Tensor) ([]uintptr, error) {
	return objectList(method, name, tensors, tensorArgument)
}

// objectList is the C array of a list of objects, none nil: argument names a nil one (name[i]).
func objectList[T any](method, name string, objects []*T, argument func(*T, string, string) (uintptr, error)) ([]uintptr, error) {
	out := make([]uintptr, len(objects))
	for i, o := range objects {
		var err error
		// The element's name is made only for its error: an execute formats nothing.
		if out[i], err = argument(o, method, name); err != nil {
			_, err = argument(o, method, fmt.Sprintf("%s[%d]", name, i))
			return nil, err
		}
	}
	return out, nil
}

// nullablePointers is the C array of an options struct's tensors: a nil one passes NULL, for the
// C setter to name.
func nullablePointers(tensors []*Tensor) ([]uintptr, error) {
	optional := make([]bool, len(tensors))
	for i := range optional {
		optional[i] = true
	}
	return pointers(tensors, optional...)
}

// wrapOutput is the tensor an entry point wrote into out, or nil when it wrote none or out was
// not asked for (nil: NULL passed).
func (g *Graph) wrapOutput(out []uintptr) *Tensor {
	if len(out) == 0 {
		return nil
	}
	return g.wrap(out[0])
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

// axesMask is the C bit mask of dims (bit i for dim i).
func axesMask(owner string, axes []int) (uint, error) {
	var mask uint
	for _, axis := range axes {
		if axis < 0 || axis >= 32 {
			return 0, invalid("%s: axis %d is out of range", owner, axis)
		}
		mask |= 1 << uint(axis)
	}
	return mask, nil
}

// boolInt is a bool as the C API's int32 flags take it.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
