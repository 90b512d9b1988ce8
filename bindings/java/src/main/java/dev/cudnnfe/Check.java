package dev.cudnnfe;

/** Turns a C status into an exception carrying the thread's last error message. */
final class Check {
    private Check() {}

    static void ok(int status) {
        if (status != 0) throw new CudnnFeException(status, NativeApi.fe_last_error_message());
    }

    static CudnnFeException closed(String what) {
        return new CudnnFeException(Status.BAD_STATE, what + " is closed");
    }
}
