package cudnnfe

import (
	"os"
	"strings"
	"testing"
)

// Without cuDNN (CUDNNFE_CUDNN_LIBRARY naming a missing file) the calls that need it fail with
// StatusLibraryUnavailable. cuDNN is loaded once per process, so the test runs itself again in a
// child process with that environment.

const unavailableChild = "CUDNNFE_TEST_UNAVAILABLE_CHILD"

func TestWithoutCudnnCallsFailWithLibraryUnavailable(t *testing.T) {
	if os.Getenv(unavailableChild) == "1" {
		_, err := CudnnVersion()
		expectError(t, err, StatusLibraryUnavailable, "cudnnfe.CudnnVersion: cuDNN could not be loaded")
		expectError(t, err, StatusLibraryUnavailable, "/nonexistent/libcudnn.so.9")
		// Graphs are still built and validated without it.
		g := newTestGraph(t)
		y, err := g.Relu(tensor(t, g, "x", 4), nil)
		must(t, err)
		must(t, y.SetOutput(true))
		must(t, g.Validate())
		return
	}
	child := childTest("^TestWithoutCudnnCallsFailWithLibraryUnavailable$", "-test.v")
	child.Env = append(os.Environ(), unavailableChild+"=1", "CUDNNFE_CUDNN_LIBRARY=/nonexistent/libcudnn.so.9")
	output, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(output), "--- PASS") {
		t.Errorf("the child process failed (%v):\n%s", err, output)
	}
}
