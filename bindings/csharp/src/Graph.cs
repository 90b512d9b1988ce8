using System;
using System.Collections.Generic;

namespace CudnnFe
{
    /// <summary>
    /// Tensors and operations; once built, a runnable plan. Building is single-threaded; a built
    /// graph may be executed from several threads, each with its own <see cref="Handle"/>. Dispose
    /// frees the graph, its tensors and its plans. Operations are in Graph.Operations.cs and the build
    /// in Graph.Build.cs; the calls described in bindings/surface.py are generated.
    /// </summary>
    public sealed partial class Graph : NativeObject
    {
        /// <summary>A graph; options null: float intermediates and math, io types per tensor.</summary>
        public Graph(GraphOptions options = null) : base(Create(options), "Graph") { }

        /// <summary>Take ownership of a graph the library made (deserialized, from JSON or from the cache).</summary>
        private Graph(IntPtr pointer) : base(pointer, "Graph") { }

        private static IntPtr Create(GraphOptions options)
        {
            var graph = new IntPtr[1];
            using (fe_graph_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_create(native, graph));
            return graph[0];
        }

        internal override void Destroy(IntPtr pointer) => NativeApi.fe_graph_destroy(pointer);

        /// <summary>An input of the graph's io type, packed (row-major).</summary>
        public Tensor Tensor(string name, params long[] dims) => Tensor(name, dims, null, DataType.NotSet);

        /// <summary>An input; strides null means packed, type NotSet the graph's io type.</summary>
        public Tensor Tensor(string name, long[] dims, long[] strides, DataType type)
        {
            if (strides != null && strides.Length != dims.Length)
                throw Check.Invalid("Graph.Tensor: tensor '" + name + "': " + dims.Length + " dims but " + strides.Length + " strides");
            return Output(o => NativeApi.fe_graph_tensor(Pointer, name, dims.Length, dims, strides, (fe_data_type)type, o));
        }

        /// <summary>Bind tensors to buffers (each checked to be large enough).</summary>
        public void Execute(Handle handle, IDictionary<Tensor, DeviceBuffer> buffers, IntPtr workspace = default(IntPtr))
        {
            var tensors = new Tensor[buffers.Count];
            var values = new DeviceBuffer[buffers.Count];
            buffers.Keys.CopyTo(tensors, 0);
            buffers.Values.CopyTo(values, 0);
            ExecuteBuffers(handle, tensors, values, workspace);
        }

        /// <summary><see cref="Describe"/>'s text; "Graph(disposed)" once disposed.</summary>
        public override string ToString() => IsDisposed ? "Graph(disposed)" : Describe();

        /// <summary>Run a C call that yields one tensor of this graph.</summary>
        private Tensor Output(Func<IntPtr[], fe_status> call)
        {
            var tensor = new IntPtr[1];
            Check.Ok(call(tensor));
            return new Tensor(this, tensor[0]);
        }

        private static IntPtr Optional(Tensor tensor) => tensor == null ? IntPtr.Zero : tensor.Pointer;
    }
}
