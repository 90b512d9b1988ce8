using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Pooling and the layout operations: dims inference and errors.</summary>
    [TestFixture]
    public class PoolingTests
    {
        [Test]
        public void PoolingInfersItsDims()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 2, 8, 16, 16), index;
                Tensor max = g.Resample(x, new ResampleOptions { Window = new long[] { 2, 2 }, Stride = new long[] { 2, 2 } }, out index);
                CollectionAssert.AreEqual(new long[] { 2, 8, 8, 8 }, max.Dims);
                Assert.IsNull(index);
                g.Resample(x, new ResampleOptions { Window = new long[] { 3, 3 }, Stride = new long[] { 2, 2 }, Padding = new long[] { 1, 1 }, GenerateIndex = true }, out index);
                Assert.IsNotNull(index);
                var avg = new ResampleOptions { Mode = ResampleMode.AvgPoolExcludePadding, Window = new long[] { 4, 4 }, Stride = new long[] { 4, 4 } };
                CollectionAssert.AreEqual(new long[] { 2, 8, 4, 4 }, g.Resample(x, avg).Dims);
                CollectionAssert.AreEqual(new long[] { 2, 8, 16, 16 },
                                          g.ResampleBackward(g.Tensor("dy", 2, 8, 4, 4), null, null, null, new long[] { 2, 8, 16, 16 }, avg).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Resample", () => g.Resample(x, new ResampleOptions()));
            }
        }

        [Test]
        public void TransposeInfersItsDims()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 2, 3, 4);
                CollectionAssert.AreEqual(new long[] { 4, 2, 3 }, g.Transpose(x, new long[] { 2, 0, 1 }).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Transpose", () => g.Transpose(x, new long[] { 0, 0, 1 }));
            }
        }

        [Test]
        public void SliceReshapeAndConcatenateInferTheirDims()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor qkv = g.Tensor("qkv", 2, 64, 96);
                Tensor k = g.Slice(qkv, new long[] { 0, 0, 32 }, new long[] { 2, 64, 64 }, "k");
                CollectionAssert.AreEqual(new long[] { 2, 64, 32 }, k.Dims);
                CollectionAssert.AreEqual(new long[] { 64 * 96, 96, 1 }, k.Strides);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Slice",
                                        () => g.Slice(qkv, new long[] { 0, 0, 0 }, new long[] { 2, 64, 97 }));
                Tensor flat = g.Tensor("flat", 128, 32);
                CollectionAssert.AreEqual(new long[] { 2, 64, 32 }, g.Reshape(flat, new long[] { 2, 64, 32 }).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Reshape", () => g.Reshape(flat, new long[] { 5, 5 }));
                Tensor cache = g.Tensor("cache", 2, 8, 60, 16), fresh = g.Tensor("fresh", 2, 8, 4, 16);
                CollectionAssert.AreEqual(new long[] { 2, 8, 64, 16 }, g.Concatenate(new[] { cache, fresh }, 2, 0).Dims);
                TestSupport.AssertFails(Status.InvalidArgument, "Graph.Concatenate",
                                        () => g.Concatenate(new[] { cache, fresh }, 1));
            }
        }
    }
}
