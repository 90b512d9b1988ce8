using System;

namespace CudnnFe
{
    // Convolution gradients and variants, normalizations, softmax, random numbers, FP8 and block
    // scaling. Each result is virtual until SetOutput(true).
    public sealed partial class Graph
    {
        /// <summary>
        /// Data gradient: dx from dy [N, K, out...] and the weight, with the forward pass's options.
        /// dxDims (the image's dims) are required: with a stride above 1 several image sizes give the same dy.
        /// </summary>
        public Tensor ConvDgrad(Tensor dy, Tensor weight, long[] dxDims, ConvOptions options = null)
        {
            if (dxDims == null) throw Check.Invalid("ConvDgrad: dxDims is null");
            using (fe_conv_options native = options?.ToNative())
                return Output(o => NativeApi.fe_graph_conv_dgrad(Pointer, dy.Pointer, weight.Pointer, dxDims.Length, dxDims, native, o));
        }

        /// <summary>Weight gradient; dwDims may be null when exactly one filter size gives dy (always with stride 1).</summary>
        public Tensor ConvWgrad(Tensor image, Tensor dy, long[] dwDims = null, ConvOptions options = null)
        {
            using (fe_conv_options native = options?.ToNative())
                return Output(o => NativeApi.fe_graph_conv_wgrad(Pointer, image.Pointer, dy.Pointer, dwDims == null ? 0 : dwDims.Length,
                                                                 dwDims, native, o));
        }

        /// <summary>Transposed convolution (upsampling); weight [C_in, C_out / groups, filter...].</summary>
        public Tensor ConvTranspose(Tensor image, Tensor weight, ConvOptions options = null)
        {
            using (fe_conv_options native = options?.ToNative())
                return Output(o => NativeApi.fe_graph_conv_transpose(Pointer, image.Pointer, weight.Pointer, native, o));
        }

        private delegate fe_status NormCall(IntPtr graph, IntPtr x, IntPtr scale, IntPtr bias, fe_norm_options options,
                                            IntPtr[] y, IntPtr[] mean, IntPtr[] inv);

        private NormResult Norm(NormCall call, Tensor x, Tensor scale, Tensor bias, NormOptions options)
        {
            IntPtr[] y = new IntPtr[1], mean = new IntPtr[1], inv = new IntPtr[1];
            using (fe_norm_options native = options?.ToNative())
                Check.Ok(call(Pointer, x.Pointer, scale.Pointer, Optional(bias), native, y, mean, inv));
            return new NormResult { Y = Wrap(y[0]), Mean = Wrap(mean[0]), InvVariance = Wrap(inv[0]) };
        }

        /// <summary>Layer normalization; in training also the mean and inverse variance.</summary>
        public NormResult Layernorm(Tensor x, Tensor scale, Tensor bias, NormOptions options = null) =>
            Norm(NativeApi.fe_graph_layernorm, x, scale, bias, options);

        /// <summary>RMS normalization (bias may be null); in training InvVariance is the inverse RMS.</summary>
        public NormResult Rmsnorm(Tensor x, Tensor scale, Tensor bias = null, NormOptions options = null) =>
            Norm((g, xp, sp, bp, o, y, mean, inv) => NativeApi.fe_graph_rmsnorm(g, xp, sp, bp, o, y, inv), x, scale, bias, options);

        /// <summary>Instance normalization: per image and channel, over the spatial dims.</summary>
        public NormResult Instancenorm(Tensor x, Tensor scale, Tensor bias, NormOptions options = null) =>
            Norm(NativeApi.fe_graph_instancenorm, x, scale, bias, options);

        /// <summary>Adaptive layer normalization: scale and (nullable) bias may differ per sample.</summary>
        public NormResult Adalayernorm(Tensor x, Tensor scale, Tensor bias, NormOptions options = null) =>
            Norm(NativeApi.fe_graph_adalayernorm, x, scale, bias, options);

        /// <summary>Batch normalization, training: per-channel statistics over the batch and spatial dims.</summary>
        public BatchnormResult Batchnorm(Tensor x, Tensor scale, Tensor bias, BatchnormOptions options = null)
        {
            IntPtr[] y = new IntPtr[1], mean = new IntPtr[1], inv = new IntPtr[1], nextMean = new IntPtr[1], nextVar = new IntPtr[1];
            using (fe_batchnorm_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_batchnorm(Pointer, x.Pointer, scale.Pointer, bias.Pointer, native, y, mean, inv, nextMean, nextVar));
            return new BatchnormResult
            {
                Y = Wrap(y[0]), Mean = Wrap(mean[0]), InvVariance = Wrap(inv[0]),
                NextRunningMean = Wrap(nextMean[0]), NextRunningVar = Wrap(nextVar[0]),
            };
        }

        /// <summary>Batch normalization, inference, from given statistics (invVariance = 1 / sqrt(var + eps)).</summary>
        public Tensor BatchnormInference(Tensor x, Tensor mean, Tensor invVariance, Tensor scale, Tensor bias, string name = null)
        {
            using (var native = new fe_batchnorm_inference_options())
            {
                if (name != null) native.name = name;
                return Output(y => NativeApi.fe_graph_batchnorm_inference(Pointer, x.Pointer, mean.Pointer, invVariance.Pointer,
                                                                          scale.Pointer, bias.Pointer, native, y));
            }
        }

        private delegate fe_status NormBackwardCall(IntPtr graph, IntPtr dy, IntPtr x, IntPtr scale, IntPtr mean, IntPtr inv,
                                                    fe_norm_backward_options options, IntPtr[] dx, IntPtr[] dscale, IntPtr[] dbias);

        private NormGradients NormBackward(NormBackwardCall call, Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor inv,
                                           bool zeroCenteredGamma, bool withBias)
        {
            IntPtr[] dx = new IntPtr[1], dscale = new IntPtr[1], dbias = withBias ? new IntPtr[1] : null;
            using (var native = new fe_norm_backward_options())
            {
                native.zero_centered_gamma = zeroCenteredGamma ? 1 : 0;
                Check.Ok(call(Pointer, dy.Pointer, x.Pointer, scale.Pointer, Optional(mean), inv.Pointer, native, dx, dscale, dbias));
            }
            return new NormGradients { DX = Wrap(dx[0]), DScale = Wrap(dscale[0]), DBias = dbias == null ? null : Wrap(dbias[0]) };
        }

        /// <summary>Layer normalization backward, from the forward's x, scale and training statistics.</summary>
        public NormGradients LayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                               bool zeroCenteredGamma = false) =>
            NormBackward(NativeApi.fe_graph_layernorm_backward, dy, x, scale, mean, invVariance, zeroCenteredGamma, true);

        /// <summary>RMS normalization backward, from the forward's inverse RMS; withBias: the forward had a bias.</summary>
        public NormGradients RmsnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor invRms, bool zeroCenteredGamma = false,
                                             bool withBias = false) =>
            NormBackward((g, dyp, xp, sp, mean, inv, o, dx, ds, db) => NativeApi.fe_graph_rmsnorm_backward(g, dyp, xp, sp, inv, o, dx, ds, db),
                         dy, x, scale, null, invRms, zeroCenteredGamma, withBias);

        public NormGradients InstancenormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) =>
            NormBackward(NativeApi.fe_graph_instancenorm_backward, dy, x, scale, mean, invVariance, false, true);

        /// <summary>AdaLN backward; withBias: the forward had a bias.</summary>
        public NormGradients AdalayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance, bool withBias = true) =>
            NormBackward(NativeApi.fe_graph_adalayernorm_backward, dy, x, scale, mean, invVariance, false, withBias);

        /// <summary>Batch normalization backward, from the forward's batch statistics.</summary>
        public NormGradients BatchnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance) =>
            NormBackward(NativeApi.fe_graph_batchnorm_backward, dy, x, scale, mean, invVariance, false, true);

        /// <summary>
        /// Softmax over the last dim; stats receives the float log-sum-exp statistics when generateStats,
        /// else null. On its own cuDNN runs it only fused between two matmuls.
        /// </summary>
        public Tensor Softmax(Tensor x, out Tensor stats, bool generateStats = false, string name = null)
        {
            IntPtr[] y = new IntPtr[1], s = new IntPtr[1];
            using (var native = new fe_softmax_options())
            {
                if (name != null) native.name = name;
                native.generate_stats = generateStats ? 1 : 0;
                Check.Ok(NativeApi.fe_graph_softmax(Pointer, x.Pointer, native, y, s));
            }
            stats = Wrap(s[0]);
            return Wrap(y[0]);
        }

        /// <summary>
        /// Random numbers (Philox) of the given dims: Bernoulli(a), Uniform[a, b) or Normal(a, b); seed and
        /// offset are int64 tensors of one element. type NotSet: the graph's intermediate type.
        /// </summary>
        public Tensor Rng(Tensor seed, Tensor offset, RngDistribution distribution, double a, double b, long[] dims,
                          DataType type = DataType.NotSet, string name = null)
        {
            if (dims == null || dims.Length < 1 || dims.Length > 8)
                throw Check.Invalid("Rng: " + (dims == null ? 0 : dims.Length) + " dims, expected 1 to 8");
            using (var native = new fe_rng_options())
            {
                if (name != null) native.name = name;
                native.distribution = (fe_rng_distribution)distribution;
                if (distribution == RngDistribution.Bernoulli) native.probability = a;
                else if (distribution == RngDistribution.Uniform) { native.min = a; native.max = b; }
                else { native.mean = a; native.std = b; }
                var all = new long[8];
                Array.Copy(dims, all, dims.Length);
                native.ndims = dims.Length;
                native.dims = all;
                native.data_type = (fe_data_type)type;
                return Output(y => NativeApi.fe_graph_rng(Pointer, seed.Pointer, offset.Pointer, native, y));
            }
        }

        /// <summary>
        /// FP8 matmul: C = (A * descaleA) x (B * descaleB) * scaleC; amax receives the float amax of the
        /// product before quantization. The scales are one-element float tensors.
        /// </summary>
        public Tensor MatmulFp8(Tensor a, Tensor b, Tensor descaleA, Tensor descaleB, Tensor scaleC, out Tensor amax,
                                MatmulOptions options = null)
        {
            IntPtr[] c = new IntPtr[1], m = new IntPtr[1];
            using (var scales = new fe_matmul_fp8_scales())
            using (fe_matmul_options native = options?.ToNative())
            {
                scales.descale_a = SdpaFp8Scales.P(descaleA);
                scales.descale_b = SdpaFp8Scales.P(descaleB);
                scales.scale_c = SdpaFp8Scales.P(scaleC);
                Check.Ok(NativeApi.fe_graph_matmul_fp8(Pointer, a.Pointer, b.Pointer, scales, native, c, m));
            }
            amax = Wrap(m[0]);
            return Wrap(c[0]);
        }

        /// <summary>Block scaling (MXFP8) quantize: the FP8 values, and in scale the per-block E8M0 scales.</summary>
        public Tensor BlockScaleQuantize(Tensor x, out Tensor scale, int blockSize = 32, string name = null)
        {
            IntPtr[] y = new IntPtr[1], s = new IntPtr[1];
            using (fe_block_scale_options native = BlockScale(blockSize, name))
                Check.Ok(NativeApi.fe_graph_block_scale_quantize(Pointer, x.Pointer, native, y, s));
            scale = Wrap(s[0]);
            return Wrap(y[0]);
        }

        /// <summary>Block scaling dequantize: x times its per-block scales.</summary>
        public Tensor BlockScaleDequantize(Tensor x, Tensor scale, int blockSize = 32, string name = null)
        {
            using (fe_block_scale_options native = BlockScale(blockSize, name))
                return Output(y => NativeApi.fe_graph_block_scale_dequantize(Pointer, x.Pointer, scale.Pointer, native, y));
        }

        private static fe_block_scale_options BlockScale(int blockSize, string name)
        {
            var native = new fe_block_scale_options();
            native.block_size = blockSize;
            if (name != null) native.name = name;
            return native;
        }

        /// <summary>FP8 attention forward (Hopper and later); Stats only when the options ask for them.</summary>
        public SdpaFp8Result SdpaFp8(Tensor q, Tensor k, Tensor v, SdpaFp8Scales scales, SdpaOptions options = null)
        {
            IntPtr[] o = new IntPtr[1], stats = new IntPtr[1], amaxS = new IntPtr[1], amaxO = new IntPtr[1];
            using (fe_sdpa_fp8_scales nativeScales = scales.ToNative())
            using (fe_sdpa_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_sdpa_fp8(Pointer, q.Pointer, k.Pointer, v.Pointer, nativeScales, native, o, stats, amaxS, amaxO));
            return new SdpaFp8Result { O = Wrap(o[0]), Stats = Wrap(stats[0]), AmaxS = Wrap(amaxS[0]), AmaxO = Wrap(amaxO[0]) };
        }

        /// <summary>FP8 attention backward (Hopper and later).</summary>
        public SdpaFp8Gradients SdpaFp8Backward(Tensor q, Tensor k, Tensor v, Tensor o, Tensor dO, Tensor stats,
                                                SdpaFp8BackwardScales scales, SdpaBackwardOptions options = null)
        {
            var r = new IntPtr[7][];
            for (int i = 0; i < r.Length; ++i) r[i] = new IntPtr[1];
            using (fe_sdpa_fp8_backward_scales nativeScales = scales.ToNative())
            using (fe_sdpa_backward_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_sdpa_fp8_backward(Pointer, q.Pointer, k.Pointer, v.Pointer, o.Pointer, dO.Pointer, stats.Pointer,
                                                              nativeScales, native, r[0], r[1], r[2], r[3], r[4], r[5], r[6]));
            return new SdpaFp8Gradients
            {
                DQ = Wrap(r[0][0]), DK = Wrap(r[1][0]), DV = Wrap(r[2][0]),
                AmaxDQ = Wrap(r[3][0]), AmaxDK = Wrap(r[4][0]), AmaxDV = Wrap(r[5][0]), AmaxDP = Wrap(r[6][0]),
            };
        }

        /// <summary>How attention node nodeName (null: the first) was lowered, once its operation graph exists.</summary>
        public SdpaImplementation AttentionImplementation(string nodeName = null)
        {
            var implementation = new int[1];
            Check.Ok(NativeApi.fe_graph_attention_implementation(Pointer, nodeName, implementation));
            return (SdpaImplementation)implementation[0];
        }

        private Tensor Wrap(IntPtr tensor) => tensor == IntPtr.Zero ? null : new Tensor(this, tensor);
    }
}
