using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace CudnnFe
{
    /// <summary>
    /// Finds the native glue, libcudnnfe_csharp.so, before the first P/Invoke (build_assembly.py
    /// makes this the first static initializer of the generated NativeApiPINVOKE). Places, in order:
    /// beside CudnnFe.dll (a DLL copied beside the program with the native files), the NuGet
    /// package's layout (../../runtimes/linux-x64/native from lib/net472), then the
    /// system's loader (LD_LIBRARY_PATH, ld.so.cache). The glue brings libcudnnfe.so.1 from its own
    /// directory (its run path is $ORIGIN) or the system's.
    ///
    /// On .NET Core 3.0 and later (compiled with NETCOREAPP3_0_OR_GREATER) the documented
    /// NativeLibrary.SetDllImportResolver does it; elsewhere (Mono, .NET Framework, this
    /// net472 build on any runtime) the glue is loaded with dlopen from the place found, and
    /// the runtime's own lookup of "libcudnnfe_csharp.so" then finds it already loaded by its
    /// soname. When it is nowhere, one line on standard error names the library and the places
    /// searched, and the exception says the same.
    /// </summary>
    internal static class NativeLibraryLoader
    {
        internal const string Glue = "libcudnnfe_csharp.so";
        internal const string Library = "libcudnnfe.so.1";

        static string RuntimeIdentifier()
        {
            string arch;
            switch (RuntimeInformation.ProcessArchitecture)
            {
                case Architecture.X64: arch = "x64"; break;
                case Architecture.Arm64: arch = "arm64"; break;
                case Architecture.X86: arch = "x86"; break;
                default: arch = RuntimeInformation.ProcessArchitecture.ToString().ToLowerInvariant(); break;
            }
            return "linux-" + arch;
        }

        /// <summary>The directories searched before the system's loader, in order.</summary>
        internal static List<string> Candidates()
        {
            var dirs = new List<string>();
            string location = typeof(NativeLibraryLoader).Assembly.Location;
            if (!string.IsNullOrEmpty(location))
            {
                string dir = Path.GetDirectoryName(Path.GetFullPath(location));
                dirs.Add(dir);
                // lib/net472/CudnnFe.dll -> runtimes/<rid>/native
                dirs.Add(Path.GetFullPath(Path.Combine(dir, "..", "..", "runtimes", RuntimeIdentifier(), "native")));
            }
            string baseDir = AppDomain.CurrentDomain.BaseDirectory;
            if (!string.IsNullOrEmpty(baseDir) && !dirs.Contains(Path.GetFullPath(baseDir).TrimEnd('/')))
                dirs.Add(Path.GetFullPath(baseDir).TrimEnd('/'));
            return dirs;
        }

        static bool done;

        /// <summary>Runs once; true when the glue was found (always true, or it throws).</summary>
        internal static bool EnsureLoaded()
        {
            if (done) return true;
            done = true;
            if (Environment.GetEnvironmentVariable("CUDNNFE_CSHARP_NO_RESOLVER") == "1") return true;
            if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux)) return true;
#if NETCOREAPP3_0_OR_GREATER
            NativeLibrary.SetDllImportResolver(typeof(NativeLibraryLoader).Assembly, (name, assembly, path) =>
            {
                if (name != Glue) return IntPtr.Zero;
                foreach (string dir in Candidates())
                {
                    string file = Path.Combine(dir, Glue);
                    if (File.Exists(file) && NativeLibrary.TryLoad(file, out IntPtr handle)) return handle;
                }
                if (NativeLibrary.TryLoad(Glue, assembly, path, out IntPtr found)) return found;
                throw new DllNotFoundException(Missing(null));
            });
            return true;
#else
            string firstError = null;
            foreach (string dir in Candidates())
            {
                string file = Path.Combine(dir, Glue);
                if (!File.Exists(file)) continue;
                if (Dl.Open(file) != IntPtr.Zero) return true;
                firstError = firstError ?? Dl.Error();
            }
            // The system's loader: LD_LIBRARY_PATH, the run paths, ld.so.cache. Without a usable
            // dlopen the runtime's own lookup decides.
            if (Dl.Open(Glue) != IntPtr.Zero || Dl.Unavailable) return true;
            string message = Missing(firstError ?? Dl.Error());
            Console.Error.WriteLine(message);
            throw new DllNotFoundException(message);
#endif
        }

        /// <summary>Refuses a glue or a C library of another version than this assembly's (a stale
        /// copy found first): a DllNotFoundException naming the three versions, written to standard
        /// error too, as a missing library is. NativeApi's static constructor calls it.</summary>
        internal static void CheckVersions(int assembly, int glue, long library)
        {
            if (glue == assembly && library == assembly) return;
            string message = "CudnnFe " + Text(assembly) + " (this assembly) found " + Glue + " " + Text(glue) + " and "
                + Library + " " + Text(library) + ": the assembly, the glue library and the C library must be one "
                + "version (a stale copy beside the program or on LD_LIBRARY_PATH?)";
            Console.Error.WriteLine(message);
            throw new DllNotFoundException(message);
        }

        static string Text(long version)
        {
            return (version / 10000) + "." + (version / 100 % 100) + "." + (version % 100);
        }

        static string Missing(string reason)
        {
            return "CudnnFe: cannot load the native library " + Glue + " (which needs " + Library + ")"
                + (reason != null ? ": " + reason : "")
                + ". Looked in " + string.Join(", ", Candidates())
                + " and the system's library path (LD_LIBRARY_PATH); install the native files beside "
                + "CudnnFe.dll, keep the package's runtimes/" + RuntimeIdentifier() + "/native layout, "
                + "or install the libcudnnfe-cil package (the glue and CudnnFe.dll; it brings libcudnnfe1).";
        }

#if !NETCOREAPP3_0_OR_GREATER
        static class Dl
        {
            const int RTLD_NOW = 2, RTLD_GLOBAL = 0x100;

            [DllImport("libdl.so.2", EntryPoint = "dlopen")]
            static extern IntPtr dlopen(string file, int mode);

            [DllImport("libdl.so.2", EntryPoint = "dlerror")]
            static extern IntPtr dlerror();

            internal static bool Unavailable;

            internal static IntPtr Open(string file)
            {
                try { return dlopen(file, RTLD_NOW | RTLD_GLOBAL); }
                catch (DllNotFoundException) { Unavailable = true; return IntPtr.Zero; }
                catch (EntryPointNotFoundException) { Unavailable = true; return IntPtr.Zero; }
            }

            internal static string Error()
            {
                try
                {
                    IntPtr text = dlerror();
                    return text == IntPtr.Zero ? null : Marshal.PtrToStringAnsi(text);
                }
                catch (DllNotFoundException) { return null; }
            }
        }
#endif
    }
}
