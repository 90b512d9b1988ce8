using System;

namespace CudnnFe
{
    /// <summary>
    /// A GPU, a CUDA stream, a cuDNN handle and a workspace that grows on demand. One thread at a
    /// time may use a handle; a built graph may run on several threads, each with its own handle.
    /// </summary>
    public sealed class Handle : NativeObject
    {
        public Handle(int device = 0) : base(Create(device), "Handle") { }

        private static IntPtr Create(int device)
        {
            var handle = new IntPtr[1];
            Check.Ok(NativeApi.fe_handle_create(device, handle));
            return handle[0];
        }

        internal override void Destroy(IntPtr pointer) => NativeApi.fe_handle_destroy(pointer);

        /// <summary>The CUDA stream (a cudaStream_t; IntPtr.Zero: the legacy default stream).</summary>
        public IntPtr Stream
        {
            get
            {
                var stream = new IntPtr[1];
                Check.Ok(NativeApi.fe_handle_get_stream(Pointer, stream));
                return stream[0];
            }
            set => Check.Ok(NativeApi.fe_handle_set_stream(Pointer, value));
        }

        public int Device
        {
            get
            {
                var device = new int[1];
                Check.Ok(NativeApi.fe_handle_get_device(Pointer, device));
                return device[0];
            }
        }

        /// <summary>Bytes of workspace the handle holds now.</summary>
        public long WorkspaceSize
        {
            get
            {
                var bytes = new long[1];
                Check.Ok(NativeApi.fe_handle_workspace_size(Pointer, bytes));
                return bytes[0];
            }
        }

        /// <summary>Wait until the work enqueued on the handle's stream has finished.</summary>
        public void Synchronize() => Check.Ok(NativeApi.fe_handle_synchronize(Pointer));

        /// <summary>
        /// Store plans built with this handle in a directory shared by processes, and load identical
        /// graphs' plans from it; null turns it off (else $CUDNNFE_CACHE_DIR, when set, is used).
        /// </summary>
        public void SetCacheDirectory(string directory) => Check.Ok(NativeApi.fe_handle_set_cache_directory(Pointer, directory));

        /// <summary>Bytes the cache directory may hold before its oldest entries are removed (default 1 GiB).</summary>
        public void SetCacheLimit(long maxBytes) => Check.Ok(NativeApi.fe_handle_set_cache_limit(Pointer, maxBytes));
    }
}
