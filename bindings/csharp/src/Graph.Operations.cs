namespace CudnnFe
{
    // The pointwise shortcuts of the C library (fe_graph_bias ...), beside the generated Pointwise
    // (Graph.Pointwise.g.cs): each returns its result, virtual until SetOutput(true).
    public sealed partial class Graph
    {
        // The pointwise conveniences; options (nullable) name the node, set the compute type and the
        // mode's parameters (relu's clips).
        public Tensor Bias(Tensor input, Tensor bias, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_bias(Pointer, Check.NotNull(input, "Graph.Bias", nameof(input)).Pointer, Check.NotNull(bias, "Graph.Bias", nameof(bias)).Pointer, native, y));
        }

        public Tensor Scale(Tensor input, Tensor scale, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_scale(Pointer, Check.NotNull(input, "Graph.Scale", nameof(input)).Pointer, Check.NotNull(scale, "Graph.Scale", nameof(scale)).Pointer, native, y));
        }

        public Tensor Add(Tensor a, Tensor b, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_add(Pointer, Check.NotNull(a, "Graph.Add", nameof(a)).Pointer, Check.NotNull(b, "Graph.Add", nameof(b)).Pointer, native, y));
        }

        public Tensor Mul(Tensor a, Tensor b, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_mul(Pointer, Check.NotNull(a, "Graph.Mul", nameof(a)).Pointer, Check.NotNull(b, "Graph.Mul", nameof(b)).Pointer, native, y));
        }

        public Tensor Relu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_relu(Pointer, Check.NotNull(input, "Graph.Relu", nameof(input)).Pointer, native, y));
        }

        public Tensor Gelu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_gelu(Pointer, Check.NotNull(input, "Graph.Gelu", nameof(input)).Pointer, native, y));
        }

        public Tensor Silu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_silu(Pointer, Check.NotNull(input, "Graph.Silu", nameof(input)).Pointer, native, y));
        }
    }
}
