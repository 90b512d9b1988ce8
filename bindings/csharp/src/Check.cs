namespace CudnnFe
{
    /// <summary>Turns a C status into an exception carrying the thread's last error message.</summary>
    internal static class Check
    {
        internal static void Ok(fe_status status)
        {
            if (status != fe_status.FE_OK)
                throw new CudnnFeException((Status)status, NativeApi.fe_last_error_message());
        }

        internal static CudnnFeException Closed(string what)
        {
            return new CudnnFeException(Status.BadState, what + " is disposed");
        }

        internal static CudnnFeException Invalid(string message)
        {
            return new CudnnFeException(Status.InvalidArgument, message);
        }
    }
}
