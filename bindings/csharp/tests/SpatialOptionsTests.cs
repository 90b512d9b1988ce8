using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Per-spatial-dim options mean what they mean in C: one value applies to every spatial dim
    /// (as in PyTorch), one per spatial dim fixes their count, and another count is refused with
    /// the C library's message. The C, Java and Go tests check the same cases.
    /// </summary>
    [TestFixture]
    public class SpatialOptionsTests
    {
        [Test]
        public void OneValueAppliesToEverySpatialDim()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 8, 64, 56, 56), w = g.Tensor("w", 32, 64, 3, 3);
                CollectionAssert.AreEqual(new long[] { 8, 32, 28, 28 },
                    g.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1 }, Stride = new long[] { 2 } }).Dims);
                CollectionAssert.AreEqual(new long[] { 8, 32, 28, 28 },
                    g.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 }, Stride = new long[] { 2, 2 } }).Dims);
                Tensor pooled = g.Resample(x, new ResampleOptions { Window = new long[] { 2 }, Stride = new long[] { 2 } });
                CollectionAssert.AreEqual(new long[] { 8, 64, 28, 28 }, pooled.Dims);
            }
        }

        [Test]
        public void ThreeValuesForTwoDimsAreRefused()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 8, 64, 56, 56), w = g.Tensor("w", 32, 64, 3, 3);
                TestSupport.AssertFails(Status.InvalidArgument,
                    "Graph.ConvFprop: options give 3 spatial dims (padding, stride, dilation) but image has 2",
                    () => g.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1, 1 } }));
                TestSupport.AssertFails(Status.InvalidArgument,
                    "ConvOptions.Stride: 4 stride values; give 1 (every spatial dim) or one per spatial dim (2 or 3)",
                    () => g.ConvFprop(x, w, new ConvOptions { Stride = new long[] { 1, 1, 1, 1 } }));
                TestSupport.AssertFails(Status.InvalidArgument,
                    "ConvOptions.Stride: stride is given for 3 spatial dims but the options already have 2",
                    () => g.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 }, Stride = new long[] { 2, 2, 2 } }));
                TestSupport.AssertFails(Status.InvalidArgument, "ResampleOptions.Window: 0 window values",
                    () => g.Resample(x, new ResampleOptions { Window = new long[0] }));
            }
        }

        [Test]
        public void EveryResampleOptionReachesTheGraph()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 2, 8, 16, 16), index;
                Tensor y = g.Resample(x, new ResampleOptions
                {
                    Window = new long[] { 3 }, Stride = new long[] { 2 }, PrePadding = new long[] { 1 },
                    PostPadding = new long[] { 0 }, PaddingMode = ResamplePadding.Edge, GenerateIndex = true,
                    IndexDataType = DataType.Int32,
                }, out index);
                CollectionAssert.AreEqual(new long[] { 2, 8, 8, 8 }, y.Dims);
                y.SetOutput(true);
                index.SetOutput(true);
                string json = g.ToJson();
                StringAssert.Contains("\"padding_mode\":\"edge\"", json);
                StringAssert.Contains("\"index_data_type\":\"int32\"", json);
                StringAssert.Contains("\"pre_padding\":[1,1]", json);
                StringAssert.Contains("\"post_padding\":[0,0]", json);
            }
        }
    }
}
