package cudnnfe

import (
	"unsafe"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// The host transfers of a DeviceBuffer, in Go's own idiom; the rest of it is generated from
// bindings/surface.py.

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

// bytesOf views a slice of 16-bit values as its bytes, without copying.
func bytesOf(bits []uint16) []byte {
	if len(bits) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&bits[0])), 2*len(bits))
}
