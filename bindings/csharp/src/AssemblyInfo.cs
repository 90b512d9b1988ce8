using System.Runtime.CompilerServices;
using System.Runtime.Versioning;

// What the assembly is compiled against (mcs -sdk:4.7.2), as the package labels it (lib/net472).
[assembly: TargetFramework(".NETFramework,Version=v4.7.2", FrameworkDisplayName = ".NET Framework 4.7.2")]

// The tests also exercise the generated low-level layer directly. Both assemblies are
// strong-named with packaging/CudnnFe.snk, whose public key this is.
[assembly: InternalsVisibleTo("CudnnFe.Tests, PublicKey=00240000048000009400000006020000002400005253413100040000010001004766f0122bbcca255250d367de34f8f98c1d9dbd851c8245eaa5a1dee67898b82b962e9e60e0470d94d01854249005fe36291e5cb1056ead9e31cdb64740358e0f7fcfb9bc117edb61a41236931a8e212f7eb14556a5c3c6d07998b3b546e197605693754079e935a49e215ba821fb13c125ceabc1aac8ae2ef61a61c2d9ad90")]
