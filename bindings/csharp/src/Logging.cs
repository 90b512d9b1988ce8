using System;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace CudnnFe
{
    /// <summary>
    /// Routes the library's log lines to a <see cref="TraceSource"/>: error as
    /// TraceEventType.Error, warn as Warning, info as Information, debug as Verbose. Which lines
    /// the library writes is still its level (<see cref="Library.SetLogLevel"/>, or
    /// CUDNNFE_LOG_LEVEL); the source's switch filters on top. A line comes on the thread that
    /// called into the library.
    /// </summary>
    public static class Logging
    {
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        private delegate void NativeCallback(int level, IntPtr message, IntPtr userData);

        // The delegate and its function pointer live as long as the process: the library may hold
        // the pointer on another thread while RouteTo changes the destination.
        private static readonly NativeCallback Callback = Deliver;
        private static readonly IntPtr CallbackPointer = Marshal.GetFunctionPointerForDelegate(Callback);
        private static readonly object Gate = new object();
        private static volatile TraceSource target;

        /// <summary>Send the library's log lines to source; null restores the default destination
        /// (CUDNNFE_LOG_DEST).</summary>
        public static void RouteTo(TraceSource source)
        {
            lock (Gate)
            {
                if (source == null)
                {
                    Check.Ok(NativeApi.fe_log_set_callback(IntPtr.Zero, IntPtr.Zero));
                    target = null;
                    return;
                }
                target = source;
                Check.Ok(NativeApi.fe_log_set_callback(CallbackPointer, IntPtr.Zero));
            }
        }

        /// <summary>The source the lines go to; null when they go to the default destination.</summary>
        public static TraceSource Target => target;

        /// <summary>The event type of a library level.</summary>
        internal static TraceEventType EventType(int level)
        {
            switch (level)
            {
                case 1: return TraceEventType.Error;
                case 2: return TraceEventType.Warning;
                case 3: return TraceEventType.Information;
                default: return TraceEventType.Verbose;
            }
        }

        private static void Deliver(int level, IntPtr message, IntPtr userData)
        {
            try
            {
                TraceSource source = target;
                if (source == null) return;
                TraceEventType type = EventType(level);
                if (!source.Switch.ShouldTrace(type)) return;
                // What TraceSource.TraceEvent does, which is [Conditional("TRACE")] and so would be
                // compiled out of an assembly built without TRACE.
                string text = Marshal.PtrToStringAnsi(message);
                var cache = new TraceEventCache();
                foreach (TraceListener listener in source.Listeners)
                {
                    if (!listener.IsThreadSafe)
                    {
                        lock (listener)
                        {
                            listener.TraceEvent(cache, source.Name, type, 0, text);
                            if (Trace.AutoFlush) listener.Flush();
                        }
                    }
                    else
                    {
                        listener.TraceEvent(cache, source.Name, type, 0, text);
                        if (Trace.AutoFlush) listener.Flush();
                    }
                }
            }
            catch (Exception)
            {
                // A listener that throws must not unwind into the library.
            }
        }
    }
}
