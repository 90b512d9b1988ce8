package cudnnfe

import (
	"fmt"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Execution enqueues the plan on the handle's stream. Every non-virtual tensor is bound exactly
// once to a 16-byte-aligned device pointer; workspace 0 uses the handle's own workspace.

// Execute binds tensors to device pointers.
func (g *Graph) Execute(h *Handle, tensors []*Tensor, devicePointers []uintptr, workspace uintptr) error {
	if len(tensors) != len(devicePointers) {
		return invalid("Execute: %d tensors but %d device pointers", len(tensors), len(devicePointers))
	}
	hp, err := handleArgument(h, "Graph.Execute", "h")
	if err != nil {
		return err
	}
	tp, err := tensorPointers(tensors)
	if err != nil {
		return err
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_execute(p, hp, tp, devicePointers, int64(len(tp)), workspace)
	})
}

// ExecuteBuffers binds tensors to device buffers (each checked to be large enough).
func (g *Graph) ExecuteBuffers(h *Handle, tensors []*Tensor, buffers []*DeviceBuffer, workspace uintptr) error {
	if len(tensors) != len(buffers) {
		return invalid("ExecuteBuffers: %d tensors but %d buffers", len(tensors), len(buffers))
	}
	hp, err := handleArgument(h, "Graph.ExecuteBuffers", "h")
	if err != nil {
		return err
	}
	tp, err := tensorPointers(tensors)
	if err != nil {
		return err
	}
	bp := make([]uintptr, len(buffers))
	for i, b := range buffers {
		if bp[i], err = bufferArgument(b, "Graph.ExecuteBuffers", fmt.Sprintf("buffers[%d]", i)); err != nil {
			return err
		}
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_execute_buffers(p, hp, tp, bp, int64(len(tp)), workspace)
	})
}

// ExecuteByUID binds tensors, named by uid, to device pointers.
func (g *Graph) ExecuteByUID(h *Handle, uids []int64, devicePointers []uintptr, workspace uintptr) error {
	if len(uids) != len(devicePointers) {
		return invalid("ExecuteByUID: %d uids but %d device pointers", len(uids), len(devicePointers))
	}
	hp, err := handleArgument(h, "Graph.ExecuteByUID", "h")
	if err != nil {
		return err
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_execute_by_uid(p, hp, uids, devicePointers, int64(len(uids)), workspace)
	})
}

// ExecutePositional binds Inputs() in order, then Outputs(), to device pointers.
func (g *Graph) ExecutePositional(h *Handle, devicePointers []uintptr, workspace uintptr) error {
	hp, err := handleArgument(h, "Graph.ExecutePositional", "h")
	if err != nil {
		return err
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_execute_positional(p, hp, devicePointers, int64(len(devicePointers)), workspace)
	})
}

// PopulateCUDAGraph adds the graph's work, bound as Execute binds, to an empty CUDA graph (a
// cudaGraph_t); the workspace, when the graph needs one, must be given and outlive the CUDA graph.
func (g *Graph) PopulateCUDAGraph(h *Handle, tensors []*Tensor, devicePointers []uintptr, workspace, cudaGraph uintptr) error {
	return g.cudaGraphCall("PopulateCUDAGraph", capi.Fe_graph_populate_cuda_graph, h, tensors, devicePointers, workspace, cudaGraph)
}

// UpdateCUDAGraph rebinds a CUDA graph populated by PopulateCUDAGraph to new pointers, in place.
func (g *Graph) UpdateCUDAGraph(h *Handle, tensors []*Tensor, devicePointers []uintptr, workspace, cudaGraph uintptr) error {
	return g.cudaGraphCall("UpdateCUDAGraph", capi.Fe_graph_update_cuda_graph, h, tensors, devicePointers, workspace, cudaGraph)
}

func (g *Graph) cudaGraphCall(name string,
	call func(uintptr, uintptr, []uintptr, []uintptr, int64, uintptr, uintptr) capi.Enum_SS_fe_status,
	h *Handle, tensors []*Tensor, devicePointers []uintptr, workspace, cudaGraph uintptr) error {
	if len(tensors) != len(devicePointers) {
		return invalid("%s: %d tensors but %d device pointers", name, len(tensors), len(devicePointers))
	}
	hp, err := handleArgument(h, "Graph."+name, "h")
	if err != nil {
		return err
	}
	tp, err := tensorPointers(tensors)
	if err != nil {
		return err
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return call(p, hp, tp, devicePointers, int64(len(tp)), workspace, cudaGraph)
	})
}

func tensorPointers(tensors []*Tensor) ([]uintptr, error) {
	return tensorList("Graph.Execute", "tensors", tensors)
}
