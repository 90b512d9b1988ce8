package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Handle is a GPU, a CUDA stream, a cuDNN handle and a workspace that grows on demand. One
// goroutine at a time may use a handle; a built graph may run on several, each with its own.
type Handle struct {
	ptr uintptr
}

// NewHandle creates a handle on a CUDA device.
func NewHandle(device int32) (*Handle, error) {
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_create(int(device), out) }); err != nil {
		return nil, err
	}
	return &Handle{ptr: out[0]}, nil
}

// Close frees the handle and its workspace; closing again does nothing.
func (h *Handle) Close() error {
	if h != nil && h.ptr != 0 {
		capi.Fe_handle_destroy(h.ptr)
		h.ptr = 0
	}
	return nil
}

func (h *Handle) pointer() (uintptr, error) {
	if h == nil || h.ptr == 0 {
		return 0, closedError("Handle")
	}
	return h.ptr, nil
}

// SetStream sets the CUDA stream (a cudaStream_t; 0 is the legacy default stream).
func (h *Handle) SetStream(stream uintptr) error {
	p, err := h.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_set_stream(p, stream) })
}

// Stream is the CUDA stream executions are enqueued on.
func (h *Handle) Stream() (uintptr, error) {
	p, err := h.pointer()
	if err != nil {
		return 0, err
	}
	out := []uintptr{0}
	err = call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_get_stream(p, out) })
	return out[0], err
}

// Device is the handle's CUDA device.
func (h *Handle) Device() (int32, error) {
	p, err := h.pointer()
	if err != nil {
		return 0, err
	}
	out := []int32{0}
	err = call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_get_device(p, out) })
	return out[0], err
}

// Synchronize waits until the work enqueued on the handle's stream has finished.
func (h *Handle) Synchronize() error {
	p, err := h.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_synchronize(p) })
}

// WorkspaceSize is the bytes of workspace the handle holds now.
func (h *Handle) WorkspaceSize() (int64, error) {
	p, err := h.pointer()
	if err != nil {
		return 0, err
	}
	out := []int64{0}
	err = call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_workspace_size(p, out) })
	return out[0], err
}

// SetCacheDirectory stores plans built with this handle in a directory shared by processes, and
// loads identical graphs' plans from it; "" turns it off (else $CUDNNFE_CACHE_DIR, when set, is
// used).
func (h *Handle) SetCacheDirectory(directory string) error {
	p, err := h.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_set_cache_directory(p, directory) })
}

// SetCacheLimit is the bytes the cache directory may hold before its oldest entries are removed
// (default 1 GiB).
func (h *Handle) SetCacheLimit(maxBytes int64) error {
	p, err := h.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_handle_set_cache_limit(p, maxBytes) })
}
