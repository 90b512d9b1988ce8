using System.Runtime.CompilerServices;

// The tests also exercise the generated low-level layer directly.
[assembly: InternalsVisibleTo("CudnnFe.Tests")]
