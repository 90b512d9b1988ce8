using System;

namespace CudnnFe
{
    /// <summary>
    /// An object of the C library that this side owns. Dispose frees it at once (and its GPU
    /// memory); disposing again does nothing, and any other use after Dispose throws an
    /// ObjectDisposedException naming the method and the object. There is no finalizer:
    /// release is deterministic, and an object never disposed lives until the process ends.
    /// </summary>
    public abstract class NativeObject : IDisposable
    {
        private IntPtr pointer;
        private readonly string kind;

        internal NativeObject(IntPtr pointer, string kind)
        {
            this.pointer = pointer;
            this.kind = kind;
        }

        /// <summary>The C pointer; throws if disposed.</summary>
        internal IntPtr Pointer
        {
            get
            {
                if (pointer == IntPtr.Zero) throw Check.Closed(kind);
                return pointer;
            }
        }

        /// <summary>Whether Dispose has run.</summary>
        public bool IsDisposed => pointer == IntPtr.Zero;

        internal abstract void Destroy(IntPtr pointer);

        public void Dispose()
        {
            IntPtr p = pointer;
            pointer = IntPtr.Zero;
            if (p != IntPtr.Zero) Destroy(p);
        }
    }
}
