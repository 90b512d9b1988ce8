using System;
using System.Text;

namespace CudnnFe
{
    // Plans that last: autotuning, the plan cache's keys, serialized bytes and JSON text.
    public sealed partial class Graph
    {
        /// <summary>
        /// A built graph ready to execute, registered by a build with <see cref="BuildOptions.CacheKey"/>;
        /// NotFound if none. handle may be null (deviceless graphs). The caller disposes it.
        /// </summary>
        public static Graph FromCache(Handle handle, string cacheKey)
        {
            var graph = new IntPtr[1];
            Check.Ok(NativeApi.fe_graph_from_cache(Optional(handle), cacheKey, graph));
            return Adopt(graph[0]);
        }

        /// <summary>
        /// The built graph as self-contained, versioned bytes (the graph, the chosen plan, the uid
        /// layout, the library and cuDNN versions, the GPU's fingerprint and a checksum).
        /// </summary>
        public byte[] Serialize()
        {
            IntPtr graph = Pointer;
            return Library.ReadBytes((buffer, length) =>
                NativeApi.fe_graph_serialize(graph, buffer, buffer == null ? 0 : buffer.Length, length));
        }

        /// <summary>
        /// A graph ready to execute from <see cref="Serialize"/>'s bytes, with no heuristics and no
        /// compilation. handle may be null when the options carry device properties; options may be
        /// null. Corrupted bytes throw InvalidArgument; a version or GPU mismatch under
        /// <see cref="MismatchPolicy.Refuse"/> throws NotSupported naming it.
        /// </summary>
        public static Graph Deserialize(Handle handle, byte[] data, DeserializeOptions options = null)
        {
            if (data == null) throw Check.NullArgumentException("Graph.Deserialize", nameof(data));
            var graph = new IntPtr[1];
            using (fe_deserialize_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_deserialize(Optional(handle), data, data.Length, native, graph));
            return Adopt(graph[0]);
        }

        /// <summary>A readable description of serialized bytes (header, graph, engine) without loading the plan.</summary>
        public static string DescribeSerialized(byte[] data)
        {
            if (data == null) throw Check.NullArgumentException("Graph.DescribeSerialized", nameof(data));
            return Library.ReadText((buffer, length) =>
                NativeApi.fe_serialized_describe(data, data.Length, buffer, buffer == null ? 0 : buffer.Length, length));
        }

        /// <summary>A new graph from JSON text; errors name the line and the field.</summary>
        public static Graph FromJson(string json)
        {
            if (json == null) throw Check.NullArgumentException("Graph.FromJson", nameof(json));
            var graph = new IntPtr[1];
            Check.Ok(NativeApi.fe_graph_from_json(json, Encoding.UTF8.GetByteCount(json), graph));
            return Adopt(graph[0]);
        }
    }
}
