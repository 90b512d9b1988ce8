// The C# tests on a machine without Mono or NUnit's console (the GPU machines): a runner of the
// NUnit 2.6 attributes the tests use ([TestFixture], [SetUp], [TearDown], [Test]), bundled by
// mkbundle with the runtime, CudnnFe.dll, the tests and nunit.framework into one executable.
//
//   cudnnfe_csharp_tests [FILTER] [--skip=NAME,...]
//
// runs the tests whose "Fixture.Method" contains FILTER, skipping (and counting as skipped) those
// whose name contains one of the NAMEs: the tests that start this runtime again in a child
// process (UnavailableTests) have no runtime of their own to start in a bundle.
//
// Prints each failure and skip with its message, then "N passed, N failed, N skipped"; exits 1
// when any failed.
using System;
using System.Linq;
using System.Reflection;
using NUnit.Framework;

internal static class TestRunner
{
    private static int Main(string[] args)
    {
        string filter = args.FirstOrDefault(a => !a.StartsWith("--skip=")) ?? "";
        string[] skips = args.Where(a => a.StartsWith("--skip=")).SelectMany(a => a.Substring(7).Split(','))
                             .Where(n => n.Length > 0).ToArray();
        Assembly tests = Assembly.Load("CudnnFe.Tests");
        int passed = 0, failed = 0, skipped = 0;
        foreach (Type fixture in tests.GetTypes().Where(t => t.IsDefined(typeof(TestFixtureAttribute), false))
                                                 .OrderBy(t => t.FullName))
        {
            MethodInfo[] methods = fixture.GetMethods(BindingFlags.Public | BindingFlags.Instance);
            MethodInfo[] setUp = methods.Where(m => m.IsDefined(typeof(SetUpAttribute), true)).ToArray();
            MethodInfo[] tearDown = methods.Where(m => m.IsDefined(typeof(TearDownAttribute), true)).ToArray();
            foreach (MethodInfo test in methods.Where(m => m.IsDefined(typeof(TestAttribute), true)).OrderBy(m => m.Name))
            {
                string name = fixture.Name + "." + test.Name;
                if (!name.Contains(filter)) continue;
                if (skips.Any(name.Contains))
                {
                    ++skipped;
                    Console.WriteLine("SKIP " + name + ": --skip");
                    continue;
                }
                object instance = Activator.CreateInstance(fixture);
                Exception error = Run(instance, setUp);
                if (error == null) error = Run(instance, new[] { test });
                Exception cleanup = Run(instance, tearDown);
                if (error == null) error = cleanup;
                if (error == null || error is SuccessException) { ++passed; continue; }
                if (error is IgnoreException || error is InconclusiveException)
                {
                    ++skipped;
                    Console.WriteLine("SKIP " + name + ": " + error.Message);
                    continue;
                }
                ++failed;
                Console.WriteLine("FAIL " + name + ": " + error.GetType().Name + ": " + error.Message);
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed, " + skipped + " skipped");
        return failed == 0 ? 0 : 1;
    }

    // The first exception the methods throw, unwrapped from reflection's; null when none.
    private static Exception Run(object instance, MethodInfo[] methods)
    {
        foreach (MethodInfo m in methods)
        {
            try
            {
                m.Invoke(instance, null);
            }
            catch (TargetInvocationException e)
            {
                return e.InnerException ?? e;
            }
        }
        return null;
    }
}
