using System;

namespace CudnnFe
{
    // Operations: each returns its result, virtual until SetOutput(true), named "<op name>::<port>".
    public sealed partial class Graph
    {
        public Tensor ConvFprop(Tensor image, Tensor weight, ConvOptions options = null)
        {
            using (fe_conv_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_conv_fprop(Pointer, image.Pointer, weight.Pointer, native, y));
        }

        public Tensor Matmul(Tensor a, Tensor b, MatmulOptions options = null)
        {
            using (fe_matmul_options native = options?.ToNative())
                return Output(c => NativeApi.fe_graph_matmul(Pointer, a.Pointer, b.Pointer, native, c));
        }

        /// <summary>Unary modes use in0; binary in0 and in1; BinarySelect in0, in1 and the mask in2.</summary>
        public Tensor Pointwise(PointwiseMode mode, Tensor in0, Tensor in1 = null, Tensor in2 = null,
                                PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_pointwise(Pointer, (fe_pointwise_mode)mode, in0.Pointer,
                                                                Optional(in1), Optional(in2), native, y));
        }

        // The pointwise conveniences; options (nullable) name the node, set the compute type and the
        // mode's parameters (relu's clips).
        public Tensor Bias(Tensor input, Tensor bias, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_bias(Pointer, input.Pointer, bias.Pointer, native, y));
        }

        public Tensor Scale(Tensor input, Tensor scale, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_scale(Pointer, input.Pointer, scale.Pointer, native, y));
        }

        public Tensor Add(Tensor a, Tensor b, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_add(Pointer, a.Pointer, b.Pointer, native, y));
        }

        public Tensor Mul(Tensor a, Tensor b, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_mul(Pointer, a.Pointer, b.Pointer, native, y));
        }

        public Tensor Relu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_relu(Pointer, input.Pointer, native, y));
        }

        public Tensor Gelu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_gelu(Pointer, input.Pointer, native, y));
        }

        public Tensor Silu(Tensor input, PointwiseOptions options = null)
        {
            using (fe_pointwise_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_silu(Pointer, input.Pointer, native, y));
        }

        /// <summary>Reduce over the options' axes (required); reduced dims become 1.</summary>
        public Tensor Reduction(Tensor input, ReductionMode mode, ReductionOptions options)
        {
            using (fe_reduction_options native = options?.ToNative())
                return Output(y => NativeApi.fe_graph_reduction(Pointer, input.Pointer, (fe_reduction_mode)mode, native, y));
        }

        /// <summary>Scaled dot-product attention, forward; Stats is null unless the options ask for it.</summary>
        public SdpaResult Sdpa(Tensor q, Tensor k, Tensor v, SdpaOptions options = null)
        {
            var o = new IntPtr[1];
            var stats = new IntPtr[1];
            using (fe_sdpa_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_sdpa(Pointer, q.Pointer, k.Pointer, v.Pointer, native, o, stats));
            return new SdpaResult(new Tensor(this, o[0]), stats[0] == IntPtr.Zero ? null : new Tensor(this, stats[0]));
        }

        /// <summary>Attention backward: dQ, dK, dV from the forward's inputs, output, stats and dO.</summary>
        public SdpaGradients SdpaBackward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor dO, Tensor stats,
                                          SdpaBackwardOptions options = null)
        {
            var dq = new IntPtr[1];
            var dk = new IntPtr[1];
            var dv = new IntPtr[1];
            using (fe_sdpa_backward_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_sdpa_backward(Pointer, q.Pointer, k.Pointer, v.Pointer, o.Pointer, dO.Pointer,
                                                          stats.Pointer, native, dq, dk, dv));
            return new SdpaGradients(new Tensor(this, dq[0]), new Tensor(this, dk[0]), new Tensor(this, dv[0]));
        }
    }
}
