using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// The options classes are generated from the op schema: every option of genstats and resample,
    /// set through its generated property, reaches the graph (its JSON), so that no property is lost
    /// or sets another field.
    /// </summary>
    [TestFixture]
    public class GeneratedOptionsTests
    {
        private static void AssertHas(string json, params string[] fragments)
        {
            foreach (string fragment in fragments) StringAssert.Contains(fragment, json);
        }

        [Test]
        public void EveryGenstatsOptionReachesTheGraph()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor sqSum;
                Tensor sum = g.Genstats(g.Tensor("x", 2, 8, 16, 16),
                                        new GenstatsOptions { Name = "stats", ComputeDataType = DataType.Half }, out sqSum);
                sum.SetOutput(true);
                sqSum.SetOutput(true);
                AssertHas(g.ToJson(), "{\"op\":\"genstats\",\"name\":\"stats\",\"compute_data_type\":\"half\"",
                          "\"SUM\":\"stats::SUM\"", "\"SQ_SUM\":\"stats::SQ_SUM\"");
            }
        }

        [Test]
        public void EveryResampleOptionReachesTheGraph()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 2, 8, 16, 16), index;
                Tensor max = g.Resample(x, new ResampleOptions
                {
                    Name = "max", Mode = ResampleMode.MaxPool, PaddingMode = ResamplePadding.Edge, SpatialDims = 2,
                    Window = new long[] { 3 }, Stride = new long[] { 2, 1 }, PrePadding = new long[] { 1, 0 },
                    PostPadding = new long[] { 0, 1 }, ComputeDataType = DataType.Half, GenerateIndex = true,
                    IndexDataType = DataType.Int32,
                }, out index);
                CollectionAssert.AreEqual(new long[] { 2, 8, 8, 15 }, max.Dims);
                max.SetOutput(true);
                index.SetOutput(true);
                Tensor average = g.Resample(x, new ResampleOptions
                {
                    Name = "average", Mode = ResampleMode.AvgPoolExcludePadding, Window = new long[] { 2, 4 },
                    Padding = new long[] { 1 },
                });
                average.SetOutput(true);
                AssertHas(g.ToJson(), "{\"op\":\"resample\",\"name\":\"max\",\"compute_data_type\":\"half\"",
                          "\"mode\":\"maxpool\",\"padding_mode\":\"edge\",\"window\":[3,3],\"stride\":[2,1],"
                          + "\"pre_padding\":[1,0],\"post_padding\":[0,1],\"generate_index\":true,"
                          + "\"index_data_type\":\"int32\"",
                          "\"Index\":\"max::Index\"",
                          "{\"op\":\"resample\",\"name\":\"average\"",
                          "\"mode\":\"avgpool_exclude_padding\"", "\"window\":[2,4]",
                          "\"pre_padding\":[1,1],\"post_padding\":[1,1]");
            }
        }
    
        /// <summary>An option of another pointwise mode would be ignored: refused, naming the mode.</summary>
        [Test]
        public void AnOptionOfAnotherPointwiseModeIsRefused()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                Tensor x = g.Tensor("x", 4, 16, 32);
                var swish = new PointwiseOptions { SwishBeta = 1.702, Name = "swish" };
                var e = Assert.Throws<InvalidArgumentException>(() => g.Pointwise(PointwiseMode.ReluFwd, x, null, null, swish));
                StringAssert.Contains("options.swish_beta is not taken by relu", e.Message);
                Assert.AreEqual("swish::Y", g.Pointwise(PointwiseMode.SwishFwd, x, null, null, swish).Name);
            }
        }
    }
}
