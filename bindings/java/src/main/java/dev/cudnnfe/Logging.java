package dev.cudnnfe;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Routes the library's log lines to a {@link Logger}: error as SEVERE, warn as WARNING, info as
 * INFO, debug as FINE. Which lines the library writes is still its level ({@link
 * CudnnFe#setLogLevel}, or CUDNNFE_LOG_LEVEL); the logger's own level filters on top. A line comes
 * on the thread that called into the library (a library worker thread is attached to the JVM for
 * the call).
 */
public final class Logging {
    private Logging() {}

    // Held while installed: the native trampoline reads it for every line.
    private static volatile Logger target;

    /** Send the library's log lines to logger; null restores the default destination (CUDNNFE_LOG_DEST). */
    public static synchronized void routeTo(Logger logger) {
        if (logger == null) {
            Check.ok(NativeApi.fe_log_set_callback(0, 0));
            target = null;
            return;
        }
        long callback = NativeApi.fe_swig_java_log_callback();
        if (callback == 0) {
            throw new InternalErrorException("Logging.routeTo: the JNI log trampoline could not find dev.cudnnfe.Logging");
        }
        target = logger;
        Check.ok(NativeApi.fe_log_set_callback(callback, 0));
    }

    /** The logger the lines go to; null when they go to the default destination. */
    public static Logger target() {
        return target;
    }

    /** The Java level of a library level. */
    static Level level(int level) {
        switch (level) {
            case 1: return Level.SEVERE;
            case 2: return Level.WARNING;
            case 3: return Level.INFO;
            default: return Level.FINE;
        }
    }

    /** Called by the native trampoline (bindings/swig/cudnnfe.i) for each line. */
    static void deliver(int level, String message) {
        Logger logger = target;
        if (logger != null) logger.log(level(level), message);
    }
}
