using System;

namespace CudnnFe.Examples
{
    /// <summary>
    /// Plans that last: build the seed's convolution once, keep it as bytes, and load those bytes
    /// into a fresh graph with no heuristics and no compilation (what a service does at start-up
    /// with plans built ahead of time). On a GPU both graphs execute on the same inputs and must
    /// agree bit for bit; without one the plan is built, serialized and loaded for an H100
    /// description.
    /// </summary>
    public static class Serialization
    {
        public static int Main(string[] args) => Example.Run(() =>
        {
            using (Handle handle = Example.Handle())
            {
                string json = handle == null ? Example.DeviceJson(args) : null;
                if (handle == null && json == null) return Example.Skip;
                using (Graph graph = SeedConv())
                {
                    // With no handle the build targets the description (a deviceless build).
                    graph.Build(handle, new BuildOptions { DevicePropertiesJson = json });
                    byte[] bytes = graph.Serialize();
                    Console.WriteLine("serialized " + bytes.Length + " bytes:");
                    Console.WriteLine(Graph.DescribeSerialized(bytes));

                    using (Graph loaded = Graph.Deserialize(handle, bytes, new DeserializeOptions { DevicePropertiesJson = json }))
                    {
                        if (loaded.EngineTag != graph.EngineTag)
                        {
                            Console.Error.WriteLine("the loaded plan is " + loaded.EngineTag + ", not " + graph.EngineTag);
                            return 1;
                        }
                        if (handle == null)
                        {
                            Console.WriteLine("no GPU: plan " + loaded.EngineTag + " built, serialized and loaded devicelessly"
                                              + " for the H100 description; not executed");
                            return 0;
                        }
                        return ExecuteBoth(handle, graph, loaded);
                    }
                }
            }
        });

        /// <summary>The seed's first graph: an fp16 3x3 convolution in channels-last memory.</summary>
        private static Graph SeedConv()
        {
            var graph = new Graph(new GraphOptions { Name = "first_graph", IoDataType = DataType.Half, ComputeDataType = DataType.Float });
            long[] xDims = { 8, 64, 56, 56 }, wDims = { 32, 64, 3, 3 };
            Tensor x = graph.Tensor("image", xDims, Library.StridesChannelsLast(xDims), DataType.NotSet);
            Tensor w = graph.Tensor("weight", wDims, Library.StridesChannelsLast(wDims), DataType.NotSet);
            graph.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 } }).SetOutput(true);
            return graph;
        }

        /// <summary>Run the original and the loaded graph on the same inputs (bound by uid) and compare.</summary>
        private static int ExecuteBoth(Handle handle, Graph original, Graph loaded)
        {
            Tensor x = original.TensorByName("image"), w = original.TensorByName("weight"), y = original.Outputs[0];
            long[] uids = { x.Uid, w.Uid, y.Uid };
            float[] xh, wh;
            using (DeviceBuffer xb = Example.Input(x, out xh), wb = Example.Input(w, out wh),
                   ya = Example.Output(y), yb = Example.Output(y))
            {
                original.ExecuteByUid(handle, uids, new[] { xb.DevicePointer, wb.DevicePointer, ya.DevicePointer });
                loaded.ExecuteByUid(handle, uids, new[] { xb.DevicePointer, wb.DevicePointer, yb.DevicePointer });
                handle.Synchronize();
                // Same plan, same inputs: the same bits (the reference in the layout's logical order).
                float[] first = Example.Download(ya, y);
                long[] dims = y.Dims, strides = y.Strides, index = new long[dims.Length];
                var want = new double[first.Length];
                for (int e = 0; e < want.Length; ++e)
                {
                    long offset = 0;
                    for (int d = 0; d < dims.Length; ++d) offset += index[d] * strides[d];
                    want[e] = first[offset];
                    for (int d = dims.Length - 1; d >= 0; --d)
                    {
                        if (++index[d] < dims[d]) break;
                        index[d] = 0;
                    }
                }
                return Example.Compare("deserialized conv vs the original", y, Example.Download(yb, y), want, 0, 0);
            }
        }
    }
}
