package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"math"
	"strconv"
)

// Status is a status code of the C ABI (enum lr_status); the values never change.
type Status int

// Every status of Include/linkrouter.h. StatusOK and StatusNoMatch are outcomes, never errors: no match is
// Resolve's (nil, nil). Each negative code has its sentinel error (ErrMisuse, ErrInvalid, ...).
const (
	StatusOK       Status = C.LR_OK        // success
	StatusNoMatch  Status = C.LR_NOMATCH   // no route (or no rewrite rule) matches
	StatusMisuse   Status = C.LR_EMISUSE   // a NULL handle or argument, an argument out of range, a closed router
	StatusInvalid  Status = C.LR_EINVAL    // a malformed URL, or text that is not UTF-8 (or holds a NUL byte)
	StatusPattern  Status = C.LR_EPATTERN  // a malformed route pattern or rewrite template
	StatusConflict Status = C.LR_ECONFLICT // a route matching exactly the URLs of an existing one
	StatusRegex    Status = C.LR_EREGEX    // a rewrite regex PCRE2 will not compile
	StatusLimit    Status = C.LR_ELIMIT    // a limit was hit
	StatusNotFound Status = C.LR_ENOTFOUND // the route or rule to remove does not exist
	StatusTable    Status = C.LR_ETABLE    // a malformed route table file
	StatusIO       Status = C.LR_EIO       // a file could not be read or written
	StatusNoMemory Status = C.LR_ENOMEM    // memory could not be allocated
)

// String is the library's static text for the code (lr_errstr), e.g. "malformed pattern".
func (s Status) String() string {
	if s < math.MinInt32 || s > math.MaxInt32 { // lr_errstr takes an int
		return "status " + strconv.Itoa(int(s))
	}
	return C.GoString(C.lr_errstr(C.int(s)))
}
