package cudnnfe

import (
	"errors"
	"strings"
	"testing"
)

// Device buffers: transfers on a GPU; without one, creation fails with the library's CUDA error.

func TestWithoutAGPUBufferCreationFailsWithTheCudaStatus(t *testing.T) {
	if gpuAvailable() {
		t.Skip("this machine has a GPU")
	}
	_, err := NewDeviceBuffer(0, 1024)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("expected an *Error, got %v", err)
	}
	if e.Status != StatusNoDevice && e.Status != StatusCudaError && e.Status != StatusLibraryUnavailable {
		t.Errorf("status %v: %s", e.Status, e.Message)
	}
	if !strings.HasPrefix(e.Message, "cudnnfe.NewDeviceBuffer") || strings.Contains(e.Message, "\n") {
		t.Errorf("message %q", e.Message)
	}
	if _, err := NewHandle(0); err == nil {
		t.Error("a handle without a GPU")
	}
}

func TestFloatsRoundTripThroughHalfAndFloat(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	b, err := NewDeviceBuffer(0, 64)
	must(t, err)
	defer b.Close()
	if size, _ := b.Size(); size != 64 {
		t.Errorf("size %d", size)
	}
	if p, _ := b.DevicePointer(); p == 0 || p%16 != 0 {
		t.Errorf("device pointer %#x", p)
	}
	values := []float32{0.5, -1.25, 3, 1024}
	for _, dt := range []DataType{DataHalf, DataFloat} {
		must(t, b.UploadFloat32(values, dt))
		back := make([]float32, 4)
		must(t, b.DownloadFloat32(back, dt))
		for i := range values {
			if back[i] != values[i] {
				t.Errorf("%v: %v, expected %v", dt, back, values)
			}
		}
	}
}

func TestBitsAndBytesMoveUnchanged(t *testing.T) {
	if !gpuAvailable() {
		t.Skip("no GPU here")
	}
	b, err := NewDeviceBuffer(0, 8)
	must(t, err)
	defer b.Close()
	bits := []uint16{0x3C00, 0xC000, 0x7BFF, 0x0001} // fp16 1, -2, max, smallest subnormal
	must(t, b.UploadBits16(bits))
	back := make([]uint16, 4)
	must(t, b.DownloadBits16(back))
	floats := make([]float32, 4)
	must(t, b.DownloadFloat32(floats, DataHalf))
	for i, want := range []float32{1, -2, 65504, 5.9604645e-8} {
		if back[i] != bits[i] || floats[i] != want {
			t.Errorf("element %d: bits %#x, value %v", i, back[i], floats[i])
		}
	}
	must(t, b.Upload([]byte{1, 2, 3, 4, 5, 6, 7, 8}))
	raw := make([]byte, 8)
	must(t, b.Download(raw))
	if string(raw) != "\x01\x02\x03\x04\x05\x06\x07\x08" {
		t.Errorf("bytes %v", raw)
	}
	must(t, b.Fill(0xFF))
	must(t, b.Download(raw))
	if raw[0] != 0xFF || raw[7] != 0xFF {
		t.Errorf("fill %v", raw)
	}
}
