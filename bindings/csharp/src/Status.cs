namespace CudnnFe
{
    /// <summary>The status of a failed call (the C library's fe_status; values never renumbered).</summary>
    public enum Status
    {
        Ok = 0,
        InvalidArgument = 1,
        NullPointer = 2,
        BadState = 3,
        NotFound = 4,
        Duplicate = 5,
        Validation = 6,
        BufferTooSmall = 7,
        Misaligned = 8,
        NotSupported = 9,
        LibraryUnavailable = 10,
        CudnnError = 11,
        CudaError = 12,
        OutOfMemory = 13,
        NoDevice = 14,
        Internal = 15,
    }
}
