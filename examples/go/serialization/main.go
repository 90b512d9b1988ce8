// Plans that last: build the seed's convolution once, keep it as bytes, and load those bytes into
// a fresh graph with no heuristics and no compilation (what a service does at start-up with plans
// built ahead of time). On a GPU both graphs execute on the same inputs and must agree bit for
// bit; without one the plan is built, serialized and loaded for an H100 description.
package main

import (
	"fmt"
	"os"

	"cudnnfe.dev/cudnnfe"
	"cudnnfe.dev/examples/example"
)

func main() {
	os.Exit(run()) // after run's deferred Close calls
}

func run() int {
	handle := example.Handle()
	json := ""
	if handle == nil {
		if json = example.DeviceJSON(); json == "" {
			return example.Skip
		}
	} else {
		defer handle.Close()
	}
	g := seedConv()
	defer g.Close()
	// With no handle the build targets the description (a deviceless build).
	example.Check(g.Build(handle, &cudnnfe.BuildOptions{DevicePropertiesJSON: json}))
	data, err := g.Serialize()
	example.Check(err)
	text, err := cudnnfe.DescribeSerialized(data)
	example.Check(err)
	fmt.Printf("serialized %d bytes:\n%s\n", len(data), text)

	loaded, err := cudnnfe.Deserialize(handle, data, &cudnnfe.DeserializeOptions{DevicePropertiesJSON: json})
	example.Check(err)
	defer loaded.Close()
	tag, _ := g.EngineTag()
	loadedTag, _ := loaded.EngineTag()
	if loadedTag != tag {
		fmt.Fprintf(os.Stderr, "the loaded plan is %s, not %s\n", loadedTag, tag)
		return 1
	}
	if handle == nil {
		fmt.Printf("no GPU: plan %s built, serialized and loaded devicelessly for the H100 description; not executed\n", tag)
		return 0
	}
	return executeBoth(handle, g, loaded)
}

// seedConv is the seed's first graph: an fp16 3x3 convolution in channels-last memory.
func seedConv() *cudnnfe.Graph {
	g, err := cudnnfe.NewGraph(&cudnnfe.GraphOptions{Name: "first_graph", IODataType: cudnnfe.DataHalf,
		ComputeDataType: cudnnfe.DataFloat})
	example.Check(err)
	xDims, wDims := []int64{8, 64, 56, 56}, []int64{32, 64, 3, 3}
	xStrides, err := cudnnfe.StridesChannelsLast(xDims...)
	example.Check(err)
	wStrides, err := cudnnfe.StridesChannelsLast(wDims...)
	example.Check(err)
	x, err := g.Tensor("image", xDims, xStrides, cudnnfe.DataNotSet)
	example.Check(err)
	w, err := g.Tensor("weight", wDims, wStrides, cudnnfe.DataNotSet)
	example.Check(err)
	y, err := g.ConvFprop(x, w, &cudnnfe.ConvOptions{Padding: []int64{1, 1}})
	example.Check(err)
	example.Check(y.SetOutput(true))
	return g
}

// executeBoth runs the original and the loaded graph on the same inputs (bound by uid) and
// compares their outputs.
func executeBoth(handle *cudnnfe.Handle, original, loaded *cudnnfe.Graph) int {
	x, err := original.TensorByName("image")
	example.Check(err)
	w, err := original.TensorByName("weight")
	example.Check(err)
	outputs, err := original.Outputs()
	example.Check(err)
	y := outputs[0]
	var uids []int64
	for _, t := range []*cudnnfe.Tensor{x, w, y} {
		uid, err := t.UID()
		example.Check(err)
		uids = append(uids, uid)
	}
	var buffers example.Buffers // closed together on return
	defer buffers.Close()
	xb, _ := buffers.Input(x)
	wb, _ := buffers.Input(w)
	ya := buffers.Output(y)
	yb := buffers.Output(y)
	example.Check(original.ExecuteByUID(handle, uids, example.Pointers(xb, wb, ya), 0))
	example.Check(loaded.ExecuteByUID(handle, uids, example.Pointers(xb, wb, yb), 0))
	example.Check(handle.Synchronize())

	// Same plan, same inputs: the same bits (the reference in the layout's logical order).
	first := example.Download(ya, y)
	dims, err := y.Dims()
	example.Check(err)
	strides, err := y.Strides()
	example.Check(err)
	index := make([]int64, len(dims))
	want := make([]float64, len(first))
	for e := range want {
		offset := int64(0)
		for d := range dims {
			offset += index[d] * strides[d]
		}
		want[e] = float64(first[offset])
		for d := len(dims) - 1; d >= 0; d-- {
			index[d]++
			if index[d] < dims[d] {
				break
			}
			index[d] = 0
		}
	}
	return example.Compare("deserialized conv vs the original", y, example.Download(yb, y), want, 0, 0)
}
