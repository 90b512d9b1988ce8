package cudnnfe

import (
	"math"
	"math/rand"
	"testing"
)

// Execution on a GPU against a CPU reference (skipped without a GPU).

const execB, execM, execK, execN = 2, 32, 64, 16

func TestMatmulWithBiasMatchesTheCPUEveryWayItIsBound(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	h, err := NewHandle(0)
	must(t, err)
	defer h.Close()
	g, err := NewGraph(&GraphOptions{Name: "matmul_bias", IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	a, b, d := tensor(t, g, "A", execB, execM, execK), tensor(t, g, "B", execB, execK, execN), tensor(t, g, "D", 1, execM, execN)
	ab, err := g.Matmul(a, b, nil)
	must(t, err)
	c, err := g.Bias(ab, d, nil)
	must(t, err)
	must(t, c.SetOutput(true))
	for i, x := range []*Tensor{a, b, d, c} {
		must(t, x.SetUID(int64(i+1)))
	}
	must(t, g.Build(h, nil))

	tensors := []*Tensor{a, b, d, c}
	buffers := make([]*DeviceBuffer, 4)
	pointers := make([]uintptr, 4)
	for i, x := range tensors {
		buffers[i], err = NewDeviceBufferFor(0, x)
		must(t, err)
		defer buffers[i].Close()
		pointers[i], err = buffers[i].DevicePointer()
		must(t, err)
	}
	ah := upload(t, buffers[0], execB*execM*execK)
	bh := upload(t, buffers[1], execB*execK*execN)
	dh := upload(t, buffers[2], execM*execN)
	want := reference(ah, bh, dh)

	workspaceSize, err := g.WorkspaceSize()
	must(t, err)
	var workspace uintptr
	if workspaceSize > 0 {
		own, err := NewDeviceBuffer(0, workspaceSize)
		must(t, err)
		defer own.Close()
		workspace, err = own.DevicePointer()
		must(t, err)
	}
	for name, run := range map[string]func() error{
		"buffers":    func() error { return g.ExecuteBuffers(h, tensors, buffers, 0) },
		"pointers":   func() error { return g.Execute(h, tensors, pointers, 0) },
		"uids":       func() error { return g.ExecuteByUID(h, []int64{1, 2, 3, 4}, pointers, 0) },
		"positional": func() error { return g.ExecutePositional(h, pointers, workspace) },
	} {
		must(t, buffers[3].Fill(0xFF))
		must(t, run())
		must(t, h.Synchronize())
		got := make([]float32, execB*execM*execN)
		must(t, buffers[3].DownloadFloat32(got, DataHalf))
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 2e-2+1e-2*math.Abs(want[i]) {
				t.Fatalf("%s: element %d is %v, expected %v", name, i, got[i], want[i])
			}
		}
	}
}

func TestExecutingBeforeBuildingIsBadState(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	h, err := NewHandle(0)
	must(t, err)
	defer h.Close()
	expectError(t, newTestGraph(t).ExecutePositional(h, nil, 0), StatusBadState, "Graph.Execute")
	if device, _ := h.Device(); device != 0 {
		t.Errorf("device %d", device)
	}
	must(t, h.SetStream(0))
}

// The CUDA-graph calls pass their arguments as C takes them: an unbuilt graph is BAD_STATE, a NULL
// CUDA graph is refused naming the call, and warming up a built graph works.
func TestCUDAGraphCallsCheckTheirArguments(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	h, err := NewHandle(0)
	must(t, err)
	defer h.Close()
	g := newTestGraph(t)
	expectError(t, g.Warmup(h), StatusBadState, "Graph.Warmup")
	x := tensor(t, g, "x", 64, 64)
	y, err := g.Relu(x, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	must(t, g.Build(h, nil))
	must(t, g.Warmup(h))
	in, err := NewDeviceBufferFor(0, x)
	must(t, err)
	defer in.Close()
	out, err := NewDeviceBufferFor(0, y)
	must(t, err)
	defer out.Close()
	ip, _ := in.DevicePointer()
	op, _ := out.DevicePointer()
	tensors, pointers := []*Tensor{x, y}, []uintptr{ip, op}
	expectError(t, g.PopulateCUDAGraph(h, tensors, pointers, 0, 0), StatusNullPointer, "Graph.PopulateCUDAGraph: cudaGraph is nil")
	expectError(t, g.UpdateCUDAGraph(h, tensors, pointers, 0, 0), StatusNullPointer, "Graph.UpdateCUDAGraph: cudaGraph is nil")
}

// upload fills a buffer with uniform values in [-1, 1) as half, returning what the device holds.
func upload(t *testing.T, b *DeviceBuffer, count int) []float32 {
	values := make([]float32, count)
	for i := range values {
		values[i] = rand.Float32()*2 - 1
	}
	must(t, b.UploadFloat32(values, DataHalf))
	must(t, b.DownloadFloat32(values, DataHalf))
	return values
}

func reference(a, b, d []float32) []float64 {
	c := make([]float64, execB*execM*execN)
	for i := 0; i < execB; i++ {
		for m := 0; m < execM; m++ {
			for n := 0; n < execN; n++ {
				acc := float64(d[m*execN+n])
				for k := 0; k < execK; k++ {
					acc += float64(a[(i*execM+m)*execK+k]) * float64(b[(i*execK+k)*execN+n])
				}
				c[(i*execM+m)*execN+n] = acc
			}
		}
	}
	return c
}
