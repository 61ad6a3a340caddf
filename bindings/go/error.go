package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"math"
	"regexp"
	"strconv"
)

// Error is a failure reported by the library: its status code and its message (lr_last_error()), e.g.
// "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)".
type Error struct {
	Code    Status // a negative status
	Message string // the library's text (lr_errstr's when the library gave no detail)
	// Index is the position of the refused item for AddMany and AddRewrites, -1 otherwise.
	Index int
	// Offset is the byte offset the error is about, as the library gives it (lr_last_error_offset, read with the
	// message): in the pattern, rewrite template or regex of a StatusPattern or StatusRegex error (for AddMany and
	// AddRewrites, in the refused item), or in the table's JSON for a StatusTable syntax error ("JSON syntax error
	// at byte 12 ..."); for a NUL byte the binding refuses, that byte's. Else -1 (a table's other problems each name
	// their own place in Problems).
	Offset int
	// Problems are a route table's problems, for a StatusTable error (LoadJSON, LoadFile, NewRouterFromFile, ...):
	// one per line of Message, in order. Nil for every other error.
	Problems []TableProblem
}

// Error gives the message with the package's prefix.
func (e *Error) Error() string { return "linkrouter: " + e.Message }

// Is reports whether target is an *Error with the same code, so errors.Is(err, ErrPattern) holds for every
// pattern error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

func sentinel(code Status) *Error {
	return &Error{Code: code, Message: code.String(), Index: -1, Offset: -1}
}

// The sentinels, one per error code, for errors.Is. Their messages are lr_errstr's.
var (
	ErrMisuse   = sentinel(StatusMisuse)
	ErrInvalid  = sentinel(StatusInvalid)
	ErrPattern  = sentinel(StatusPattern)
	ErrConflict = sentinel(StatusConflict)
	ErrRegex    = sentinel(StatusRegex)
	ErrLimit    = sentinel(StatusLimit)
	ErrNotFound = sentinel(StatusNotFound)
	ErrTable    = sentinel(StatusTable)
	ErrIO       = sentinel(StatusIO)
	ErrNoMemory = sentinel(StatusNoMemory)
)

var indexInMessage = regexp.MustCompile(`^(?:route|rewrite rule) (\d+): `)

// lastError is the error for a negative status just returned by the library. It reads lr_last_error() and
// lr_last_error_offset(), which are per thread: the caller holds the goroutine on its OS thread
// (runtime.LockOSThread) from the call to here.
func lastError(rc C.int) *Error {
	code := Status(rc)
	message := C.GoString(C.lr_last_error())
	offset := int64(C.lr_last_error_offset())
	if message == "" {
		message = code.String()
	}
	e := newError(code, message)
	if offset >= 0 && offset <= math.MaxInt {
		e.Offset = int(offset)
	}
	return e
}

func newError(code Status, message string) *Error {
	e := &Error{Code: code, Message: message, Index: -1, Offset: -1}
	if m := indexInMessage.FindStringSubmatch(message); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			e.Index = n
		}
	}
	return e
}
