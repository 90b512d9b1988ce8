package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Plans that last: autotuning, the plan cache, serialized bytes and JSON text.

// GraphFromCache is a built graph ready to execute, registered by a build with
// BuildOptions.CacheKey; StatusNotFound if none. h may be nil (deviceless graphs). The caller
// closes it.
func GraphFromCache(h *Handle, cacheKey string) (*Graph, error) {
	hp, err := optionalHandle(h)
	if err != nil {
		return nil, err
	}
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_graph_from_cache(hp, cacheKey, out) }); err != nil {
		return nil, err
	}
	return adoptGraph(out[0]), nil
}

// Serialize writes the built graph as self-contained, versioned bytes (the graph, the chosen plan,
// the uid layout, the library and cuDNN versions, the GPU's fingerprint and a checksum).
func (g *Graph) Serialize() ([]byte, error) {
	p, err := g.pointer()
	if err != nil {
		return nil, err
	}
	return readBytes(func(buffer []byte, length []int64) capi.Enum_SS_fe_status {
		return capi.Fe_graph_serialize(p, buffer, int64(len(buffer)), length)
	})
}

// Deserialize makes a graph ready to execute from Serialize's bytes, with no heuristics and no
// compilation. h may be nil when opts carry device properties; opts may be nil. Corrupted bytes
// give StatusInvalidArgument; a version or GPU mismatch under MismatchRefuse gives
// StatusNotSupported naming it.
func Deserialize(h *Handle, data []byte, opts *DeserializeOptions) (*Graph, error) {
	hp, err := optionalHandle(h)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, invalid("Deserialize: no bytes")
	}
	native, err := opts.toNative()
	if err != nil {
		return nil, err
	}
	if native != nil {
		defer capi.DeleteFe_deserialize_options(native)
	}
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status {
		return capi.Fe_graph_deserialize(hp, data, int64(len(data)), native, out)
	}); err != nil {
		return nil, err
	}
	return adoptGraph(out[0]), nil
}

// DescribeSerialized is a readable description of serialized bytes (header, graph, engine) without
// loading the plan.
func DescribeSerialized(data []byte) (string, error) {
	if len(data) == 0 {
		return "", invalid("DescribeSerialized: no bytes")
	}
	return readText(func(buffer []byte, length []int64) capi.Enum_SS_fe_status {
		return capi.Fe_serialized_describe(data, int64(len(data)), buffer, int64(len(buffer)), length)
	})
}

// GraphFromJSON makes a new graph from JSON text; errors name the line and the field.
func GraphFromJSON(json string) (*Graph, error) {
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_graph_from_json(json, int64(len(json)), out) }); err != nil {
		return nil, err
	}
	return adoptGraph(out[0]), nil
}

// PlanCacheStats are the plan cache's counters in this process.
type PlanCacheStats struct {
	MemoryHits int64 // builds served from the in-process cache
	DiskHits   int64 // builds served from a cache directory
	Misses     int64 // full builds
	Rejected   int64 // entries rejected as corrupt or stale
	Evictions  int64 // in-process entries dropped, least recently used first, to keep the cache bounded
}

// PlanCacheCounters reads the plan cache's counters.
func PlanCacheCounters() (PlanCacheStats, error) {
	m, d, x, r, e := []int64{0}, []int64{0}, []int64{0}, []int64{0}, []int64{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_plan_cache_stats(m, d, x, r) }); err != nil {
		return PlanCacheStats{}, err
	}
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_plan_cache_evictions(e) })
	return PlanCacheStats{MemoryHits: m[0], DiskHits: d[0], Misses: x[0], Rejected: r[0], Evictions: e[0]}, err
}

// ClearPlanCache drops every in-process entry (graphs already built keep their plans).
func ClearPlanCache() error {
	return call(capi.Fe_plan_cache_clear)
}
