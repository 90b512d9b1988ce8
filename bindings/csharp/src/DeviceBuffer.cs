using System;
using System.Runtime.InteropServices;

namespace CudnnFe
{
    /// <summary>
    /// Device memory allocated by cudnnfe, with host transfers. Transfers are synchronous for the
    /// host and ordered with the legacy default stream; with a non-blocking stream on a handle,
    /// call <see cref="Handle.Synchronize"/> before reading results.
    /// </summary>
    public sealed class DeviceBuffer : NativeObject
    {
        private DeviceBuffer(IntPtr pointer) : base(pointer, "DeviceBuffer") { }

        internal override void Destroy(IntPtr pointer) => NativeApi.fe_buffer_destroy(pointer);

        /// <summary>`bytes` bytes on `device`.</summary>
        public static DeviceBuffer Allocate(int device, long bytes)
        {
            var buffer = new IntPtr[1];
            Check.Ok(NativeApi.fe_buffer_create(device, bytes, buffer));
            return new DeviceBuffer(buffer[0]);
        }

        /// <summary>Large enough for the tensor's elements at its strides.</summary>
        public static DeviceBuffer For(int device, Tensor tensor)
        {
            var buffer = new IntPtr[1];
            Check.Ok(NativeApi.fe_buffer_create_for_tensor(device, Check.NotNull(tensor, "DeviceBuffer.For", nameof(tensor)).Pointer, buffer));
            return new DeviceBuffer(buffer[0]);
        }

        /// <summary>The device address, for <see cref="Graph.Execute(Handle, Tensor[], IntPtr[], IntPtr)"/>.</summary>
        public IntPtr DevicePointer
        {
            get
            {
                var address = new IntPtr[1];
                Check.Ok(NativeApi.fe_buffer_device_pointer(Pointer, address));
                return address[0];
            }
        }

        public long Size
        {
            get
            {
                var bytes = new long[1];
                Check.Ok(NativeApi.fe_buffer_size(Pointer, bytes));
                return bytes[0];
            }
        }

        /// <summary>Upload floats, converted on the way to deviceType (float, double, half, bfloat16).</summary>
        public void Upload(float[] values, DataType deviceType)
        {
            Check.Ok(NativeApi.fe_buffer_upload_float(Pointer, values, values.Length, (fe_data_type)deviceType));
        }

        /// <summary>Download values.Length elements of deviceType, converted to floats.</summary>
        public void Download(float[] values, DataType deviceType)
        {
            Check.Ok(NativeApi.fe_buffer_download_float(Pointer, values, values.Length, (fe_data_type)deviceType));
        }

        public float[] DownloadFloats(int count, DataType deviceType)
        {
            var values = new float[count];
            Download(values, deviceType);
            return values;
        }

        /// <summary>Upload 16-bit values unchanged (fp16 or bfloat16 bit patterns).</summary>
        public void Upload(ushort[] bits) => Transfer(bits, 2, true);

        public void Download(ushort[] bits) => Transfer(bits, 2, false);

        public void Upload(short[] bits) => Transfer(bits, 2, true);

        public void Download(short[] bits) => Transfer(bits, 2, false);

        /// <summary>Upload bytes unchanged.</summary>
        public void Upload(byte[] data) => Transfer(data, 1, true);

        public void Download(byte[] data) => Transfer(data, 1, false);

        /// <summary>Upload `bytes` bytes of unmanaged host memory.</summary>
        public void Upload(IntPtr host, long bytes) => Check.Ok(NativeApi.fe_buffer_upload(Pointer, host, bytes));

        public void Download(IntPtr host, long bytes) => Check.Ok(NativeApi.fe_buffer_download(Pointer, host, bytes));

        /// <summary>Set every byte to value (e.g. to poison outputs before a test).</summary>
        public void Fill(byte value) => Check.Ok(NativeApi.fe_buffer_fill_bytes(Pointer, value));

        /// <summary>Pin a managed array for the duration of one raw transfer.</summary>
        private void Transfer(Array data, int elementSize, bool upload)
        {
            IntPtr buffer = Pointer;
            GCHandle pin = GCHandle.Alloc(data, GCHandleType.Pinned);
            try
            {
                IntPtr host = pin.AddrOfPinnedObject();
                long bytes = (long)data.Length * elementSize;
                Check.Ok(upload ? NativeApi.fe_buffer_upload(buffer, host, bytes)
                                : NativeApi.fe_buffer_download(buffer, host, bytes));
            }
            finally
            {
                pin.Free();
            }
        }
    }
}
