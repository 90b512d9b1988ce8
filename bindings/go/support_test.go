package cudnnfe

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// What the tests share: the machine's capabilities, the error assertion, the seed's graph and
// child processes.

func cudnnAvailable() bool {
	_, err := CudnnVersion()
	return err == nil
}

func gpuAvailable() bool {
	n, err := DeviceCount()
	return err == nil && n > 0
}

// deviceJSON is the captured H100 description ($CUDNNFE_DEVICE_JSON, else the repository's copy).
func deviceJSON() string {
	path := os.Getenv("CUDNNFE_DEVICE_JSON")
	if path == "" {
		path = "../shared/devices/h100-sxm-80gb.json"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(data)
}

// must fails the test at once on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// expectError checks that err is an *Error of this status with a one-line message containing text.
func expectError(t *testing.T, err error, status Status, text string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("expected an *Error with %v, got %v", status, err)
	}
	if e.Status != status {
		t.Errorf("status %v, expected %v (%s)", e.Status, status, e.Message)
	}
	if !strings.Contains(e.Message, text) {
		t.Errorf("message %q lacks %q", e.Message, text)
	}
	if strings.Contains(e.Message, "\n") {
		t.Errorf("message %q is not one line", e.Message)
	}
}

func equalDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// seedConvGraph is the seed's first graph: an fp16 3x3 convolution in channels-last memory.
func seedConvGraph(t *testing.T) *Graph {
	t.Helper()
	return channelsLastConv(t, "first_graph", DataHalf, []int64{8, 64, 56, 56}, []int64{32, 64, 3, 3},
		&ConvOptions{Padding: []int64{1, 1}})
}

// pointwiseConvGraph is a bf16 1x1 convolution in channels-last memory (a ResNet bottleneck's).
func pointwiseConvGraph(t *testing.T) *Graph {
	t.Helper()
	return channelsLastConv(t, "conv1x1", DataBFloat16, []int64{8, 1024, 14, 14}, []int64{256, 1024, 1, 1}, nil)
}

// channelsLastConv is a graph of one convolution of an image by filters, both channels-last.
func channelsLastConv(t *testing.T, name string, io DataType, xDims, wDims []int64, o *ConvOptions) *Graph {
	t.Helper()
	g, err := NewGraph(&GraphOptions{Name: name, IODataType: io, ComputeDataType: DataFloat})
	must(t, err)
	xStrides, err := StridesChannelsLast(xDims...)
	must(t, err)
	wStrides, err := StridesChannelsLast(wDims...)
	must(t, err)
	x, err := g.Tensor("image", xDims, xStrides, DataNotSet)
	must(t, err)
	w, err := g.Tensor("weight", wDims, wStrides, DataNotSet)
	must(t, err)
	y, err := g.ConvFprop(x, w, o)
	must(t, err)
	must(t, y.SetOutput(true))
	return g
}

// tensor adds a packed input of the graph's io type, failing the test on error.
func tensor(t *testing.T, g *Graph, name string, dims ...int64) *Tensor {
	t.Helper()
	x, err := g.Tensor(name, dims, nil, DataNotSet)
	must(t, err)
	return x
}

// childTest runs this test binary again for the tests matching pattern: what loads once per
// process (cuDNN, the library's version) is tried in a child. CUDNNFE_TEST_RUNNER, when set, is
// the command that runs the binary (an emulator, for a cross-compiled test binary).
func childTest(pattern string, args ...string) *exec.Cmd {
	command := append(strings.Fields(os.Getenv("CUDNNFE_TEST_RUNNER")), os.Args[0], "-test.run", pattern)
	return exec.Command(command[0], append(command[1:], args...)...)
}
