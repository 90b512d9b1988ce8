// Attention for inference (flash attention through cuDNN's fused engines):
//
//	O = softmax(Q.K^T / sqrt(d) + causal mask) V,   Q, K, V, O: 2 x 4 heads x 128 tokens x 64
//
// fp16 in and out, fp32 softmax. On a GPU it checks O against a CPU reference in double; without
// one it takes the build to the support check for an H100 description.
package main

import (
	"fmt"
	"math"
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

const b, h, s, d = 2, 4, 128, 64

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func run() int {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "sdpa", IODataType: cudnnfe.DataHalf,
		IntermediateDataType: cudnnfe.DataFloat, ComputeDataType: cudnnfe.DataFloat})
	example.Check(err)
	defer g.Close()
	tensor := func(name string) *cudnnfe.Tensor {
		t, err := g.Tensor(name, []int64{b, h, s, d}, nil, cudnnfe.DataNotSet)
		example.Check(err)
		return t
	}
	q, k, v := tensor("Q"), tensor("K"), tensor("V")
	o, _, err := g.Sdpa(q, k, v, &cudnnfe.SdpaOptions{AttnScale: 1 / math.Sqrt(d), CausalMask: cudnnfe.CausalTopLeft})
	example.Check(err)
	example.Check(o.SetOutput(true))

	handle := example.Handle()
	if handle == nil {
		return example.BuildDeviceless(g)
	}
	defer handle.Close()
	example.Check(g.Build(handle, nil))
	fmt.Println("plan", example.EngineTag(g))

	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	qb, qh := buffers.Input(q)
	kb, kh := buffers.Input(k)
	vb, vh := buffers.Input(v)
	ob := buffers.Output(o)
	example.Check(g.ExecuteBuffers(handle, []*cudnnfe.Tensor{q, k, v, o}, []*cudnnfe.DeviceBuffer{qb, kb, vb, ob}, 0))
	example.Check(handle.Synchronize())
	return example.Compare("causal attention 2x4x128x64", o, example.Download(ob, o), reference(qh, kh, vh), 1e-2, 1e-2)
}

// reference, row by row: scores of the keys up to the query (top-left causal), softmax, weighted
// sum of V.
func reference(q, k, v []float32) []float64 {
	o := make([]float64, b*h*s*d)
	scale := 1 / math.Sqrt(d)
	p := make([]float64, s)
	for bh := 0; bh < b*h; bh++ {
		base := bh * s * d
		for i := 0; i < s; i++ {
			max := math.Inf(-1)
			for j := 0; j <= i; j++ {
				dot := 0.0
				for x := 0; x < d; x++ {
					dot += float64(q[base+i*d+x]) * float64(k[base+j*d+x])
				}
				p[j] = dot * scale
				max = math.Max(max, p[j])
			}
			sum := 0.0
			for j := 0; j <= i; j++ {
				p[j] = math.Exp(p[j] - max)
				sum += p[j]
			}
			for x := 0; x < d; x++ {
				acc := 0.0
				for j := 0; j <= i; j++ {
					acc += p[j] * float64(v[base+j*d+x])
				}
				o[base+i*d+x] = acc / sum
			}
		}
	}
	return o
}
