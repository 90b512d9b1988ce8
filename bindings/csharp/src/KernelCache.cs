using System;
using System.Text;

namespace CudnnFe
{
    /// <summary>
    /// Compiled kernels that dynamic-shape builds share: a graph built with a kernel cache
    /// (<see cref="BuildOptions.KernelCache"/> or <see cref="Graph.SetKernelCache"/>) is built with
    /// dynamic shapes, so a later graph of the same structure (operations, data types, layouts) with
    /// other dims builds from the cache without compiling again. cuDNN 9.5 or later (NotSupported
    /// otherwise). A cache may be shared by graphs of several structures and used by several
    /// threads. Dispose releases this object's reference only: graphs built with the cache keep
    /// theirs and go on working.
    /// </summary>
    public sealed class KernelCache : NativeObject
    {
        /// <summary>An empty kernel cache.</summary>
        public KernelCache() : base(Create(), "KernelCache") { }

        /// <summary>Take ownership of a cache the library made (deserialized or loaded).</summary>
        private KernelCache(IntPtr pointer) : base(pointer, "KernelCache") { }

        private static IntPtr Create()
        {
            var cache = new IntPtr[1];
            Check.Ok(NativeApi.fe_kernel_cache_create(cache));
            return cache[0];
        }

        internal override void Destroy(IntPtr pointer) => NativeApi.fe_kernel_cache_destroy(pointer);

        /// <summary>
        /// cuDNN's JSON form of the cache (cuDNN 9.10), for another process on the same kind of GPU
        /// with the same cuDNN. BadState for a cache no graph has been built with yet.
        /// </summary>
        public string Serialize()
        {
            IntPtr cache = Pointer;
            return Library.ReadText((buffer, length) =>
                NativeApi.fe_kernel_cache_serialize(cache, buffer, buffer == null ? 0 : buffer.Length, length));
        }

        /// <summary>
        /// A kernel cache from <see cref="Serialize"/>'s text (untrusted: checked to be a JSON object
        /// of at most 256 MiB before cuDNN reads it; anything else throws InvalidArgument). The caller
        /// disposes it.
        /// </summary>
        public static KernelCache Deserialize(string json)
        {
            if (json == null) throw Check.NullArgumentException("KernelCache.Deserialize", nameof(json));
            var cache = new IntPtr[1];
            Check.Ok(NativeApi.fe_kernel_cache_deserialize(json, Encoding.UTF8.GetByteCount(json), cache));
            return new KernelCache(cache[0]);
        }

        /// <summary>
        /// Store the cache in the handle's persistent cache directory (<see cref="Handle.SetCacheDirectory"/>
        /// or $CUDNNFE_CACHE_DIR) under name (letters, digits, '-', '_' and '.', at most 64; anything
        /// else throws InvalidArgument), keyed by the GPU kind and the cuDNN version. handle may be
        /// null ($CUDNNFE_CACHE_DIR only); BadState when there is no directory or the cache holds no
        /// kernels.
        /// </summary>
        public void Store(Handle handle, string name) =>
            Check.Ok(NativeApi.fe_kernel_cache_store(Pointer, handle == null ? IntPtr.Zero : handle.Pointer, name));

        /// <summary>
        /// The cache stored under name for the handle's GPU and cuDNN; NotFound when there is none (or
        /// it was rejected as corrupt, and removed). The caller disposes it.
        /// </summary>
        public static KernelCache Load(Handle handle, string name)
        {
            var cache = new IntPtr[1];
            Check.Ok(NativeApi.fe_kernel_cache_load(handle == null ? IntPtr.Zero : handle.Pointer, name, cache));
            return new KernelCache(cache[0]);
        }
    }
}
