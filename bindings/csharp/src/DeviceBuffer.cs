using System;
using System.Runtime.InteropServices;

namespace CudnnFe
{
    // The host transfers, in C#'s own idiom; the rest of the class is generated from
    // bindings/surface.py.
    public sealed partial class DeviceBuffer
    {
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
