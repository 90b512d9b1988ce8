// Host time of one Graph.Execute call through the Go binding: the graph, call pattern and output
// line of bench/bindings/execute_overhead.c (a built 256x256x256 fp16 matmul, each call timed, the
// stream drained untimed every 256 calls, the median of 100k calls).
package main

import (
	"fmt"
	"os"
	"sort"
	"time"

	"cudnnfe.dev/cudnnfe"
)

const dim, warmupCalls, executeCalls, drainEvery = 256, 10000, 100000, 256

func main() {
	os.Exit(run())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "failed:", err)
		os.Exit(1)
	}
}

func run() int {
	if n, err := cudnnfe.DeviceCount(); err != nil || n == 0 {
		fmt.Println("no GPU: the execute overhead benchmark needs one")
		return 77
	}
	handle, err := cudnnfe.NewHandle(0)
	check(err)
	defer handle.Close()
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "execute_overhead", IODataType: cudnnfe.DataHalf})
	check(err)
	defer g.Close()
	a, err := g.Tensor("A", []int64{dim, dim}, nil, cudnnfe.DataNotSet)
	check(err)
	b, err := g.Tensor("B", []int64{dim, dim}, nil, cudnnfe.DataNotSet)
	check(err)
	c, err := g.Matmul(a, b, nil)
	check(err)
	check(c.SetOutput(true))
	check(g.Build(handle, nil))

	tensors := []*cudnnfe.Tensor{a, b, c}
	pointers := make([]uintptr, 3)
	for i, t := range tensors {
		buffer, err := cudnnfe.NewDeviceBufferFor(0, t)
		check(err)
		defer buffer.Close()
		check(buffer.Fill(0))
		pointers[i], err = buffer.DevicePointer()
		check(err)
	}
	for i := 0; i < warmupCalls; i++ {
		if i%drainEvery == 0 {
			check(handle.Synchronize())
		}
		check(g.Execute(handle, tensors, pointers, 0))
	}
	times := make([]time.Duration, executeCalls)
	for i := range times {
		if i%drainEvery == 0 {
			check(handle.Synchronize())
		}
		start := time.Now()
		err := g.Execute(handle, tensors, pointers, 0)
		times[i] = time.Since(start)
		check(err)
	}
	check(handle.Synchronize())
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Printf("execute_overhead go median_ns=%d p90_ns=%d calls=%d\n", times[executeCalls/2].Nanoseconds(),
		times[executeCalls*9/10].Nanoseconds(), executeCalls)
	return 0
}
