using System;
using System.Linq;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>The SWIG layer's typemaps, and that the public enums cover the header's.</summary>
    [TestFixture]
    public class LowLevelTests
    {
        private static readonly Tuple<string, Type, string>[] publicEnums =
            {
                Tuple.Create("fe_status", typeof(Status), "FE_STATUS_"),
                Tuple.Create("fe_data_type", typeof(DataType), "FE_DATA_"),
                Tuple.Create("fe_heur_mode", typeof(HeurMode), "FE_HEUR_MODE_"),
                Tuple.Create("fe_build_policy", typeof(BuildPolicy), "FE_BUILD_POLICY_"),
                Tuple.Create("fe_conv_mode", typeof(ConvMode), "FE_CONV_MODE_"),
                Tuple.Create("fe_pointwise_mode", typeof(PointwiseMode), "FE_POINTWISE_"),
                Tuple.Create("fe_reduction_mode", typeof(ReductionMode), "FE_REDUCTION_"),
                Tuple.Create("fe_causal_mask", typeof(CausalMask), "FE_CAUSAL_MASK_"),
                Tuple.Create("fe_log_level", typeof(LogLevel), "FE_LOG_"),
            };

        /// <summary>The public enums have the header's values.</summary>
        [Test]
        public void PublicEnumsMatchTheHeader()
        {
            var generated = typeof(Graph).Assembly.GetTypes().Where(t => t.IsEnum && t.Name.StartsWith("fe_")).ToList();
            Assert.IsNotEmpty(generated);
            foreach (Type native in generated)
            {
                var mapping = publicEnums.FirstOrDefault(m => m.Item1 == native.Name);
                if (mapping == null) continue; // see EveryEnumOfTheHeaderHasAPublicEnum
                var publicValues = Enum.GetValues(mapping.Item2).Cast<object>().ToDictionary(
                    v => Enum.GetName(mapping.Item2, v).ToUpperInvariant(), v => Convert.ToInt32(v));
                foreach (object value in Enum.GetValues(native))
                {
                    string name = Enum.GetName(native, value);
                    string key = name == "FE_OK" ? "OK" : name.Substring(mapping.Item3.Length).Replace("_", "");
                    Assert.IsTrue(publicValues.ContainsKey(key), native.Name + "." + name + " has no public counterpart");
                    Assert.AreEqual(Convert.ToInt32(value), publicValues[key], native.Name + "." + name);
                }
            }
        }

        /// <summary>An enum added to the header shows here (ignored, with its name) until it has a public enum.</summary>
        [Test]
        public void EveryEnumOfTheHeaderHasAPublicEnum()
        {
            var missing = typeof(Graph).Assembly.GetTypes()
                .Where(t => t.IsEnum && t.Name.StartsWith("fe_") && publicEnums.All(m => m.Item1 != t.Name))
                .Select(t => t.Name).ToList();
            if (missing.Count > 0) Assert.Ignore("the header's enums without a public C# enum yet: " + string.Join(", ", missing));
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
