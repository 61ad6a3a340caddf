// Package linkrouter is the Go binding of LinkRouter, an embeddable URL router for deep links, push links and
// web links. It is a thin cgo layer over the C ABI (Include/linkrouter.h, liblinkrouter.so) and owns no rule of
// its own: precedence, decoding and parameters are the library's (docs/SEMANTICS.md), so Go gives the same
// answers as C, Swift, Python and Java. (A URL holding a raw NUL is ErrInvalid here, as a C string cannot hold
// one; Python's resolve takes it.)
//
//	r, err := linkrouter.NewRouter()
//	if err != nil { ... }
//	defer r.Close()
//	err = r.Add("app://user/:id", "UserPage")          // errors.Is(err, linkrouter.ErrPattern) on a bad pattern
//	m, err := r.Resolve("app://user/42?tab=posts")      // m == nil, err == nil: no route matches
//	fmt.Println(m.Target, m.Params["id"], m.Params["tab"])
//
// Errors are *Error values carrying the library's status code and message; errors.Is compares codes, so
// errors.Is(err, ErrConflict) holds for every conflict. No match is not an error: Resolve returns (nil, nil).
//
// A Router may be used from any number of goroutines at once, registration included (the header's promise).
// Close frees it; a finalizer frees a Router that was never closed. A Match is a plain Go value copied out of the C
// match through its getters; the library's JSON of the match (Match.JSON, Match.NestedParams) is made on first use,
// and the C match is kept until then (freed as soon as the JSON is made, or by a finalizer).
//
// Route tables (docs/TABLES.md) are the library's too: NewRouterFromFile, LoadJSON and LoadFile (replace or merge,
// all or nothing; a refused document is an *Error with Code StatusTable and its Problems), CheckJSON, ToJSON,
// BuildURL (reverse routing by route name) and Explain.
//
// Building: cgo finds the header in the source tree's Include/ and the library in its build/lib (after `make`),
// with an rpath to it. For an installed library, set CGO_CFLAGS and CGO_LDFLAGS (pkg-config --cflags --libs
// linkrouter).
package linkrouter
