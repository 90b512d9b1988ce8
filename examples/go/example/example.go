// Package example holds what the Go examples share: checked calls, the GPU-or-deviceless choice,
// random inputs, poisoned outputs and the comparison with a CPU reference. Exit codes: 0 verified
// or built devicelessly, 1 failure, 77 skipped (no cuDNN).
package example

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"

	"cudnnfe.dev/cudnnfe"
)

// Skip is the exit code of an example that cannot run here.
const Skip = 77

// Check ends the example on an error, printing the library's status and message.
func Check(err error) {
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "failed:", err)
	var e *cudnnfe.Error
	if errors.As(err, &e) && e.Status == cudnnfe.StatusLibraryUnavailable {
		os.Exit(Skip)
	}
	os.Exit(1)
}

// Handle is a handle on GPU 0, or nil (having said why) when this machine has none.
func Handle() *cudnnfe.Handle {
	if _, err := cudnnfe.CudnnVersion(); err != nil {
		fmt.Println("cuDNN is not available:", err)
		os.Exit(Skip)
	}
	if n, err := cudnnfe.DeviceCount(); err != nil || n == 0 {
		return nil
	}
	h, err := cudnnfe.NewHandle(0)
	if err != nil {
		fmt.Println("no usable GPU:", err)
		return nil
	}
	return h
}

// EngineTag is the engine and knobs of the plan the graph was built with (for printing).
func EngineTag(g *cudnnfe.Graph) string {
	tag, err := g.EngineTag()
	Check(err)
	return tag
}

// DeviceJSON is the H100 description's text (os.Args[1], $CUDNNFE_DEVICE_JSON, or
// ../shared/devices/h100-sxm-80gb.json), or "" having said why there is none.
func DeviceJSON() string {
	path := os.Getenv("CUDNNFE_DEVICE_JSON")
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if path == "" {
		path = "../shared/devices/h100-sxm-80gb.json"
	}
	json, err := os.ReadFile(path)
	if err != nil {
		fmt.Printf("no GPU and no device description at %s: nothing to do\n", path)
		return ""
	}
	return string(json)
}

// BuildDeviceless takes the build's steps for the H100 description (os.Args[1],
// $CUDNNFE_DEVICE_JSON, or ../shared/devices/h100-sxm-80gb.json), says how far a machine with no GPU
// gets, and returns the exit code.
func BuildDeviceless(g *cudnnfe.Graph) int {
	json := DeviceJSON()
	if json == "" {
		return Skip
	}
	name, _ := g.Name()
	Check(g.SetDeviceProperties(json))
	Check(g.Validate())
	Check(g.BuildOperationGraph(nil))
	Check(g.CreateExecutionPlans())
	viable, err := g.ViableCount()
	Check(err)
	if viable == 0 {
		fmt.Printf("no GPU: graph '%s' lowered for the H100 description, but cuDNN lists no engine for it without "+
			"a CUDA driver library (libcuda.so.1); not executed\n", name)
		return 0
	}
	Check(g.CheckSupport())
	if err := g.BuildPlans(cudnnfe.PolicyHeuristicsChoice); err != nil {
		fmt.Printf("no GPU: graph '%s' is supported for the H100 description (%d viable engine configs); its kernels "+
			"are compiled when it is built on a GPU (%v); not executed\n", name, viable, err)
		if errors.Is(err, cudnnfe.StatusCannotTell) {
			return 0
		}
		return 1
	}
	tag, _ := g.EngineTag()
	workspace, _ := g.WorkspaceSize()
	fmt.Printf("no GPU: built plan %s (workspace %d bytes) devicelessly for the H100 description; not executed\n",
		tag, workspace)
	return 0
}

// span is the number of elements a buffer for the tensor spans.
func span(t *cudnnfe.Tensor) (int, cudnnfe.DataType) {
	bytes, err := t.SizeBytes()
	Check(err)
	dt, err := t.DataType()
	Check(err)
	return int(bytes / dt.Size()), dt
}

// Input is a buffer of fresh uniform values in [-1, 1), rounded to the tensor's type on the device,
// and those rounded values on the host (indexed by offset).
func Input(t *cudnnfe.Tensor) (*cudnnfe.DeviceBuffer, []float32) {
	n, dt := span(t)
	b, err := cudnnfe.NewDeviceBufferFor(0, t)
	Check(err)
	values := make([]float32, n)
	for i := range values {
		values[i] = rand.Float32()*2 - 1
	}
	Check(b.UploadFloat32(values, dt))
	Check(b.DownloadFloat32(values, dt))
	return b, values
}

// Output is a buffer for an output, poisoned (all bits set: NaN) so unwritten elements show.
func Output(t *cudnnfe.Tensor) *cudnnfe.DeviceBuffer {
	b, err := cudnnfe.NewDeviceBufferFor(0, t)
	Check(err)
	Check(b.Fill(0xFF))
	return b
}

// Download reads an output as float32, indexed by offset.
func Download(b *cudnnfe.DeviceBuffer, t *cudnnfe.Tensor) []float32 {
	n, dt := span(t)
	values := make([]float32, n)
	Check(b.DownloadFloat32(values, dt))
	return values
}

// Pointers are the buffers' device addresses.
func Pointers(buffers ...*cudnnfe.DeviceBuffer) []uintptr {
	pointers := make([]uintptr, len(buffers))
	for i, b := range buffers {
		p, err := b.DevicePointer()
		Check(err)
		pointers[i] = p
	}
	return pointers
}

// Compare checks got (indexed by offset under the tensor's strides) against want (logical
// row-major order): it prints the largest error and returns 0 if every element is finite and within
// atol + rtol * |want|, else 1.
func Compare(what string, t *cudnnfe.Tensor, got []float32, want []float64, atol, rtol float64) int {
	dims, err := t.Dims()
	Check(err)
	strides, err := t.Strides()
	Check(err)
	index := make([]int64, len(dims))
	bad, maxAbs := 0, 0.0
	for e, w := range want {
		offset := int64(0)
		for d := range dims {
			offset += index[d] * strides[d]
		}
		g := float64(got[offset])
		diff := math.Abs(g - w)
		if math.IsNaN(g) || math.IsInf(g, 0) || diff > atol+rtol*math.Abs(w) {
			if bad == 0 {
				fmt.Fprintf(os.Stderr, "%s: element %d is %g, expected %g\n", what, e, g, w)
			}
			bad++
		} else if diff > maxAbs {
			maxAbs = diff
		}
		for d := len(dims) - 1; d >= 0; d-- {
			if index[d]++; index[d] < dims[d] {
				break
			}
			index[d] = 0
		}
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d of %d elements wrong\n", what, bad, len(want))
		return 1
	}
	fmt.Printf("verified on GPU: %s, %d elements, max abs err %.3g\n", what, len(want), maxAbs)
	return 0
}

// MatmulBias is C[b] = A[b] x B[b] + D, D broadcast over b (the matmul examples' reference).
func MatmulBias(a, b, d []float32, batch, m, n, k int) []float64 {
	c := make([]float64, batch*m*n)
	for i := 0; i < batch; i++ {
		for r := 0; r < m; r++ {
			for col := 0; col < n; col++ {
				acc := float64(d[r*n+col])
				for x := 0; x < k; x++ {
					acc += float64(a[(i*m+r)*k+x]) * float64(b[(i*k+x)*n+col])
				}
				c[(i*m+r)*n+col] = acc
			}
		}
	}
	return c
}

// Buffers makes an example's device buffers (as Input and Output do) and closes them all at once,
// so that an example says `defer buffers.Close()` once rather than once a buffer.
type Buffers struct {
	made []*cudnnfe.DeviceBuffer
}

// Input is Input's buffer and host values, the buffer to be closed with the others.
func (b *Buffers) Input(t *cudnnfe.Tensor) (*cudnnfe.DeviceBuffer, []float32) {
	buffer, values := Input(t)
	b.made = append(b.made, buffer)
	return buffer, values
}

// Output is Output's poisoned buffer, to be closed with the others.
func (b *Buffers) Output(t *cudnnfe.Tensor) *cudnnfe.DeviceBuffer {
	buffer := Output(t)
	b.made = append(b.made, buffer)
	return buffer
}

// Close closes every buffer made, the last first.
func (b *Buffers) Close() {
	for i := len(b.made) - 1; i >= 0; i-- {
		b.made[i].Close()
	}
	b.made = nil
}
