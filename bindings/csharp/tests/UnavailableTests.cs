using System.Diagnostics;
using System.IO;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>
    /// Without cuDNN (CUDNNFE_CUDNN_LIBRARY naming a missing file) the calls that need it throw with
    /// LibraryUnavailable. cuDNN is loaded once per process, so UnavailableProbe.exe (built beside
    /// the tests) runs in a child process on the same runtime.
    /// </summary>
    [TestFixture]
    public class UnavailableTests
    {
        [Test]
        public void WithoutCudnnCallsFailWithLibraryUnavailable()
        {
            string directory = Path.GetDirectoryName(typeof(UnavailableTests).Assembly.Location);
            var start = new ProcessStartInfo(Process.GetCurrentProcess().MainModule.FileName,
                                             "\"" + Path.Combine(directory, "UnavailableProbe.exe") + "\"")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
            };
            start.EnvironmentVariables["CUDNNFE_CUDNN_LIBRARY"] = "/nonexistent/libcudnn.so.9";
            start.EnvironmentVariables["MONO_PATH"] = directory;
            using (Process child = Process.Start(start))
            {
                string output = child.StandardOutput.ReadToEnd();
                child.WaitForExit();
                Assert.AreEqual(0, child.ExitCode, output);
                StringAssert.StartsWith("LibraryUnavailable Library.CudnnVersion: cuDNN could not be loaded", output);
                StringAssert.Contains("/nonexistent/libcudnn.so.9", output);
                StringAssert.Contains("validated", output);
            }
        }
    }
}
