package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// The in-process plan cache: its counters, and clearing it.

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
