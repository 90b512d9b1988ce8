// A convolution layer's training step: the forward pass, the data gradient (dgrad, what the layer
// below receives) and the weight gradient (wgrad, what the optimizer applies), each one graph.
//
//	x 2x8x12x12 * w 16x8x3x3, padding 1 -> y 2x16x12x12; dy -> dx 2x8x12x12 and dw 16x8x3x3
//
// On a GPU each runs and is checked against a CPU reference; without one each plan is built for an
// H100 description.
package main

import (
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

const n, c, k, h, w, r, s = 2, 8, 16, 12, 12, 3, 3

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func newGraph(name string) *cudnnfe.Graph {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: name, IODataType: cudnnfe.DataFloat, ComputeDataType: cudnnfe.DataFloat})
	example.Check(err)
	return g
}

func input(g *cudnnfe.Graph, name string, dims ...int64) *cudnnfe.Tensor {
	t, err := g.Tensor(name, dims, nil, cudnnfe.DataNotSet)
	example.Check(err)
	return t
}

func output(t *cudnnfe.Tensor, err error) *cudnnfe.Tensor {
	example.Check(err)
	example.Check(t.SetOutput(true))
	return t
}

func run() int {
	layer := &cudnnfe.ConvOptions{Padding: []int64{1, 1}}
	fprop, dgrad, wgrad := newGraph("conv_fprop"), newGraph("conv_dgrad"), newGraph("conv_wgrad")
	defer fprop.Close()
	defer dgrad.Close()
	defer wgrad.Close()

	x, wt := input(fprop, "x", n, c, h, w), input(fprop, "w", k, c, r, s)
	y := output(fprop.ConvFprop(x, wt, layer))
	dy, wd := input(dgrad, "dy", n, k, h, w), input(dgrad, "w", k, c, r, s)
	dx := output(dgrad.ConvDgrad(dy, wd, []int64{n, c, h, w}, layer))
	xw, dyw := input(wgrad, "x", n, c, h, w), input(wgrad, "dy", n, k, h, w)
	dw := output(wgrad.ConvWgrad(xw, dyw, nil, layer)) // 3x3 inferred at stride 1

	handle := example.Handle()
	if handle == nil {
		for _, g := range []*cudnnfe.Graph{fprop, dgrad, wgrad} {
			if code := example.BuildDeviceless(g); code != 0 {
				return code
			}
		}
		return 0
	}
	defer handle.Close()
	for _, g := range []*cudnnfe.Graph{fprop, dgrad, wgrad} {
		example.Check(g.Build(handle, nil))
	}
	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	xb, xh := buffers.Input(x)
	wb, wh := buffers.Input(wt)
	dyb, dyh := buffers.Input(dy)
	yb, dxb, dwb := buffers.Output(y), buffers.Output(dx), buffers.Output(dw)
	example.Check(fprop.ExecuteBuffers(handle, []*cudnnfe.Tensor{x, wt, y}, []*cudnnfe.DeviceBuffer{xb, wb, yb}, 0))
	example.Check(dgrad.ExecuteBuffers(handle, []*cudnnfe.Tensor{dy, wd, dx}, []*cudnnfe.DeviceBuffer{dyb, wb, dxb}, 0))
	example.Check(wgrad.ExecuteBuffers(handle, []*cudnnfe.Tensor{xw, dyw, dw}, []*cudnnfe.DeviceBuffer{xb, dyb, dwb}, 0))
	example.Check(handle.Synchronize())

	yr, dxr, dwr := reference(xh, wh, dyh)
	// Float data, TF32 or float math: about 1e-3 relative.
	failures := example.Compare("conv fprop", y, example.Download(yb, y), yr, 1e-2, 1e-2) +
		example.Compare("conv dgrad", dx, example.Download(dxb, dx), dxr, 1e-2, 1e-2) +
		example.Compare("conv wgrad", dw, example.Download(dwb, dw), dwr, 5e-2, 1e-2)
	if failures != 0 {
		return 1
	}
	return 0
}

// reference computes the three results on the CPU, from one loop over every (image, output,
// filter) triple.
func reference(x, wt, dy []float32) (y, dx, dw []float64) {
	y, dx, dw = make([]float64, n*k*h*w), make([]float64, n*c*h*w), make([]float64, k*c*r*s)
	for b := 0; b < n; b++ {
		for ki := 0; ki < k; ki++ {
			for oh := 0; oh < h; oh++ {
				for ow := 0; ow < w; ow++ {
					for ci := 0; ci < c; ci++ {
						for ri := 0; ri < r; ri++ {
							for si := 0; si < s; si++ {
								ih, iw := oh+ri-1, ow+si-1
								if ih < 0 || ih >= h || iw < 0 || iw >= w {
									continue
								}
								xi, wi := ((b*c+ci)*h+ih)*w+iw, ((ki*c+ci)*r+ri)*s+si
								yi := ((b*k+ki)*h+oh)*w + ow
								y[yi] += float64(x[xi]) * float64(wt[wi])
								dx[xi] += float64(dy[yi]) * float64(wt[wi])
								dw[wi] += float64(dy[yi]) * float64(x[xi])
							}
						}
					}
				}
			}
		}
	}
	return y, dx, dw
}
