package dev.cudnnfe;

import java.nio.charset.StandardCharsets;

/** Library-wide information and helpers. */
public final class CudnnFe {
    private CudnnFe() {}

    /** The loaded library's version, major * 10000 + minor * 100 + patch. */
    public static long version() {
        return NativeApi.fe_version();
    }

    /** The loaded library's version as "major.minor.patch". */
    public static String versionString() {
        return NativeApi.fe_version_string();
    }

    /** The cuDNN version (e.g. 91900); loads cuDNN. */
    public static long cudnnVersion() {
        long[] version = new long[1];
        Check.ok(NativeApi.fe_cudnn_version(version));
        return version[0];
    }

    /** The CUDA runtime version (e.g. 13000); loads the CUDA runtime. */
    public static int cudaRuntimeVersion() {
        int[] version = new int[1];
        Check.ok(NativeApi.fe_cuda_runtime_version(version));
        return version[0];
    }

    /** The number of CUDA devices (0 on a machine with the runtime and no GPU). */
    public static int deviceCount() {
        int[] count = new int[1];
        Check.ok(NativeApi.fe_device_count(count));
        return count[0];
    }

    /**
     * Let kernels on {@code device} read and write memory allocated on {@code peer} (synchronized
     * batchnorm's buffers need it between every pair of its GPUs); enabling it again is no error.
     * NOT_SUPPORTED when the GPUs cannot reach each other.
     */
    public static void enablePeerAccess(int device, int peer) {
        Check.ok(NativeApi.fe_device_enable_peer_access(device, peer));
    }

    /** cuDNN's JSON description of a live GPU, for deviceless builds elsewhere. */
    public static String capturedDeviceProperties(int device) {
        return Text.read((buffer, length) -> NativeApi.fe_device_properties_capture(device, buffer,
                buffer == null ? 0 : buffer.length, length));
    }

    /**
     * Every operation's description as JSON (the op schema: ports, option fields with their types,
     * defaults and ranges, enum names), as fe_op_schema_json gives it. Needs no cuDNN.
     */
    public static String opSchemaJson() {
        return Text.read((buffer, length) -> NativeApi.fe_op_schema_json(buffer, buffer == null ? 0 : buffer.length, length));
    }

    public static void setLogLevel(LogLevel level) {
        Check.ok(NativeApi.fe_log_set_level(level.code));
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
