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
        /// <summary>UnavailableProbe.exe in a child process on this runtime, with one more variable.</summary>
        static ProcessStartInfo Probe(string variable, string value)
        {
            string directory = Path.GetDirectoryName(typeof(UnavailableTests).Assembly.Location);
            var start = new ProcessStartInfo(Process.GetCurrentProcess().MainModule.FileName,
                                             "\"" + Path.Combine(directory, "UnavailableProbe.exe") + "\"")
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            start.EnvironmentVariables[variable] = value;
            start.EnvironmentVariables["MONO_PATH"] = directory;
            return start;
        }

        [Test]
        public void WithoutCudnnCallsFailWithLibraryUnavailable()
        {
            using (Process child = Process.Start(Probe("CUDNNFE_CUDNN_LIBRARY", "/nonexistent/libcudnn.so.9")))
            {
                string output = child.StandardOutput.ReadToEnd();
                child.WaitForExit();
                Assert.AreEqual(0, child.ExitCode, output);
                StringAssert.StartsWith("LibraryUnavailable Library.CudnnVersion: cuDNN could not be loaded", output);
                StringAssert.Contains("/nonexistent/libcudnn.so.9", output);
                StringAssert.Contains("validated", output);
            }
        }

        /// <summary>A libcudnnfe.so.1 of another version planted ahead of the real one (its
        /// fe_version preloaded) is refused before the first call, naming the three versions.</summary>
        [Test]
        public void AStaleLibraryIsRefusedAtLoadNamingTheVersions()
        {
            string stale = System.Environment.GetEnvironmentVariable("CUDNNFE_STALE_VERSION_LIB");
            if (string.IsNullOrEmpty(stale))
                Assert.Ignore("CUDNNFE_STALE_VERSION_LIB (a library whose fe_version says 1.3.0) is not set; the meson test sets it");
            using (Process child = Process.Start(Probe("LD_PRELOAD", stale)))
            {
                string output = child.StandardOutput.ReadToEnd(), errors = child.StandardError.ReadToEnd();
                child.WaitForExit();
                Assert.AreNotEqual(0, child.ExitCode, output);
                string version = Library.VersionString;
                StringAssert.Contains("CudnnFe " + version + " (this assembly) found libcudnnfe_csharp.so " + version +
                                      " and libcudnnfe.so.1 1.3.0", errors);
                StringAssert.Contains("DllNotFoundException", errors);
            }
        }
    }
}
