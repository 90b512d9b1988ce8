namespace CudnnFe
{
    // Shortcuts over the generated resampling and layout methods (Graph.ResamplingAndLayoutOperations.g.cs):
    // the result alone, or a name instead of an options object.
    public sealed partial class Graph
    {
        /// <summary>Pooling or upsampling of x's spatial dims.</summary>
        public Tensor Resample(Tensor x, ResampleOptions options)
        {
            Tensor index;
            return Resample(x, options, out index);
        }

        /// <summary>y = x.permute(permutation).</summary>
        public Tensor Transpose(Tensor x, long[] permutation, string name) =>
            Transpose(x, permutation, new TransposeOptions { Name = name });

        /// <summary>y = x viewed under other dims (x packed row-major; the same element count).</summary>
        public Tensor Reshape(Tensor x, long[] dims, string name) => Reshape(x, dims, new ReshapeOptions { Name = name });

        /// <summary>y = x[start[0]:end[0], ...] (end exclusive): a view of graph input x read in place,
        /// for other operations of the graph to read (not an output).</summary>
        public Tensor Slice(Tensor x, long[] start, long[] end, string name) =>
            Slice(x, start, end, new SliceOptions { Name = name });

        /// <summary>The inputs joined along axis; inPlaceIndex names the input already inside y's
        /// buffer, -1 for none.</summary>
        public Tensor Concatenate(Tensor[] inputs, long axis, long inPlaceIndex, string name = null) =>
            Concatenate(inputs, axis, new ConcatenateOptions { Name = name, InPlaceIndex = inPlaceIndex });
    }
}
