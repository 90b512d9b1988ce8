package dev.cudnnfe;

/** Element types of tensors. */
public enum DataType {
    /** Take the graph's default (io for inputs and outputs, intermediate otherwise). */
    NOT_SET(-1),
    FLOAT(0),
    DOUBLE(1),
    HALF(2),
    INT8(3),
    INT32(4),
    UINT8(6),
    BFLOAT16(9),
    INT64(10),
    BOOLEAN(11),
    FP8_E4M3(12),
    FP8_E5M2(13),
    /** Power-of-two block scales of MXFP8 (block-scale quantize/dequantize). */
    FP8_E8M0(15),
    /** 4-bit signed integers, two to a byte (the even element in the low bits). */
    INT4(17),
    /** 4-bit unsigned integers, two to a byte. */
    UINT4(18);

    public final int code;

    DataType(int code) {
        this.code = code;
    }

    /** Bytes per element (0 for NOT_SET and the 4-bit types). */
    public long size() {
        return NativeApi.fe_data_type_size(code);
    }

    /** Bits per element: 4 for INT4 and UINT4 (0 for NOT_SET). */
    public long bits() {
        return NativeApi.fe_data_type_bits(code);
    }

    /** The C library's name of the type ("half", "bfloat16", ...). */
    public String libraryName() {
        return NativeApi.fe_data_type_string(code);
    }

    static DataType of(int code) {
        for (DataType t : values()) {
            if (t.code == code) return t;
        }
        throw new CudnnFeException(Status.INVALID_ARGUMENT, "unknown data type " + code);
    }
}
