using System;

namespace CudnnFe
{
    /// <summary>FP8 attention's scaling factors: one-element float tensors, all required.</summary>
    public sealed class SdpaFp8Scales
    {
        public Tensor DescaleQ { get; set; }
        public Tensor DescaleK { get; set; }
        public Tensor DescaleV { get; set; }
        /// <summary>Descale of the FP8 probabilities fed to P.V.</summary>
        public Tensor DescaleS { get; set; }
        /// <summary>Quantizes P to FP8 before P.V.</summary>
        public Tensor ScaleS { get; set; }
        /// <summary>Quantizes O.</summary>
        public Tensor ScaleO { get; set; }

        internal fe_sdpa_fp8_scales ToNative()
        {
            var s = new fe_sdpa_fp8_scales();
            try
            {
                s.descale_q = P(DescaleQ);
                s.descale_k = P(DescaleK);
                s.descale_v = P(DescaleV);
                s.descale_s = P(DescaleS);
                s.scale_s = P(ScaleS);
                s.scale_o = P(ScaleO);
                return s;
            }
            catch
            {
                s.Dispose();
                throw;
            }
        }

        /// <summary>An unset scale passes NULL; the library names it in its error.</summary>
        internal static IntPtr P(Tensor tensor) => tensor == null ? IntPtr.Zero : tensor.Pointer;
    }

    /// <summary>FP8 attention backward's scaling factors: one-element float tensors, all required.</summary>
    public sealed class SdpaFp8BackwardScales
    {
        public Tensor DescaleQ { get; set; }
        public Tensor DescaleK { get; set; }
        public Tensor DescaleV { get; set; }
        public Tensor DescaleO { get; set; }
        public Tensor DescaleDO { get; set; }
        public Tensor DescaleS { get; set; }
        public Tensor DescaleDP { get; set; }
        public Tensor ScaleS { get; set; }
        public Tensor ScaleDP { get; set; }
        public Tensor ScaleDQ { get; set; }
        public Tensor ScaleDK { get; set; }
        public Tensor ScaleDV { get; set; }

        internal fe_sdpa_fp8_backward_scales ToNative()
        {
            var s = new fe_sdpa_fp8_backward_scales();
            try
            {
                s.descale_q = SdpaFp8Scales.P(DescaleQ);
                s.descale_k = SdpaFp8Scales.P(DescaleK);
                s.descale_v = SdpaFp8Scales.P(DescaleV);
                s.descale_o = SdpaFp8Scales.P(DescaleO);
                s.descale_do = SdpaFp8Scales.P(DescaleDO);
                s.descale_s = SdpaFp8Scales.P(DescaleS);
                s.descale_dp = SdpaFp8Scales.P(DescaleDP);
                s.scale_s = SdpaFp8Scales.P(ScaleS);
                s.scale_dp = SdpaFp8Scales.P(ScaleDP);
                s.scale_dq = SdpaFp8Scales.P(ScaleDQ);
                s.scale_dk = SdpaFp8Scales.P(ScaleDK);
                s.scale_dv = SdpaFp8Scales.P(ScaleDV);
                return s;
            }
            catch
            {
                s.Dispose();
                throw;
            }
        }
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
}
