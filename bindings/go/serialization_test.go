package cudnnfe

import (
	"bytes"
	"strings"
	"testing"
)

// Plans that last: serialized bytes, JSON text, the plan cache. Plans are built devicelessly for
// the captured H100 description; the GPU test executes a deserialized plan next to the original.

// builtSeedConv is the seed convolution built for the H100 description, outside the plan cache.
func builtSeedConv(t *testing.T, json string) *Graph {
	t.Helper()
	g := seedConvGraph(t)
	must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, NoPlanCache: true}))
	return g
}

func TestADevicelessPlanRoundTripsThroughBytes(t *testing.T) {
	json := needDeviceless(t)
	g := builtSeedConv(t, json)
	defer g.Close()
	data, err := g.Serialize()
	must(t, err)
	if len(data) < 64 {
		t.Fatalf("only %d bytes", len(data))
	}
	text, err := DescribeSerialized(data)
	must(t, err)
	tag, _ := g.EngineTag()
	if !strings.Contains(text, tag) || !strings.Contains(text, "H100") {
		t.Errorf("the description lacks %q or H100:\n%s", tag, text)
	}
	back, err := Deserialize(nil, data, &DeserializeOptions{DevicePropertiesJSON: json})
	must(t, err)
	defer back.Close()
	built, _ := back.IsBuilt()
	backTag, _ := back.EngineTag()
	ws, _ := g.WorkspaceSize()
	backWs, _ := back.WorkspaceSize()
	if !built || backTag != tag || backWs != ws {
		t.Errorf("built %v, engine %q (want %q), workspace %d (want %d)", built, backTag, tag, backWs, ws)
	}
	for _, name := range []string{"image", "weight"} {
		a, err := g.TensorByName(name)
		must(t, err)
		b, err := back.TensorByName(name)
		must(t, err)
		ad, _ := a.Dims()
		bd, _ := b.Dims()
		as, _ := a.Strides()
		bs, _ := b.Strides()
		au, _ := a.UID()
		bu, _ := b.UID()
		if !equalDims(ad, bd) || !equalDims(as, bs) || au != bu {
			t.Errorf("%s: dims %v/%v strides %v/%v uid %d/%d", name, ad, bd, as, bs, au, bu)
		}
	}
	again, err := back.Serialize()
	must(t, err)
	againText, err := DescribeSerialized(again)
	must(t, err)
	if againText != text {
		t.Errorf("serialized again, the bytes describe another graph:\n%s", againText)
	}
}

func TestCorruptedBytesAreAnError(t *testing.T) {
	json := needDeviceless(t)
	g := builtSeedConv(t, json)
	defer g.Close()
	data, err := g.Serialize()
	must(t, err)
	opts := &DeserializeOptions{DevicePropertiesJSON: json}
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 1
	back, err := Deserialize(nil, bad, opts)
	expectError(t, err, StatusInvalidArgument, "checksum")
	if back != nil {
		t.Error("a graph came back with the error")
	}
	_, err = Deserialize(nil, data[:40], opts)
	expectError(t, err, StatusInvalidArgument, "cudnnfe.Deserialize")
	_, err = DescribeSerialized(data[:40])
	expectError(t, err, StatusInvalidArgument, "cudnnfe.DescribeSerialized")
}

func TestBytesThatAreNoGraphAreAnError(t *testing.T) {
	_, err := DescribeSerialized(bytes.Repeat([]byte{'x'}, 100))
	expectError(t, err, StatusInvalidArgument, "magic")
	_, err = Deserialize(nil, nil, nil)
	expectError(t, err, StatusInvalidArgument, "no bytes")
}

func TestAnUnbuiltOrClosedGraphDoesNotSerialize(t *testing.T) {
	g := seedConvGraph(t)
	_, err := g.Serialize()
	expectError(t, err, StatusBadState, "not built")
	g.Close()
	g.Close()
	_, err = g.Serialize()
	expectError(t, err, StatusBadState, "closed")
	_, err = g.ToJSON()
	expectError(t, err, StatusBadState, "closed")
}

func TestJSONRoundTrips(t *testing.T) {
	g := seedConvGraph(t)
	defer g.Close()
	text, err := g.ToJSON()
	must(t, err)
	if !strings.Contains(text, "conv_fprop") {
		t.Fatalf("no conv_fprop in %s", text)
	}
	back, err := GraphFromJSON(text)
	must(t, err)
	defer back.Close()
	again, err := back.ToJSON()
	must(t, err)
	if again != text {
		t.Errorf("the JSON changed:\n%s\n%s", text, again)
	}
	name, _ := back.Name()
	outputs, err := back.Outputs()
	must(t, err)
	dims, _ := outputs[0].Dims()
	if name != "first_graph" || !equalDims(dims, []int64{8, 32, 56, 56}) {
		t.Errorf("name %q, output dims %v", name, dims)
	}
}

func TestBadJSONNamesTheLineAndField(t *testing.T) {
	g, err := GraphFromJSON(`{"format": 7`)
	expectError(t, err, StatusInvalidArgument, "cudnnfe.GraphFromJSON: line 1")
	if g != nil {
		t.Error("a graph came back with the error")
	}
	seed := seedConvGraph(t)
	defer seed.Close()
	text, err := seed.ToJSON()
	must(t, err)
	_, err = GraphFromJSON(strings.ReplaceAll(text, "conv_fprop", "conv_forward"))
	expectError(t, err, StatusInvalidArgument, "unknown operation 'conv_forward'")
}

func TestACacheKeyGivesTheBuiltGraphBack(t *testing.T) {
	json := needDeviceless(t)
	g := seedConvGraph(t)
	defer g.Close()
	must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json, CacheKey: "go-seed-conv"}))
	cached, err := GraphFromCache(nil, "go-seed-conv")
	must(t, err)
	defer cached.Close()
	built, _ := cached.IsBuilt()
	tag, _ := g.EngineTag()
	cachedTag, _ := cached.EngineTag()
	if !built || tag != cachedTag {
		t.Errorf("built %v, engine %q, want %q", built, cachedTag, tag)
	}
	_, err = GraphFromCache(nil, "go-no-such-key")
	expectError(t, err, StatusNotFound, "go-no-such-key")
}

func TestAnIdenticalGraphHitsThePlanCache(t *testing.T) {
	json := needDeviceless(t)
	must(t, ClearPlanCache())
	before, err := PlanCacheCounters()
	must(t, err)
	for i := 0; i < 2; i++ {
		g := seedConvGraph(t)
		must(t, g.Build(nil, &BuildOptions{DevicePropertiesJSON: json}))
		g.Close()
	}
	after, err := PlanCacheCounters()
	must(t, err)
	if after.Misses != before.Misses+1 || after.MemoryHits != before.MemoryHits+1 {
		t.Errorf("before %+v, after %+v", before, after)
	}
}

func TestPlanTimesNeedAnAutotune(t *testing.T) {
	g := seedConvGraph(t)
	defer g.Close()
	_, err := g.PlanTimeUs(0)
	expectError(t, err, StatusBadState, "Graph.PlanTimeUs")
	_, err = g.Autotune(nil, 0, 0)
	expectError(t, err, StatusNullPointer, "Graph.Autotune: h is nil")
}

// On a GPU: the deserialized plan computes what the original computes, bit for bit.
func TestADeserializedPlanExecutesLikeTheOriginal(t *testing.T) {
	if !cudnnAvailable() || !gpuAvailable() {
		t.Skip("needs a GPU")
	}
	h, err := NewHandle(0)
	must(t, err)
	defer h.Close()
	g := seedConvGraph(t)
	defer g.Close()
	must(t, g.Build(h, &BuildOptions{NoPlanCache: true}))
	data, err := g.Serialize()
	must(t, err)
	back, err := Deserialize(h, data, nil)
	must(t, err)
	defer back.Close()
	x, _ := g.TensorByName("image")
	w, _ := g.TensorByName("weight")
	outputs, _ := g.Outputs()
	y := outputs[0]
	var uids []int64
	var buffers []*DeviceBuffer
	for _, tn := range []*Tensor{x, w, y, y} {
		uid, err := tn.UID()
		must(t, err)
		uids = append(uids, uid)
		b, err := NewDeviceBufferFor(0, tn)
		must(t, err)
		defer b.Close()
		buffers = append(buffers, b)
	}
	for i, b := range buffers[:2] {
		size, _ := b.Size()
		values := make([]float32, size/2)
		for j := range values {
			values[j] = float32((j*37+i)%17-8) / 16
		}
		must(t, b.UploadFloat32(values, DataHalf))
	}
	pointers := make([]uintptr, 4)
	for i, b := range buffers {
		pointers[i], err = b.DevicePointer()
		must(t, err)
	}
	must(t, buffers[2].Fill(0xFF))
	must(t, buffers[3].Fill(0xFF))
	must(t, g.ExecuteByUID(h, uids[:3], pointers[:3], 0))
	must(t, back.ExecuteByUID(h, uids[:3], []uintptr{pointers[0], pointers[1], pointers[3]}, 0))
	must(t, h.Synchronize())
	size, _ := buffers[2].Size()
	a, b := make([]float32, size/2), make([]float32, size/2)
	must(t, buffers[2].DownloadFloat32(a, DataHalf))
	must(t, buffers[3].DownloadFloat32(b, DataHalf))
	for i := range a {
		if a[i] != a[i] || a[i] != b[i] {
			t.Fatalf("element %d: original %v, deserialized %v", i, a[i], b[i])
		}
	}
}

// On a GPU: autotuning times every built plan and keeps the fastest.
func TestAutotuningTimesEveryPlan(t *testing.T) {
	h := needGPU(t)
	defer h.Close()
	g := seedConvGraph(t)
	defer g.Close()
	must(t, g.Build(h, &BuildOptions{Policy: PolicyAll, NoPlanCache: true}))
	best, err := g.Autotune(h, 1, 3)
	must(t, err)
	first, err := g.PlanTimeUs(0)
	must(t, err)
	if best <= 0 || first != best {
		t.Errorf("best %v us, plan 0 %v us", best, first)
	}
	plans, err := g.PlanCount()
	must(t, err)
	for i := int64(1); i < plans; i++ {
		if us, err := g.PlanTimeUs(i); err != nil || us < best {
			t.Errorf("plan %d: %v us (%v), faster than the best %v", i, us, err, best)
		}
	}
	_, err = g.PlanTimeUs(plans)
	expectError(t, err, StatusInvalidArgument, "Graph.PlanTimeUs")
}

// On a GPU: a plan stored in a cache directory serves the next identical build.
func TestACacheDirectoryServesIdenticalGraphs(t *testing.T) {
	h := needGPU(t)
	defer h.Close()
	must(t, h.SetCacheDirectory(t.TempDir()))
	must(t, h.SetCacheLimit(64<<20))
	g := seedConvGraph(t)
	must(t, g.Build(h, nil))
	g.Close()
	must(t, ClearPlanCache())
	before, err := PlanCacheCounters()
	must(t, err)
	g = seedConvGraph(t)
	defer g.Close()
	must(t, g.Build(h, nil))
	after, err := PlanCacheCounters()
	must(t, err)
	if after.DiskHits != before.DiskHits+1 {
		t.Errorf("before %+v, after %+v", before, after)
	}
	must(t, h.SetCacheDirectory("")) // off
}
