// An outside C# program run against the installed assembly and its glue only (the glue, beside
// the assembly, finds libcudnnfe.so.1 through its run path): the version is the package's (args[0]).
using System;
using CudnnFe;

public static class VersionClient
{
    public static int Main(string[] args)
    {
        string version = Library.VersionString;
        long[] strides = Library.StridesChannelsLast(8, 64, 56, 56);
        if (version != args[0] || strides[1] != 1)
        {
            Console.Error.WriteLine("cudnnfe " + version + ", package " + args[0] + ", channel stride " + strides[1]);
            return 1;
        }
        Console.WriteLine("csharp: CudnnFe " + version + " from the package");
        return 0;
    }
}
