package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Router is one routing table and its rewrite rules (an lr_router). Every method may be called from any number
// of goroutines at once, registration included: lookups never wait for a change and see the table before or
// after it, never a mix. Close frees the router; a finalizer frees one that was never closed.
//
// A Router holds native memory (its table, rules and caches, in the C heap) that the garbage collector neither
// sees nor counts: an unreachable Router looks small to it, so its finalizer may come too late (20,000 routers of
// 20 routes left to their finalizers peaked at 268 MB of C heap). Close each Router when done with it (defer
// r.Close()); Matches stay valid after Close.
type Router struct {
	// mu guards handle, not the table (the library has its own snapshots): every call holds it for reading,
	// Close for writing, so a router is never freed under a running call.
	mu     sync.RWMutex
	handle *C.lr_router
}

// Route is a pattern and its target, for AddMany.
type Route struct {
	Pattern string
	Target  string
}

// NewRouter creates an empty router. It fails when the loaded library's version does not match the header's.
func NewRouter() (*Router, error) {
	if err := versionError(); err != nil {
		return nil, err
	}
	var handle *C.lr_router
	runtime.LockOSThread()
	rc := C.lr_router_new(&handle)
	var err error
	if rc < 0 {
		err = lastError(rc)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	r := &Router{handle: handle}
	runtime.SetFinalizer(r, (*Router).finalize)
	return r, nil
}

// Close frees the router. Matches it returned stay valid (they are Go values). Closing twice is a no-op; any
// other call on a closed router gives ErrMisuse. Close waits for the calls running on other goroutines.
func (r *Router) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	handle := r.handle
	r.handle = nil
	r.mu.Unlock()
	if handle != nil {
		C.lr_router_free(handle)
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

// finalizedRouters counts the routers freed by their finalizer (read by the tests).
var finalizedRouters atomic.Int64

func (r *Router) finalize() {
	finalizedRouters.Add(1)
	r.Close()
}

// call runs fn on the router's handle with the goroutine held on its OS thread, so that a failure's message is
// read from the same thread's lr_last_error. It returns fn's non-negative status, or the error for a negative one.
func (r *Router) call(fn func(h *C.lr_router) C.int) (int, error) {
	if r == nil {
		return 0, &Error{Code: StatusMisuse, Message: "nil *Router", Index: -1, Offset: -1}
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.handle == nil {
		return 0, &Error{Code: StatusMisuse, Message: "the router is closed", Index: -1, Offset: -1}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := fn(r.handle)
	if rc < 0 {
		return 0, lastError(rc)
	}
	return int(rc), nil
}

// Add adds a route from pattern to target (any string; the router only hands it back). ErrPattern (the message
// gives the byte offset, also in Offset), ErrConflict (the message names the existing pattern), ErrLimit,
// ErrInvalid (not UTF-8, or a NUL byte).
func (r *Router) Add(pattern, target string) error {
	return r.AddRoute(pattern, target, "", "")
}

// AddRoute adds a route that also carries a name (unique in the router: BuildURL finds the route by it) and
// metadata, a JSON object whose values are strings ({"transition":"push"}): the route's meta, which its matches
// report (Match.Meta, Match.Metadata). An empty name or metadata means none (lr_router_add_route's NULL).
// ErrConflict for a name another route has; ErrInvalid for metadata that is not such an object.
func (r *Router) AddRoute(pattern, target, name, metadata string) error {
	argumentNames := [...]string{"pattern", "target", "name", "metadata"}
	strs, err := cStrings([]string{pattern, target, name, metadata}, func(i int) string { return argumentNames[i] })
	if err != nil {
		return err
	}
	defer freeCStrings(strs)
	nameArg, metadataArg := strs[2], strs[3]
	if name == "" {
		nameArg = nil
	}
	if metadata == "" {
		metadataArg = nil
	}
	_, err = r.call(func(h *C.lr_router) C.int {
		return C.lr_router_add_route(h, strs[0], strs[1], nameArg, metadataArg)
	})
	return err
}

// AddMany adds routes at once, all or none: if one is refused the table is left exactly as it was, and the
// error's Index names it. Much faster than single adds for big tables.
func (r *Router) AddMany(routes []Route) error {
	patterns := make([]string, len(routes))
	targets := make([]string, len(routes))
	for i, route := range routes {
		patterns[i], targets[i] = route.Pattern, route.Target
	}
	return r.addPairs(patterns, targets, indexed("route", "pattern"), indexed("route", "target"), func(h *C.lr_router, p, t **C.char, n C.size_t, failed *C.size_t) C.int {
		return C.lr_router_add_many(h, p, t, n, failed)
	})
}

// pairAdder is lr_router_add_many or lr_router_add_rewrites: two string arrays, all or none, a failed index.
type pairAdder func(h *C.lr_router, firsts, seconds **C.char, count C.size_t, failed *C.size_t) C.int

// addPairs runs add on firsts[i] and seconds[i]; the error's Index names the refused pair.
func (r *Router) addPairs(firsts, seconds []string, firstName, secondName func(int) string, add pairAdder) error {
	a, err := cStrings(firsts, firstName)
	if err != nil {
		return err
	}
	defer freeCStrings(a)
	b, err := cStrings(seconds, secondName)
	if err != nil {
		return err
	}
	defer freeCStrings(b)
	failed := C.size_t(math.MaxUint64)
	_, err = r.call(func(h *C.lr_router) C.int {
		return add(h, firstOf(a), firstOf(b), C.size_t(len(a)), &failed)
	})
	if e, ok := err.(*Error); ok && uint64(failed) < uint64(len(a)) {
		e.Index = int(failed)
	}
	return err
}

// Remove removes the route that pattern would conflict with (same scheme, segment kinds and literals):
// ErrNotFound when there is none.
func (r *Router) Remove(pattern string) error {
	p, err := cString("pattern", pattern)
	if err != nil {
		return err
	}
	defer freeCString(p)
	_, err = r.call(func(h *C.lr_router) C.int { return C.lr_router_remove(h, p) })
	return err
}

// Clear removes every route; rewrite rules stay.
func (r *Router) Clear() error {
	_, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_clear(h) })
	return err
}

// Count is the number of routes.
func (r *Router) Count() (int, error) {
	var n C.size_t
	if _, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_count(h, &n) }); err != nil {
		return 0, err
	}
	return goSize(n, "route count")
}

// CanRoute reports whether url (after rewriting) matches a route. ErrInvalid for a URL that is not absolute or
// not UTF-8, ErrLimit past a limit.
func (r *Router) CanRoute(url string) (bool, error) {
	u, err := cString("url", url)
	if err != nil {
		return false, err
	}
	defer freeCString(u)
	rc, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_can_route(h, u) })
	return rc == 1, err
}

// Resolve rewrites url, matches it and returns the match; (nil, nil) when no route matches. ErrInvalid for a
// URL that is not absolute ("scheme:") or not UTF-8, ErrLimit past a limit.
func (r *Router) Resolve(url string) (*Match, error) {
	return r.ResolveWith(url)
}

// ResolveWith is Resolve with extra parameters, which outrank path and query parameters (FFRouter's
// "withParameters:"). Each name is in OrderedParams once: an extra named like a path parameter or a query key
// takes that parameter's place (with the extra's value); the other extras come after them, in the order their
// names are first given; a name given twice keeps its last value.
func (r *Router) ResolveWith(url string, extra ...Param) (*Match, error) {
	u, err := cString("url", url)
	if err != nil {
		return nil, err
	}
	defer freeCString(u)
	names := make([]string, len(extra))
	values := make([]string, len(extra))
	for i, p := range extra {
		names[i], values[i] = p.Name, p.Value
	}
	cNames, err := cStrings(names, indexed("extra", "name"))
	if err != nil {
		return nil, err
	}
	defer freeCStrings(cNames)
	cValues, err := cStrings(values, indexed("extra", "value"))
	if err != nil {
		return nil, err
	}
	defer freeCStrings(cValues)

	var m *C.lr_match
	rc, err := r.call(func(h *C.lr_router) C.int {
		return C.lr_router_resolve_with(h, u, firstOf(cNames), firstOf(cValues), C.size_t(len(extra)), &m)
	})
	if err != nil || rc != int(StatusOK) {
		return nil, err
	}
	// The getters need neither the router nor this thread: the match is read after the call.
	return newMatch(m)
}

// SetLimit sets a limit for the calls made after it: ErrMisuse for an unknown limit or a value out of its range
// (e.g. a zero length).
func (r *Router) SetLimit(limit Limit, value uint) error {
	if limit < math.MinInt32 || limit > math.MaxInt32 {
		return &Error{Code: StatusMisuse, Message: fmt.Sprintf("unknown limit %d", int(limit)), Index: -1, Offset: -1}
	}
	_, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_set_limit(h, C.int(limit), C.size_t(value)) })
	return err
}

// Limit reads a limit: ErrMisuse for an unknown one.
func (r *Router) Limit(limit Limit) (uint, error) {
	if limit < math.MinInt32 || limit > math.MaxInt32 {
		return 0, &Error{Code: StatusMisuse, Message: fmt.Sprintf("unknown limit %d", int(limit)), Index: -1, Offset: -1}
	}
	var value C.size_t
	if _, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_get_limit(h, C.int(limit), &value) }); err != nil {
		return 0, err
	}
	if uint64(value) > math.MaxUint {
		return 0, &Error{Code: StatusLimit, Message: "the limit does not fit in a uint", Index: -1, Offset: -1}
	}
	return uint(value), nil
}
