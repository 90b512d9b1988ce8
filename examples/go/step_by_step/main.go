// The build, one step at a time, and execution by uid.
//
// Graph.Build is validate -> build the operation graph -> create execution plans (heuristics) ->
// check support -> build plans. Doing the steps yourself lets you see the candidates, limit the
// workspace, or build every plan. Tensors get fixed uids (0..3) and are bound by uid, so code that
// only keeps the uids can run the graph.
package main

import (
	"fmt"
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

const batch, m, n, k = 16, 128, 128, 512
const uidA, uidB, uidD, uidC = 0, 1, 2, 3

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func run() int {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "step_by_step", IODataType: cudnnfe.DataHalf})
	example.Check(err)
	defer g.Close()
	tensor := func(name string, uid int64, dims ...int64) *cudnnfe.Tensor {
		t, err := g.Tensor(name, dims, nil, cudnnfe.DataNotSet)
		example.Check(err)
		example.Check(t.SetUID(uid))
		return t
	}
	a, b, d := tensor("A", uidA, batch, m, k), tensor("B", uidB, batch, k, n), tensor("D", uidD, 1, m, n)
	ab, err := g.Matmul(a, b, nil)
	example.Check(err)
	c, err := g.Bias(ab, d, nil)
	example.Check(err)
	example.Check(c.SetOutput(true))
	example.Check(c.SetUID(uidC))

	handle := example.Handle()
	if handle == nil {
		return example.BuildDeviceless(g) // the same steps, for an H100
	}
	defer handle.Close()
	example.Check(g.Validate())
	example.Check(g.BuildOperationGraph(handle))
	example.Check(g.CreateExecutionPlans(cudnnfe.HeurA, cudnnfe.HeurFallback))
	example.Check(g.CheckSupport())
	example.Check(g.BuildPlans(cudnnfe.PolicyAll))
	candidates, _ := g.CandidateCount()
	viable, _ := g.ViableCount()
	plans, _ := g.PlanCount()
	tag, _ := g.EngineTag()
	workspace, err := g.WorkspaceSize()
	example.Check(err)
	fmt.Printf("%d candidates, %d viable, %d plans built; using %s with %d bytes of workspace\n",
		candidates, viable, plans, tag, workspace)

	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	abuf, ah := buffers.Input(a)
	bbuf, bh := buffers.Input(b)
	dbuf, dh := buffers.Input(d)
	cbuf := buffers.Output(c)
	// Our own workspace this time, of the size the plan asked for.
	var workspacePointer uintptr
	if workspace > 0 {
		wbuf, err := cudnnfe.NewDeviceBuffer(0, workspace)
		example.Check(err)
		defer wbuf.Close()
		workspacePointer = example.Pointers(wbuf)[0]
	}
	uids := []int64{uidA, uidB, uidD, uidC}
	example.Check(g.ExecuteByUID(handle, uids, example.Pointers(abuf, bbuf, dbuf, cbuf), workspacePointer))
	example.Check(handle.Synchronize())
	want := example.MatmulBias(ah, bh, dh, batch, m, n, k)
	return example.Compare("step-by-step C = A x B + D, bound by uid", c, example.Download(cbuf, c), want, 2e-2, 1e-2)
}
