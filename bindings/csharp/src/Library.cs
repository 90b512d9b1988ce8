using System;
using System.Text;

namespace CudnnFe
{
    /// <summary>
    /// Library-wide information and helpers.
    ///
    /// Loading: the P/Invoke declarations name only the glue library, libcudnnfe_csharp.so, by that
    /// explicit name (found beside CudnnFe.dll, on LD_LIBRARY_PATH or in the system's directories).
    /// The glue records libcudnnfe.so.1 as a needed library, so the system's loader finds the C
    /// library by its versioned name: beside the glue first (the glue's run path is its own
    /// directory), then on LD_LIBRARY_PATH and in the system's directories. No dllmap or resolver
    /// is needed on Mono or .NET.
    /// </summary>
    public static partial class Library
    {
        /// <summary>The loaded library's version, major * 10000 + minor * 100 + patch.</summary>
        public static uint Version => NativeApi.fe_version();

        /// <summary>The loaded library's version as "major.minor.patch".</summary>
        public static string VersionString => NativeApi.fe_version_string();

        /// <summary>Packed (row-major) strides for dims.</summary>
        public static long[] StridesPacked(params long[] dims)
        {
            var strides = new long[dims.Length];
            Check.Ok(NativeApi.fe_strides_packed(dims.Length, dims, strides));
            return strides;
        }

        /// <summary>Channels-last strides (NHWC, NDHWC, NWC) for dims given as N, C, spatial...</summary>
        public static long[] StridesChannelsLast(params long[] dims)
        {
            var strides = new long[dims.Length];
            Check.Ok(NativeApi.fe_strides_channels_last(dims.Length, dims, strides));
            return strides;
        }

        /// <summary>The ALiBi slopes of `heads` attention heads.</summary>
        public static float[] AlibiSlopes(int heads)
        {
            if (heads < 0) throw Check.Invalid("Library.AlibiSlopes: " + heads + " heads");
            var slopes = new float[heads];
            Check.Ok(NativeApi.fe_alibi_slopes(heads, slopes));
            return slopes;
        }

        /// <summary>Size in bytes of one element (0 for NotSet and the 4-bit types).</summary>
        public static long Size(this DataType type) => NativeApi.fe_data_type_size((fe_data_type)type);

        /// <summary>Size in bits of one element: 4 for Int4 and UInt4 (0 for NotSet).</summary>
        public static long Bits(this DataType type) => NativeApi.fe_data_type_bits((fe_data_type)type);

        /// <summary>The C library's name of the type ("half", "bfloat16", ...).</summary>
        public static string LibraryName(this DataType type) => NativeApi.fe_data_type_string((fe_data_type)type);

        /// <summary>The C library's name of the status ("FE_STATUS_NOT_SUPPORTED", ...).</summary>
        public static string LibraryName(this Status status) => NativeApi.fe_status_string((fe_status)status);

        /// <summary>The C library's two-call text protocol: ask for the length, then fill a buffer.</summary>
        internal static string ReadText(Func<byte[], long[], fe_status> call)
        {
            var length = new long[1];
            fe_status status = call(null, length);
            if (status != fe_status.FE_STATUS_BUFFER_TOO_SMALL) Check.Ok(status);
            var buffer = new byte[length[0] + 1];
            Check.Ok(call(buffer, length));
            return Encoding.UTF8.GetString(buffer, 0, (int)length[0]);
        }

        /// <summary>The same protocol for bytes (no terminating NUL).</summary>
        internal static byte[] ReadBytes(Func<byte[], long[], fe_status> call)
        {
            var length = new long[1];
            fe_status status = call(null, length);
            if (status != fe_status.FE_STATUS_BUFFER_TOO_SMALL) Check.Ok(status);
            var buffer = new byte[length[0]];
            Check.Ok(call(buffer, length));
            if (length[0] != buffer.Length) Array.Resize(ref buffer, (int)length[0]);
            return buffer;
        }
    }
}
