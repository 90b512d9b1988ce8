package dev.cudnnfe;

import java.nio.charset.StandardCharsets;

/**
 * Compiled kernels that dynamic-shape builds share: a graph built with a kernel cache
 * ({@link BuildOptions#kernelCache} or {@link Graph#setKernelCache}) is built with dynamic shapes, so
 * a later graph of the same structure (operations, data types, layouts) with other dims builds from
 * the cache without compiling again. cuDNN 9.5 or later (NOT_SUPPORTED otherwise). A cache may be
 * shared by graphs of several structures and used by several threads. close() releases this
 * object's reference only: graphs built with the cache keep theirs and go on working.
 */
public final class KernelCache extends NativeObject {
    /** An empty kernel cache. */
    public KernelCache() {
        this(create());
    }

    /** Take ownership of a cache the library made (deserialized or loaded). */
    private KernelCache(long pointer) {
        super(pointer, "KernelCache");
    }

    private static long create() {
        long[] cache = new long[1];
        Check.ok(NativeApi.fe_kernel_cache_create(cache));
        return cache[0];
    }

    @Override
    void destroy(long pointer) {
        NativeApi.fe_kernel_cache_destroy(pointer);
    }

    /**
     * cuDNN's JSON form of the cache (cuDNN 9.10), for another process on the same kind of GPU with
     * the same cuDNN. BAD_STATE for a cache no graph has been built with yet.
     */
    public String serialize() {
        long cache = pointer();
        return CudnnFe.Text.read((buffer, length) -> NativeApi.fe_kernel_cache_serialize(cache, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    /**
     * A kernel cache from {@link #serialize}'s text (untrusted: checked to be a JSON object of at
     * most 256 MiB before cuDNN reads it; anything else throws INVALID_ARGUMENT). The caller closes it.
     */
    public static KernelCache deserialize(String json) {
        long[] cache = new long[1];
        Check.ok(NativeApi.fe_kernel_cache_deserialize(json,
                json == null ? 0 : json.getBytes(StandardCharsets.UTF_8).length, cache));
        return new KernelCache(cache[0]);
    }

    /**
     * Store the cache in the handle's persistent cache directory ({@link Handle#setCacheDirectory} or
     * $CUDNNFE_CACHE_DIR) under {@code name} (letters, digits, '-', '_' and '.', at most 64; anything
     * else throws INVALID_ARGUMENT), keyed by the GPU kind and the cuDNN version. handle may be null
     * ($CUDNNFE_CACHE_DIR only); BAD_STATE when there is no directory or the cache holds no kernels.
     */
    public void store(Handle handle, String name) {
        Check.ok(NativeApi.fe_kernel_cache_store(pointer(), handle == null ? 0 : handle.pointer(), name));
    }

    /**
     * The cache stored under {@code name} for the handle's GPU and cuDNN; NOT_FOUND when there is none
     * (or it was rejected as corrupt, and removed). The caller closes it.
     */
    public static KernelCache load(Handle handle, String name) {
        long[] cache = new long[1];
        Check.ok(NativeApi.fe_kernel_cache_load(handle == null ? 0 : handle.pointer(), name, cache));
        return new KernelCache(cache[0]);
    }
}
