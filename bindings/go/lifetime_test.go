package cudnnfe

import (
	"runtime"
	"testing"
)

// Close is deterministic and idempotent; use after Close is an error, never a crash.

func TestClosingTwiceIsHarmless(t *testing.T) {
	g, err := NewGraph(nil)
	must(t, err)
	must(t, g.Close())
	must(t, g.Close())
	var never *Graph
	must(t, never.Close())
}

func TestUseOfAClosedGraphIsBadState(t *testing.T) {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	x := tensor(t, g, "x", 4, 4)
	must(t, g.Close())
	expectError(t, g.Validate(), StatusBadState, "the Graph is closed")
	_, err = g.Tensor("y", []int64{2}, nil, DataNotSet)
	expectError(t, err, StatusBadState, "the Graph is closed")
	_, err = x.Dims()
	expectError(t, err, StatusBadState, "the Graph is closed")
	expectError(t, x.SetOutput(true), StatusBadState, "the Graph is closed")
	_, err = g.Describe()
	expectError(t, err, StatusBadState, "the Graph is closed")
}

func TestATensorOfAClosedGraphCannotJoinAnotherGraph(t *testing.T) {
	first, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	x := tensor(t, first, "x", 4)
	must(t, first.Close())
	second := newTestGraph(t)
	_, err = second.Relu(x, nil)
	expectError(t, err, StatusBadState, "the Graph is closed")
}

func tensorOfAGraphNobodyHolds(t *testing.T) *Tensor {
	g, err := NewGraph(&GraphOptions{IODataType: DataHalf})
	must(t, err)
	y, err := g.Relu(tensor(t, g, "x", 3, 5), nil)
	must(t, err)
	return y
}

func TestATensorOutlivesTheLastReferenceToItsGraph(t *testing.T) {
	y := tensorOfAGraphNobodyHolds(t)
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	// The tensor holds its graph: the graph is open and usable through it.
	dims, err := y.Dims()
	must(t, err)
	if !equalDims(dims, []int64{3, 5}) {
		t.Errorf("dims %v", dims)
	}
	must(t, y.SetOutput(true))
	must(t, y.Graph().Validate())
	must(t, y.Graph().Close())
	_, err = y.Dims()
	expectError(t, err, StatusBadState, "the Graph is closed")
}

func TestHandlesAndBuffersCloseTwiceAndRefuseUseAfterClose(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	h, err := NewHandle(0)
	must(t, err)
	b, err := NewDeviceBuffer(0, 256)
	must(t, err)
	must(t, h.Close())
	must(t, h.Close())
	must(t, b.Close())
	must(t, b.Close())
	expectError(t, h.Synchronize(), StatusBadState, "the Handle is closed")
	_, err = b.DevicePointer()
	expectError(t, err, StatusBadState, "the DeviceBuffer is closed")
}
