namespace CudnnFe
{
    // The result types of the ops whose several outputs come back in one object; the generated
    // graph methods fill them (bindings/csharp/generate_layer.py, RESULTS).

    /// <summary>Attention forward's outputs: O, and the softmax stats when asked for (else null).</summary>
    public sealed class SdpaResult
    {
        public Tensor O { get; internal set; }
        public Tensor Stats { get; internal set; }
    }

    /// <summary>Attention backward's outputs.</summary>
    public sealed class SdpaGradients
    {
        public Tensor DQ { get; internal set; }
        public Tensor DK { get; internal set; }
        public Tensor DV { get; internal set; }
    }

    /// <summary>FP8 attention forward's outputs: O, the stats (null unless asked for), the float amax of S and O.</summary>
    public sealed class SdpaFp8Result
    {
        public Tensor O { get; internal set; }
        public Tensor Stats { get; internal set; }
        public Tensor AmaxS { get; internal set; }
        public Tensor AmaxO { get; internal set; }
    }

    /// <summary>FP8 attention backward's outputs: dQ, dK, dV and the float amax of each and of dP.</summary>
    public sealed class SdpaFp8Gradients
    {
        public Tensor DQ { get; internal set; }
        public Tensor DK { get; internal set; }
        public Tensor DV { get; internal set; }
        public Tensor AmaxDQ { get; internal set; }
        public Tensor AmaxDK { get; internal set; }
        public Tensor AmaxDV { get; internal set; }
        public Tensor AmaxDP { get; internal set; }
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
