package cudnnfe

import (
	"fmt"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// staleLibrary is the error of every call when the loaded libcudnnfe.so.1 is not the version this
// package was built for (a stale copy found first on the library path): nil when it is.
var staleLibrary = versionMismatch(uint32(capi.FE_VERSION), Version())

func versionMismatch(built, loaded uint32) error {
	if built == loaded {
		return nil
	}
	message := fmt.Sprintf("cudnnfe %s (this package) loaded libcudnnfe.so.1 %s: the package and the C library "+
		"must be one version (a stale copy on LD_LIBRARY_PATH or in the run path?)", versionText(built), versionText(loaded))
	return &Error{Status: StatusLibraryUnavailable, Message: message, Reason: message}
}

func versionText(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
}

// Version is the loaded library's version, major*10000 + minor*100 + patch.
func Version() uint32 {
	return uint32(capi.Fe_version())
}

// VersionString is the loaded library's version as "major.minor.patch".
func VersionString() string {
	return capi.Fe_version_string()
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
		return nil, invalid("cudnnfe.AlibiSlopes: %d heads", heads)
	}
	slopes := make([]float32, heads)
	err := call(func() capi.Enum_SS_fe_status { return capi.Fe_alibi_slopes(int64(heads), slopes) })
	return slopes, err
}

// readText follows the C library's two-call text protocol: ask for the length, then fill a buffer.
func readText(f func(buffer []byte, length []int64) capi.Enum_SS_fe_status) (string, error) {
	text, err := readInto(f, 1)
	return string(text), err
}

// readBytes is readText's protocol for bytes (no terminating NUL).
func readBytes(f func(buffer []byte, length []int64) capi.Enum_SS_fe_status) ([]byte, error) {
	return readInto(f, 0)
}

func readInto(f func(buffer []byte, length []int64) capi.Enum_SS_fe_status, terminator int64) ([]byte, error) {
	length := []int64{0}
	err := call(func() capi.Enum_SS_fe_status { return f(nil, length) })
	if e, ok := err.(*Error); err != nil && (!ok || e.Status != StatusBufferTooSmall) {
		return nil, err
	}
	buffer := make([]byte, length[0]+terminator)
	if len(buffer) > 0 {
		if err := call(func() capi.Enum_SS_fe_status { return f(buffer, length) }); err != nil {
			return nil, err
		}
	}
	return buffer[:length[0]], nil
}
