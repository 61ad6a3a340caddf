package linkrouter

// The cgo layer: where the header and the library are (the flags apply to the whole package), the version
// check, and the conversions between Go and C values.

/*
#cgo CFLAGS: -I${SRCDIR}/../../Include
#cgo LDFLAGS: -L${SRCDIR}/../../build/lib -llinkrouter -Wl,-rpath,${SRCDIR}/../../build/lib
#include <stdlib.h>
#include "linkrouter.h"
*/
import "C"

import (
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// HeaderVersion is LR_VERSION_NUMBER of the header this package was compiled against (MAJOR*10000 + MINOR*100
// + PATCH).
const HeaderVersion = int(C.LR_VERSION_NUMBER)

// LibraryVersion is lr_version_number() of the library actually loaded.
func LibraryVersion() int { return int(C.lr_version_number()) }

// versionError is nil when the loaded library has the header's major and minor version (SQLite's check);
// NewRouter refuses to work with any other.
func versionError() error {
	lib := LibraryVersion()
	if lib/100 == HeaderVersion/100 {
		return nil
	}
	return &Error{Code: StatusMisuse, Index: -1, Offset: -1, Message: fmt.Sprintf(
		"liblinkrouter is version %s, but this binding was built for %s (major and minor must match)",
		versionText(lib), versionText(HeaderVersion))}
}

func versionText(n int) string { return fmt.Sprintf("%d.%d.%d", n/10000, n/100%100, n%100) }

// cString copies s into C memory for a const char * argument; free it with freeCString. A Go string may hold a
// NUL byte, which C would take for the end of the string: such a string is refused (StatusInvalid), never
// silently cut. Invalid UTF-8 is passed on: the library refuses it with its own message.
func cString(what, s string) (*C.char, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		e := newError(StatusInvalid, fmt.Sprintf("%s contains a NUL byte at byte %d", what, i))
		e.Offset = i
		return nil, e
	}
	return C.CString(s), nil
}

func freeCString(p *C.char) { C.free(unsafe.Pointer(p)) }

// cStrings copies every string of items for a const char *const * argument, all or none; name(i) names item i
// in an error.
func cStrings(items []string, name func(i int) string) ([]*C.char, error) {
	out := make([]*C.char, len(items))
	for i, s := range items {
		p, err := cString(name(i), s)
		if err != nil {
			freeCStrings(out[:i])
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// indexed names the items of an array argument as the library's messages do: "route 3: pattern".
func indexed(item, what string) func(i int) string {
	return func(i int) string { return fmt.Sprintf("%s %d: %s", item, i, what) }
}

func freeCStrings(items []*C.char) {
	for _, p := range items {
		C.free(unsafe.Pointer(p))
	}
}

// firstOf is the address of a C string array's first element, or NULL for an empty one (the header allows NULL
// arrays with a zero count).
func firstOf(items []*C.char) **C.char {
	if len(items) == 0 {
		return nil
	}
	return &items[0]
}

// goSize converts a size_t the library returned to int, refusing (never truncating) what an int cannot hold.
func goSize(n C.size_t, what string) (int, error) {
	if uint64(n) > math.MaxInt {
		return 0, &Error{Code: StatusLimit, Index: -1, Offset: -1,
			Message: fmt.Sprintf("%s %d does not fit in an int", what, uint64(n))}
	}
	return int(n), nil
}

// takeString copies a string the library allocated for the caller (a char ** out-parameter) and frees it with
// lr_string_free. Rewrite and the match's JSON use it, as will every function that returns text.
func takeString(p *C.char) string {
	defer C.lr_string_free(p)
	return C.GoString(p)
}

// goStringOr copies a borrowed C string; NULL gives ("", false).
func goStringOr(p *C.char) (string, bool) {
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}
