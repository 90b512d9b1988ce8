package dev.cudnnfe;

/**
 * What the graph's methods share, the generated ones (GraphOps) and the hand-written ones (Graph):
 * the graph's pointer and the wrapping of the tensors it hands back.
 */
abstract class GraphBase extends NativeObject {
    GraphBase(long pointer) {
        super(pointer, "Graph");
    }

    @Override
    void destroy(long pointer) {
        NativeApi.fe_graph_destroy(pointer);
    }

    /** A tensor the library returned. */
    final Tensor result(long tensor) {
        return new Tensor((Graph) this, tensor);
    }

    /** A tensor the library may not have returned (a conditional output): null when it did not. */
    final Tensor wrap(long tensor) {
        return tensor == 0 ? null : result(tensor);
    }

    /** NULL for a null tensor: the library takes it where the argument is optional and names it otherwise. */
    static long optional(Tensor tensor) {
        return tensor == null ? 0 : tensor.pointer();
    }

    /** A required tensor of the graph method {@code method}: a null one throws NullPointerException naming it. */
    static long required(Tensor tensor, String method, String parameter) {
        if (tensor == null) throw Check.nullArgument("Graph." + method, parameter);
        return tensor.pointer();
    }

    static void sameLength(String call, int n, String what, int m, String other) {
        if (n != m) throw new InvalidArgumentException(call + ": " + n + " " + what + " but " + m + " " + other);
    }
}
