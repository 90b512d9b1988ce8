// The first graph: one 2-D convolution, as in the cuDNN frontend's introduction.
//
//	image 8x64x56x56 * weight 32x64x3x3, padding 1, stride 1 -> 8x32x56x56
//
// fp16 inputs and outputs, fp32 math, channels-last (NHWC) memory. On a GPU it runs and checks
// every output against a CPU reference; without one it builds the plan for an H100 description.
package main

import (
	"fmt"
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

const n, c, h, w, k, r, s = 8, 64, 56, 56, 32, 3, 3

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func run() int {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "first_graph", IODataType: cudnnfe.DataHalf,
		ComputeDataType: cudnnfe.DataFloat})
	example.Check(err)
	defer g.Close()

	// Logical dims are N, C, H, W; the strides make the memory NHWC.
	xDims, wDims := []int64{n, c, h, w}, []int64{k, c, r, s}
	xStrides, err := cudnnfe.StridesChannelsLast(xDims...)
	example.Check(err)
	wStrides, err := cudnnfe.StridesChannelsLast(wDims...)
	example.Check(err)
	x, err := g.Tensor("image", xDims, xStrides, cudnnfe.DataNotSet)
	example.Check(err)
	wt, err := g.Tensor("weight", wDims, wStrides, cudnnfe.DataNotSet)
	example.Check(err)
	y, err := g.ConvFprop(x, wt, &cudnnfe.ConvOptions{Padding: []int64{1, 1}}) // dims and layout inferred
	example.Check(err)
	example.Check(y.SetOutput(true)) // else y stays virtual

	handle := example.Handle()
	if handle == nil {
		return example.BuildDeviceless(g)
	}
	defer handle.Close()
	example.Check(g.Build(handle, nil)) // heuristics A, then FALLBACK
	fmt.Println("plan", example.EngineTag(g))

	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	xb, xh := buffers.Input(x)
	wb, wh := buffers.Input(wt)
	yb := buffers.Output(y)
	example.Check(g.ExecuteBuffers(handle, []*cudnnfe.Tensor{x, wt, y}, []*cudnnfe.DeviceBuffer{xb, wb, yb}, 0))
	example.Check(handle.Synchronize())

	// 576 fp16 products summed in fp32, rounded to fp16: about 1e-3 relative.
	return example.Compare("conv 8x64x56x56 * 32x64x3x3", y, example.Download(yb, y), reference(x, xh, wt, wh), 2e-2, 1e-2)
}

// reference: y[n,k,h,w] = sum over c, r, s of x[n,c,h+r-1,w+s-1] * w[k,c,r,s] (zero padding of 1).
func reference(x *cudnnfe.Tensor, xh []float32, wt *cudnnfe.Tensor, wh []float32) []float64 {
	xs, _ := x.Strides()
	ws, _ := wt.Strides()
	y := make([]float64, n*k*h*w)
	for in := int64(0); in < n; in++ {
		for ik := int64(0); ik < k; ik++ {
			for ih := int64(0); ih < h; ih++ {
				for iw := int64(0); iw < w; iw++ {
					acc := 0.0
					for ic := int64(0); ic < c; ic++ {
						for ir := int64(0); ir < r; ir++ {
							for is := int64(0); is < s; is++ {
								yh, yw := ih+ir-1, iw+is-1
								if yh < 0 || yh >= h || yw < 0 || yw >= w {
									continue
								}
								acc += float64(xh[in*xs[0]+ic*xs[1]+yh*xs[2]+yw*xs[3]]) *
									float64(wh[ik*ws[0]+ic*ws[1]+ir*ws[2]+is*ws[3]])
							}
						}
					}
					y[((in*k+ik)*h+ih)*w+iw] = acc
				}
			}
		}
	}
	return y
}
