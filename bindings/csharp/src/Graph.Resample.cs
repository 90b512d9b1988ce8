using System;

namespace CudnnFe
{
    /// <summary>Resampling modes: pooling and upsampling of the spatial dims.</summary>
    public enum ResampleMode
    {
        MaxPool = 0,
        /// <summary>The padding counts in the average's divisor.</summary>
        AvgPoolIncludePadding = 1,
        /// <summary>Only the window's elements inside x count.</summary>
        AvgPoolExcludePadding = 2,
        Nearest = 3,
        Bilinear = 4,
    }

    /// <summary>What resampling's padding holds.</summary>
    public enum ResamplePadding
    {
        /// <summary>-infinity for max pooling, zero otherwise.</summary>
        Auto = 0,
        Zero = 1,
        NegInf = 2,
        /// <summary>Repeat the edge value.</summary>
        Edge = 3,
    }

    /// <summary>
    /// Options of resampling (pooling): Window is required; the stride defaults to 1, the padding
    /// to 0, the mode to max pooling. Each array takes one value for every spatial dim (as in
    /// PyTorch) or one per spatial dim (2 or 3), as in C.
    /// </summary>
    public sealed class ResampleOptions
    {
        public string Name { get; set; }
        public ResampleMode? Mode { get; set; }
        /// <summary>What the padding holds (default Auto).</summary>
        public ResamplePadding? PaddingMode { get; set; }
        /// <summary>0 (the default): from x's rank.</summary>
        public long? SpatialDims { get; set; }
        public long[] Window { get; set; }
        public long[] Stride { get; set; }
        /// <summary>Before and after alike; PrePadding / PostPadding override it.</summary>
        public long[] Padding { get; set; }
        public long[] PrePadding { get; set; }
        public long[] PostPadding { get; set; }
        public DataType? ComputeDataType { get; set; }
        /// <summary>Max pooling for training: also return which element of each window was the largest.</summary>
        public bool GenerateIndex { get; set; }
        /// <summary>The index's type (default int8).</summary>
        public DataType? IndexDataType { get; set; }

        internal fe_resample_options ToNative()
        {
            var o = new fe_resample_options();
            try
            {
                if (Name != null) o.name = Name;
                if (Mode.HasValue) o.mode = (fe_resample_mode)Mode.Value;
                if (PaddingMode.HasValue) o.padding_mode = (fe_resample_padding)PaddingMode.Value;
                if (SpatialDims.HasValue) o.spatial_dims = SpatialDims.Value;
                // The arrays go through the C setters, so that a count means what it means in C.
                if (Window != null) Check.Ok(NativeApi.fe_resample_options_set_window(o, Window.Length, Window));
                if (Stride != null) Check.Ok(NativeApi.fe_resample_options_set_stride(o, Stride.Length, Stride));
                long[] pre = PrePadding ?? Padding, post = PostPadding ?? Padding;
                if (pre != null) Check.Ok(NativeApi.fe_resample_options_set_pre_padding(o, pre.Length, pre));
                if (post != null) Check.Ok(NativeApi.fe_resample_options_set_post_padding(o, post.Length, post));
                if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
                o.generate_index = GenerateIndex ? 1 : 0;
                if (IndexDataType.HasValue) o.index_data_type = (fe_data_type)IndexDataType.Value;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }
    }

    // Resampling (pooling) and transpose.
    public sealed partial class Graph
    {
        /// <summary>Pooling or upsampling of x's spatial dims; index receives the max-pooling index (or null).</summary>
        /// <summary>
        /// Batch normalization's statistics of x [N, C, spatial...]: returns the per-channel sum and
        /// gives the sum of squares in sqSum, both float [1, C, 1, ...]. cuDNN runs it fused after the
        /// convolution that produces x. options may be null.
        /// </summary>
        public Tensor Genstats(Tensor x, GenstatsOptions options, out Tensor sqSum)
        {
            IntPtr[] sum = new IntPtr[1], sq = new IntPtr[1];
            using (fe_genstats_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_genstats(Pointer, x.Pointer, native, sum, sq));
            sqSum = Wrap(sq[0]);
            return Wrap(sum[0]);
        }

        public Tensor Resample(Tensor x, ResampleOptions options, out Tensor index)
        {
            IntPtr[] y = new IntPtr[1], i = new IntPtr[1];
            using (fe_resample_options native = options?.ToNative())
                Check.Ok(NativeApi.fe_graph_resample(Pointer, x.Pointer, native, y, i));
            index = Wrap(i[0]);
            return Wrap(y[0]);
        }

        /// <summary>Pooling or upsampling of x's spatial dims.</summary>
        public Tensor Resample(Tensor x, ResampleOptions options)
        {
            Tensor index;
            return Resample(x, options, out index);
        }

        /// <summary>Resampling backward: dx from dy with the forward's options; x, y, index and dxDims may be null (see the header).</summary>
        public Tensor ResampleBackward(Tensor dy, Tensor x, Tensor y, Tensor index, long[] dxDims, ResampleOptions options)
        {
            using (fe_resample_options native = options?.ToNative())
                return Output(o => NativeApi.fe_graph_resample_backward(Pointer, dy.Pointer, Optional(x), Optional(y), Optional(index),
                                                                        dxDims == null ? 0 : dxDims.Length, dxDims, native, o));
        }

        /// <summary>y = x.permute(permutation).</summary>
        public Tensor Transpose(Tensor x, long[] permutation, string name = null)
        {
            using (var native = new fe_transpose_options())
            {
                if (name != null) native.name = name;
                return Output(o => NativeApi.fe_graph_transpose(Pointer, x.Pointer, permutation.Length, permutation, native, o));
            }
        }

        /// <summary>y = x viewed under other dims (x packed row-major; the same element count).</summary>
        public Tensor Reshape(Tensor x, long[] dims, string name = null)
        {
            using (var native = new fe_reshape_options())
            {
                if (name != null) native.name = name;
                return Output(o => NativeApi.fe_graph_reshape(Pointer, x.Pointer, dims.Length, dims, native, o));
            }
        }

        /// <summary>y = x[start[0]:end[0], ...] (end exclusive): a view of graph input x read in place,
        /// for other operations of the graph to read (not an output).</summary>
        public Tensor Slice(Tensor x, long[] start, long[] end, string name = null)
        {
            if (start.Length != end.Length)
                throw Check.Invalid("Slice: " + start.Length + " start entries but " + end.Length + " end entries");
            using (var native = new fe_slice_options())
            {
                if (name != null) native.name = name;
                return Output(o => NativeApi.fe_graph_slice(Pointer, x.Pointer, start.Length, start, end, native, o));
            }
        }

        /// <summary>The inputs joined along axis; inPlaceIndex names the input already inside y's
        /// buffer, -1 for none.</summary>
        public Tensor Concatenate(Tensor[] inputs, long axis, long inPlaceIndex = -1, string name = null)
        {
            using (var native = new fe_concatenate_options())
            {
                if (name != null) native.name = name;
                native.in_place_index = inPlaceIndex;
                return Output(o => NativeApi.fe_graph_concatenate(Pointer, inputs.Length, Pointers(inputs), axis, native, o));
            }
        }
    }
}
