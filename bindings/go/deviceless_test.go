package cudnnfe

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
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

// The seed's convolution for the described GPU, taken step by step up to its candidate engine
// configurations (heuristics A, then the fallback list).
func seedConvCandidates(t *testing.T) *Graph {
	t.Helper()
	json := needDeviceless(t)
	g := seedConvGraph(t)
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	must(t, g.BuildOperationGraph(nil))
	must(t, g.CreateExecutionPlans(HeurA, HeurFallback))
	return g
}

func TestTheConvolutionBuildsStepByStep(t *testing.T) {
	g := seedConvCandidates(t)
	defer g.Close()
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

// The candidates' engine notes, read before any plan, select them as in C.
func TestCandidatesCarryTheirNotesAndAreSelectedByThem(t *testing.T) {
	json := needDeviceless(t)
	g := seedConvCandidates(t)
	defer g.Close()
	count, err := g.CandidateCount()
	must(t, err)
	compiled := int64(0)
	for i := int64(0); i < count; i++ {
		notes, err := g.CandidateNotes(i)
		must(t, err)
		if len(notes.Tag) < 3 || notes.Tag[:3] != "eng" {
			t.Errorf("tag %q", notes.Tag)
		}
		if notes.Behavior&BehaviorNoteRuntimeCompilation != 0 {
			compiled++
		}
	}
	expectError(t, g.SelectByNotes(0, 0, 0, BehaviorNote(16)), StatusInvalidArgument, "Graph.SelectByNotes: require_behavior is 0x10")
	must(t, g.SelectByNotes(0, BehaviorNoteRuntimeCompilation, 0, 0))
	if viable, _ := g.ViableCount(); viable != count-compiled {
		t.Errorf("%d viable, expected %d of %d", viable, count-compiled, count)
	}
	// The same selection as a build option: the plan's engine is not runtime-compiled.
	built := seedConvGraph(t)
	defer built.Close()
	must(t, built.Build(nil, &BuildOptions{DevicePropertiesJSON: json, NoPlanCache: true,
		DeselectBehaviorNotes: BehaviorNoteRuntimeCompilation}))
	tag, err := built.EngineTag()
	must(t, err)
	n, err := built.CandidateCount()
	must(t, err)
	for i := int64(0); i < n; i++ {
		notes, err := built.CandidateNotes(i)
		must(t, err)
		if notes.Tag == tag && notes.Behavior&BehaviorNoteRuntimeCompilation != 0 {
			t.Errorf("the plan's engine is runtime-compiled: %+v", notes)
		}
	}
}

func TestMatmulWithBiasIsSupported(t *testing.T) {
	json := needDeviceless(t)
	g, err := NewGraph(&GraphOptions{Name: "matmul_bias", IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	ab, err := g.Matmul(tensor(t, g, "A", 16, 128, 512), tensor(t, g, "B", 16, 512, 128), nil)
	must(t, err)
	c, err := g.Bias(ab, tensor(t, g, "D", 1, 128, 128), nil)
	must(t, err)
	must(t, c.SetOutput(true))
	expectSupported(t, g, json)
}

// SwiGLU's first half: the gate and up projections read one x, joined by silu(gate) * up.
func TestSwigluInOneGraphIsSupported(t *testing.T) {
	json := needDeviceless(t)
	g, err := NewGraph(&GraphOptions{Name: "swiglu", IODataType: DataBFloat16})
	must(t, err)
	defer g.Close()
	x := tensor(t, g, "x", 1, 256, 512)
	gate, err := g.Matmul(x, tensor(t, g, "w_gate", 1, 512, 1024), nil)
	must(t, err)
	up, err := g.Matmul(x, tensor(t, g, "w_up", 1, 512, 1024), nil)
	must(t, err)
	activated, err := g.Silu(gate, nil)
	must(t, err)
	y, err := g.Mul(activated, up, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	expectSupported(t, g, json)
}

// FP8 attention takes the band's right bound aligned bottom-right; soft-capping, which cuDNN 9.19
// computes wrongly there, is refused at build.
func TestFp8AttentionTakesTheBandAndRefusesSoftCapping(t *testing.T) {
	json := needDeviceless(t)
	for _, softcap := range []float64{0, 25} {
		g, err := NewGraph(&GraphOptions{Name: "fp8_band", IODataType: DataFP8E4M3})
		must(t, err)
		q, k := typed(t, g, "q", DataFP8E4M3, 2, 4, 128, 128), typed(t, g, "k", DataFP8E4M3, 2, 4, 256, 128)
		v, s := typed(t, g, "v", DataFP8E4M3, 2, 4, 256, 128), typed(t, g, "s", DataFloat, 1, 1, 1, 1)
		scales := SdpaFp8Scales{DescaleQ: s, DescaleK: s, DescaleV: s, DescaleS: s, ScaleS: s, ScaleO: s}
		right := int64(16)
		fwd, err := g.SdpaFp8(q, k, v, scales, &SdpaOptions{AttnScale: 0.125, GenerateStats: true, RightBound: &right,
			DiagonalAlignment: DiagonalAlignmentBottomRight, Softcap: softcap})
		must(t, err)
		for _, out := range []*Tensor{fwd.O, fwd.Stats, fwd.AmaxS, fwd.AmaxO} {
			must(t, out.SetOutput(true))
		}
		if softcap == 0 {
			expectSupported(t, g, json)
		} else {
			err = g.Build(nil, &BuildOptions{DevicePropertiesJSON: json})
			expectError(t, err, StatusNotSupported, "FP8 attention forward with soft-capping or a score modifier")
		}
		g.Close()
	}
}

func TestACompileTimeConstantNeedsTheCudnnThatCompilesIt(t *testing.T) {
	json := needDeviceless(t)
	g, err := NewGraph(&GraphOptions{Name: "constant", IODataType: DataHalf})
	must(t, err)
	defer g.Close()
	c, err := g.Matmul(tensor(t, g, "A", 4, 256, 128), tensor(t, g, "B", 4, 128, 64), nil)
	must(t, err)
	half, err := g.Constant("half", 0.5, DataFloat)
	must(t, err)
	y, err := g.Pointwise(PointwiseMul, c, half, nil, nil)
	must(t, err)
	must(t, y.SetOutput(true))
	expectDescribed(t, g, "value=0.5 (compile-time constant)")
	err = g.Build(nil, &BuildOptions{DevicePropertiesJSON: json})
	expectError(t, err, StatusNotSupported, "compile-time constant scalars (Graph.Constant) needs cuDNN >= 9.22.0")
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

func TestTheDefaultPlansEngineHasItsTagsKnobs(t *testing.T) {
	json := needDeviceless(t)
	tag := defaultEngineTag(t, json)
	engine, tagKnobs := parseEngineTag(t, tag)
	g := pointwiseConvAtOperationGraph(t, json)
	count, err := g.EngineCount()
	must(t, err)
	if count <= 0 || engine >= count {
		t.Fatalf("%s of %d engines", tag, count)
	}
	knobs, err := g.EngineKnobs(engine)
	must(t, err)
	if len(knobs) == 0 {
		t.Fatalf("engine %d has no knobs", engine)
	}
	for _, choice := range tagKnobs {
		found := false
		for _, k := range knobs {
			if k.Type == choice.Type {
				found = true
				if choice.Value < k.Min || choice.Value > k.Max {
					t.Errorf("%s: k%d=%d outside %+v", tag, choice.Type, choice.Value, k)
				}
			}
		}
		if !found {
			t.Errorf("%s: k%d is not among %+v", tag, choice.Type, knobs)
		}
	}
}

func TestACandidateAddedByHandBuildsItsConfig(t *testing.T) {
	json := needDeviceless(t)
	tag := defaultEngineTag(t, json)
	engine, knobs := parseEngineTag(t, tag)
	g := pointwiseConvAtOperationGraph(t, json)
	must(t, g.AddCandidate(engine, knobs...))
	if n, _ := g.CandidateCount(); n != 1 {
		t.Errorf("%d candidates", n)
	}
	must(t, g.CheckSupport())
	must(t, g.BuildPlans(PolicyAll))
	built, _ := g.IsBuilt()
	builtTag, err := g.EngineTag()
	must(t, err)
	if !built || builtTag != tag {
		t.Errorf("built %v with %q, expected %q", built, builtTag, tag)
	}
}

func TestACandidateAddedTwiceIsADuplicate(t *testing.T) {
	json := needDeviceless(t)
	engine, knobs := parseEngineTag(t, defaultEngineTag(t, json))
	g := pointwiseConvAtOperationGraph(t, json)
	must(t, g.AddCandidate(engine, knobs...))
	expectError(t, g.AddCandidate(engine, knobs...), StatusInvalidArgument, "a duplicate")
}

func TestAnEngineIndexPastTheCountIsOutOfRange(t *testing.T) {
	json := needDeviceless(t)
	g := pointwiseConvAtOperationGraph(t, json)
	count, err := g.EngineCount()
	must(t, err)
	_, err = g.EngineKnobs(count)
	expectError(t, err, StatusInvalidArgument, "out of range")
	expectError(t, g.AddCandidate(count), StatusInvalidArgument, "out of range")
	_, err = g.EngineKnobs(-1)
	expectError(t, err, StatusInvalidArgument, "out of range")
}

func TestANegativeKnobSearchIsRefused(t *testing.T) {
	json := needDeviceless(t)
	g := pointwiseConvGraph(t)
	defer g.Close()
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, AutotuneKnobSearch: -1}),
		StatusInvalidArgument, "autotune_knob_search")
	if built, _ := g.IsBuilt(); built {
		t.Error("built")
	}
}

// defaultEngineTag is the engine tag of the 1x1 convolution's plan from an ordinary build.
func defaultEngineTag(t *testing.T, json string) string {
	t.Helper()
	g := pointwiseConvGraph(t)
	defer g.Close()
	must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, NoPlanCache: true}))
	tag, err := g.EngineTag()
	must(t, err)
	return tag
}

// pointwiseConvAtOperationGraph is the 1x1 convolution lowered for the described GPU, before
// heuristics: where engines are counted and candidates added by hand. Closed when the test ends.
func pointwiseConvAtOperationGraph(t *testing.T, json string) *Graph {
	t.Helper()
	g := pointwiseConvGraph(t)
	t.Cleanup(func() { g.Close() })
	must(t, g.SetDeviceProperties(json))
	must(t, g.Validate())
	must(t, g.BuildOperationGraph(nil))
	return g
}

// parseEngineTag: "eng62_k2=0_k13=1" is engine 62 with k2 = 0 and k13 = 1.
func parseEngineTag(t *testing.T, tag string) (int64, []KnobChoice) {
	t.Helper()
	if !regexp.MustCompile(`^eng[0-9]+(_k[0-9]+=-?[0-9]+)*$`).MatchString(tag) {
		t.Fatalf("engine tag %q", tag)
	}
	parts := strings.Split(tag, "_")
	engine, err := strconv.ParseInt(strings.TrimPrefix(parts[0], "eng"), 10, 64)
	must(t, err)
	var knobs []KnobChoice
	for _, part := range parts[1:] {
		knob := strings.SplitN(strings.TrimPrefix(part, "k"), "=", 2)
		kind, err := strconv.ParseInt(knob[0], 10, 32)
		must(t, err)
		value, err := strconv.ParseInt(knob[1], 10, 64)
		must(t, err)
		knobs = append(knobs, KnobChoice{Type: int32(kind), Value: value})
	}
	return engine, knobs
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
		// No driver library at all: cuDNN lists no runtime-compiled engine, and the library says
		// it cannot tell.
		if gpuAvailable() || strings.Contains(os.Getenv("LD_LIBRARY_PATH"), "stub-driver") {
			t.Fatal("no viable engine although a CUDA driver library is visible")
		}
		expectError(t, g.CheckSupport(), StatusCannotTell, "Graph.CheckSupport")
		return
	}
	must(t, g.CheckSupport())
	err = g.BuildPlans(PolicyHeuristicsChoice)
	var e *Error
	if errors.As(err, &e) {
		if !errors.Is(err, StatusCannotTell) || !strings.Contains(e.Message, "cuLibraryLoadData") &&
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

// Without a GPU the library tells three answers apart. With the toolkit's stub (as this suite
// runs), a supported graph whose engines compile their kernels passes the support check and
// cannot be built here (StatusCannotTell), and a graph no engine runs is StatusNotSupported; with
// no driver library at all (a child process without the stub), neither can be judged
// (StatusCannotTell at the support check).
func TestWithoutAGpuCannotTellIsNotNotSupported(t *testing.T) {
	json := needDeviceless(t)
	answers := func() string {
		statusOf := func(err error) Status {
			var e *Error
			if errors.As(err, &e) {
				return e.Status
			}
			return StatusOK
		}
		prepare := func(g *Graph) error {
			for _, step := range []func() error{func() error { return g.SetDeviceProperties(json) }, g.Validate,
				func() error { return g.BuildOperationGraph(nil) }, func() error { return g.CreateExecutionPlans() }} {
				if err := step(); err != nil {
					return err
				}
			}
			return nil
		}
		matmul, _ := NewGraph(&GraphOptions{Name: "matmul", IODataType: DataHalf})
		defer matmul.Close()
		c, _ := matmul.Matmul(tensor(t, matmul, "A", 4, 64, 64), tensor(t, matmul, "B", 4, 64, 64), nil)
		must(t, c.SetOutput(true))
		softmax, _ := NewGraph(&GraphOptions{Name: "softmax", IODataType: DataHalf})
		defer softmax.Close()
		y, _, _ := softmax.Softmax(tensor(t, softmax, "x", 4, 128, 256), false, "")
		must(t, y.SetOutput(true))
		must(t, prepare(matmul))
		check := matmul.CheckSupport()
		build := "not tried"
		if check == nil {
			build = statusOf(matmul.BuildPlans(PolicyHeuristicsChoice)).String()
		}
		unsupported := prepare(softmax)
		if unsupported == nil {
			unsupported = softmax.CheckSupport()
		}
		return fmt.Sprintf("matmul check %v build %v; softmax check %v", statusOf(check), build, statusOf(unsupported))
	}
	if os.Getenv("CUDNNFE_NO_DRIVER_PROBE") == "1" {
		fmt.Println("answers:", answers())
		return
	}
	if gpuAvailable() {
		t.Skip("a GPU is here: every answer is the GPU's")
	}
	if got, want := answers(), "matmul check StatusOK build StatusCannotTell; softmax check StatusNotSupported"; got != want {
		t.Errorf("with the stub driver: %s, want %s", got, want)
	}
	var paths []string
	for _, p := range strings.Split(os.Getenv("LD_LIBRARY_PATH"), ":") {
		if !strings.Contains(p, "stub-driver") {
			paths = append(paths, p)
		}
	}
	child := childTest("^TestWithoutAGpuCannotTellIsNotNotSupported$")
	child.Env = append(os.Environ(), "CUDNNFE_NO_DRIVER_PROBE=1", "LD_LIBRARY_PATH="+strings.Join(paths, ":"),
		"CUDNNFE_STUB_DRIVER=0")
	out, err := child.CombinedOutput()
	if strings.Contains(string(out), "matmul check StatusOK") {
		t.Skip("a CUDA driver library is installed here: the no-driver case cannot be made")
	}
	want := "answers: matmul check StatusCannotTell build not tried; softmax check StatusCannotTell"
	if err != nil || !strings.Contains(string(out), want) {
		t.Errorf("without a driver library: %v; want %q in:\n%s", err, want, out)
	}
}
