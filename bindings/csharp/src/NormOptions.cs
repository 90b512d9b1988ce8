namespace CudnnFe
{
    /// <summary>Options of layernorm, rmsnorm, instancenorm and adalayernorm. Unset: inference, epsilon 1e-5.</summary>
    public sealed class NormOptions
    {
        public string Name { get; set; }
        /// <summary>Training also returns the float statistics the backward pass reads.</summary>
        public NormPhase? Phase { get; set; }
        public double? Epsilon { get; set; }
        /// <summary>Epsilon as a one-element float scalar made with Graph.Scalar; it replaces Epsilon.</summary>
        public Tensor EpsilonTensor { get; set; }
        /// <summary>Multiply by (1 + scale) instead of scale (layernorm and rmsnorm).</summary>
        public bool ZeroCenteredGamma { get; set; }

        internal fe_norm_options ToNative()
        {
            var o = new fe_norm_options();
            try
            {
                if (Name != null) o.name = Name;
                if (Phase.HasValue) o.phase = (fe_norm_phase)Phase.Value;
                if (Epsilon.HasValue) o.epsilon = Epsilon.Value;
                if (EpsilonTensor != null) o.epsilon_tensor = EpsilonTensor.Pointer;
                o.zero_centered_gamma = ZeroCenteredGamma ? 1 : 0;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    /// <summary>Options of batchnorm (training). Unset: epsilon 1e-5, no running statistics, momentum 0.1.</summary>
    public sealed class BatchnormOptions
    {
        public string Name { get; set; }
        public double? Epsilon { get; set; }
        public Tensor EpsilonTensor { get; set; }
        /// <summary>
        /// Running statistics (float [1, C, 1, ...] inputs, both or neither): the call then also returns
        /// the updated ones, (1 - momentum) * running + momentum * batch statistic.
        /// </summary>
        public Tensor RunningMean { get; set; }
        public Tensor RunningVar { get; set; }
        public double? Momentum { get; set; }
        public Tensor MomentumTensor { get; set; }

        internal fe_batchnorm_options ToNative()
        {
            var o = new fe_batchnorm_options();
            try
            {
                if (Name != null) o.name = Name;
                if (Epsilon.HasValue) o.epsilon = Epsilon.Value;
                if (EpsilonTensor != null) o.epsilon_tensor = EpsilonTensor.Pointer;
                if (RunningMean != null) o.running_mean = RunningMean.Pointer;
                if (RunningVar != null) o.running_var = RunningVar.Pointer;
                if (Momentum.HasValue) o.momentum = Momentum.Value;
                if (MomentumTensor != null) o.momentum_tensor = MomentumTensor.Pointer;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    /// <summary>
    /// A normalization's outputs: Y, and in training the float statistics (null in inference). For
    /// rmsnorm, Mean is null and InvVariance is the inverse RMS.
    /// </summary>
    public sealed class NormResult
    {
        public Tensor Y { get; internal set; }
        public Tensor Mean { get; internal set; }
        public Tensor InvVariance { get; internal set; }
    }

    /// <summary>Batchnorm's outputs; the next running statistics are null without running statistics.</summary>
    public sealed class BatchnormResult
    {
        public Tensor Y { get; internal set; }
        public Tensor Mean { get; internal set; }
        public Tensor InvVariance { get; internal set; }
        public Tensor NextRunningMean { get; internal set; }
        public Tensor NextRunningVar { get; internal set; }
    }

    /// <summary>A normalization backward's outputs; DBias is null where the forward had no bias.</summary>
    public sealed class NormGradients
    {
        public Tensor DX { get; internal set; }
        public Tensor DScale { get; internal set; }
        public Tensor DBias { get; internal set; }
    }
}
