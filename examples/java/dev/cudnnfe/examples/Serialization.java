package dev.cudnnfe.examples;

import dev.cudnnfe.BuildOptions;
import dev.cudnnfe.ConvOptions;
import dev.cudnnfe.CudnnFe;
import dev.cudnnfe.DataType;
import dev.cudnnfe.DeserializeOptions;
import dev.cudnnfe.DeviceBuffer;
import dev.cudnnfe.Graph;
import dev.cudnnfe.GraphOptions;
import dev.cudnnfe.Handle;
import dev.cudnnfe.Tensor;

/**
 * Plans that last: build the seed's convolution once, keep it as bytes, and load those bytes into a
 * fresh graph with no heuristics and no compilation (what a service does at start-up with plans
 * built ahead of time). On a GPU both graphs execute on the same inputs and must agree bit for bit;
 * without one the plan is built, serialized and loaded for an H100 description.
 */
public final class Serialization {
    public static void main(String[] args) {
        Example.main(() -> {
            try (Handle handle = Example.handle()) {
                String json = handle == null ? Example.deviceJson(args) : null;
                if (handle == null && json == null) return Example.SKIP;
                try (Graph graph = seedConv()) {
                    // With no handle the build targets the description (a deviceless build).
                    graph.build(handle, new BuildOptions().devicePropertiesJson(json));
                    byte[] bytes = graph.serialize();
                    System.out.println("serialized " + bytes.length + " bytes:");
                    System.out.println(Graph.describeSerialized(bytes));

                    try (Graph loaded = Graph.deserialize(handle, bytes, new DeserializeOptions().devicePropertiesJson(json))) {
                        if (!loaded.engineTag().equals(graph.engineTag())) {
                            System.err.println("the loaded plan is " + loaded.engineTag() + ", not " + graph.engineTag());
                            return 1;
                        }
                        if (handle == null) {
                            System.out.println("no GPU: plan " + loaded.engineTag() + " built, serialized and loaded"
                                    + " devicelessly for the H100 description; not executed");
                            return 0;
                        }
                        return executeBoth(handle, graph, loaded);
                    }
                }
            }
        });
    }

    /** The seed's first graph: an fp16 3x3 convolution in channels-last memory. */
    private static Graph seedConv() {
        Graph graph = new Graph(new GraphOptions().name("first_graph").ioDataType(DataType.HALF)
                .computeDataType(DataType.FLOAT));
        long[] xDims = {8, 64, 56, 56};
        long[] wDims = {32, 64, 3, 3};
        Tensor x = graph.tensor("image", xDims, CudnnFe.stridesChannelsLast(xDims), DataType.NOT_SET);
        Tensor w = graph.tensor("weight", wDims, CudnnFe.stridesChannelsLast(wDims), DataType.NOT_SET);
        graph.convFprop(x, w, new ConvOptions().padding(1, 1)).setOutput(true);
        return graph;
    }

    /** Run the original and the loaded graph on the same inputs (bound by uid) and compare. */
    private static int executeBoth(Handle handle, Graph original, Graph loaded) {
        Tensor x = original.tensorByName("image");
        Tensor w = original.tensorByName("weight");
        Tensor y = original.outputs().get(0);
        long[] uids = {x.uid(), w.uid(), y.uid()};
        float[][] xh = new float[1][];
        float[][] wh = new float[1][];
        try (DeviceBuffer xb = Example.input(x, xh); DeviceBuffer wb = Example.input(w, wh);
             DeviceBuffer ya = Example.output(y); DeviceBuffer yb = Example.output(y)) {
            original.executeByUid(handle, uids, new long[] {xb.devicePointer(), wb.devicePointer(), ya.devicePointer()}, 0);
            loaded.executeByUid(handle, uids, new long[] {xb.devicePointer(), wb.devicePointer(), yb.devicePointer()}, 0);
            handle.synchronize();
            float[] want = Example.download(ya, y);
            double[] wantLogical = new double[(int) (y.sizeBytes() / 2)];
            // Same plan, same inputs: the same bits (compared in the layout's logical order).
            long[] dims = y.dims();
            long[] strides = y.strides();
            long[] index = new long[dims.length];
            for (int e = 0; e < wantLogical.length; ++e) {
                long offset = 0;
                for (int d = 0; d < dims.length; ++d) offset += index[d] * strides[d];
                wantLogical[e] = want[(int) offset];
                for (int d = dims.length - 1; d >= 0; --d) {
                    if (++index[d] < dims[d]) break;
                    index[d] = 0;
                }
            }
            return Example.compare("deserialized conv vs the original", y, Example.download(yb, y), wantLogical, 0, 0);
        }
    }
}
