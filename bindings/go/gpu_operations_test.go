package cudnnfe

import (
	"math"
	"math/rand"
	"testing"
)

// Normalization, convolution backward and a static plan built in the background on a GPU, checked
// against CPU references.

func needGPU(t *testing.T) *Handle {
	t.Helper()
	if !cudnnAvailable() || !gpuAvailable() {
		t.Skip("needs a GPU")
	}
	h, err := NewHandle(0)
	must(t, err)
	return h
}

func randomFloats(n int, seed int64) []float32 {
	r := rand.New(rand.NewSource(seed))
	values := make([]float32, n)
	for i := range values {
		values[i] = r.Float32()*2 - 1
	}
	return values
}

// floatBuffer is a device buffer for the tensor holding values (nil: poisoned, an output).
func floatBuffer(t *testing.T, x *Tensor, values []float32) *DeviceBuffer {
	t.Helper()
	b, err := NewDeviceBufferFor(0, x)
	must(t, err)
	if values != nil {
		must(t, b.UploadFloat32(values, DataFloat))
	} else {
		must(t, b.Fill(0xFF))
	}
	return b
}

func expectClose(t *testing.T, what string, want []float64, b *DeviceBuffer, tolerance float64) {
	t.Helper()
	got := make([]float32, len(want))
	must(t, b.DownloadFloat32(got, DataFloat))
	for i := range want {
		if !(math.Abs(float64(got[i])-want[i]) <= tolerance*(1+math.Abs(want[i]))) {
			t.Fatalf("%s[%d] is %v, expected %v", what, i, got[i], want[i])
		}
	}
}

func TestLayernormTrainingMatchesTheCPU(t *testing.T) {
	h := needGPU(t)
	defer h.Close()
	const rows, hidden = 64, 128
	g, err := NewGraph(&GraphOptions{IODataType: DataFloat})
	must(t, err)
	defer g.Close()
	x, scale, bias := tensor(t, g, "x", rows, hidden), tensor(t, g, "scale", 1, hidden), tensor(t, g, "bias", 1, hidden)
	r, err := g.Layernorm(x, scale, bias, &NormOptions{Phase: NormTraining, Epsilon: 1e-5})
	must(t, err)
	for _, out := range []*Tensor{r.Y, r.Mean, r.InvVariance} {
		must(t, out.SetOutput(true))
	}
	must(t, g.Build(h, nil))
	xh, sh, bh := randomFloats(rows*hidden, 1), randomFloats(hidden, 2), randomFloats(hidden, 3)
	tensors := []*Tensor{x, scale, bias, r.Y, r.Mean, r.InvVariance}
	buffers := []*DeviceBuffer{floatBuffer(t, x, xh), floatBuffer(t, scale, sh), floatBuffer(t, bias, bh),
		floatBuffer(t, r.Y, nil), floatBuffer(t, r.Mean, nil), floatBuffer(t, r.InvVariance, nil)}
	for _, b := range buffers {
		defer b.Close()
	}
	must(t, g.ExecuteBuffers(h, tensors, buffers, 0))
	must(t, h.Synchronize())
	y, mean, inv := make([]float64, rows*hidden), make([]float64, rows), make([]float64, rows)
	for i := 0; i < rows; i++ {
		sum, squares := 0.0, 0.0
		for j := 0; j < hidden; j++ {
			sum += float64(xh[i*hidden+j])
		}
		mean[i] = sum / hidden
		for j := 0; j < hidden; j++ {
			d := float64(xh[i*hidden+j]) - mean[i]
			squares += d * d
		}
		inv[i] = 1 / math.Sqrt(squares/hidden+1e-5)
		for j := 0; j < hidden; j++ {
			y[i*hidden+j] = (float64(xh[i*hidden+j])-mean[i])*inv[i]*float64(sh[j]) + float64(bh[j])
		}
	}
	expectClose(t, "y", y, buffers[3], 1e-4)
	expectClose(t, "mean", mean, buffers[4], 1e-4)
	expectClose(t, "inv_variance", inv, buffers[5], 1e-4)
}

func TestConvDgradMatchesTheCPU(t *testing.T) {
	h := needGPU(t)
	defer h.Close()
	const n, k, c, hh, w, r, s = 2, 8, 4, 8, 8, 3, 3
	g, err := NewGraph(&GraphOptions{IODataType: DataFloat})
	must(t, err)
	defer g.Close()
	dy, weight := tensor(t, g, "dy", n, k, hh, w), tensor(t, g, "w", k, c, r, s)
	dx, err := g.ConvDgrad(dy, weight, []int64{n, c, hh, w}, &ConvOptions{Padding: []int64{1, 1}})
	must(t, err)
	must(t, dx.SetOutput(true))
	must(t, g.Build(h, nil))
	dyh, wh := randomFloats(n*k*hh*w, 4), randomFloats(k*c*r*s, 5)
	buffers := []*DeviceBuffer{floatBuffer(t, dy, dyh), floatBuffer(t, weight, wh), floatBuffer(t, dx, nil)}
	for _, b := range buffers {
		defer b.Close()
	}
	must(t, g.ExecuteBuffers(h, []*Tensor{dy, weight, dx}, buffers, 0))
	must(t, h.Synchronize())
	// dx[n,c,y,x] = sum over k, r, s of dy[n,k,y-r+1,x-s+1] * w[k,c,r,s] (padding 1).
	want := make([]float64, n*c*hh*w)
	for b := 0; b < n; b++ {
		for ci := 0; ci < c; ci++ {
			for y := 0; y < hh; y++ {
				for x := 0; x < w; x++ {
					acc := 0.0
					for ki := 0; ki < k; ki++ {
						for ri := 0; ri < r; ri++ {
							for si := 0; si < s; si++ {
								oy, ox := y-ri+1, x-si+1
								if oy < 0 || oy >= hh || ox < 0 || ox >= w {
									continue
								}
								acc += float64(dyh[((b*k+ki)*hh+oy)*w+ox]) * float64(wh[((ki*c+ci)*r+ri)*s+si])
							}
						}
					}
					want[((b*c+ci)*hh+y)*w+x] = acc
				}
			}
		}
	}
	// TF32 math is allowed for float convolutions: about 1e-3 relative.
	expectClose(t, "dx", want, buffers[2], 5e-3)
}

// executeMatmulAndCheck runs the float matmul [1, m, k] x [1, k, n] on random values and checks c
// against the CPU (TF32 allowed).
func executeMatmulAndCheck(t *testing.T, h *Handle, g *Graph, a, b, c *Tensor, m, k, n int, seed int64) {
	t.Helper()
	ah, bh := randomFloats(m*k, seed), randomFloats(k*n, seed+1)
	buffers := []*DeviceBuffer{floatBuffer(t, a, ah), floatBuffer(t, b, bh), floatBuffer(t, c, nil)}
	defer func() {
		for _, buffer := range buffers {
			buffer.Close()
		}
	}()
	must(t, g.ExecuteBuffers(h, []*Tensor{a, b, c}, buffers, 0))
	must(t, h.Synchronize())
	want := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < k; l++ {
				want[i*n+j] += float64(ah[i*k+l]) * float64(bh[l*n+j])
			}
		}
	}
	expectClose(t, "c", want, buffers[2], 2e-2)
}

func TestAStaticPlanBuiltInTheBackgroundTakesOverAndStaysRight(t *testing.T) {
	h := needGPU(t)
	defer h.Close()
	const m, k, n = 96, 64, 32
	cache := newKernelCache(t)
	g, err := NewGraph(&GraphOptions{IODataType: DataFloat})
	must(t, err)
	defer g.Close()
	a, b := tensor(t, g, "a", 1, m, k), tensor(t, g, "b", 1, k, n)
	c, err := g.Matmul(a, b, nil)
	must(t, err)
	must(t, c.SetOutput(true))
	must(t, g.Build(h, &BuildOptions{KernelCache: cache, BackgroundStatic: true, NoPlanCache: true}))
	executeMatmulAndCheck(t, h, g, a, b, c, m, k, n, 30)
	must(t, g.WaitBackground())
	executeMatmulAndCheck(t, h, g, a, b, c, m, k, n, 40)
	if state, err := g.BackgroundState(); err != nil || state != BackgroundStateSwitched {
		t.Errorf("background state %v, %v; want switched", state, err)
	}
}
