// Host time of one Graph.Execute call through the Go binding: the graphs, call pattern and output
// line of bench/bindings/execute_overhead.c (a built [1,256,256] fp16 matmul, each call timed, in
// blocks of 256 issued while the GPU is busy with an untimed blocker, the median of 102400 calls).
package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"cudnnfe.dev/cudnnfe"
)

const (
	dim, warmupCalls, executeCalls, blockCalls = 256, 10240, 102400, 256
	blockerBatch, blockerDim                   = 8, 8192
)

func main() {
	os.Exit(run())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "failed:", err)
		os.Exit(1)
	}
}

// bound is C = A x B over [batch, n, n] fp16, built and bound to zero-filled buffers.
type bound struct {
	graph    *cudnnfe.Graph
	tensors  []*cudnnfe.Tensor
	buffers  []*cudnnfe.DeviceBuffer
	pointers []uintptr
}

func newBound(handle *cudnnfe.Handle, name string, batch, n int64) *bound {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: name, IODataType: cudnnfe.DataHalf})
	check(err)
	dims := []int64{batch, n, n}
	a, err := g.Tensor("A", dims, nil, cudnnfe.DataNotSet)
	check(err)
	b, err := g.Tensor("B", dims, nil, cudnnfe.DataNotSet)
	check(err)
	c, err := g.Matmul(a, b, nil)
	check(err)
	check(c.SetOutput(true))
	check(g.Build(handle, nil))
	out := &bound{graph: g, tensors: []*cudnnfe.Tensor{a, b, c}}
	for _, t := range out.tensors {
		buffer, err := cudnnfe.NewDeviceBufferFor(0, t)
		check(err)
		check(buffer.Fill(0))
		pointer, err := buffer.DevicePointer()
		check(err)
		out.buffers = append(out.buffers, buffer)
		out.pointers = append(out.pointers, pointer)
	}
	return out
}

func (b *bound) execute(handle *cudnnfe.Handle) error {
	return b.graph.Execute(handle, b.tensors, b.pointers, 0)
}

func (b *bound) close() {
	for _, buffer := range b.buffers {
		buffer.Close()
	}
	b.graph.Close()
}

func run() int {
	if n, err := cudnnfe.DeviceCount(); err != nil || n == 0 {
		fmt.Println("no GPU: the execute overhead benchmark needs one")
		return 77
	}
	handle, err := cudnnfe.NewHandle(0)
	check(err)
	defer handle.Close()
	measured := newBound(handle, "execute_overhead", 1, dim)
	defer measured.close()
	blocker := newBound(handle, "blocker", blockerBatch, blockerDim)
	defer blocker.close()

	check(blocker.execute(handle))
	check(handle.Synchronize())
	started := time.Now()
	check(blocker.execute(handle))
	check(handle.Synchronize())
	blockerTime := time.Since(started)

	times := make([]time.Duration, executeCalls)
	unheldBlocks := 0
	var blockStart time.Time
	for i := 0; i < warmupCalls+executeCalls; i++ {
		if i%blockCalls == 0 {
			if i > 0 && time.Since(blockStart) > blockerTime {
				unheldBlocks++
			}
			check(handle.Synchronize())
			check(blocker.execute(handle))
			blockStart = time.Now()
		}
		start := time.Now()
		err := measured.execute(handle)
		if i >= warmupCalls {
			times[i-warmupCalls] = time.Since(start)
		}
		check(err)
	}
	if time.Since(blockStart) > blockerTime {
		unheldBlocks++
	}
	check(handle.Synchronize())
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("execute_overhead go median_ns=%d p90_ns=%d calls=%d blocker_us=%d unheld_blocks=%d\n",
		times[executeCalls/2].Nanoseconds(), times[executeCalls*9/10].Nanoseconds(), executeCalls,
		blockerTime.Microseconds(), unheldBlocks)
	return 0
}
