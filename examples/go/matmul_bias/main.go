// Batched matmul with a bias, as in the cuDNN frontend's graph API notebook:
//
//	C[b] = A[b] x B[b] + D,   A 16x128x512, B 16x512x128, D 1x128x128 (broadcast over b)
//
// fp16 in and out, fp32 intermediate and math. The matmul's result is virtual: cuDNN fuses the bias
// into the matmul's epilogue, one kernel.
package main

import (
	"fmt"
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

const batch, m, n, k = 16, 128, 128, 512

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func run() int {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "matmul_bias", IODataType: cudnnfe.DataHalf,
		IntermediateDataType: cudnnfe.DataFloat, ComputeDataType: cudnnfe.DataFloat})
	example.Check(err)
	defer g.Close()
	a, err := g.Tensor("A", []int64{batch, m, k}, nil, cudnnfe.DataNotSet) // nil strides: packed
	example.Check(err)
	b, err := g.Tensor("B", []int64{batch, k, n}, nil, cudnnfe.DataNotSet)
	example.Check(err)
	d, err := g.Tensor("D", []int64{1, m, n}, nil, cudnnfe.DataNotSet)
	example.Check(err)
	ab, err := g.Matmul(a, b, nil)
	example.Check(err)
	c, err := g.Bias(ab, d, nil)
	example.Check(err)
	example.Check(c.SetOutput(true))

	handle := example.Handle()
	if handle == nil {
		return example.BuildDeviceless(g)
	}
	defer handle.Close()
	example.Check(g.Build(handle, &cudnnfe.BuildOptions{HeurModes: []cudnnfe.HeurMode{cudnnfe.HeurA}}))
	fmt.Println("plan", example.EngineTag(g))

	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	abuf, ah := buffers.Input(a)
	bbuf, bh := buffers.Input(b)
	dbuf, dh := buffers.Input(d)
	cbuf := buffers.Output(c)
	// Bound by device pointer, as code with its own CUDA memory would.
	example.Check(g.Execute(handle, []*cudnnfe.Tensor{a, b, d, c}, example.Pointers(abuf, bbuf, dbuf, cbuf), 0))
	example.Check(handle.Synchronize())
	want := example.MatmulBias(ah, bh, dh, batch, m, n, k)
	return example.Compare("C = A x B + D", c, example.Download(cbuf, c), want, 2e-2, 1e-2)
}
