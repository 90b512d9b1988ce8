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

    /// <summary>
    /// Options of resampling (pooling): Window is required; the stride defaults to 1, the padding
    /// to 0, the mode to max pooling.
    /// </summary>
    public sealed class ResampleOptions
    {
        public string Name { get; set; }
        public ResampleMode? Mode { get; set; }
        public long[] Window { get; set; }
        public long[] Stride { get; set; }
        /// <summary>Before and after alike.</summary>
        public long[] Padding { get; set; }
        public DataType? ComputeDataType { get; set; }
        /// <summary>Max pooling for training: also return which element of each window was the largest.</summary>
        public bool GenerateIndex { get; set; }

        internal fe_resample_options ToNative()
        {
            var o = new fe_resample_options();
            try
            {
                if (Name != null) o.name = Name;
                if (Mode.HasValue) o.mode = (fe_resample_mode)Mode.Value;
                if (Window != null) o.window = Overlay(o.window, Window, "window");
                if (Stride != null) o.stride = Overlay(o.stride, Stride, "stride");
                if (Padding != null)
                {
                    o.pre_padding = Overlay(o.pre_padding, Padding, "padding");
                    o.post_padding = Overlay(o.post_padding, Padding, "padding");
                }
                if (ComputeDataType.HasValue) o.compute_data_type = (fe_data_type)ComputeDataType.Value;
                o.generate_index = GenerateIndex ? 1 : 0;
                return o;
            }
            catch
            {
                o.Dispose();
                throw;
            }
        }

        private static long[] Overlay(long[] defaults, long[] values, string what)
        {
            if (values.Length > defaults.Length)
                throw Check.Invalid("ResampleOptions: " + values.Length + " " + what + " values, at most " + defaults.Length);
            Array.Copy(values, defaults, values.Length);
            return defaults;
        }
    }

    // Resampling (pooling) and transpose.
    public sealed partial class Graph
    {
        /// <summary>Pooling or upsampling of x's spatial dims; index receives the max-pooling index (or null).</summary>
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
