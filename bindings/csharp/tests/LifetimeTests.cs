using System;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Dispose is deterministic and idempotent; use after Dispose is an error, never a crash.</summary>
    [TestFixture]
    public class LifetimeTests
    {
        [Test]
        public void DisposingTwiceIsHarmless()
        {
            var graph = new Graph();
            graph.Dispose();
            graph.Dispose();
            Assert.IsTrue(graph.IsDisposed);
        }

        [Test]
        public void UseOfADisposedGraphThrowsBadState()
        {
            var graph = new Graph(new GraphOptions { IoDataType = DataType.Half });
            Tensor x = graph.Tensor("x", 4, 4);
            graph.Dispose();
            TestSupport.AssertDisposed("Graph.Validate", "Graph", graph.Validate);
            TestSupport.AssertDisposed("Graph.Tensor", "Graph", () => graph.Tensor("y", 2));
            TestSupport.AssertDisposed("Tensor.Dims", "Graph", () => { long[] dims = x.Dims; });
            TestSupport.AssertDisposed("Tensor.SetOutput", "Graph", () => x.SetOutput(true));
            Assert.AreEqual("Tensor(disposed graph)", x.ToString());
        }

        [Test]
        public void ATensorOfADisposedGraphCannotJoinAnotherGraph()
        {
            var first = new Graph(new GraphOptions { IoDataType = DataType.Half });
            Tensor x = first.Tensor("x", 4);
            first.Dispose();
            using (var second = new Graph(new GraphOptions { IoDataType = DataType.Half }))
                TestSupport.AssertDisposed("Graph.Relu", "Graph", () => second.Relu(x));
        }

        private static Tensor TensorOfAGraphNobodyHolds()
        {
            var graph = new Graph(new GraphOptions { IoDataType = DataType.Half });
            return graph.Relu(graph.Tensor("x", 3, 5));
        }

        [Test]
        public void ATensorOutlivesTheLastReferenceToItsGraph()
        {
            Tensor y = TensorOfAGraphNobodyHolds();
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            // The tensor holds its graph: the graph is undisposed and usable through it.
            Assert.AreEqual(new long[] { 3, 5 }, y.Dims);
            y.SetOutput(true);
            y.Graph.Validate();
            y.Graph.Dispose();
            TestSupport.AssertDisposed("Tensor.Dims", "Graph", () => { long[] dims = y.Dims; });
        }

        [Test]
        public void HandlesAndBuffersDisposeTwiceAndRefuseUseAfterDispose()
        {
            TestSupport.NeedGpu();
            var handle = new Handle(0);
            var buffer = DeviceBuffer.Allocate(0, 256);
            handle.Dispose();
            handle.Dispose();
            buffer.Dispose();
            buffer.Dispose();
            TestSupport.AssertDisposed("Handle.Synchronize", "Handle", handle.Synchronize);
            TestSupport.AssertDisposed("DeviceBuffer.DevicePointer", "DeviceBuffer", () => { IntPtr p = buffer.DevicePointer; });
        }
    }
}
