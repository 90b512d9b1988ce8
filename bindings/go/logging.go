package cudnnfe

/*
extern void cudnnfeGoLog(int level, char *message, void *userData);
*/
import "C"

import (
	"log"
	"sync"
	"sync/atomic"
	"unsafe"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// The logger the library's lines go to (a *log.Logger; nil: the default destination). It is held
// here while installed, so the callback always finds it.
var (
	logTarget atomic.Value // holds loggerBox
	logMutex  sync.Mutex
)

type loggerBox struct{ logger *log.Logger }

// SetLogger sends the library's log lines to logger, each as "cudnnfe <level>: <message>"; nil
// restores the default destination (CUDNNFE_LOG_DEST). Which lines the library writes is still
// its level (SetLogLevel, or CUDNNFE_LOG_LEVEL). A line is written on the thread that called into
// the library.
func SetLogger(logger *log.Logger) error {
	logMutex.Lock()
	defer logMutex.Unlock()
	if logger == nil {
		err := call(func() capi.Enum_SS_fe_status { return capi.Fe_log_set_callback(0, 0) })
		logTarget.Store(loggerBox{})
		return err
	}
	logTarget.Store(loggerBox{logger})
	callback := uintptr(unsafe.Pointer(C.cudnnfeGoLog))
	return call(func() capi.Enum_SS_fe_status { return capi.Fe_log_set_callback(callback, 0) })
}

// Logger is the logger SetLogger installed; nil when the lines go to the default destination.
func Logger() *log.Logger {
	box, _ := logTarget.Load().(loggerBox)
	return box.logger
}

// logLevelName is the name the library gives a level ("error", "warn", "info", "debug").
func logLevelName(level LogLevel) string {
	switch level {
	case LogError:
		return "error"
	case LogWarn:
		return "warn"
	case LogInfo:
		return "info"
	default:
		return "debug"
	}
}

//export cudnnfeGoLog
func cudnnfeGoLog(level C.int, message *C.char, userData unsafe.Pointer) {
	if logger := Logger(); logger != nil {
		logger.Print("cudnnfe " + logLevelName(LogLevel(level)) + ": " + C.GoString(message))
	}
}
