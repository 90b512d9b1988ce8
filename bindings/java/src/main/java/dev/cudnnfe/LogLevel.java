package dev.cudnnfe;

/** The library's log levels (CUDNNFE_LOG_LEVEL sets the level at load). */
public enum LogLevel {
    OFF(0),
    ERROR(1),
    WARN(2),
    INFO(3),
    DEBUG(4);

    public final int code;

    LogLevel(int code) {
        this.code = code;
    }
}
