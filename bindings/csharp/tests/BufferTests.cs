using System;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>Device buffers: transfers on a GPU; without one, creation fails with the library's CUDA error.</summary>
    [TestFixture]
    public class BufferTests
    {
        [Test]
        public void WithoutAGpuCreationFailsWithTheCudaStatus()
        {
            if (TestSupport.GpuAvailable()) Assert.Ignore("this machine has a GPU");
            var e = Assert.Catch<CudnnFeException>(() => DeviceBuffer.Allocate(0, 1024));
            Assert.That(e.Status == Status.NoDevice || e.Status == Status.CudaError || e.Status == Status.LibraryUnavailable,
                        e.Status + ": " + e.Message);
            StringAssert.StartsWith("DeviceBuffer.Allocate", e.Message);
            Assert.IsFalse(e.Message.Contains("\n"));
            Assert.Catch<CudnnFeException>(() => new Handle(0));
        }

        [Test]
        public void FloatsRoundTripThroughHalfAndFloat()
        {
            TestSupport.NeedGpu();
            using (DeviceBuffer buffer = DeviceBuffer.Allocate(0, 64))
            {
                Assert.AreEqual(64, buffer.Size);
                Assert.AreEqual(0, buffer.DevicePointer.ToInt64() % 16);
                float[] values = { 0.5f, -1.25f, 3.0f, 1024.0f };
                buffer.Upload(values, DataType.Half);
                Assert.AreEqual(values, buffer.DownloadFloats(4, DataType.Half));
                buffer.Upload(values, DataType.Float);
                Assert.AreEqual(values, buffer.DownloadFloats(4, DataType.Float));
            }
        }

        [Test]
        public void BitsAndBytesMoveUnchanged()
        {
            TestSupport.NeedGpu();
            using (DeviceBuffer buffer = DeviceBuffer.Allocate(0, 8))
            {
                ushort[] bits = { 0x3C00, 0xC000, 0x7BFF, 0x0001 }; // fp16 1, -2, max, smallest subnormal
                buffer.Upload(bits);
                var back = new ushort[4];
                buffer.Download(back);
                Assert.AreEqual(bits, back);
                Assert.AreEqual(new float[] { 1, -2, 65504, 5.9604645e-8f }, buffer.DownloadFloats(4, DataType.Half));
                buffer.Upload(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 });
                var bytes = new byte[8];
                buffer.Download(bytes);
                Assert.AreEqual(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 }, bytes);
                IntPtr host = Marshal.AllocHGlobal(8);
                try
                {
                    buffer.Fill(0xFF);
                    buffer.Download(host, 8);
                    Assert.AreEqual(-1L, Marshal.ReadInt64(host));
                }
                finally
                {
                    Marshal.FreeHGlobal(host);
                }
            }
        }

        [Test]
        public void ABufferForATensorHoldsIt()
        {
            TestSupport.NeedGpu();
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.Validate(); // the tensors take the graph's io type, which sizes the buffer
                using (DeviceBuffer buffer = DeviceBuffer.For(0, graph.TensorByName("image")))
                    Assert.GreaterOrEqual(buffer.Size, graph.TensorByName("image").SizeBytes);
            }
        }
    }
}
