package dev.cudnnfe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Device memory allocated by cudnnfe, with host transfers. Transfers are synchronous for the host
 * and ordered with the legacy default stream; with a non-blocking stream on a handle, call
 * {@link Handle#synchronize()} before reading results.
 */
public final class DeviceBuffer extends NativeObject {
    private DeviceBuffer(long pointer) {
        super(pointer, "DeviceBuffer");
    }

    /** `bytes` bytes on `device`. */
    public static DeviceBuffer allocate(int device, long bytes) {
        long[] buffer = new long[1];
        Check.ok(NativeApi.fe_buffer_create(device, bytes, buffer));
        return new DeviceBuffer(buffer[0]);
    }

    /** Large enough for the tensor's elements at its strides. */
    public static DeviceBuffer forTensor(int device, Tensor tensor) {
        long[] buffer = new long[1];
        Check.ok(NativeApi.fe_buffer_create_for_tensor(device, Check.notNull(tensor, "DeviceBuffer.forTensor", "tensor").pointer(), buffer));
        return new DeviceBuffer(buffer[0]);
    }

    @Override
    void destroy(long pointer) {
        NativeApi.fe_buffer_destroy(pointer);
    }

    /** The device address, for {@link Graph#execute(Handle, Tensor[], long[], long)}. */
    public long devicePointer() {
        long[] address = new long[1];
        Check.ok(NativeApi.fe_buffer_device_pointer(pointer(), address));
        return address[0];
    }

    public long size() {
        long[] bytes = new long[1];
        Check.ok(NativeApi.fe_buffer_size(pointer(), bytes));
        return bytes[0];
    }

    /** Upload floats, converted on the way to deviceType (float, double, half, bfloat16). */
    public void upload(float[] values, DataType deviceType) {
        Check.ok(NativeApi.fe_buffer_upload_float(pointer(), values, values.length, deviceType.code));
    }

    /** Download values.length elements of deviceType, converted to floats. */
    public void download(float[] values, DataType deviceType) {
        Check.ok(NativeApi.fe_buffer_download_float(pointer(), values, values.length, deviceType.code));
    }

    public float[] downloadFloats(int count, DataType deviceType) {
        float[] values = new float[count];
        download(values, deviceType);
        return values;
    }

    /** Upload 16-bit values as they are (fp16 or bfloat16 bit patterns). */
    public void upload(short[] bits) {
        ByteBuffer host = direct(2L * bits.length);
        host.asShortBuffer().put(bits);
        upload(host);
    }

    /** Download bits.length 16-bit values as they are. */
    public void download(short[] bits) {
        ByteBuffer host = direct(2L * bits.length);
        download(host);
        host.flip();
        host.asShortBuffer().get(bits);
    }

    /** Upload host's remaining bytes (from its position, which advances past them). */
    public void upload(ByteBuffer host) {
        int bytes = host.remaining();
        ByteBuffer source = host;
        if (!host.isDirect()) {
            source = direct(bytes);
            source.put(host.duplicate()).flip();
        }
        Check.ok(NativeApi.fe_buffer_upload(pointer(), source.slice(), bytes));
        host.position(host.position() + bytes);
    }

    /** Fill host's remaining bytes (from its position, which advances past them). */
    public void download(ByteBuffer host) {
        int bytes = host.remaining();
        ByteBuffer target = host.isDirect() ? host.slice() : direct(bytes);
        Check.ok(NativeApi.fe_buffer_download(pointer(), target, bytes));
        if (!host.isDirect()) host.duplicate().put(target);
        host.position(host.position() + bytes);
    }

    /** Set every byte to value (e.g. to poison outputs before a test). */
    public void fill(byte value) {
        Check.ok(NativeApi.fe_buffer_fill_bytes(pointer(), (short) (value & 0xFF)));
    }

    private static ByteBuffer direct(long bytes) {
        if (bytes > Integer.MAX_VALUE) {
            throw new CudnnFeException(Status.INVALID_ARGUMENT, "a host transfer is limited to 2 GiB per call");
        }
        return ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
    }
}
