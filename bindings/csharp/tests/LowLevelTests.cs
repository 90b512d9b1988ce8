using System;
using System.Collections.Generic;
using System.Linq;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>The SWIG layer's typemaps, and that the public enums cover the header's.</summary>
    [TestFixture]
    public class LowLevelTests
    {
        private static List<Type> NativeEnums() =>
            typeof(Graph).Assembly.GetTypes().Where(t => t.IsEnum && t.Name.StartsWith("fe_")).ToList();

        // fe_background_state's public enum is CudnnFe.BackgroundState (fe_status's is Status).
        private static Type PublicEnum(Type native) =>
            typeof(Graph).Assembly.GetType("CudnnFe." + string.Concat(native.Name.Substring(3).Split('_')
                .Select(w => char.ToUpperInvariant(w[0]) + w.Substring(1))));

        // What the header's names of the enum's values begin with (FE_OK aside): FE_STATUS_, FE_DATA_...
        private static string ValuePrefix(Type native)
        {
            string[] names = Enum.GetNames(native).Where(n => n != "FE_OK").ToArray();
            string prefix = names[0].Substring(0, names[0].LastIndexOf('_') + 1);
            while (!names.All(n => n.StartsWith(prefix))) prefix = prefix.Substring(0, prefix.LastIndexOf('_', prefix.Length - 2) + 1);
            return prefix;
        }

        /// <summary>Every enum of the header has a public enum, with the header's values.</summary>
        [Test]
        public void PublicEnumsMatchTheHeader()
        {
            List<Type> natives = NativeEnums();
            Assert.IsNotEmpty(natives);
            foreach (Type native in natives)
            {
                Type mapping = PublicEnum(native);
                Assert.IsNotNull(mapping, native.Name + " has no public enum");
                var publicValues = Enum.GetValues(mapping).Cast<object>().ToDictionary(
                    v => Enum.GetName(mapping, v).ToUpperInvariant(), v => Convert.ToInt32(v));
                string prefix = ValuePrefix(native);
                foreach (object value in Enum.GetValues(native))
                {
                    string name = Enum.GetName(native, value);
                    string key = name == "FE_OK" ? "OK" : name.Substring(prefix.Length).Replace("_", "");
                    Assert.IsTrue(publicValues.ContainsKey(key), native.Name + "." + name + " has no public counterpart");
                    Assert.AreEqual(Convert.ToInt32(value), publicValues[key], native.Name + "." + name);
                }
            }
        }

        [Test]
        public void ANullHandleIsTheLibrarysNullPointerError()
        {
            Assert.AreEqual(fe_status.FE_STATUS_NULL_POINTER, NativeApi.fe_graph_validate(IntPtr.Zero));
            StringAssert.StartsWith("fe_graph_validate", NativeApi.fe_last_error_message());
        }

        [Test]
        public void NumberArraysAreWrittenInPlace()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                IntPtr tensor = graph.Tensor("x", 2, 3, 4).Pointer;
                var dims = new long[3];
                Assert.AreEqual(fe_status.FE_OK, NativeApi.fe_tensor_get_dims(tensor, dims, 3));
                Assert.AreEqual(new long[] { 2, 3, 4 }, dims);
                Assert.AreEqual(fe_status.FE_STATUS_BUFFER_TOO_SMALL, NativeApi.fe_tensor_get_dims(tensor, new long[1], 1));
            }
        }

        [Test]
        public void NullableOutputsMayBeNull()
        {
            using (var graph = new Graph(new GraphOptions { IoDataType = DataType.Half }))
            {
                IntPtr q = graph.Tensor("q", 1, 1, 64, 64).Pointer, k = graph.Tensor("k", 1, 1, 64, 64).Pointer;
                IntPtr v = graph.Tensor("v", 1, 1, 64, 64).Pointer;
                var o = new IntPtr[1];
                Assert.AreEqual(fe_status.FE_OK, NativeApi.fe_graph_sdpa(graph.Pointer, q, k, v, null, o, null));
                Assert.AreNotEqual(IntPtr.Zero, o[0]);
            }
        }

        [Test]
        public void OptionStructsStartFromTheirInitMacros()
        {
            using (var conv = new fe_conv_options())
            using (var pointwise = new fe_pointwise_options())
            using (var graph = new fe_graph_options())
            {
                Assert.Greater(conv.struct_size, 0u);
                Assert.AreEqual(new long[] { 1, 1, 1 }, conv.stride);
                Assert.AreEqual(new long[] { 0, 0, 0 }, conv.pre_padding);
                Assert.AreEqual(fe_conv_mode.FE_CONV_MODE_CROSS_CORRELATION, conv.mode);
                conv.stride = new long[] { 2, 3, 4 };
                Assert.AreEqual(new long[] { 2, 3, 4 }, conv.stride);
                Assert.AreEqual(1e300, pointwise.relu_upper_clip);
                graph.name = "first";
                graph.name = "second";
                Assert.AreEqual("second", graph.name);
                graph.name = null;
                Assert.IsNull(graph.name);
            }
        }
    }
}
