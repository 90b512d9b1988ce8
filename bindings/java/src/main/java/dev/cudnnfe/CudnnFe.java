package dev.cudnnfe;

import java.nio.charset.StandardCharsets;

/** Library-wide information and helpers. */
public final class CudnnFe extends CudnnFeCalls {
    private CudnnFe() {}

    /** The loaded library's version, major * 10000 + minor * 100 + patch. */
    public static long version() {
        return NativeApi.fe_version();
    }

    /** The loaded library's version as "major.minor.patch". */
    public static String versionString() {
        return NativeApi.fe_version_string();
    }

    /** Packed (row-major) strides for dims. */
    public static long[] stridesPacked(long... dims) {
        long[] strides = new long[dims.length];
        Check.ok(NativeApi.fe_strides_packed(dims.length, dims, strides));
        return strides;
    }

    /** Channels-last strides (NHWC, NDHWC, NWC) for dims given as N, C, spatial... */
    public static long[] stridesChannelsLast(long... dims) {
        long[] strides = new long[dims.length];
        Check.ok(NativeApi.fe_strides_channels_last(dims.length, dims, strides));
        return strides;
    }

    /** The ALiBi slopes of `heads` attention heads. */
    public static float[] alibiSlopes(int heads) {
        float[] slopes = new float[Math.max(heads, 0)];
        Check.ok(NativeApi.fe_alibi_slopes(heads, slopes));
        return slopes;
    }

    /** The C library's two-call text protocol: ask for the length, then fill a buffer. */
    static final class Text {
        interface Call {
            int run(byte[] buffer, long[] length);
        }

        static String read(Call call) {
            long[] length = new long[1];
            int status = call.run(null, length);
            if (status != Status.BUFFER_TOO_SMALL.code) Check.ok(status);
            byte[] buffer = new byte[(int) length[0] + 1];
            Check.ok(call.run(buffer, length));
            return new String(buffer, 0, (int) length[0], StandardCharsets.UTF_8);
        }

        /** The same protocol for bytes (no terminating NUL). */
        static byte[] readBytes(Call call) {
            long[] length = new long[1];
            int status = call.run(null, length);
            if (status != Status.BUFFER_TOO_SMALL.code) Check.ok(status);
            byte[] buffer = new byte[(int) length[0]];
            Check.ok(call.run(buffer, length));
            return length[0] == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, (int) length[0]);
        }
    }
}
