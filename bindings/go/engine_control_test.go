package cudnnfe

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Engine and plan control for the captured H100 description with no GPU, as the C deviceless tier
// tests it (tests/deviceless/engine_control_test.cpp): candidates' and plans' info, deselection by
// engine name and by shared memory, plans built on several threads or one by index, any plan
// selected to run, and the build options that do the same in one call.

// engineControlConv is a bf16 channels-last 3x3 convolution: many precompiled engines build whole
// plans here. Closed when the test ends.
func engineControlConv(t *testing.T, name string) *Graph {
	t.Helper()
	g := channelsLastConv(t, name, DataBFloat16, []int64{16, 64, 28, 28}, []int64{64, 64, 3, 3},
		&ConvOptions{Padding: []int64{1, 1}})
	t.Cleanup(func() { g.Close() })
	return g
}

// withCandidates is the convolution lowered for the described GPU, with heuristics' candidates.
func withCandidates(t *testing.T, json, name string) *Graph {
	t.Helper()
	g := engineControlConv(t, name)
	must(t, g.SetDeviceProperties(json))
	must(t, g.BuildOperationGraph(nil))
	must(t, g.CreateExecutionPlans())
	return g
}

func candidateInfos(t *testing.T, g *Graph) []ConfigInfo {
	t.Helper()
	n, err := g.CandidateCount()
	must(t, err)
	list := make([]ConfigInfo, n)
	for i := range list {
		list[i], err = g.CandidateInfo(int64(i))
		must(t, err)
	}
	return list
}

func planTags(t *testing.T, g *Graph) []string {
	t.Helper()
	n, err := g.PlanCount()
	must(t, err)
	tags := make([]string, n)
	for i := range tags {
		info, err := g.PlanInfo(int64(i))
		must(t, err)
		tags[i] = info.Tag
	}
	return tags
}

func TestCandidatesReportTheirEngineWorkspaceSharedMemoryAndNotes(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "info")
	list := candidateInfos(t, g)
	if len(list) == 0 {
		t.Fatal("no candidates")
	}
	for i, c := range list {
		if !strings.HasPrefix(c.Tag, fmt.Sprintf("eng%d", c.EngineIndex)) || c.WorkspaceBytes < 0 ||
			c.SharedMemoryBytes < -1 || !c.Viable {
			t.Errorf("candidate %d: %+v", i, c)
		}
		notes, err := g.CandidateNotes(int64(i))
		must(t, err)
		if notes.Tag != c.Tag || notes.Numerical != c.NumericalNotes || notes.Behavior != c.BehaviorNotes {
			t.Errorf("candidate %d: notes %+v, info %+v", i, notes, c)
		}
	}
	_, err := g.CandidateInfo(int64(len(list)))
	expectError(t, err, StatusInvalidArgument, "Graph.CandidateInfo: index")
	_, err = g.PlanInfo(0)
	expectError(t, err, StatusBadState, "Graph.PlanInfo")
}

func TestAnEngineNameDeselectsEverySettingOfItAndATagOnlyThatOne(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "by_name")
	list := candidateInfos(t, g)
	if len(list) < 2 {
		t.Skip("one candidate only")
	}
	firstEngine, secondTag := list[0].EngineIndex, list[1].Tag
	must(t, g.DeselectEngines(fmt.Sprintf("eng%d", firstEngine), secondTag))
	for _, c := range candidateInfos(t, g) {
		named := c.EngineIndex == firstEngine || c.Tag == secondTag
		if c.Viable == named {
			t.Errorf("named %v but %+v", named, c)
		}
	}
	// A name no candidate has deselects nothing.
	other := withCandidates(t, json, "unknown_name")
	must(t, other.DeselectEngines("eng99999", "eng5_k2=-1"))
	for _, c := range candidateInfos(t, other) {
		if !c.Viable {
			t.Errorf("deselected %+v", c)
		}
	}
}

func TestAMalformedEngineNameIsRefused(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "malformed")
	expectError(t, g.DeselectEngines("eng6;eng7"), StatusInvalidArgument, "is not an engine name")
	expectError(t, g.DeselectEngines("eng6", ""), StatusInvalidArgument, "is not an engine name")
	expectError(t, g.DeselectEngines(), StatusInvalidArgument, "is not an engine name")
	for _, c := range candidateInfos(t, g) {
		if !c.Viable {
			t.Errorf("a refused list deselected %+v", c)
		}
	}
	early := engineControlConv(t, "early")
	expectError(t, early.DeselectEngines("eng0"), StatusBadState, "Graph.DeselectEngines")
}

func TestASharedMemoryLimitDeselectsTheConfigsReportedOverIt(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "shared_memory")
	list := candidateInfos(t, g)
	most := int64(-1)
	for _, c := range list {
		if c.SharedMemoryBytes > most {
			most = c.SharedMemoryBytes
		}
	}
	if most <= 0 {
		t.Skip("no candidate reports its shared memory (no runtime-compiled engine listed)")
	}
	must(t, g.DeselectSharedMemoryGreaterThan(most-1))
	kept := 0
	for _, c := range candidateInfos(t, g) {
		// Over the limit: deselected. Not reported (-1): kept.
		if c.Viable != (c.SharedMemoryBytes < most) {
			t.Errorf("limit %d: %+v", most-1, c)
		}
		if c.Viable {
			kept++
		}
	}
	if kept >= len(list) {
		t.Errorf("kept all %d candidates", kept)
	}
	expectError(t, g.DeselectSharedMemoryGreaterThan(-1), StatusInvalidArgument, "a shared-memory limit is 0 or more")
}

func TestPlansBuiltOnSeveralThreadsAreThoseBuiltOnOne(t *testing.T) {
	json := needDeviceless(t)
	one := withCandidates(t, json, "one_thread")
	must(t, one.CheckSupport())
	must(t, one.BuildPlans(PolicyAll))
	four := withCandidates(t, json, "four_threads")
	must(t, four.CheckSupport())
	must(t, four.BuildPlansOnThreads(PolicyAll, 4))
	oneTags, fourTags := planTags(t, one), planTags(t, four)
	if len(oneTags) < 2 || !reflect.DeepEqual(oneTags, fourTags) {
		t.Errorf("one thread %v, four %v", oneTags, fourTags)
	}
	oneTag, _ := one.EngineTag()
	fourTag, err := four.EngineTag()
	must(t, err)
	if oneTag != fourTag {
		t.Errorf("engine %q on one thread, %q on four", oneTag, fourTag)
	}
	bad := withCandidates(t, json, "bad_threads")
	must(t, bad.CheckSupport())
	expectError(t, bad.BuildPlansOnThreads(PolicyAll, 65), StatusInvalidArgument, "threads")
	expectError(t, bad.BuildPlansOnThreads(PolicyAll, 0), StatusInvalidArgument, "threads")
}

func TestAnyBuiltPlanCanBeTheOneThatRuns(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "select")
	must(t, g.CheckSupport())
	expectError(t, g.SelectPlan(0), StatusBadState, "Graph.SelectPlan")
	must(t, g.BuildPlans(PolicyAll))
	plans, err := g.PlanCount()
	must(t, err)
	if plans < 2 {
		t.Fatalf("%d plans", plans)
	}
	first, err := g.PlanInfo(0)
	must(t, err)
	if tag, _ := g.EngineTag(); tag != first.Tag {
		t.Errorf("engine %q runs, not the first plan %q", tag, first.Tag)
	}
	must(t, g.SelectPlan(1))
	second, err := g.PlanInfo(1)
	must(t, err)
	workspace, err := g.WorkspaceSize()
	must(t, err)
	description, err := g.Describe()
	must(t, err)
	if tag, _ := g.EngineTag(); tag != second.Tag || workspace != second.WorkspaceBytes || !second.Viable ||
		!strings.Contains(description, second.Tag) {
		t.Errorf("selected %+v: engine %q, workspace %d", second, tag, workspace)
	}
	expectError(t, g.SelectPlan(plans), StatusInvalidArgument, "Graph.SelectPlan")
	_, err = g.PlanInfo(plans)
	expectError(t, err, StatusInvalidArgument, "Graph.PlanInfo")
	if tag, _ := g.EngineTag(); tag != second.Tag {
		t.Errorf("a refused selection changed the engine to %q", tag)
	}
}

func TestOnePlanIsBuiltByItsCandidateIndex(t *testing.T) {
	json := needDeviceless(t)
	g := withCandidates(t, json, "by_index")
	must(t, g.CheckSupport())
	list := candidateInfos(t, g)
	// Candidates that need a runtime compilation fail without a driver; take two that build.
	var built []int
	for i := len(list) - 1; i >= 0 && len(built) < 2; i-- {
		err := g.BuildPlanAtIndex(int64(i))
		var e *Error
		if errors.As(err, &e) {
			if e.Status != StatusNotSupported || !strings.Contains(e.Message, "did not build a plan") {
				t.Errorf("candidate %d: %v", i, err)
			}
			continue
		}
		must(t, err)
		built = append(built, i)
	}
	if len(built) != 2 {
		t.Fatalf("built %v", built)
	}
	tags := planTags(t, g)
	if !reflect.DeepEqual(tags, []string{list[built[0]].Tag, list[built[1]].Tag}) {
		t.Errorf("plans %v of candidates %v", tags, built)
	}
	if tag, _ := g.EngineTag(); tag != tags[0] {
		t.Errorf("engine %q runs, not the first plan built %q", tag, tags[0])
	}
	must(t, g.SelectPlan(1))
	info, err := g.PlanInfo(1)
	must(t, err)
	if tag, _ := g.EngineTag(); tag != tags[1] || info.NumericalNotes != list[built[1]].NumericalNotes {
		t.Errorf("selected %+v: engine %q", info, tag)
	}
	expectError(t, g.BuildPlanAtIndex(int64(built[0])), StatusInvalidArgument, "has a plan already")
	expectError(t, g.BuildPlanAtIndex(int64(len(list))), StatusInvalidArgument, "Graph.BuildPlanAtIndex")
}

func TestBuildOptionsDeselectByNameSharedMemoryAndNondeterminism(t *testing.T) {
	json := needDeviceless(t)
	probe, err := withCandidates(t, json, "probe").CandidateInfo(0)
	must(t, err)
	avoided := probe.EngineIndex
	g := engineControlConv(t, "options")
	must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, NoPlanCache: true, Policy: PolicyAll,
		DeselectEngines: []string{fmt.Sprintf("eng%d", avoided)}, Deterministic: true, BuildThreads: 3,
		MaxSharedMemoryBytes: 32 * 1024}))
	plans, err := g.PlanCount()
	must(t, err)
	if plans < 1 {
		t.Fatalf("%d plans", plans)
	}
	for i := int64(0); i < plans; i++ {
		info, err := g.PlanInfo(i)
		must(t, err)
		if info.EngineIndex == avoided || info.NumericalNotes&NumericalNoteNondeterministic != 0 ||
			info.SharedMemoryBytes > 32*1024 {
			t.Errorf("plan %d: %+v (engine %d deselected)", i, info, avoided)
		}
	}
}

func TestBuildOptionsOutOfRangeAreRefused(t *testing.T) {
	json := needDeviceless(t)
	g := engineControlConv(t, "refused_option")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, BuildThreads: 65}),
		StatusInvalidArgument, "options.build_threads")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, BuildThreads: -1}),
		StatusInvalidArgument, "options.build_threads")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, MaxSharedMemoryBytes: -1}),
		StatusInvalidArgument, "options.max_shared_memory_bytes")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, DeselectEngines: []string{"eng6;eng7"}}),
		StatusInvalidArgument, "is not an engine name")
	if built, _ := g.IsBuilt(); built {
		t.Error("built")
	}
}

func TestSmCountTargetReachesTheLibrary(t *testing.T) {
	json := needDeviceless(t)
	g := engineControlConv(t, "sm_count_target")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, SmCountTarget: -1}),
		StatusInvalidArgument, "options.sm_count_target is -1")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, KernelCache: newKernelCache(t),
		SmCountTarget: 16}), StatusInvalidArgument, "the cache's engine configs were chosen for every SM")
	if built, _ := g.IsBuilt(); built {
		t.Error("built")
	}
}

func TestBackgroundStaticReachesTheLibrary(t *testing.T) {
	json := needDeviceless(t)
	g := engineControlConv(t, "background_static")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, BackgroundStatic: true}),
		StatusInvalidArgument, "give options.kernel_cache")
	expectError(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, KernelCache: newKernelCache(t),
		BackgroundStatic: true}), StatusInvalidArgument, "options.background_static needs a handle")
	state, err := g.BackgroundState()
	if err != nil || state != BackgroundStateNone {
		t.Errorf("background state %v, %v; want none", state, err)
	}
	if err := g.WaitBackground(); err != nil {
		t.Errorf("waiting for no background build: %v", err)
	}
}

func TestTheStepsOfAClosedGraphAreBadState(t *testing.T) {
	g, err := NewGraph(nil)
	must(t, err)
	must(t, g.Close())
	expectError(t, g.DeselectEngines("eng0"), StatusBadState, "the Graph is closed")
	_, err = g.CandidateInfo(0)
	expectError(t, err, StatusBadState, "the Graph is closed")
	_, err = g.PlanInfo(0)
	expectError(t, err, StatusBadState, "the Graph is closed")
	expectError(t, g.SelectPlan(0), StatusBadState, "the Graph is closed")
	expectError(t, g.BuildPlansOnThreads(PolicyAll, 2), StatusBadState, "the Graph is closed")
}

func TestNoteMasksPrintTheirNames(t *testing.T) {
	if got := (NumericalNoteTensorCore | NumericalNoteNondeterministic).String(); got != "TENSOR_CORE|NONDETERMINISTIC" {
		t.Errorf("numerical notes print %q", got)
	}
	if got := (BehaviorNoteRuntimeCompilation | BehaviorNote(1<<40)).String(); got != "RUNTIME_COMPILATION|0x10000000000" {
		t.Errorf("behaviour notes print %q", got)
	}
	if got := NumericalNote(0).String(); got != "" {
		t.Errorf("no notes print %q", got)
	}
}
