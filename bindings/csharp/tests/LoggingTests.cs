using System.Collections.Generic;
using System.Diagnostics;
using NUnit.Framework;

namespace CudnnFe.Tests
{
    /// <summary>The library's log lines reach a System.Diagnostics.TraceSource.</summary>
    [TestFixture]
    public class LoggingTests
    {
        private sealed class Collector : TraceListener
        {
            public readonly List<(TraceEventType, string)> Events = new List<(TraceEventType, string)>();

            public override void TraceEvent(TraceEventCache cache, string source, TraceEventType type, int id, string message)
            {
                lock (Events) Events.Add((type, message));
            }

            public override void Write(string message) { }

            public override void WriteLine(string message) { }

            public List<(TraceEventType, string)> Copy()
            {
                lock (Events) return new List<(TraceEventType, string)>(Events);
            }
        }

        [TearDown]
        public void Restore()
        {
            Logging.RouteTo(null);
            Library.SetLogLevel(LogLevel.Off);
        }

        [Test]
        public void ALibraryLineArrivesInTheTraceSource()
        {
            if (!TestSupport.CudnnAvailable()) Assert.Ignore("cuDNN is not loadable here");
            string json = TestSupport.DeviceJson();
            if (json == null) Assert.Ignore("no device description: set CUDNNFE_DEVICE_JSON");
            var source = new TraceSource("CudnnFe.Tests.Logging", SourceLevels.All);
            var collector = new Collector();
            source.Listeners.Clear();
            source.Listeners.Add(collector);
            Logging.RouteTo(source);
            Assert.AreSame(source, Logging.Target);
            Library.SetLogLevel(LogLevel.Info);
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.SetDeviceProperties(json);
                graph.BuildOperationGraph(null);
            }
            bool found = false;
            foreach (var ev in collector.Copy())
            {
                if (ev.Item2.StartsWith("graph 'first_graph': operation graph of"))
                {
                    Assert.AreEqual(TraceEventType.Information, ev.Item1);
                    found = true;
                }
            }
            Assert.IsTrue(found, collector.Copy().Count + " events");

            // Restored: no more lines to the source.
            Logging.RouteTo(null);
            Assert.IsNull(Logging.Target);
            int before = collector.Copy().Count;
            using (Graph graph = TestSupport.SeedConvGraph())
            {
                graph.SetDeviceProperties(json);
                graph.BuildOperationGraph(null);
            }
            Assert.AreEqual(before, collector.Copy().Count);
        }

        [Test]
        public void LevelsMapToEventTypes()
        {
            Assert.AreEqual(TraceEventType.Error, Logging.EventType(1));
            Assert.AreEqual(TraceEventType.Warning, Logging.EventType(2));
            Assert.AreEqual(TraceEventType.Information, Logging.EventType(3));
            Assert.AreEqual(TraceEventType.Verbose, Logging.EventType(4));
        }
    }
}
