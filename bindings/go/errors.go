package cudnnfe

import (
	"fmt"
	"runtime"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Status is the status of a failed call (the C library's fe_status).
type Status int32

// The C library's statuses; values are never renumbered.
const (
	StatusOK                 Status = 0
	StatusInvalidArgument    Status = 1
	StatusNullPointer        Status = 2
	StatusBadState           Status = 3
	StatusNotFound           Status = 4
	StatusDuplicate          Status = 5
	StatusValidation         Status = 6
	StatusBufferTooSmall     Status = 7
	StatusMisaligned         Status = 8
	StatusNotSupported       Status = 9
	StatusLibraryUnavailable Status = 10
	StatusCudnnError         Status = 11
	StatusCudaError          Status = 12
	StatusOutOfMemory        Status = 13
	StatusNoDevice           Status = 14
	StatusInternal           Status = 15
)

// String is the C library's name of the status ("FE_STATUS_NOT_SUPPORTED", ...).
func (s Status) String() string {
	return capi.Fe_status_string(capi.Enum_SS_fe_status(s))
}

// Error is a failed call: its status and the library's one-line message, which names the C
// function and the cause (e.g. "fe_graph_conv_fprop: weight has 32 input channels, image has 64").
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Status, e.Message)
}

// Is makes errors.Is(err, &cudnnfe.Error{Status: s}) match any error of status s.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && (t.Message == "" || t.Message == e.Message)
}

// call runs one C call and turns a failure into an *Error. The message is thread-local in C, so
// the goroutine stays on its OS thread from the call to reading the message. A panic of the
// generated layer becomes an error too.
func call(f func() capi.Enum_SS_fe_status) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Status: StatusInternal, Message: fmt.Sprint("cudnnfe (Go): ", r)}
		}
	}()
	if s := f(); s != 0 {
		return &Error{Status: Status(s), Message: capi.Fe_last_error_message()}
	}
	return nil
}

func closedError(what string) error {
	return &Error{Status: StatusBadState, Message: what + " is closed"}
}

func invalid(format string, args ...interface{}) error {
	return &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf(format, args...)}
}
