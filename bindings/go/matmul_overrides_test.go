package cudnnfe

import (
	"strings"
	"testing"
)

// A matmul's M, N and K overrides and padding value through the generated options mean what they
// mean in C (tests/deviceless/matmul_overrides_support_test.cpp): they reach the graph's description
// and its JSON, survive a JSON round trip, and each malformed setup is refused with the C library's
// reason. No GPU needed.

func TestMAndKOverridesWithAPaddingValueReachTheGraphAndItsJSON(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	a, b := tensor(t, g, "a", 4, 128, 192), tensor(t, g, "b", 4, 192, 256)
	m, k := tensor(t, g, "m", 4, 1, 1), typed(t, g, "k", DataInt32, 4, 1, 1)
	c, err := g.Matmul(a, b, &MatmulOptions{MOverride: m, KOverride: k, PaddingValue: -7.5})
	expectDims(t, c, err, 4, 128, 256)
	must(t, c.SetOutput(true))
	expectDescribed(t, g, "M=m K=k padding=-7.5")
	dt, err := m.DataType()
	must(t, err)
	if dt != DataInt32 {
		t.Errorf("an override declared without a type is %v, expected int32", dt)
	}

	json, err := g.ToJSON()
	must(t, err)
	for _, fragment := range []string{`"m_override":"m"`, `"padding_value":-7.5`} {
		if !strings.Contains(json, fragment) {
			t.Errorf("the JSON lacks %s:\n%s", fragment, json)
		}
	}
	back, err := GraphFromJSON(json)
	must(t, err)
	defer back.Close()
	again, err := back.ToJSON()
	must(t, err)
	if again != json {
		t.Errorf("the graph read back writes\n%s\nnot\n%s", again, json)
	}
}

func TestMalformedOverridesAreRefusedWithTheirReason(t *testing.T) {
	g := ioGraph(t, DataBFloat16)
	defer g.Close()
	a, b := tensor(t, g, "a", 4, 128, 192), tensor(t, g, "b", 4, 192, 256)
	refused := func(opts *MatmulOptions, why string) {
		t.Helper()
		c, err := g.Matmul(a, b, opts)
		if c != nil {
			t.Errorf("a tensor for a refused call (%s)", why)
		}
		expectError(t, err, StatusInvalidArgument, why)
	}
	refused(&MatmulOptions{MOverride: typed(t, g, "m_wrong", DataInt32, 4, 128, 1)},
		"options.m_override 'm_wrong' is [4,128,1]; it must be [4,1,1]")
	refused(&MatmulOptions{MOverride: typed(t, g, "m_long", DataInt64, 4, 1, 1)}, "the sizes are int32")
	refused(&MatmulOptions{KOverride: typed(t, g, "k", DataInt32, 4, 1, 1), PaddingValue: 1.0},
		"it fills what an M or N override leaves out")
}

// An FP8 matmul's three one-element float scales.
func unitScales(t *testing.T, f *Graph) MatmulFp8Scales {
	return MatmulFp8Scales{DescaleA: typed(t, f, "da", DataFloat, 1, 1, 1),
		DescaleB: typed(t, f, "db", DataFloat, 1, 1, 1), ScaleC: typed(t, f, "sc", DataFloat, 1, 1, 1)}
}

func TestFP8MatmulsTakeNoOverrides(t *testing.T) {
	f := ioGraph(t, DataFP8E4M3)
	defer f.Close()
	a, b := tensor(t, f, "a", 4, 128, 192), tensor(t, f, "b", 4, 192, 256)
	scales := unitScales(t, f)
	c, amax, err := f.MatmulFp8WithOptions(a, b, scales,
		&MatmulOptions{MOverride: typed(t, f, "m", DataInt32, 4, 1, 1)})
	if c != nil || amax != nil {
		t.Error("tensors for a refused FP8 matmul")
	}
	expectError(t, err, StatusInvalidArgument, "options.m_override is not taken by matmul_fp8")
}

// Fast accumulation is an FP8 matmul's option (in its graph JSON); a plain matmul refuses it.
func TestFastAccumulationIsAnFP8MatmulsOption(t *testing.T) {
	f := ioGraph(t, DataFP8E4M3)
	defer f.Close()
	a, b := tensor(t, f, "a", 4, 128, 192), tensor(t, f, "b", 4, 192, 256)
	scales := unitScales(t, f)
	c, amax, err := f.MatmulFp8WithOptions(a, b, scales, &MatmulOptions{FastAccumulate: true})
	must(t, err)
	must(t, c.SetOutput(true))
	must(t, amax.SetOutput(true))
	text, err := f.ToJSON()
	must(t, err)
	if !strings.Contains(text, `"fast_accumulate":true`) {
		t.Errorf("the graph's JSON lacks fast_accumulate:\n%s", text)
	}
	_, err = f.Matmul(typed(t, f, "x", DataHalf, 4, 128, 192), typed(t, f, "w", DataHalf, 4, 192, 256),
		&MatmulOptions{FastAccumulate: true})
	expectError(t, err, StatusInvalidArgument, "options.fast_accumulate is not taken by matmul")
}
