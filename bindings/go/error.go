package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a failure reported by the library: its status code and its message (lr_last_error()), e.g.
// "malformed pattern 'app://a//b' at byte 8: empty segment".
type Error struct {
	Code    Status // a negative status
	Message string // the library's text (lr_errstr's when the library gave no detail)
	// Index is the position of the refused item for AddMany and AddRewrites, -1 otherwise.
	Index int
	// Offset is the byte offset the message names ("at byte 8") for pattern, template and regex errors (the
	// library's), and for a NUL byte the binding refuses; else -1 (also for table errors, whose Problems each name
	// their own). It is the offset the library wrote, never a number of the quoted input: Add("app://at byte
	// 99/a//b", ...) gives 19.
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

// lastError is the error for a negative status just returned by the library. It reads lr_last_error(), which is
// per thread: the caller holds the goroutine on its OS thread (runtime.LockOSThread) from the call to here.
func lastError(rc C.int) *Error {
	code := Status(rc)
	message := C.GoString(C.lr_last_error())
	if message == "" {
		message = code.String()
	}
	return newError(code, message)
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

// quoted is an input the library quotes in a pattern, template or regex error, and the words before the quote.
type quoted struct{ kind, text string }

func patternInput(pattern string) quoted { return quoted{"malformed pattern", pattern} }
func regexInput(regex string) quoted     { return quoted{"invalid rewrite regex", regex} }
func templateInput(template string) quoted {
	return quoted{"malformed rewrite target", template}
}

// located sets the Offset of a pattern, template or regex error (StatusPattern, StatusRegex) from its message,
// which the library writes as
//
//	[route N: | rewrite rule N: ]<kind> '<the input, or its excerpt>' at byte <offset>: <reason>
//
// Both the quoted input and the reason may hold any text, "at byte 7" and "' at byte 7: " included (found by the
// Go/Java review: the first "at byte N" of the message was taken, Add("app://at byte 99/a//b", ...) gave 99 where
// the library said 19), so the offset is read right after the quote of one of the inputs the call passed, which
// the binding knows: exact for every message the library writes. Any other message leaves Offset as it is.
func located(err error, inputs ...quoted) error {
	e, ok := err.(*Error)
	if !ok || e.Offset >= 0 || (e.Code != StatusPattern && e.Code != StatusRegex) {
		return err
	}
	message := e.Message
	if m := indexInMessage.FindStringIndex(message); m != nil {
		message = message[m[1]:]
	}
	for _, in := range inputs {
		head := in.kind + " '" + excerpt(in.text) + "' at byte "
		if !strings.HasPrefix(message, head) {
			continue
		}
		rest := message[len(head):]
		digits := 0
		for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
			digits++
		}
		if n, err := strconv.Atoi(rest[:digits]); err == nil && strings.HasPrefix(rest[digits:], ": ") {
			e.Offset = n
			return e
		}
	}
	return e
}

// excerpt is text as the library's messages quote it (excerpt in the core): whole up to 100 bytes, else its first
// whole characters within 100 bytes, then "... (<size> bytes)".
func excerpt(text string) string {
	const limit = 100
	if len(text) <= limit {
		return text
	}
	used := 0
	for used < len(text) {
		_, size := utf8.DecodeRuneInString(text[used:])
		if used+size > limit {
			break
		}
		used += size
	}
	return text[:used] + fmt.Sprintf("... (%d bytes)", len(text))
}
