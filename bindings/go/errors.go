package cudnnfe

import (
	"fmt"
	"regexp"
	"runtime"
	"strings"

	"cudnnfe.dev/cudnnfe/internal/capi"
)

// Error is a failed call: its status and a one-line message that names the Go method and the
// cause (e.g. "Graph.ConvFprop: weight has 32 input channels, image has 64"). Function is the C
// function that failed ("fe_graph_conv_fprop"; empty when the failure is the binding's own);
// Method the Go function or method the message names first; Reason the message without it (where
// the cause is an error cuDNN reported, cuDNN's text is part of it).
type Error struct {
	Status   Status
	Message  string
	Function string
	Method   string
	Reason   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Status, e.Message)
}

// Is makes errors.Is(err, cudnnfe.StatusNotSupported) (or &cudnnfe.Error{Status: s}) match any
// error of that status.
func (e *Error) Is(target error) bool {
	if s, ok := target.(Status); ok {
		return s == e.Status
	}
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && (t.Message == "" || t.Message == e.Message)
}

// Error makes a Status an error value for errors.Is: errors.Is(err, cudnnfe.StatusNotSupported).
func (s Status) Error() string { return s.String() }

// call runs one C call and turns a failure into an *Error. The message is thread-local in C, so
// the goroutine stays on its OS thread from the call to reading the message. A panic of the
// generated layer becomes an error too, and so does a C library of another version.
func call(f func() capi.Enum_SS_fe_status) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Status: StatusInternal, Message: fmt.Sprint("cudnnfe (Go): ", r)}
		}
	}()
	if staleLibrary != nil {
		return staleLibrary
	}
	if s := f(); s != 0 {
		return failure(Status(s), capi.Fe_last_error_message())
	}
	return nil
}

var nullArgument = regexp.MustCompile(`^argument '(\w+)' is NULL$`)

// failure is the error of a failed call: the library's "fe_function: cause" becomes "Method:
// cause" with the Go method first (the C function stays in Function) and the C functions the cause
// advises to call named as Go methods. A NULL argument of the call is named as the Go parameter.
func failure(status Status, message string) *Error {
	colon := strings.Index(message, ": ")
	if !strings.HasPrefix(message, "fe_") || colon < 0 || strings.Contains(message[:colon], " ") {
		return &Error{Status: status, Message: message, Reason: message}
	}
	function := message[:colon]
	method := methodName(function)
	reason := message[colon+2:]
	if m := nullArgument.FindStringSubmatch(reason); status == StatusNullPointer && m != nil {
		e := nilArgument(method, lowerCamel(m[1]))
		e.Function = function
		return e
	}
	reason = translateNames(reason)
	return &Error{Status: status, Message: method + ": " + reason, Function: function, Method: method, Reason: reason}
}

// nilArgument is the error of a nil argument: StatusNullPointer, naming the method and the
// parameter ("Graph.ConvFprop: weight is nil").
func nilArgument(method, parameter string) *Error {
	reason := parameter + " is nil"
	return &Error{Status: StatusNullPointer, Message: method + ": " + reason, Method: method, Reason: reason}
}

// Pointers of arguments: a nil one is a nilArgument error naming it, a closed one the usual error.

func tensorArgument(t *Tensor, method, parameter string) (uintptr, error) {
	if t == nil {
		return 0, nilArgument(method, parameter)
	}
	return t.pointer()
}

func handleArgument(h *Handle, method, parameter string) (uintptr, error) {
	if h == nil {
		return 0, nilArgument(method, parameter)
	}
	return h.pointer()
}

func bufferArgument(b *DeviceBuffer, method, parameter string) (uintptr, error) {
	if b == nil {
		return 0, nilArgument(method, parameter)
	}
	return b.pointer()
}

func lowerCamel(snake string) string {
	parts := strings.Split(snake, "_")
	out := parts[0]
	for _, p := range parts[1:] {
		if p != "" {
			out += strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return out
}

// closedError is the error of a call on a closed object, or on a nil pointer to one, naming the
// method called: "Graph.Validate: the Graph is closed".
func closedError(what string, isNil bool) error {
	method := publicCaller()
	reason := "the " + what + " is closed"
	status := StatusBadState
	if isNil {
		reason, status = "a nil *"+what, StatusNullPointer
	}
	return &Error{Status: status, Message: method + ": " + reason, Method: method, Reason: reason}
}

// publicCaller is the exported function or method of this package that the program called: the
// outermost such frame on the stack ("Graph.Validate", "cudnnfe.NewHandle"); a test file's
// frames are the program's.
func publicCaller() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	name := "cudnnfe"
	for f, more := frames.Next(); more; f, more = frames.Next() {
		// Not a closure, another package of the module, an unexported function or a test's.
		function := strings.TrimPrefix(f.Function, "cudnnfe.dev/cudnnfe.")
		method := function[strings.LastIndex(function, ".")+1:]
		if function == f.Function || strings.ContainsAny(function, "/") || strings.Contains(function, ".func") ||
			method == "" || method[0] < 'A' || method[0] > 'Z' || strings.HasSuffix(f.File, "_test.go") {
			continue
		}
		name = "cudnnfe." + function
		if dot := strings.Index(function, ")."); dot >= 0 {
			name = strings.Trim(function[:dot], "(*") + "." + method
		}
	}
	return name
}

func invalid(format string, args ...interface{}) error {
	return &Error{Status: StatusInvalidArgument, Message: fmt.Sprintf(format, args...)}
}
