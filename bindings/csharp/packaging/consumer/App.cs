// The consumer test of scripts/bindings_packages.sh: a program compiled against the CudnnFe.dll of
// the NuGet package, run with no path to the build.
using System;

static class App
{
    static void Main()
    {
        Console.WriteLine("cudnnfe " + CudnnFe.Library.VersionString);
    }
}
