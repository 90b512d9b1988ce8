package cudnnfe

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Plans for the captured H100 description with no GPU. Convolutions build whole plans; matmuls and
// attention (runtime-compiled engines) are supported up to the plan build, which needs a CUDA
// driver (with the toolkit's stub driver on the library path, cuDNN lists their engines).

func needDeviceless(t *testing.T) string {
	if !cudnnAvailable() {
		t.Skip("cuDNN is not loadable here")
	}
	json := deviceJSON()
	if json == "" {
		t.Skip("no device description: set CUDNNFE_DEVICE_JSON")
	}
	return json
}

func TestTheSeedConvolutionBuildsAWholePlan(t *testing.T) {
	json := needDeviceless(t)
	g := seedConvGraph(t)
	defer g.Close()
	limit := int64(1 << 30)
	must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, HeurModes: []HeurMode{HeurA, HeurFallback},
		MaxWorkspaceBytes: &limit}))
	built, err := g.IsBuilt()
	must(t, err)
	plans, _ := g.PlanCount()
	tag, _ := g.EngineTag()
	index, _ := g.EngineIndex()
	workspace, err := g.WorkspaceSize()
	must(t, err)
	if !built || plans < 1 || !strings.HasPrefix(tag, "eng") || index < 0 || workspace < 0 {
		t.Errorf("built %v, %d plans, engine %q (%d), workspace %d", built, plans, tag, index, workspace)
	}
}

func TestTheConvolutionBuildsStepByStep(t *testing.T) {
	json := needDeviceless(t)
	g := seedConvGraph(t)
	defer g.Close()
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	must(t, g.BuildOperationGraph(nil))
	must(t, g.CreateExecutionPlans(HeurA, HeurFallback))
	if n, _ := g.CandidateCount(); n < 1 {
		t.Errorf("%d candidates", n)
	}
	must(t, g.DeselectWorkspaceGreaterThan(1<<30))
	must(t, g.CheckSupport())
	must(t, g.BuildPlans(PolicyAll))
	if n, _ := g.PlanCount(); n < 1 {
		t.Errorf("%d plans", n)
	}
}

func TestMatmulWithBiasIsSupported(t *testing.T) {
	json := needDeviceless(t)
	g, err := NewGraph(&GraphOptions{Name: "matmul_bias", IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	ab, err := g.Matmul(tensor(t, g, "A", 16, 128, 512), tensor(t, g, "B", 16, 512, 128), nil)
	must(t, err)
	c, err := g.Bias(ab, tensor(t, g, "D", 1, 128, 128))
	must(t, err)
	must(t, c.SetOutput(true))
	expectSupported(t, g, json)
}

func TestAttentionIsSupported(t *testing.T) {
	json := needDeviceless(t)
	g, err := NewGraph(&GraphOptions{Name: "sdpa", IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	q, k, v := tensor(t, g, "q", 1, 8, 256, 64), tensor(t, g, "k", 1, 8, 256, 64), tensor(t, g, "v", 1, 8, 256, 64)
	o, _, err := g.Sdpa(q, k, v, &SdpaOptions{AttnScale: 0.125, CausalMask: CausalTopLeft})
	must(t, err)
	must(t, o.SetOutput(true))
	expectSupported(t, g, json)
}

// expectSupported: heuristics and the support check pass; the plan builds, or fails only for want
// of a CUDA driver.
func expectSupported(t *testing.T, g *Graph, json string) {
	t.Helper()
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	must(t, g.BuildOperationGraph(nil))
	must(t, g.CreateExecutionPlans())
	viable, err := g.ViableCount()
	must(t, err)
	if viable == 0 {
		// No driver library at all: cuDNN lists no runtime-compiled engine, and says so.
		if gpuAvailable() || strings.Contains(os.Getenv("LD_LIBRARY_PATH"), "stub-driver") {
			t.Fatal("no viable engine although a CUDA driver library is visible")
		}
		expectError(t, g.CheckSupport(), StatusNotSupported, "fe_graph_check_support")
		return
	}
	must(t, g.CheckSupport())
	err = g.BuildPlans(PolicyHeuristicsChoice)
	var e *Error
	if errors.As(err, &e) {
		if e.Status != StatusNotSupported || !strings.Contains(e.Message, "cuLibraryLoadData") &&
			!strings.Contains(e.Message, "CUDA_DRIVER") {
			t.Errorf("the plan build failed for a reason other than the missing driver: %v", err)
		}
		return
	}
	must(t, err)
	if built, _ := g.IsBuilt(); !built {
		t.Error("not built")
	}
}
