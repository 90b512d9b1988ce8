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

// The build's steps one at a time (Validate, BuildOperationGraph, CheckSupport, BuildPlans, ...)
// are generated from bindings/surface.py; CreateExecutionPlans takes its modes as a list.

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

func optionalHandle(h *Handle) (uintptr, error) {
	if h == nil {
		return 0, nil
	}
	return h.pointer()
}
