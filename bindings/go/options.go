package cudnnfe

import (
	"strings"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Options are plain structs whose zero values mean "the library's default" (taken from the C
// header's _INIT macros); a nil *XOptions is all defaults.

// BuildOptions are the one-call build's options.
type BuildOptions struct {
	HeurModes []HeurMode // default: A, then FALLBACK
	Policy    BuildPolicy
	// MaxWorkspaceBytes skips plans needing more workspace; nil: no limit.
	MaxWorkspaceBytes *int64
	// DevicePropertiesJSON: build for the GPU this cuDNN device JSON describes (the handle may
	// then be nil).
	DevicePropertiesJSON string
	// NoPlanCache turns off the lookup of identical graphs built before in this process.
	NoPlanCache bool
	// CacheKey also registers the built graph under this key, for GraphFromCache.
	CacheKey string
	// Autotune times the candidates on the handle's GPU and keeps the fastest (needs a GPU);
	// AutotuneCandidates is how many plans it builds and times (0: 8).
	Autotune           bool
	AutotuneCandidates int32
	// AutotuneKnobSearch: autotuning also times the configs one knob away from the fastest plans,
	// for up to this many rounds (0: off).
	AutotuneKnobSearch int32
	// Engines with any of the Deselect notes, or without all of the Require notes, are not built
	// (e.g. deselect NumericalNoteNondeterministic for repeatable results, require
	// BehaviorNoteSupportsCUDAGraphNativeAPI for PopulateCUDAGraph).
	DeselectNumericalNotes NumericalNote
	DeselectBehaviorNotes  BehaviorNote
	RequireNumericalNotes  NumericalNote
	RequireBehaviorNotes   BehaviorNote
	// DeselectEngines are engines not to build: engine names ("eng6": every knob setting of engine
	// 6) and engine-config tags ("eng6_k24=26": that setting only), as Graph.DeselectEngines takes
	// them; a name of another form makes the build fail with StatusInvalidArgument.
	DeselectEngines []string
	// MaxSharedMemoryBytes: engine configs that use more than this many bytes of shared memory per
	// block are not built (0: no limit), as Graph.DeselectSharedMemoryGreaterThan; configs cuDNN
	// reports none for are kept.
	MaxSharedMemoryBytes int64
	// Deterministic: only engines that give bitwise-repeatable results (the same as deselecting
	// NumericalNoteNondeterministic).
	Deterministic bool
	// BuildThreads is how many threads finalize plans at the same time when several are built
	// (PolicyAll, autotuning): 0 or 1 one at a time, n > 1 up to n (at most 64), as
	// Graph.BuildPlansOnThreads. The plans and their order do not depend on it.
	BuildThreads int32
	// KernelCache: build with dynamic shapes from this cache (nil: without), sharing compiled
	// kernels with the other graphs built with it; the graph keeps its own reference to the cache.
	KernelCache *KernelCache
	// SmCountTarget is an SM carveout: n > 0 asks heuristics for engine configs that run on n SMs,
	// leaving the others to work running beside the graph (a normalization next to a communication
	// kernel, say); cuDNN's norm engines honour it. 0: every SM. Not with KernelCache (its configs
	// were chosen for every SM): the build fails with StatusInvalidArgument, as it does for a
	// negative count.
	SmCountTarget int32
}

// toNative is the C struct (FE_BUILD_OPTIONS_INIT, then the fields set), or nil for nil; an error
// for a closed KernelCache.
func (o *BuildOptions) toNative() (capi.Fe_build_options, error) {
	if o == nil {
		return nil, nil
	}
	var cache uintptr
	if o.KernelCache != nil {
		var err error
		if cache, err = o.KernelCache.pointer(); err != nil {
			return nil, err
		}
	}
	n := capi.NewFe_build_options()
	if len(o.HeurModes) > 0 {
		n.Set_heur_modes(heurCodes(o.HeurModes), int64(len(o.HeurModes)))
	}
	n.SetPolicy(capi.Enum_SS_fe_build_policy(o.Policy))
	if o.MaxWorkspaceBytes != nil {
		n.SetMax_workspace_bytes(*o.MaxWorkspaceBytes)
	}
	if o.DevicePropertiesJSON != "" {
		n.SetDevice_properties_json(o.DevicePropertiesJSON)
	}
	if o.NoPlanCache {
		n.SetUse_plan_cache(0)
	}
	if o.CacheKey != "" {
		n.SetCache_key(o.CacheKey)
	}
	n.SetAutotune(boolInt(o.Autotune))
	n.SetAutotune_candidates(int(o.AutotuneCandidates))
	n.SetAutotune_knob_search(int(o.AutotuneKnobSearch))
	n.SetDeselect_numerical_notes(int64(o.DeselectNumericalNotes))
	n.SetDeselect_behavior_notes(int64(o.DeselectBehaviorNotes))
	n.SetRequire_numerical_notes(int64(o.RequireNumericalNotes))
	n.SetRequire_behavior_notes(int64(o.RequireBehaviorNotes))
	if len(o.DeselectEngines) > 0 {
		n.SetDeselect_engines(strings.Join(o.DeselectEngines, ","))
	}
	n.SetMax_shared_memory_bytes(o.MaxSharedMemoryBytes)
	n.SetDeterministic(boolInt(o.Deterministic))
	n.SetBuild_threads(int(o.BuildThreads))
	n.SetKernel_cache(cache)
	n.SetSm_count_target(int(o.SmCountTarget))
	return n, nil
}
