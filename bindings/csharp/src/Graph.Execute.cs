using System;
using System.Collections.Generic;

namespace CudnnFe
{
    // Execution: every non-virtual tensor bound once to a 16-byte-aligned device pointer; the plan is
    // enqueued on the handle's stream. workspace IntPtr.Zero: the handle's own.
    public sealed partial class Graph
    {
        /// <summary>Bind tensors to device pointers.</summary>
        public void Execute(Handle handle, Tensor[] tensors, IntPtr[] devicePointers, IntPtr workspace = default(IntPtr))
        {
            if (tensors.Length != devicePointers.Length)
                throw Check.Invalid("Execute: " + tensors.Length + " tensors but " + devicePointers.Length + " device pointers");
            Check.Ok(NativeApi.fe_graph_execute(Pointer, Check.NotNull(handle, "Graph.Execute", nameof(handle)).Pointer, Pointers(tensors), devicePointers,
                                                tensors.Length, workspace));
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

        public void ExecuteBuffers(Handle handle, Tensor[] tensors, DeviceBuffer[] buffers, IntPtr workspace = default(IntPtr))
        {
            if (tensors.Length != buffers.Length)
                throw Check.Invalid("ExecuteBuffers: " + tensors.Length + " tensors but " + buffers.Length + " buffers");
            var bufferPointers = new IntPtr[buffers.Length];
            for (int i = 0; i < buffers.Length; ++i) bufferPointers[i] = Check.NotNull(buffers[i], "Graph.ExecuteBuffers", "buffers[" + i + "]").Pointer;
            Check.Ok(NativeApi.fe_graph_execute_buffers(Pointer, Check.NotNull(handle, "Graph.ExecuteBuffers", nameof(handle)).Pointer, Pointers(tensors), bufferPointers,
                                                        tensors.Length, workspace));
        }

        /// <summary>Bind tensors, named by uid, to device pointers.</summary>
        public void ExecuteByUid(Handle handle, long[] uids, IntPtr[] devicePointers, IntPtr workspace = default(IntPtr))
        {
            if (uids.Length != devicePointers.Length)
                throw Check.Invalid("ExecuteByUid: " + uids.Length + " uids but " + devicePointers.Length + " device pointers");
            Check.Ok(NativeApi.fe_graph_execute_by_uid(Pointer, Check.NotNull(handle, "Graph.ExecuteByUid", nameof(handle)).Pointer, uids, devicePointers, uids.Length, workspace));
        }

        /// <summary>Bind <see cref="Inputs"/> in order, then <see cref="Outputs"/>.</summary>
        public void ExecutePositional(Handle handle, IntPtr[] devicePointers, IntPtr workspace = default(IntPtr))
        {
            Check.Ok(NativeApi.fe_graph_execute_positional(Pointer, Check.NotNull(handle, "Graph.ExecutePositional", nameof(handle)).Pointer, devicePointers, devicePointers.Length,
                                                           workspace));
        }

        /// <summary>Add this graph's work, bound as <see cref="Execute(Handle, Tensor[], IntPtr[], IntPtr)"/>
        /// binds, to an empty CUDA graph (a cudaGraph_t); the workspace, when the graph needs one, must be
        /// given and outlive the CUDA graph.</summary>
        public void PopulateCudaGraph(Handle handle, Tensor[] tensors, IntPtr[] devicePointers, IntPtr workspace,
                                      IntPtr cudaGraph)
        {
            if (tensors.Length != devicePointers.Length)
                throw Check.Invalid("PopulateCudaGraph: " + tensors.Length + " tensors but " + devicePointers.Length + " device pointers");
            Check.Ok(NativeApi.fe_graph_populate_cuda_graph(Pointer, Check.NotNull(handle, "Graph.PopulateCudaGraph", nameof(handle)).Pointer, Pointers(tensors), devicePointers,
                                                            tensors.Length, workspace, cudaGraph));
        }

        /// <summary>Rebind a CUDA graph populated by <see cref="PopulateCudaGraph"/> to new pointers, in place.</summary>
        public void UpdateCudaGraph(Handle handle, Tensor[] tensors, IntPtr[] devicePointers, IntPtr workspace,
                                    IntPtr cudaGraph)
        {
            if (tensors.Length != devicePointers.Length)
                throw Check.Invalid("UpdateCudaGraph: " + tensors.Length + " tensors but " + devicePointers.Length + " device pointers");
            Check.Ok(NativeApi.fe_graph_update_cuda_graph(Pointer, Check.NotNull(handle, "Graph.UpdateCudaGraph", nameof(handle)).Pointer, Pointers(tensors), devicePointers,
                                                          tensors.Length, workspace, cudaGraph));
        }

        private static IntPtr[] Pointers(Tensor[] tensors)
        {
            var pointers = new IntPtr[tensors.Length];
            for (int i = 0; i < tensors.Length; ++i) pointers[i] = Check.NotNull(tensors[i], "Graph", "tensors[" + i + "]").Pointer;
            return pointers;
        }
    }
}
