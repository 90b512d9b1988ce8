using System;
using System.IO;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>What the tests share: the machine's capabilities, the error assertion, the seed's graph.</summary>
    internal static class TestSupport
    {
        internal static bool CudnnAvailable()
        {
            try
            {
                Library.CudnnVersion();
                return true;
            }
            catch (CudnnFeException)
            {
                return false;
            }
        }

        internal static bool GpuAvailable()
        {
            try
            {
                return Library.DeviceCount() > 0;
            }
            catch (CudnnFeException)
            {
                return false;
            }
        }

        /// <summary>The captured H100 description ($CUDNNFE_DEVICE_JSON, else the repository's copy), or null.</summary>
        internal static string DeviceJson()
        {
            string path = Environment.GetEnvironmentVariable("CUDNNFE_DEVICE_JSON") ?? "../shared/devices/h100-sxm-80gb.json";
            return File.Exists(path) ? File.ReadAllText(path) : null;
        }

        /// <summary>The captured description for a deviceless test; the test is ignored, saying why,
        /// where cuDNN cannot be loaded or no description is found.</summary>
        internal static string CudnnAndDeviceJsonOrIgnore()
        {
            if (!CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            string json = DeviceJson();
            if (json == null) Assert.Ignore("no device description: set CUDNNFE_DEVICE_JSON");
            return json;
        }

        internal static void NeedGpu()
        {
            if (!GpuAvailable()) Assert.Ignore("no GPU here");
        }

        /// <summary>The call fails with this status and a one-line message containing text.</summary>
        internal static CudnnFeException AssertFails(Status status, string text, TestDelegate call)
        {
            var e = Assert.Catch<CudnnFeException>(call);
            Assert.AreEqual(status, e.Status, e.Message);
            StringAssert.Contains(text, e.Message);
            Assert.IsFalse(e.Message.Contains("\n"), "the message is one line");
            return e;
        }

        /// <summary>A use after Dispose: ObjectDisposedException "Class.Method: the what is disposed".</summary>
        internal static System.ObjectDisposedException AssertDisposed(string method, string what, TestDelegate call)
        {
            var e = Assert.Throws<System.ObjectDisposedException>(call);
            Assert.AreEqual(method + ": the " + what + " is disposed", e.Message);
            return e;
        }

        /// <summary>A null argument: ArgumentNullException naming the parameter, whose message
        /// starts with text.</summary>
        internal static System.ArgumentNullException AssertNullArgument(string parameter, string text, TestDelegate call)
        {
            var e = Assert.Throws<System.ArgumentNullException>(call);
            Assert.AreEqual(parameter, e.ParamName, e.Message);
            StringAssert.StartsWith(text, e.Message);
            return e;
        }

        /// <summary>The seed's first graph: an fp16 3x3 convolution in channels-last memory.</summary>
        internal static Graph SeedConvGraph()
        {
            var graph = new Graph(new GraphOptions { Name = "first_graph", IoDataType = DataType.Half, ComputeDataType = DataType.Float });
            long[] xDims = { 8, 64, 56, 56 }, wDims = { 32, 64, 3, 3 };
            Tensor x = graph.Tensor("image", xDims, Library.StridesChannelsLast(xDims), DataType.NotSet);
            Tensor w = graph.Tensor("weight", wDims, Library.StridesChannelsLast(wDims), DataType.NotSet);
            graph.ConvFprop(x, w, new ConvOptions { Padding = new long[] { 1, 1 } }).SetOutput(true);
            return graph;
        }

        /// <summary>A bf16 1x1 convolution in channels-last memory (a ResNet bottleneck's).</summary>
        internal static Graph PointwiseConvGraph()
        {
            var graph = new Graph(new GraphOptions { Name = "conv1x1", IoDataType = DataType.BFloat16, ComputeDataType = DataType.Float });
            long[] xDims = { 8, 1024, 14, 14 }, wDims = { 256, 1024, 1, 1 };
            Tensor x = graph.Tensor("image", xDims, Library.StridesChannelsLast(xDims), DataType.NotSet);
            Tensor w = graph.Tensor("weight", wDims, Library.StridesChannelsLast(wDims), DataType.NotSet);
            graph.ConvFprop(x, w, new ConvOptions()).SetOutput(true);
            return graph;
        }
    }
}
