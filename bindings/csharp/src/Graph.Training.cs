using System;

namespace CudnnFe
{
    // Shortcuts over the generated methods (Graph.*.g.cs) in the forms callers used before the
    // options classes existed: a name, a flag or a block size instead of an options object, out
    // parameters instead of a result. Each result is virtual until SetOutput(true).
    public sealed partial class Graph
    {
        /// <summary>Batch normalization, inference, from given statistics (invVariance = 1 / sqrt(var + eps)).</summary>
        public Tensor BatchnormInference(Tensor x, Tensor mean, Tensor invVariance, Tensor scale, Tensor bias, string name) =>
            BatchnormInference(x, mean, invVariance, scale, bias, new BatchnormInferenceOptions { Name = name });

        /// <summary>Layer normalization backward, from the forward's x, scale and training statistics.</summary>
        public NormGradients LayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance,
                                               bool zeroCenteredGamma) =>
            LayernormBackward(dy, x, scale, mean, invVariance, new NormBackwardOptions { ZeroCenteredGamma = zeroCenteredGamma });

        /// <summary>RMS normalization backward, from the forward's inverse RMS, for a forward without bias.</summary>
        public NormGradients RmsnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor invRms, bool zeroCenteredGamma = false) =>
            RmsnormBackward(dy, x, scale, invRms, zeroCenteredGamma, false);

        /// <summary>RMS normalization backward; withBias: the forward had a bias (DBias is then returned).</summary>
        public NormGradients RmsnormBackward(Tensor dy, Tensor x, Tensor scale, Tensor invRms, bool zeroCenteredGamma, bool withBias) =>
            RmsnormBackward(dy, x, scale, invRms, withBias, new NormBackwardOptions { ZeroCenteredGamma = zeroCenteredGamma });

        /// <summary>AdaLN backward; withBias: the forward had a bias.</summary>
        public NormGradients AdalayernormBackward(Tensor dy, Tensor x, Tensor scale, Tensor mean, Tensor invVariance, bool withBias = true) =>
            AdalayernormBackward(dy, x, scale, mean, invVariance, withBias, null);

        /// <summary>
        /// Softmax over the last dim; stats receives the float log-sum-exp statistics when generateStats,
        /// else null. On its own cuDNN runs it only fused between two matmuls.
        /// </summary>
        public Tensor Softmax(Tensor x, out Tensor stats, bool generateStats = false, string name = null) =>
            Softmax(x, new SoftmaxOptions { Name = name, GenerateStats = generateStats }, out stats);

        /// <summary>
        /// Random numbers (Philox) of the given dims: Bernoulli(a), Uniform[a, b) or Normal(a, b); seed and
        /// offset are int64 tensors of one element. type NotSet: the graph's intermediate type.
        /// </summary>
        public Tensor Rng(Tensor seed, Tensor offset, RngDistribution distribution, double a, double b, long[] dims,
                          DataType type = DataType.NotSet, string name = null)
        {
            if (dims == null || dims.Length < 1 || dims.Length > 8)
                throw Check.Invalid("Graph.Rng: " + (dims == null ? 0 : dims.Length) + " dims, expected 1 to 8");
            var options = new RngOptions { Name = name, Distribution = distribution, Dims = dims, DataType = type };
            if (distribution == RngDistribution.Bernoulli) options.Probability = a;
            else if (distribution == RngDistribution.Uniform) { options.Min = a; options.Max = b; }
            else { options.Mean = a; options.Std = b; }
            return Rng(seed, offset, options);
        }

        /// <summary>
        /// FP8 matmul: C = (A * descaleA) x (B * descaleB) * scaleC; amax receives the float amax of the
        /// product before quantization. The scales are one-element float tensors.
        /// </summary>
        public Tensor MatmulFp8(Tensor a, Tensor b, Tensor descaleA, Tensor descaleB, Tensor scaleC, out Tensor amax,
                                MatmulOptions options = null) =>
            MatmulFp8(a, b, new MatmulFp8Scales { DescaleA = descaleA, DescaleB = descaleB, ScaleC = scaleC }, options, out amax);

        /// <summary>Block scaling (MXFP8) quantize: the FP8 values, and in scale the per-block E8M0 scales.</summary>
        public Tensor BlockScaleQuantize(Tensor x, out Tensor scale, int blockSize = 32, string name = null) =>
            BlockScaleQuantize(x, new BlockScaleOptions { Name = name, BlockSize = blockSize }, out scale);

        /// <summary>Block scaling dequantize: x times its per-block scales.</summary>
        public Tensor BlockScaleDequantize(Tensor x, Tensor scale, int blockSize, string name = null) =>
            BlockScaleDequantize(x, scale, new BlockScaleOptions { Name = name, BlockSize = blockSize });

        private Tensor Wrap(IntPtr tensor) => tensor == IntPtr.Zero ? null : new Tensor(this, tensor);
    }
}
