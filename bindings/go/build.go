package cudnnfe

import (
	"strings"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Build validates, lowers, queries heuristics (A, then FALLBACK unless opts say otherwise), checks
// support and builds a plan. h may be nil when opts (or SetDeviceProperties) give a device
// description: the plan is then built for that GPU with none present. opts may be nil.
func (g *Graph) Build(h *Handle, opts *BuildOptions) error {
	hp, err := optionalHandle(h)
	if err != nil {
		return err
	}
	native, err := opts.toNative()
	if err != nil {
		return err
	}
	if native != nil {
		defer capi.DeleteFe_build_options(native)
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_build(p, hp, native) })
}

// The build's steps, one at a time, in this order.

// SetDeviceProperties makes the build target the GPU this cuDNN device JSON describes.
func (g *Graph) SetDeviceProperties(json string) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_set_device_properties(p, json) })
}

// Validate infers every shape, stride and type and checks them.
func (g *Graph) Validate() error {
	return g.do(capi.Fe_graph_validate)
}

// BuildOperationGraph lowers the graph to cuDNN's operation graph; h may be nil.
func (g *Graph) BuildOperationGraph(h *Handle) error {
	hp, err := optionalHandle(h)
	if err != nil {
		return err
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_build_operation_graph(p, hp) })
}

// CreateExecutionPlans queries heuristics in each mode (none: A, then FALLBACK).
func (g *Graph) CreateExecutionPlans(modes ...HeurMode) error {
	codes := heurCodes(modes)
	if len(codes) == 0 {
		codes = nil
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_create_execution_plans(p, codes, int64(len(modes)))
	})
}

// DeselectWorkspaceGreaterThan drops candidates that need more than maxBytes of workspace.
func (g *Graph) DeselectWorkspaceGreaterThan(maxBytes int64) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_deselect_workspace_greater_than(p, maxBytes)
	})
}

// CandidateNotes is a candidate engine config's tag and its engine's notes.
type CandidateNotes struct {
	Tag       string
	Numerical NumericalNote
	Behavior  BehaviorNote
}

// CandidateNotes gives candidate index's tag and engine notes, in heuristics' rank order (no
// plan needed).
func (g *Graph) CandidateNotes(index int64) (CandidateNotes, error) {
	p, err := g.pointer()
	if err != nil {
		return CandidateNotes{}, err
	}
	var tag string
	numerical, behavior := []int64{0}, []int64{0}
	if err := call(func() capi.Enum_SS_fe_status {
		return capi.Fe_graph_candidate_notes(p, index, &tag, numerical, behavior)
	}); err != nil {
		return CandidateNotes{}, err
	}
	return CandidateNotes{tag, NumericalNote(numerical[0]), BehaviorNote(behavior[0])}, nil
}

// SelectByNotes drops the candidates whose engine has any deselected note or lacks any required
// one (masks: notes ORed together; 0 for none).
func (g *Graph) SelectByNotes(deselectNumerical NumericalNote, deselectBehavior BehaviorNote,
	requireNumerical NumericalNote, requireBehavior BehaviorNote) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_select_by_notes(p, int64(deselectNumerical), int64(deselectBehavior),
			int64(requireNumerical), int64(requireBehavior))
	})
}

// DeselectEngines drops the candidates of the engines named: engine names ("eng6": every knob
// setting of engine 6) and engine-config tags ("eng6_k24=26": that setting only), e.g. to avoid an
// engine known to be slow or wrong for a shape. A name of another form is StatusInvalidArgument;
// one no candidate has is not an error.
func (g *Graph) DeselectEngines(names ...string) error {
	engines := strings.Join(names, ",")
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_deselect_engines(p, engines) })
}

// DeselectSharedMemoryGreaterThan drops the candidates whose engine config uses more than
// maxBytes (0 or more) of shared memory per block, as cuDNN reports it; a config it reports none
// for (SharedMemoryBytes -1) is kept.
func (g *Graph) DeselectSharedMemoryGreaterThan(maxBytes int64) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_deselect_shared_memory_greater_than(p, maxBytes)
	})
}

// ConfigInfo is what an engine config is: a candidate of the plan search (CandidateInfo) or a
// built plan (PlanInfo).
type ConfigInfo struct {
	Tag               string // the engine and its knobs, e.g. "eng6_k24=26"
	EngineIndex       int64  // cuDNN's global engine index
	WorkspaceBytes    int64  // the workspace cuDNN asks for (without cudnnfe's own part)
	SharedMemoryBytes int64  // per block, as cuDNN reports it; -1 where it does not
	NumericalNotes    NumericalNote
	BehaviorNotes     BehaviorNote
	Viable            bool // false when deselected or refused (a plan is always viable)
}

// CandidateInfo describes candidate index (in heuristics' rank order, before any plan is built,
// also without a GPU): its tag, engine, workspace, shared memory, notes and whether it is still
// viable.
func (g *Graph) CandidateInfo(index int64) (ConfigInfo, error) {
	return g.configInfo(func(p uintptr, info capi.Fe_config_info) capi.Enum_SS_fe_status {
		return capi.Fe_graph_candidate_info(p, index, info)
	})
}

// PlanInfo describes built plan planIndex (0 to PlanCount-1; after autotuning, fastest first).
func (g *Graph) PlanInfo(planIndex int64) (ConfigInfo, error) {
	return g.configInfo(func(p uintptr, info capi.Fe_config_info) capi.Enum_SS_fe_status {
		return capi.Fe_graph_plan_info(p, planIndex, info)
	})
}

// configInfo runs a C call that fills a fe_config_info (made from FE_CONFIG_INFO_INIT, so its
// struct_size is set) and copies it out.
func (g *Graph) configInfo(f func(p uintptr, info capi.Fe_config_info) capi.Enum_SS_fe_status) (ConfigInfo, error) {
	info := capi.NewFe_config_info()
	defer capi.DeleteFe_config_info(info)
	if err := g.do(func(p uintptr) capi.Enum_SS_fe_status { return f(p, info) }); err != nil {
		return ConfigInfo{}, err
	}
	return ConfigInfo{
		Tag:               info.GetTag(),
		EngineIndex:       info.GetEngine_index(),
		WorkspaceBytes:    info.GetWorkspace_bytes(),
		SharedMemoryBytes: info.GetShared_memory_bytes(),
		NumericalNotes:    NumericalNote(info.GetNumerical_notes()),
		BehaviorNotes:     BehaviorNote(info.GetBehavior_notes()),
		Viable:            info.GetViable() != 0,
	}, nil
}

// CheckSupport fails with StatusNotSupported, and cuDNN's reason, if no candidate is viable.
func (g *Graph) CheckSupport() error {
	return g.do(capi.Fe_graph_check_support)
}

// BuildPlans finalizes plans from the viable candidates.
func (g *Graph) BuildPlans(policy BuildPolicy) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_build_plans(p, capi.Enum_SS_fe_build_policy(policy))
	})
}

// BuildPlansOnThreads is BuildPlans with up to threads plans finalized at the same time (1 to
// 64): for PolicyAll, where each plan's kernels may be compiled; the plans and their order are
// those of BuildPlans.
func (g *Graph) BuildPlansOnThreads(policy BuildPolicy, threads int32) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_graph_build_plans_on_threads(p, capi.Enum_SS_fe_build_policy(policy), int(threads))
	})
}

// BuildPlanAtIndex builds the plan of candidate candidateIndex only (after CheckSupport, or after
// other plans were built: it is added after them). StatusNotSupported, with cuDNN's reason, when
// it does not build; StatusInvalidArgument for a deselected candidate or one built already. The
// first plan built executes until SelectPlan says otherwise.
func (g *Graph) BuildPlanAtIndex(candidateIndex int64) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_build_plan_at_index(p, candidateIndex) })
}

// SelectPlan makes built plan planIndex the one that executes (and that populate, warmup, the
// workspace size and serialization use).
func (g *Graph) SelectPlan(planIndex int64) error {
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_select_plan(p, planIndex) })
}

// SetKernelCache builds the graph with dynamic shapes from this kernel cache (nil: without),
// before BuildOperationGraph. The graph keeps its own reference: closing the cache afterwards does
// not affect it.
func (g *Graph) SetKernelCache(c *KernelCache) error {
	var cp uintptr
	if c != nil {
		var err error
		if cp, err = c.pointer(); err != nil {
			return err
		}
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_set_kernel_cache(p, cp) })
}

// Engines and knobs: any engine config as a candidate, beyond the few that heuristics rank.

// KnobRange is one knob of an engine (EngineKnobs): its type (cuDNN's cudnnBackendKnobType_t
// value) and the values it takes, Min to Max in steps of Stride.
type KnobRange struct {
	Type             int32
	Min, Max, Stride int64
}

// Contains says whether value is one the knob takes.
func (k KnobRange) Contains(value int64) bool {
	return value >= k.Min && value <= k.Max && (k.Stride <= 0 || (value-k.Min)%k.Stride == 0)
}

// KnobChoice is one knob setting of a candidate (AddCandidate): a knob type (as in KnobRange) and
// its value.
type KnobChoice struct {
	Type  int32
	Value int64
}

// EngineCount is the number of engines cuDNN has for the operation graph (global indices 0 to
// count-1; not every one runs it). After BuildOperationGraph.
func (g *Graph) EngineCount() (int64, error) { return g.count(capi.Fe_graph_engine_count) }

// EngineKnobs lists the knobs engine has for this graph, by type; StatusNotSupported, with
// cuDNN's reason, if the engine does not run the graph.
func (g *Graph) EngineKnobs(engine int64) ([]KnobRange, error) {
	count := []int64{0}
	err := g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_swig_engine_knobs(p, engine, nil, nil, nil, nil, 0, count)
	})
	if e, ok := err.(*Error); err != nil && (!ok || e.Status != StatusBufferTooSmall) {
		return nil, err
	}
	n := count[0]
	if n == 0 {
		return []KnobRange{}, nil
	}
	types := make([]int32, n)
	mins, maxs, strides := make([]int64, n), make([]int64, n), make([]int64, n)
	if err := g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_swig_engine_knobs(p, engine, types, mins, maxs, strides, n, count)
	}); err != nil {
		return nil, err
	}
	knobs := make([]KnobRange, count[0])
	for i := range knobs {
		knobs[i] = KnobRange{Type: types[i], Min: mins[i], Max: maxs[i], Stride: strides[i]}
	}
	return knobs, nil
}

// AddCandidate adds engine with these knob settings (knobs left out keep the engine's defaults)
// as a candidate: after BuildOperationGraph (the candidates are then only those added) or
// CreateExecutionPlans (after the heuristics' ones), before CheckSupport. StatusNotSupported,
// with cuDNN's reason, if cuDNN refuses the setting; StatusInvalidArgument for a knob set twice,
// an unknown knob type or a duplicate of a candidate the graph has.
func (g *Graph) AddCandidate(engine int64, knobs ...KnobChoice) error {
	types := make([]int32, len(knobs))
	values := make([]int64, len(knobs))
	for i, k := range knobs {
		types[i], values[i] = k.Type, k.Value
	}
	return g.do(func(p uintptr) capi.Enum_SS_fe_status {
		return capi.Fe_swig_add_candidate(p, engine, types, values, int64(len(knobs)))
	})
}

// Queries about the build.

// CandidateCount is the number of candidates heuristics proposed.
func (g *Graph) CandidateCount() (int64, error) { return g.count(capi.Fe_graph_candidate_count) }

// ViableCount is the number of candidates left after the support check.
func (g *Graph) ViableCount() (int64, error) { return g.count(capi.Fe_graph_viable_count) }

// PlanCount is the number of plans built.
func (g *Graph) PlanCount() (int64, error) { return g.count(capi.Fe_graph_plan_count) }

// WorkspaceSize is the workspace in bytes the chosen plan needs.
func (g *Graph) WorkspaceSize() (int64, error) { return g.count(capi.Fe_graph_workspace_size) }

// EngineIndex is cuDNN's global index of the chosen plan's engine.
func (g *Graph) EngineIndex() (int64, error) { return g.count(capi.Fe_graph_engine_index) }

// EngineTag names the chosen engine and its knobs, e.g. "eng12_k2=3_k3=0".
func (g *Graph) EngineTag() (string, error) {
	p, err := g.pointer()
	if err != nil {
		return "", err
	}
	var tag string
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_graph_engine_tag(p, &tag) }); err != nil {
		return "", err
	}
	return tag, nil
}

// IsBuilt says whether the graph has a plan that can execute.
func (g *Graph) IsBuilt() (bool, error) {
	out := []int32{0}
	err := g.do(func(p uintptr) capi.Enum_SS_fe_status { return capi.Fe_graph_is_built(p, out) })
	return out[0] != 0, err
}

func (g *Graph) count(f func(uintptr, []int64) capi.Enum_SS_fe_status) (int64, error) {
	out := []int64{0}
	err := g.do(func(p uintptr) capi.Enum_SS_fe_status { return f(p, out) })
	return out[0], err
}

func optionalHandle(h *Handle) (uintptr, error) {
	if h == nil {
		return 0, nil
	}
	return h.pointer()
}
