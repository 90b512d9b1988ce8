package dev.cudnnfe;

/**
 * A tensor of a graph. The graph owns it: it lives as long as the graph is open, and a tensor keeps
 * its graph reachable (so a graph is never lost while a tensor of it is in use). Setters return the
 * tensor, for chaining, and are allowed until the graph is built.
 */
public final class Tensor extends TensorCalls {
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
    @Override
    long pointer() {
        graph.pointer();
        return pointer;
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
