package dev.cudnnfe;

/**
 * A tensor of a graph. The graph owns it: it lives as long as the graph is open, and a tensor keeps
 * its graph reachable (so a graph is never lost while a tensor of it is in use). Setters return the
 * tensor, for chaining, and are allowed until the graph is built.
 */
public final class Tensor {
    private final Graph graph;
    private final long pointer;

    Tensor(Graph graph, long pointer) {
        this.graph = graph;
        this.pointer = pointer;
    }

    public Graph graph() {
        return graph;
    }

    /** The C pointer; throws if the graph is closed (the tensor died with it). */
    long pointer() {
        graph.pointer();
        return pointer;
    }

    public String name() {
        String[] name = new String[1];
        Check.ok(NativeApi.fe_tensor_get_name(pointer(), name));
        return name[0];
    }

    public Tensor setName(String name) {
        Check.ok(NativeApi.fe_tensor_set_name(pointer(), name));
        return this;
    }

    public long[] dims() {
        long[] dims = new long[rank()];
        Check.ok(NativeApi.fe_tensor_get_dims(pointer(), dims, dims.length));
        return dims;
    }

    public Tensor setDims(long... dims) {
        Check.ok(NativeApi.fe_tensor_set_dims(pointer(), dims.length, dims));
        return this;
    }

    public long[] strides() {
        long[] strides = new long[rank()];
        Check.ok(NativeApi.fe_tensor_get_strides(pointer(), strides, strides.length));
        return strides;
    }

    public Tensor setStrides(long... strides) {
        Check.ok(NativeApi.fe_tensor_set_strides(pointer(), strides.length, strides));
        return this;
    }

    public int rank() {
        long[] rank = new long[1];
        Check.ok(NativeApi.fe_tensor_get_ndims(pointer(), rank));
        return (int) rank[0];
    }

    public DataType dataType() {
        int[] type = new int[1];
        Check.ok(NativeApi.fe_tensor_get_data_type(pointer(), type));
        return DataType.of(type[0]);
    }

    public Tensor setDataType(DataType type) {
        Check.ok(NativeApi.fe_tensor_set_data_type(pointer(), type.code));
        return this;
    }

    /** The uid set, or the one the build assigned; BAD_STATE before either. */
    public long uid() {
        long[] uid = new long[1];
        Check.ok(NativeApi.fe_tensor_get_uid(pointer(), uid));
        return uid[0];
    }

    public Tensor setUid(long uid) {
        Check.ok(NativeApi.fe_tensor_set_uid(pointer(), uid));
        return this;
    }

    /**
     * Promise that every pointer bound to this tensor is aligned to {@code bytes} (a power of two,
     * 16 to 4096); execution refuses one that is not.
     */
    public Tensor setAlignment(long bytes) {
        Check.ok(NativeApi.fe_tensor_set_alignment(pointer(), bytes));
        return this;
    }

    /** Packed variable-length layout: batch i starts at element offsets[i] (null removes it). */
    public Tensor setRaggedOffset(Tensor offsets) {
        Check.ok(NativeApi.fe_tensor_set_ragged_offset(pointer(), offsets == null ? 0 : offsets.pointer()));
        return this;
    }

    /** Make an operation's result a graph output (non-virtual), or undo it. */
    public Tensor setOutput(boolean isOutput) {
        Check.ok(NativeApi.fe_tensor_set_output(pointer(), isOutput ? 1 : 0));
        return this;
    }

    public boolean isOutput() {
        int[] flag = new int[1];
        Check.ok(NativeApi.fe_tensor_is_output(pointer(), flag));
        return flag[0] != 0;
    }

    public boolean isVirtual() {
        int[] flag = new int[1];
        Check.ok(NativeApi.fe_tensor_is_virtual(pointer(), flag));
        return flag[0] != 0;
    }

    /** Bytes a buffer for this tensor needs. */
    public long sizeBytes() {
        long[] bytes = new long[1];
        Check.ok(NativeApi.fe_tensor_size_bytes(pointer(), bytes));
        return bytes[0];
    }

    /** Tensors are equal when they are the same tensor of the same graph. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Tensor && ((Tensor) other).graph == graph && ((Tensor) other).pointer == pointer;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(pointer);
    }

    @Override
    public String toString() {
        return graph.isClosed() ? "Tensor(closed graph)" : "Tensor(" + name() + " " + java.util.Arrays.toString(dims()) + ")";
    }
}
