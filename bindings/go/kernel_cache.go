package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// KernelCache is compiled kernels that dynamic-shape builds share: a graph built with a kernel
// cache (BuildOptions.KernelCache or Graph.SetKernelCache) is built with dynamic shapes, so a later
// graph of the same structure (operations, data types, layouts) with other dims builds from the
// cache without compiling again. cuDNN 9.5 or later (StatusNotSupported otherwise). A cache may be
// shared by graphs of several structures and used by several goroutines. Close releases this
// value's reference only: graphs built with the cache keep theirs and go on working.
type KernelCache struct {
	ptr uintptr
}

// NewKernelCache creates an empty kernel cache.
func NewKernelCache() (*KernelCache, error) {
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_kernel_cache_create(out) }); err != nil {
		return nil, err
	}
	return &KernelCache{ptr: out[0]}, nil
}

// Close releases the caller's reference to the cache; closing again does nothing.
func (c *KernelCache) Close() error {
	if c != nil && c.ptr != 0 {
		capi.Fe_kernel_cache_destroy(c.ptr)
		c.ptr = 0
	}
	return nil
}

func (c *KernelCache) pointer() (uintptr, error) {
	if c == nil || c.ptr == 0 {
		return 0, closedError("KernelCache")
	}
	return c.ptr, nil
}

// Serialize is cuDNN's JSON form of the cache (cuDNN 9.10), for another process on the same kind
// of GPU with the same cuDNN. StatusBadState for a cache no graph has been built with yet.
func (c *KernelCache) Serialize() (string, error) {
	p, err := c.pointer()
	if err != nil {
		return "", err
	}
	return readText(func(buffer []byte, length []int64) capi.Enum_SS_fe_status {
		return capi.Fe_kernel_cache_serialize(p, buffer, int64(len(buffer)), length)
	})
}

// DeserializeKernelCache makes a kernel cache from Serialize's text (untrusted: checked to be a
// JSON object of at most 256 MiB before cuDNN reads it; anything else is StatusInvalidArgument).
// The caller closes it.
func DeserializeKernelCache(json string) (*KernelCache, error) {
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status {
		return capi.Fe_kernel_cache_deserialize(json, int64(len(json)), out)
	}); err != nil {
		return nil, err
	}
	return &KernelCache{ptr: out[0]}, nil
}

// Store writes the cache into the handle's persistent cache directory (Handle.SetCacheDirectory or
// $CUDNNFE_CACHE_DIR) under name (letters, digits, '-', '_' and '.', at most 64; anything else is
// StatusInvalidArgument), keyed by the GPU kind and the cuDNN version. h may be nil
// ($CUDNNFE_CACHE_DIR only); StatusBadState when there is no directory or the cache holds no
// kernels.
func (c *KernelCache) Store(h *Handle, name string) error {
	p, err := c.pointer()
	if err != nil {
		return err
	}
	hp, err := optionalHandle(h)
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_kernel_cache_store(p, hp, name) })
}

// LoadKernelCache is the cache stored under name for the handle's GPU and cuDNN; StatusNotFound
// when there is none (or it was rejected as corrupt, and removed). The caller closes it.
func LoadKernelCache(h *Handle, name string) (*KernelCache, error) {
	hp, err := handleArgument(h, "cudnnfe.LoadKernelCache", "h")
	if err != nil {
		return nil, err
	}
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_kernel_cache_load(hp, name, out) }); err != nil {
		return nil, err
	}
	return &KernelCache{ptr: out[0]}, nil
}
