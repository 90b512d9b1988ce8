using System;
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
        public void EachStatusHasItsExceptionClass()
        {
            // The library's refusal (an empty dim) and the binding's own check: each the class of
            // its status, all of them a CudnnFeException; a disposed object is .NET's
            // ObjectDisposedException.
            var library = Assert.Throws<InvalidArgumentException>(() => graph.Tensor("x", new long[] { 0 }, null, DataType.Half));
            Assert.AreEqual(Status.InvalidArgument, library.Status);
            Assert.Throws<InvalidArgumentException>(() => graph.Tensor("x", new long[] { 2, 3 }, new long[] { 1 }, DataType.Half));
            var disposed = new Graph();
            disposed.Dispose();
            TestSupport.AssertDisposed("Graph.Validate", "Graph", () => disposed.Validate());
            using (var fresh = new Graph())
            {
                var state = Assert.Throws<BadStateException>(() => fresh.CreateExecutionPlans());
                Assert.AreEqual(Status.BadState, state.Status);
            }
            Assert.IsTrue(typeof(CudnnFeException).IsAssignableFrom(typeof(NotSupportedException)));
        }

        [Test]
        public void InvalidArgumentNamesTheCallAndTheCause()
        {
            Tensor x = graph.Tensor("x", 8, 64, 56, 56), w = graph.Tensor("w", 32, 32, 3, 3);
            TestSupport.AssertFails(Status.InvalidArgument, "Graph.ConvFprop: weight has 32 input channels, image has 64",
                () => graph.ConvFprop(x, w));
            TestSupport.AssertFails(Status.InvalidArgument, "Graph.Tensor", () => graph.Tensor("zero", 4, 0));
            TestSupport.AssertFails(Status.InvalidArgument, "Library.StridesChannelsLast", () => Library.StridesChannelsLast(2, 3));
        }

        [Test]
        public void NotFound() =>
            TestSupport.AssertFails(Status.NotFound, "Graph.TensorByName", () => graph.TensorByName("missing"));

        [Test]
        public void DuplicateNamesAndUids()
        {
            Tensor a = graph.Tensor("a", 4), b = graph.Tensor("b", 4);
            TestSupport.AssertFails(Status.Duplicate, "Graph.Tensor", () => graph.Tensor("a", 4));
            a.SetUid(5);
            TestSupport.AssertFails(Status.Duplicate, "uid 5 is already used by 'a'", () => b.SetUid(5));
        }

        [Test]
        public void AlignmentPromisesAreCheckedAndWritten()
        {
            Tensor a = graph.Tensor("a", 1, 32, 64);
            TestSupport.AssertFails(Status.InvalidArgument, "Tensor.SetAlignment: an alignment of 48 bytes for 'a'",
                                    () => a.SetAlignment(48));
            a.SetAlignment(256);
            graph.Relu(a).SetOutput(true);
            StringAssert.Contains("\"alignment\":256", graph.ToJson());
        }

        [Test]
        public void VectorizedInt8LayoutsAreCheckedInferredAndWritten()
        {
            using (var g = new Graph(new GraphOptions { IoDataType = DataType.Int8 }))
            {
                Tensor x = g.Tensor("x", 2, 1, 8, 8), w = g.Tensor("w", 32, 1, 3, 3);
                TestSupport.AssertFails(Status.InvalidArgument, "Tensor.SetVectorization: vectors of 8 values for 'x'",
                                        () => x.SetVectorization(8, 1));
                TestSupport.AssertFails(Status.InvalidArgument, "Tensor.SetReordering: 'w' is in vectors of 1 values",
                                        () => w.SetReordering(TensorReordering.Int8x32));
                x.SetVectorization(32, 1);
                w.SetVectorization(32, 1);
                w.SetReordering(TensorReordering.Int8x32);
                Assert.AreEqual(TensorReordering.Int8x32, w.Reordering);
                Assert.AreEqual(32, x.VectorCount);
                Assert.AreEqual(1, x.VectorDim);
                Tensor y = g.ConvFprop(x, w);
                y.SetOutput(true);
                g.Validate();
                Assert.AreEqual(2 * 32 * 8 * 8, x.SizeBytes);
                Assert.AreEqual(32, y.VectorCount);
                Assert.AreEqual(2 * 32 * 6 * 6, y.SizeBytes);
                StringAssert.Contains("\"vector_count\":32,\"vector_dim\":1,\"reordering\":\"int8x32\"", g.ToJson());
            }
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
            TestSupport.AssertFails(Status.BadState, "Tensor.Uid", () => { long uid = x.Uid; });
            TestSupport.AssertFails(Status.BadState, "Graph.WorkspaceSize", () => { long size = graph.WorkspaceSize; });
        }

        [Test]
        public void ChecksOfTheBindingUseTheSameException()
        {
            TestSupport.AssertFails(Status.InvalidArgument, "Graph.Tensor: tensor 'x': 2 dims but 1 strides",
                () => graph.Tensor("x", new long[] { 2, 3 }, new long[] { 1 }, DataType.Half));
            TestSupport.AssertFails(Status.InvalidArgument, "Library.AlibiSlopes: -1 heads", () => Library.AlibiSlopes(-1));
            TestSupport.AssertFails(Status.InvalidArgument, "Graph.Rng: 9 dims, expected 1 to 8",
                () => graph.Rng(graph.Tensor("seed", 1), graph.Tensor("offset", 1), RngDistribution.Uniform, 0, 1, new long[9]));
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
    
        [Test]
        public void TheHeadlineIsTheCSharpMethodAndTheCFunctionIsKept()
        {
            Tensor x = graph.Tensor("x", 8, 64, 56, 56), w = graph.Tensor("w", 32, 32, 3, 3);
            var e = TestSupport.AssertFails(Status.InvalidArgument, "weight has 32 input channels", () => graph.ConvFprop(x, w));
            StringAssert.StartsWith("Graph.ConvFprop: weight has 32 input channels", e.Message);
            Assert.AreEqual("fe_graph_conv_fprop", e.Function);
            Assert.AreEqual("Graph.ConvFprop", e.Method);
            StringAssert.StartsWith("weight has 32 input channels", e.Reason);
            StringAssert.DoesNotContain("fe_graph_conv_fprop", e.Message);
        }

        [Test]
        public void AdviceNamesTheCSharpMembers()
        {
            graph.Relu(graph.Tensor("x", 4));
            var e = TestSupport.AssertFails(Status.Validation, "mark a result with Tensor.SetOutput", graph.Validate);
            Assert.AreEqual("fe_graph_validate", e.Function);
            StringAssert.StartsWith("Graph.Validate: ", e.Message);
            TestSupport.AssertFails(Status.BadState, "call Graph.BuildOperationGraph first", () => graph.CreateExecutionPlans());
        }

        [Test]
        public void TheNameTableTranslatesTheCommonAdvice()
        {
            Assert.AreEqual("Tensor.SetOutput", ApiNames.Method("fe_tensor_set_output"));
            Assert.AreEqual("Graph.Build", ApiNames.Method("fe_graph_build"));
            Assert.AreEqual("Graph.BuildOperationGraph", ApiNames.Method("fe_graph_build_operation_graph"));
            Assert.AreEqual("Graph.Validate", ApiNames.Method("fe_graph_validate"));
            Assert.AreEqual("Graph.CheckSupport", ApiNames.Method("fe_graph_check_support"));
            Assert.AreEqual("Tensor.SetStrides", ApiNames.Method("fe_tensor_set_strides"));
            Assert.AreEqual("Tensor.SetDataType", ApiNames.Method("fe_tensor_set_data_type"));
            Assert.AreEqual("Tensor.Dims", ApiNames.Method("fe_tensor_get_dims"));
            Assert.AreEqual("ConvOptions.Stride", ApiNames.Method("fe_conv_options_set_stride"));
            Assert.AreEqual("call Graph.CheckSupport first; fe_conv_options stays",
                            ApiNames.Translate("call fe_graph_check_support first; fe_conv_options stays"));
        }

        [Test]
        public void ANullArgumentIsAnArgumentNullExceptionNamingIt()
        {
            Tensor x = graph.Tensor("x", 8, 64, 56, 56);
            TestSupport.AssertNullArgument("weight", "Graph.ConvFprop: weight is null", () => graph.ConvFprop(x, null));
            TestSupport.AssertNullArgument("image", "Graph.ConvFprop: image is null", () => graph.ConvFprop(null, x));
            TestSupport.AssertNullArgument("b", "Graph.Add: b is null", () => graph.Add(x, null));
            TestSupport.AssertNullArgument("like", "Graph.TensorLike: like is null", () => graph.TensorLike(null, "y"));
            TestSupport.AssertNullArgument("handle", "Graph.Autotune: handle is null", () => graph.Autotune(null, 1, 1));
            TestSupport.AssertNullArgument("tensor", "DeviceBuffer.For: tensor is null", () => DeviceBuffer.For(0, null));
            // An array and one of its elements (named as the executes name theirs).
            TestSupport.AssertNullArgument("inputs", "Graph.Concatenate: inputs is null", () => graph.Concatenate(null, 1));
            TestSupport.AssertNullArgument("inputs[1]", "Graph.Concatenate: inputs[1] is null",
                                           () => graph.Concatenate(new[] { x, null }, 1));
        }

        [Test]
        public void ToStringDescribes()
        {
            Tensor x = graph.Tensor("x", 2, 3);
            graph.Relu(x).SetOutput(true);
            Assert.AreEqual(graph.Describe(), graph.ToString());
            Assert.AreEqual("Tensor(x [2, 3])", x.ToString());
        }
}
}
