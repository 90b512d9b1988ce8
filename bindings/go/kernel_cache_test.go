package cudnnfe

import (
	"errors"
	"strings"
	"testing"
)

// The kernel cache without a GPU, as the C deviceless tier tests it
// (tests/deviceless/kernel_cache_test.cpp): a dynamic-shape operation graph binds the cache, which
// then serializes to cuDNN's JSON and reads back; what is read is checked first; names are plain.
// (Building plans from it compiles kernels, which needs a GPU.)

// newKernelCache is an empty cache, closed when the test ends.
func newKernelCache(t *testing.T) *KernelCache {
	t.Helper()
	c, err := NewKernelCache()
	must(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// kernelCacheMatmul is a half matmul [1, m, 64] x [1, 64, 32], closed when the test ends.
func kernelCacheMatmul(t *testing.T, name string, m int64) *Graph {
	t.Helper()
	g, err := NewGraph(&GraphOptions{Name: name, IODataType: DataHalf})
	must(t, err)
	t.Cleanup(func() { g.Close() })
	c, err := g.Matmul(tensor(t, g, "a", 1, m, 64), tensor(t, g, "b", 1, 64, 32), nil)
	must(t, err)
	must(t, c.SetOutput(true))
	return g
}

// loweredWithCache is the matmul with the cache, lowered for the described GPU.
func loweredWithCache(t *testing.T, json, name string, m int64, c *KernelCache) *Graph {
	t.Helper()
	g := kernelCacheMatmul(t, name, m)
	must(t, g.SetKernelCache(c))
	must(t, g.SetDeviceProperties(json))
	must(t, g.BuildOperationGraph(nil))
	return g
}

func isJSONObject(text string) bool {
	return strings.HasPrefix(text, "{") && strings.HasSuffix(text, "}")
}

func TestAnUnusedCacheHasNothingToSerialize(t *testing.T) {
	needDeviceless(t)
	c := newKernelCache(t)
	_, err := c.Serialize()
	expectError(t, err, StatusBadState, "build a graph with it")
	expectError(t, c.Store(nil, "unused"), StatusBadState, "KernelCache.Store")
}

func TestWhatIsReadIsCheckedBeforeCudnnSeesIt(t *testing.T) {
	needDeviceless(t)
	_, err := DeserializeKernelCache("[1, 2]")
	expectError(t, err, StatusInvalidArgument, "is an array, not a JSON object")
	_, err = DeserializeKernelCache("not json")
	expectError(t, err, StatusInvalidArgument, "line 1")
}

func TestADynamicShapeGraphBindsTheCacheWhichThenReadsBack(t *testing.T) {
	json := needDeviceless(t)
	c := newKernelCache(t)
	first := loweredWithCache(t, json, "first", 64, c)
	must(t, first.CreateExecutionPlans())
	info, err := first.CandidateInfo(0)
	must(t, err)
	// Dynamic-shape kernels are compiled at run time.
	if info.BehaviorNotes&BehaviorNoteRuntimeCompilation == 0 {
		t.Errorf("%+v", info)
	}
	text, err := c.Serialize()
	must(t, err)
	if !isJSONObject(text) {
		t.Fatalf("not a JSON object: %.200s", text)
	}
	// Read back, it is cuDNN's again once a graph is lowered with it.
	back, err := DeserializeKernelCache(text)
	must(t, err)
	defer back.Close()
	loweredWithCache(t, json, "reader", 96, back)
	if again, err := back.Serialize(); err != nil || !isJSONObject(again) {
		t.Errorf("read back: %.200s, %v", again, err)
	}
	// A graph of other dims shares it; a lowered graph takes no other cache.
	second := loweredWithCache(t, json, "second", 200, c)
	expectError(t, second.SetKernelCache(nil), StatusBadState, "Graph.SetKernelCache")
	expectError(t, c.Store(nil, "a/b"), StatusInvalidArgument, "name")
	expectError(t, c.Store(nil, "../escape"), StatusInvalidArgument, "name")
}

func TestTheBuildOptionBindsTheCache(t *testing.T) {
	json := needDeviceless(t)
	c := newKernelCache(t)
	g := kernelCacheMatmul(t, "option", 64)
	if err := g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, NoPlanCache: true, KernelCache: c}); err != nil {
		// The plan's kernels are compiled at run time, which needs a GPU.
		if !errors.Is(err, StatusCannotTell) {
			t.Errorf("build: %v", err)
		}
	}
	if text, err := c.Serialize(); err != nil || !isJSONObject(text) {
		t.Errorf("the build did not bind the cache: %.200s, %v", text, err)
	}
}

func TestAGraphKeepsItsCacheAfterTheCallerClosesIt(t *testing.T) {
	json := needDeviceless(t)
	c, err := NewKernelCache()
	must(t, err)
	g := kernelCacheMatmul(t, "kept", 64)
	must(t, g.SetKernelCache(c))
	must(t, c.Close())
	must(t, c.Close())
	var never *KernelCache
	must(t, never.Close())
	must(t, g.SetDeviceProperties(json))
	must(t, g.BuildOperationGraph(nil))
	must(t, g.CreateExecutionPlans())
	if n, _ := g.CandidateCount(); n < 1 {
		t.Errorf("%d candidates", n)
	}
	_, err = c.Serialize()
	expectError(t, err, StatusBadState, "the KernelCache is closed")
	expectError(t, c.Store(nil, "closed"), StatusBadState, "the KernelCache is closed")
	other := kernelCacheMatmul(t, "closed", 64)
	expectError(t, other.SetKernelCache(c), StatusBadState, "the KernelCache is closed")
	expectError(t, other.Build(nil, &BuildOptions{DevicePropertiesJSON: json, KernelCache: c}),
		StatusBadState, "the KernelCache is closed")
	_, err = never.Serialize()
	expectError(t, err, StatusNullPointer, "a nil *KernelCache")
}

func TestLoadingNeedsAHandle(t *testing.T) {
	_, err := LoadKernelCache(nil, "name")
	expectError(t, err, StatusNullPointer, "cudnnfe.LoadKernelCache: h is nil")
}
