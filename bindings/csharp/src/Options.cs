using System;

namespace CudnnFe
{
    // Options: properties left null keep the library's defaults (the C header's _INIT macros).

    /// <summary>A graph's name and default data types.</summary>
    public sealed class GraphOptions
    {
        public string Name { get; set; }
        /// <summary>Inputs and outputs (unset: each tensor carries its own type).</summary>
        public DataType? IoDataType { get; set; }
        /// <summary>Virtual tensors (float unless set).</summary>
        public DataType? IntermediateDataType { get; set; }
        /// <summary>Math (float unless set).</summary>
        public DataType? ComputeDataType { get; set; }

        internal fe_graph_options ToNative()
        {
            var o = new fe_graph_options();
            if (Name != null) o.name = Name;
            if (IoDataType.HasValue) o.io_data_type = (fe_data_type)IoDataType.Value;
            if (IntermediateDataType.HasValue) o.intermediate_data_type = (fe_data_type)IntermediateDataType.Value;
            if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
            return o;
        }
    }

    /// <summary>
    /// A convolution's geometry, per spatial dimension (up to 3). Each array takes one value for
    /// every spatial dim (as in PyTorch) or one per spatial dim. Defaults: no padding, stride 1,
    /// dilation 1, cross-correlation, the graph's math type.
    /// </summary>
    public sealed class ConvOptions
    {
        public string Name { get; set; }
        /// <summary>0 (the default): from the image's rank.</summary>
        public long? SpatialDims { get; set; }
        /// <summary>Before and after alike; PrePadding / PostPadding override it.</summary>
        public long[] Padding { get; set; }
        public long[] PrePadding { get; set; }
        public long[] PostPadding { get; set; }
        public long[] Stride { get; set; }
        public long[] Dilation { get; set; }
        public ConvMode? Mode { get; set; }
        public DataType? ComputeDataType { get; set; }
        /// <summary>Grouped convolution: the weight is [K, C / groups, filter...]; depthwise: groups = C.</summary>
        public long? Groups { get; set; }
        /// <summary>Transposed convolution only: extra result size on the far side of each spatial dim.</summary>
        public long[] OutputPadding { get; set; }

        internal fe_conv_options ToNative()
        {
            var o = new fe_conv_options();
            try
            {
                if (Name != null) o.name = Name;
                if (SpatialDims.HasValue) o.spatial_dims = SpatialDims.Value;
                // Through the C setters, so that every count means what it means in C: one value
                // applies to every spatial dim, one per spatial dim (2 or 3) fixes their count.
                long[] pre = PrePadding ?? Padding, post = PostPadding ?? Padding;
                if (pre != null) Check.Ok(NativeApi.fe_conv_options_set_pre_padding(o, pre.Length, pre));
                if (post != null) Check.Ok(NativeApi.fe_conv_options_set_post_padding(o, post.Length, post));
                if (Stride != null) Check.Ok(NativeApi.fe_conv_options_set_stride(o, Stride.Length, Stride));
                if (Dilation != null) Check.Ok(NativeApi.fe_conv_options_set_dilation(o, Dilation.Length, Dilation));
                if (Mode.HasValue) o.mode = (fe_conv_mode)Mode.Value;
                if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
                if (Groups.HasValue) o.groups = Groups.Value;
                if (OutputPadding != null)
                    Check.Ok(NativeApi.fe_conv_options_set_output_padding(o, OutputPadding.Length, OutputPadding));
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    public sealed class MatmulOptions
    {
        public string Name { get; set; }
        public DataType? ComputeDataType { get; set; }

        internal fe_matmul_options ToNative()
        {
            var o = new fe_matmul_options();
            if (Name != null) o.name = Name;
            if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
            return o;
        }
    }

    /// <summary>Options of genstats (batch normalization's per-channel sum and sum of squares).</summary>
    public sealed class GenstatsOptions
    {
        public string Name { get; set; }
        public DataType? ComputeDataType { get; set; }

        internal fe_genstats_options ToNative()
        {
            var o = new fe_genstats_options();
            if (Name != null) o.name = Name;
            if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
            return o;
        }
    }

    /// <summary>Parameters of the pointwise modes that use them.</summary>
    public sealed class PointwiseOptions
    {
        public string Name { get; set; }
        public DataType? ComputeDataType { get; set; }
        public double? ReluLowerClip { get; set; }
        public double? ReluUpperClip { get; set; }
        public double? ReluLowerClipSlope { get; set; }
        public double? EluAlpha { get; set; }
        public double? SoftplusBeta { get; set; }
        public double? SwishBeta { get; set; }
        /// <summary>GenIndex: the dimension whose index is generated.</summary>
        public long? Axis { get; set; }

        internal fe_pointwise_options ToNative()
        {
            var o = new fe_pointwise_options();
            if (Name != null) o.name = Name;
            if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
            if (ReluLowerClip.HasValue) o.relu_lower_clip = ReluLowerClip.Value;
            if (ReluUpperClip.HasValue) o.relu_upper_clip = ReluUpperClip.Value;
            if (ReluLowerClipSlope.HasValue) o.relu_lower_clip_slope = ReluLowerClipSlope.Value;
            if (EluAlpha.HasValue) o.elu_alpha = EluAlpha.Value;
            if (SoftplusBeta.HasValue) o.softplus_beta = SoftplusBeta.Value;
            if (SwishBeta.HasValue) o.swish_beta = SwishBeta.Value;
            if (Axis.HasValue) o.axis = Axis.Value;
            return o;
        }
    }

    /// <summary>The axes a reduction reduces to 1 (at least one).</summary>
    public sealed class ReductionOptions
    {
        public string Name { get; set; }
        public DataType? ComputeDataType { get; set; }
        public int[] Axes { get; set; }

        internal fe_reduction_options ToNative()
        {
            uint mask = 0;
            foreach (int axis in Axes ?? new int[0])
            {
                if (axis < 0 || axis >= 32) throw Check.Invalid("ReductionOptions: axis " + axis + " is out of range");
                mask |= 1u << axis;
            }
            var o = new fe_reduction_options();
            if (Name != null) o.name = Name;
            if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
            o.reduce_axes = mask;
            return o;
        }
    }

    /// <summary>Options of attention forward (see fe_graph_sdpa in cudnnfe.h).</summary>
    public sealed class SdpaOptions
    {
        public string Name { get; set; }
        /// <summary>Training: also return the softmax stats that the backward pass reads.</summary>
        public bool GenerateStats { get; set; }
        /// <summary>Scores are Q.K^T * AttnScale; null or 0: no scaling.</summary>
        public double? AttnScale { get; set; }
        public Tensor AttnScaleTensor { get; set; }
        public CausalMask? CausalMask { get; set; }
        public DataType? ComputeDataType { get; set; }
        public Tensor Bias { get; set; }
        public long? SlidingWindow { get; set; }
        /// <summary>Padding mask: per-batch lengths, int32 [b, 1, 1, 1] (both or neither).</summary>
        public Tensor SeqLenQ { get; set; }
        public Tensor SeqLenKv { get; set; }
        public Tensor AlibiSlopes { get; set; }
        public Tensor DropoutMask { get; set; }
        public double? DropoutScale { get; set; }
        public double? DropoutProbability { get; set; }
        public Tensor DropoutSeed { get; set; }
        public Tensor DropoutOffset { get; set; }
        public bool OutputDropoutMask { get; set; }
        public Tensor PageTableK { get; set; }
        public Tensor PageTableV { get; set; }
        public long? MaxSeqLenKv { get; set; }
        /// <summary>Native, composite, or Auto (the default): native where it can take the graph.</summary>
        public SdpaImplementation? Implementation { get; set; }

        internal fe_sdpa_options ToNative()
        {
            var o = new fe_sdpa_options();
            try
            {
                if (Name != null) o.name = Name;
                o.generate_stats = GenerateStats ? 1 : 0;
                if (AttnScale.HasValue) o.attn_scale = AttnScale.Value;
                if (AttnScaleTensor != null) o.attn_scale_tensor = AttnScaleTensor.Pointer;
                if (CausalMask.HasValue) o.causal_mask = (fe_causal_mask)CausalMask.Value;
                if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
                if (Bias != null) o.bias = Bias.Pointer;
                if (SlidingWindow.HasValue) o.sliding_window = SlidingWindow.Value;
                if (SeqLenQ != null) o.seq_len_q = SeqLenQ.Pointer;
                if (SeqLenKv != null) o.seq_len_kv = SeqLenKv.Pointer;
                if (AlibiSlopes != null) o.alibi_slopes = AlibiSlopes.Pointer;
                if (DropoutMask != null) o.dropout_mask = DropoutMask.Pointer;
                if (DropoutScale.HasValue) o.dropout_scale = DropoutScale.Value;
                if (DropoutProbability.HasValue) o.dropout_probability = DropoutProbability.Value;
                if (DropoutSeed != null) o.dropout_seed = DropoutSeed.Pointer;
                if (DropoutOffset != null) o.dropout_offset = DropoutOffset.Pointer;
                o.output_dropout_mask = OutputDropoutMask ? 1 : 0;
                if (PageTableK != null) o.page_table_k = PageTableK.Pointer;
                if (PageTableV != null) o.page_table_v = PageTableV.Pointer;
                if (MaxSeqLenKv.HasValue) o.max_seq_len_kv = MaxSeqLenKv.Value;
                if (Implementation.HasValue) o.implementation = (fe_sdpa_implementation)Implementation.Value;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    /// <summary>Options of attention backward: the forward pass's score modifiers.</summary>
    public sealed class SdpaBackwardOptions
    {
        public string Name { get; set; }
        public double? AttnScale { get; set; }
        public Tensor AttnScaleTensor { get; set; }
        public CausalMask? CausalMask { get; set; }
        public DataType? ComputeDataType { get; set; }
        public Tensor Bias { get; set; }
        public long? SlidingWindow { get; set; }
        public Tensor SeqLenQ { get; set; }
        public Tensor SeqLenKv { get; set; }
        public Tensor AlibiSlopes { get; set; }
        public Tensor DropoutMask { get; set; }
        public double? DropoutScale { get; set; }
        public double? DropoutProbability { get; set; }
        public Tensor DropoutSeed { get; set; }
        public Tensor DropoutOffset { get; set; }
        public SdpaImplementation? Implementation { get; set; }
        /// <summary>With a bias [1, h_q, s_q, s_kv]: also output its gradient, "&lt;node&gt;::dBias" (find it by name).</summary>
        public bool OutputDbias { get; set; }
        /// <summary>Accumulate dQ, dK, dV in a fixed order: repeated runs give identical bits.</summary>
        public bool Deterministic { get; set; }

        internal fe_sdpa_backward_options ToNative()
        {
            var o = new fe_sdpa_backward_options();
            try
            {
                if (Name != null) o.name = Name;
                if (AttnScale.HasValue) o.attn_scale = AttnScale.Value;
                if (AttnScaleTensor != null) o.attn_scale_tensor = AttnScaleTensor.Pointer;
                if (CausalMask.HasValue) o.causal_mask = (fe_causal_mask)CausalMask.Value;
                if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
                if (Bias != null) o.bias = Bias.Pointer;
                if (SlidingWindow.HasValue) o.sliding_window = SlidingWindow.Value;
                if (SeqLenQ != null) o.seq_len_q = SeqLenQ.Pointer;
                if (SeqLenKv != null) o.seq_len_kv = SeqLenKv.Pointer;
                if (AlibiSlopes != null) o.alibi_slopes = AlibiSlopes.Pointer;
                if (DropoutMask != null) o.dropout_mask = DropoutMask.Pointer;
                if (DropoutScale.HasValue) o.dropout_scale = DropoutScale.Value;
                if (DropoutProbability.HasValue) o.dropout_probability = DropoutProbability.Value;
                if (DropoutSeed != null) o.dropout_seed = DropoutSeed.Pointer;
                if (DropoutOffset != null) o.dropout_offset = DropoutOffset.Pointer;
                if (Implementation.HasValue) o.implementation = (fe_sdpa_implementation)Implementation.Value;
                o.output_dbias = OutputDbias ? 1 : 0;
                o.deterministic = Deterministic ? 1 : 0;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    /// <summary>Options of the one-call build. Unset: heuristics A then Fallback, the first plan that builds.</summary>
    public sealed class BuildOptions
    {
        public HeurMode[] HeurModes { get; set; }
        public BuildPolicy? Policy { get; set; }
        /// <summary>Skip plans that need more workspace (negative: no limit).</summary>
        public long? MaxWorkspaceBytes { get; set; }
        /// <summary>Deviceless: build for the GPU this cuDNN device JSON describes; the handle may be null.</summary>
        public string DevicePropertiesJson { get; set; }
        /// <summary>Reuse the plan of an identical graph built before in this process (default true).</summary>
        public bool? UsePlanCache { get; set; }
        /// <summary>Also register the built graph under this key, for <see cref="Graph.FromCache"/>.</summary>
        public string CacheKey { get; set; }
        /// <summary>Time the candidates on the handle's GPU and keep the fastest (needs a GPU).</summary>
        public bool? Autotune { get; set; }
        /// <summary>How many plans autotuning builds and times (0 or less: 8).</summary>
        public int? AutotuneCandidates { get; set; }
        /// <summary>Autotuning also times the configs one knob away from the fastest plans, for up to this many rounds (0: off).</summary>
        public int? AutotuneKnobSearch { get; set; }

        internal fe_build_options ToNative()
        {
            var o = new fe_build_options();
            if (HeurModes != null) o.set_heur_modes(Array.ConvertAll(HeurModes, m => (int)m), HeurModes.Length);
            if (Policy.HasValue) o.policy = (fe_build_policy)Policy.Value;
            if (MaxWorkspaceBytes.HasValue) o.max_workspace_bytes = MaxWorkspaceBytes.Value;
            if (DevicePropertiesJson != null) o.device_properties_json = DevicePropertiesJson;
            if (UsePlanCache.HasValue) o.use_plan_cache = UsePlanCache.Value ? 1 : 0;
            if (CacheKey != null) o.cache_key = CacheKey;
            if (Autotune.HasValue) o.autotune = Autotune.Value ? 1 : 0;
            if (AutotuneCandidates.HasValue) o.autotune_candidates = AutotuneCandidates.Value;
            if (AutotuneKnobSearch.HasValue) o.autotune_knob_search = AutotuneKnobSearch.Value;
            return o;
        }
    }

    /// <summary>Attention forward's outputs: O, and the softmax stats when asked for (else null).</summary>
    public sealed class SdpaResult
    {
        public Tensor O { get; }
        public Tensor Stats { get; }

        internal SdpaResult(Tensor o, Tensor stats)
        {
            O = o;
            Stats = stats;
        }
    }

    /// <summary>Attention backward's outputs.</summary>
    public sealed class SdpaGradients
    {
        public Tensor DQ { get; }
        public Tensor DK { get; }
        public Tensor DV { get; }

        internal SdpaGradients(Tensor dq, Tensor dk, Tensor dv)
        {
            DQ = dq;
            DK = dk;
            DV = dv;
        }
    }

    /// <summary>Options of <see cref="Graph.Deserialize"/>. Unset: refuse a mismatch, load for the handle's GPU.</summary>
    public sealed class DeserializeOptions
    {
        public MismatchPolicy? OnMismatch { get; set; }
        /// <summary>
        /// Deviceless: load the plan for the GPU this cuDNN device JSON describes (the handle may
        /// then be null); the graph can be inspected and serialized again, not executed.
        /// </summary>
        public string DevicePropertiesJson { get; set; }

        internal fe_deserialize_options ToNative()
        {
            var o = new fe_deserialize_options();
            if (OnMismatch.HasValue) o.on_mismatch = (fe_mismatch_policy)OnMismatch.Value;
            if (DevicePropertiesJson != null) o.device_properties_json = DevicePropertiesJson;
            return o;
        }
    }
}
