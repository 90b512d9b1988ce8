package cudnnfe

import (
	"unsafe"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// DeviceBuffer is device memory allocated by cudnnfe. Transfers are synchronous for the host and
// ordered with the legacy default stream; with a non-blocking stream on a handle, call
// Handle.Synchronize before reading results.
type DeviceBuffer struct {
	ptr uintptr
}

// NewDeviceBuffer allocates bytes bytes on device.
func NewDeviceBuffer(device int32, bytes int64) (*DeviceBuffer, error) {
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_create(int(device), bytes, out) }); err != nil {
		return nil, err
	}
	return &DeviceBuffer{ptr: out[0]}, nil
}

// NewDeviceBufferFor allocates a buffer large enough for the tensor's elements at its strides.
func NewDeviceBufferFor(device int32, t *Tensor) (*DeviceBuffer, error) {
	tp, err := tensorArgument(t, "cudnnfe.NewDeviceBufferFor", "t")
	if err != nil {
		return nil, err
	}
	out := []uintptr{0}
	if err := call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_create_for_tensor(int(device), tp, out) }); err != nil {
		return nil, err
	}
	return &DeviceBuffer{ptr: out[0]}, nil
}

// Close frees the device memory; closing again does nothing.
func (b *DeviceBuffer) Close() error {
	if b != nil && b.ptr != 0 {
		capi.Fe_buffer_destroy(b.ptr)
		b.ptr = 0
	}
	return nil
}

func (b *DeviceBuffer) pointer() (uintptr, error) {
	if b == nil || b.ptr == 0 {
		return 0, closedError("DeviceBuffer")
	}
	return b.ptr, nil
}

// DevicePointer is the device address, for Graph.Execute.
func (b *DeviceBuffer) DevicePointer() (uintptr, error) {
	p, err := b.pointer()
	if err != nil {
		return 0, err
	}
	out := []uintptr{0}
	err = call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_device_pointer(p, out) })
	return out[0], err
}

// Size is the buffer's size in bytes.
func (b *DeviceBuffer) Size() (int64, error) {
	p, err := b.pointer()
	if err != nil {
		return 0, err
	}
	out := []int64{0}
	err = call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_size(p, out) })
	return out[0], err
}

// UploadFloat32 uploads values, converted on the way to deviceType (float, double, half, bfloat16).
func (b *DeviceBuffer) UploadFloat32(values []float32, deviceType DataType) error {
	p, err := b.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status {
		return capi.Fe_buffer_upload_float(p, values, int64(len(values)), deviceType.code())
	})
}

// DownloadFloat32 fills values with len(values) elements of deviceType, converted to float32.
func (b *DeviceBuffer) DownloadFloat32(values []float32, deviceType DataType) error {
	p, err := b.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status {
		return capi.Fe_buffer_download_float(p, values, int64(len(values)), deviceType.code())
	})
}

// Upload copies bytes to the start of the buffer unchanged.
func (b *DeviceBuffer) Upload(data []byte) error {
	p, err := b.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_upload(p, data, int64(len(data))) })
}

// Download fills data from the start of the buffer.
func (b *DeviceBuffer) Download(data []byte) error {
	p, err := b.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_download(p, data, int64(len(data))) })
}

// UploadBits16 uploads 16-bit values unchanged (fp16 or bfloat16 bit patterns).
func (b *DeviceBuffer) UploadBits16(bits []uint16) error {
	return b.Upload(bytesOf(bits))
}

// DownloadBits16 fills bits with 16-bit values unchanged.
func (b *DeviceBuffer) DownloadBits16(bits []uint16) error {
	return b.Download(bytesOf(bits))
}

// Fill sets every byte of the buffer to value (e.g. to poison outputs before a test).
func (b *DeviceBuffer) Fill(value byte) error {
	p, err := b.pointer()
	if err != nil {
		return err
	}
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_buffer_fill_bytes(p, value) })
}

// bytesOf views a slice of 16-bit values as its bytes, without copying.
func bytesOf(bits []uint16) []byte {
	if len(bits) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&bits[0])), 2*len(bits))
}
