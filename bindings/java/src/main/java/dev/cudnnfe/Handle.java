package dev.cudnnfe;

/**
 * A GPU, a CUDA stream, a cuDNN handle and a workspace that grows on demand. One thread at a time
 * may use a handle; a built graph may run on several threads, each with its own handle.
 */
public final class Handle extends NativeObject {
    /** A handle on GPU 0. */
    public Handle() {
        this(0);
    }

    public Handle(int device) {
        super(create(device), "Handle");
    }

    private static long create(int device) {
        long[] handle = new long[1];
        Check.ok(NativeApi.fe_handle_create(device, handle));
        return handle[0];
    }

    @Override
    void destroy(long pointer) {
        NativeApi.fe_handle_destroy(pointer);
    }

    /** The CUDA stream (a cudaStream_t as an integer; 0: the legacy default stream). */
    public void setStream(long stream) {
        Check.ok(NativeApi.fe_handle_set_stream(pointer(), stream));
    }

    public long stream() {
        long[] stream = new long[1];
        Check.ok(NativeApi.fe_handle_get_stream(pointer(), stream));
        return stream[0];
    }

    public int device() {
        int[] device = new int[1];
        Check.ok(NativeApi.fe_handle_get_device(pointer(), device));
        return device[0];
    }

    /** Wait until the work enqueued on the handle's stream has finished. */
    public void synchronize() {
        Check.ok(NativeApi.fe_handle_synchronize(pointer()));
    }

    /** Bytes of workspace the handle holds now. */
    public long workspaceSize() {
        long[] bytes = new long[1];
        Check.ok(NativeApi.fe_handle_workspace_size(pointer(), bytes));
        return bytes[0];
    }

    /**
     * Store plans built with this handle in a directory shared by processes, and load identical
     * graphs' plans from it; null turns it off (else $CUDNNFE_CACHE_DIR, when set, is used).
     */
    public void setCacheDirectory(String directory) {
        Check.ok(NativeApi.fe_handle_set_cache_directory(pointer(), directory));
    }

    /** Bytes the cache directory may hold before its oldest entries are removed (default 1 GiB). */
    public void setCacheLimit(long maxBytes) {
        Check.ok(NativeApi.fe_handle_set_cache_limit(pointer(), maxBytes));
    }
}
