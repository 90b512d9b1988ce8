using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Every failure is a CudnnFeException with the library's status and one-line message.</summary>
    [TestFixture]
    public class ErrorTests
    {
        private Graph graph;

        [SetUp]
        public void CreateGraph() => graph = new Graph(new GraphOptions { Name = "g", IoDataType = DataType.Half });

        [TearDown]
        public void DisposeGraph() => graph.Dispose();

        [Test]
        public void InvalidArgumentNamesTheCallAndTheCause()
        {
            Tensor x = graph.Tensor("x", 8, 64, 56, 56), w = graph.Tensor("w", 32, 32, 3, 3);
            TestSupport.AssertFails(Status.InvalidArgument, "fe_graph_conv_fprop: weight has 32 input channels, image has 64",
                () => graph.ConvFprop(x, w));
            TestSupport.AssertFails(Status.InvalidArgument, "fe_graph_tensor", () => graph.Tensor("zero", 4, 0));
            TestSupport.AssertFails(Status.InvalidArgument, "fe_strides_channels_last", () => Library.StridesChannelsLast(2, 3));
        }

        [Test]
        public void NotFound() =>
            TestSupport.AssertFails(Status.NotFound, "fe_graph_tensor_by_name", () => graph.TensorByName("missing"));

        [Test]
        public void DuplicateNamesAndUids()
        {
            Tensor a = graph.Tensor("a", 4), b = graph.Tensor("b", 4);
            TestSupport.AssertFails(Status.Duplicate, "fe_graph_tensor", () => graph.Tensor("a", 4));
            a.SetUid(5);
            TestSupport.AssertFails(Status.Duplicate, "uid 5 is already used by 'a'", () => b.SetUid(5));
        }

        [Test]
        public void AlignmentPromisesAreCheckedAndWritten()
        {
            Tensor a = graph.Tensor("a", 1, 32, 64);
            TestSupport.AssertFails(Status.InvalidArgument, "fe_tensor_set_alignment: an alignment of 48 bytes for 'a'",
                                    () => a.SetAlignment(48));
            a.SetAlignment(256);
            graph.Relu(a).SetOutput(true);
            StringAssert.Contains("\"alignment\":256", graph.ToJson());
        }

        [Test]
        public void ValidationOfTheWholeGraph()
        {
            graph.Relu(graph.Tensor("x", 4));
            TestSupport.AssertFails(Status.Validation, "graph 'g' has no outputs", graph.Validate);
        }

        [Test]
        public void BadStateForCallsOutOfOrder()
        {
            Tensor x = graph.Tensor("x", 4);
            TestSupport.AssertFails(Status.BadState, "fe_tensor_get_uid", () => { long uid = x.Uid; });
            TestSupport.AssertFails(Status.BadState, "fe_graph_workspace_size", () => { long size = graph.WorkspaceSize; });
        }

        [Test]
        public void ChecksOfTheBindingUseTheSameException()
        {
            TestSupport.AssertFails(Status.InvalidArgument, "2 dims but 1 strides",
                () => graph.Tensor("x", new long[] { 2, 3 }, new long[] { 1 }, DataType.Half));
            TestSupport.AssertFails(Status.InvalidArgument, "4 stride values; give 1 (every spatial dim) or one per spatial dim",
                () => graph.ConvFprop(graph.Tensor("i", 1, 1, 4, 4), graph.Tensor("k", 1, 1, 1, 1),
                                      new ConvOptions { Stride = new long[] { 1, 1, 1, 1 } }));
            TestSupport.AssertFails(Status.InvalidArgument, "axis 40",
                () => graph.Reduction(graph.Tensor("r", 4), ReductionMode.Add, new ReductionOptions { Axes = new[] { 40 } }));
        }

        [Test]
        public void StatusCodesOfANewerLibraryStayReadable()
        {
            var e = new CudnnFeException((Status)99, "from the future");
            Assert.AreEqual(99, (int)e.Status);
        }
    }
}
