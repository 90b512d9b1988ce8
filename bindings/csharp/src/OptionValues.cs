using System;

namespace CudnnFe
{
    /// <summary>Conversions the generated options classes and graph methods share.</summary>
    internal static class OptionValues
    {
        /// <summary>Dims 0 to 31 as C's bit mask (bit i for dim i).</summary>
        internal static uint AxisMask(int[] axes, string what)
        {
            uint mask = 0;
            foreach (int axis in axes)
            {
                if (axis < 0 || axis >= 32) throw Check.Invalid(what + ": axis " + axis + " is out of range");
                mask |= 1u << axis;
            }
            return mask;
        }

        /// <summary>Values into a C array member of fixed size, the rest zero.</summary>
        internal static long[] Fixed(long[] values, int size, string what)
        {
            if (values.Length > size)
                throw Check.Invalid(what + ": " + values.Length + " values, at most " + size);
            var all = new long[size];
            Array.Copy(values, all, values.Length);
            return all;
        }

        /// <summary>Tensors as the C array of their pointers; a null one passes NULL, for the C
        /// library to name.</summary>
        internal static IntPtr[] Pointers(Tensor[] tensors)
        {
            var pointers = new IntPtr[tensors.Length];
            for (int i = 0; i < tensors.Length; ++i) pointers[i] = tensors[i] == null ? IntPtr.Zero : tensors[i].Pointer;
            return pointers;
        }

        /// <summary>Arrays passed with one count must have the same length.</summary>
        internal static void SameCount(string method, string firstName, long[] first, string otherName, long[] other)
        {
            long n = first?.Length ?? 0, m = other?.Length ?? 0;
            if (n != m)
                throw Check.Invalid(method + ": " + n + " " + firstName + " entries but " + m + " " + otherName + " entries");
        }
    }
}
