package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Graph is tensors and operations; once built, a runnable plan. Building is single-goroutine; a
// built graph may be executed from several goroutines, each with its own Handle.
type Graph struct {
	ptr     uintptr
	tensors map[uintptr]*Tensor // one *Tensor per C tensor
}

// NewGraph creates an empty graph; opts may be nil.
func NewGraph(opts *GraphOptions) (*Graph, error) {
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_graph_options(native)
	}
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_graph_create(native, out) }); err != nil {
		return nil, err
	}
	return adoptGraph(out[0]), nil
}

// adoptGraph owns a graph the library made (created, deserialized, from JSON or from the cache).
func adoptGraph(ptr uintptr) *Graph {
	return &Graph{ptr: ptr, tensors: map[uintptr]*Tensor{}}
}

// Close frees the graph, its tensors and its plans; closing again does nothing.
func (g *Graph) Close() error {
	if g != nil && g.ptr != 0 {
		capi.Fe_graph_destroy(g.ptr)
		g.ptr = 0
		g.tensors = nil
	}
	return nil
}

func (g *Graph) pointer() (uintptr, error) {
	if g == nil || g.ptr == 0 {
		return 0, closedError("Graph", g == nil)
	}
	return g.ptr, nil
}

// do runs a C call on the graph, once it is known to be open.
func (g *Graph) do(f func(p uintptr) capi.Enum_SS_fe_status) error {
	p, err := g.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return f(p) })
}

// tensor runs a C call that yields a tensor of this graph.
func (g *Graph) tensor(f func(p uintptr, out []uintptr) capi.Enum_SS_fe_status) (*Tensor, error) {
	out := []uintptr{0}
	if err := g.do(func(p uintptr) capi.Enum_SS_fe_status { return f(p, out) }); err != nil {
		return nil, err
	}
	return g.wrap(out[0]), nil
}

func (g *Graph) wrap(ptr uintptr) *Tensor {
	if ptr == 0 {
		return nil
	}
	if t, ok := g.tensors[ptr]; ok {
		return t
	}
	t := &Tensor{graph: g, ptr: ptr}
	g.tensors[ptr] = t
	return t
}

// Tensor adds an input tensor. strides nil means packed (row-major); dt DataNotSet takes the
// graph's io type. Names are unique.
func (g *Graph) Tensor(name string, dims, strides []int64, dt DataType) (*Tensor, error) {
	if strides != nil && len(strides) != len(dims) {
		return nil, invalid("Graph.Tensor: tensor '%s': %d dims but %d strides", name, len(dims), len(strides))
	}
	return g.tensor(func(p uintptr, out []uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_tensor(p, name, int64(len(dims)), dims, strides, dt.code(), out)
	})
}

// String is Describe's text (fmt.Stringer); "Graph(closed)" once closed, and "Graph(<error>)"
// when the description fails.
func (g *Graph) String() string {
	if g == nil || g.ptr == 0 {
		return "Graph(closed)"
	}
	text, err := g.Describe()
	if err != nil {
		return "Graph(" + err.Error() + ")"
	}
	return text
}
