package cudnnfe

import "cudnnfe.dev/cudnnfe/internal/capi"

// Version is the loaded library's version, major*10000 + minor*100 + patch.
func Version() uint32 {
	return uint32(capi.Fe_version())
}

// VersionString is the loaded library's version as "major.minor.patch".
func VersionString() string {
	return capi.Fe_version_string()
}

// CudnnVersion is the cuDNN version (e.g. 91900); it loads cuDNN.
func CudnnVersion() (int64, error) {
	version := []int64{0}
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_cudnn_version(version) })
	return version[0], err
}

// CudaRuntimeVersion is the CUDA runtime version (e.g. 13000); it loads the CUDA runtime.
func CudaRuntimeVersion() (int32, error) {
	version := []int32{0}
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_cuda_runtime_version(version) })
	return version[0], err
}

// DeviceCount is the number of CUDA devices (0 on a machine with the runtime and no GPU).
func DeviceCount() (int32, error) {
	count := []int32{0}
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_device_count(count) })
	return count[0], err
}

// EnablePeerAccess lets kernels on device read and write memory allocated on peer (synchronized
// batchnorm's buffers need it between every pair of its GPUs); enabling it again is no error.
// StatusNotSupported when the GPUs cannot reach each other.
func EnablePeerAccess(device, peer int32) error {
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_device_enable_peer_access(int(device), int(peer)) })
}

// CapturedDeviceProperties is cuDNN's JSON description of a live GPU, for deviceless builds.
func CapturedDeviceProperties(device int32) (string, error) {
	return readText(func(buffer []byte, length []int64) capi.Enum_SS_fe_status {
		return capi.Fe_device_properties_capture(int(device), buffer, int64(len(buffer)), length)
	})
}

// OpSchemaJSON is every operation's description as JSON (the op schema: ports, option fields
// with their types, defaults and ranges, enum names), as fe_op_schema_json gives it. Needs no
// cuDNN.
func OpSchemaJSON() (string, error) {
	return readText(func(buffer []byte, length []int64) capi.Enum_SS_fe_status {
		return capi.Fe_op_schema_json(buffer, int64(len(buffer)), length)
	})
}

// SetLogLevel changes the library's log level (CUDNNFE_LOG_LEVEL sets it at load).
func SetLogLevel(level LogLevel) error {
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_log_set_level(capi.Enum_SS_fe_log_level(level)) })
}

// StridesPacked is the packed (row-major) strides of dims.
func StridesPacked(dims ...int64) ([]int64, error) {
	strides := make([]int64, len(dims))
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_strides_packed(int64(len(dims)), dims, strides) })
	return strides, err
}

// StridesChannelsLast is the channels-last strides (NHWC, NDHWC, NWC) of dims given as N, C,
// spatial...
func StridesChannelsLast(dims ...int64) ([]int64, error) {
	strides := make([]int64, len(dims))
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_strides_channels_last(int64(len(dims)), dims, strides) })
	return strides, err
}

// AlibiSlopes is the ALiBi slopes of heads attention heads.
func AlibiSlopes(heads int) ([]float32, error) {
	if heads < 0 {
		return nil, invalid("AlibiSlopes: %d heads", heads)
	}
	slopes := make([]float32, heads)
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_alibi_slopes(int64(heads), slopes) })
	return slopes, err
}

// readText follows the C library's two-call text protocol: ask for the length, then fill a buffer.
func readText(f func(buffer []byte, length []int64) capi.Enum_SS_fe_status) (string, error) {
	length := []int64{0}
	err := call(func() capi.Enum_SS_fe_status { return f(nil, length) })
	if e, ok := err.(*Error); err != nil && (!ok || e.Status != StatusBufferTooSmall) {
		return "", err
	}
	buffer := make([]byte, length[0]+1)
	if err := call(func() capi.Enum_SS_fe_status { return f(buffer, length) }); err != nil {
		return "", err
	}
	return string(buffer[:length[0]]), nil
}

// readBytes is readText's protocol for bytes (no terminating NUL).
func readBytes(f func(buffer []byte, length []int64) capi.Enum_SS_fe_status) ([]byte, error) {
	length := []int64{0}
	err := call(func() capi.Enum_SS_fe_status { return f(nil, length) })
	if e, ok := err.(*Error); err != nil && (!ok || e.Status != StatusBufferTooSmall) {
		return nil, err
	}
	buffer := make([]byte, length[0])
	if len(buffer) == 0 {
		return buffer, nil
	}
	if err := call(func() capi.Enum_SS_fe_status { return f(buffer, length) }); err != nil {
		return nil, err
	}
	return buffer[:length[0]], nil
}
