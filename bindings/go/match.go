package linkrouter

/*
#include "linkrouter.h"

// The fixed fields of a match in the order of the matchField constants, and its list lengths in the order of the
// matchCount constants: one cgo call instead of fifteen.
static uint32_t lrgo_match_fields(const lr_match *m, const char **out, size_t *counts) {
    out[0] = lr_match_target(m);
    out[1] = lr_match_pattern(m);
    out[2] = lr_match_url(m);
    out[3] = lr_match_rewritten(m);
    out[4] = lr_match_scheme(m);
    out[5] = lr_match_host(m);
    out[6] = lr_match_port(m);
    out[7] = lr_match_path(m);
    out[8] = lr_match_fragment(m);
    out[9] = lr_match_name(m);
    out[10] = lr_match_metadata(m);
    counts[0] = lr_match_param_count(m);
    counts[1] = lr_match_query_count(m);
    counts[2] = lr_match_meta_count(m);
    counts[3] = lr_match_requires_count(m);
    return lr_match_route_id(m);
}

// Every list of a match, each as its getters give it, into one array: the merged parameters (name, value), the
// query pairs (name, value), the meta (key, value), then the required guards. The counts are lrgo_match_fields'.
// owns[i] is 1 when merged parameter i is the one lr_match_get finds by its name: a name decoded from %00 ends
// at its NUL here, and must not take the place of the parameter whose whole name that is.
static void lrgo_match_lists(const lr_match *m, const char **out, unsigned char *owns, size_t params, size_t query,
                             size_t meta, size_t requires) {
    for (size_t i = 0; i < params; i++) {
        const char *name = lr_match_param_name(m, i), *value = lr_match_param_value(m, i);
        owns[i] = lr_match_get(m, name) == value;
        *out++ = name;
        *out++ = value;
    }
    for (size_t i = 0; i < query; i++) {
        *out++ = lr_match_query_name(m, i);
        *out++ = lr_match_query_value(m, i);
    }
    for (size_t i = 0; i < meta; i++) {
        *out++ = lr_match_meta_name(m, i);
        *out++ = lr_match_meta_value(m, i);
    }
    for (size_t i = 0; i < requires; i++)
        *out++ = lr_match_requires(m, i);
}
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Param is one name and value: a merged parameter, a query pair, an extra given to ResolveWith, or a parameter
// given to BuildURL.
type Param struct {
	Name  string
	Value string
}

// Match is the result of a lookup: its fields are copied out of the library's lr_match through the getters, a
// plain Go value that outlives its router and may be shared between goroutines. The library's JSON of the match
// (JSON, NestedParams) is made on first use from the C match, which the Match keeps until then (a finalizer frees
// it when the JSON is never asked for).
type Match struct {
	Target    string // the target the route was added with
	Pattern   string // the route's pattern as it was added
	URL       string // the URL as given
	Rewritten string // the URL after rewriting (the same as URL when no rule fired)
	Scheme    string // of the routed URL, lower-cased
	Host      string // the host the routes compared: percent-decoded, lower-cased, without userinfo and port; "" when none
	Port      string // digits, "" when none
	Path      string // as written, not decoded
	Fragment  string // as written, "" when none; the fragment is never routed

	Name    string // the route's name (AddRoute, a table's "name"); "" when HasName is false
	HasName bool
	// Metadata is the route's meta as one JSON object with sorted keys (lr_match_metadata); "" when HasMetadata is
	// false. Meta is the same as a map.
	Metadata    string
	HasMetadata bool
	Meta        map[string]string // the route's meta (string key/values); nil when it has none
	Requires    []string          // the guards the route requires, in the order they run; nil when none
	RouteID     uint32            // the route's id: its insertion number in its router, never reused

	// Params are the merged parameters (extra > path > query), each name once, with raw keys: the query pair
	// info[nickname]=x gives the key "info[nickname]" (lr_match_get's view). NestedParams gives the nested view.
	Params map[string]string
	// OrderedParams are the same parameters in the library's order: path parameters in pattern order, then query
	// keys by first appearance, then extras.
	OrderedParams []Param
	// Query is every query pair of the routed URL in order, repeated keys included, decoded.
	Query []Param

	native *nativeMatch // the C match until its JSON is made; shared by copies of the Match
}

// nativeMatch holds a C match for the JSON view, made once; the match is freed as soon as the JSON is made, or
// by the finalizer when the Match is dropped without asking.
type nativeMatch struct {
	once   sync.Once
	handle *C.lr_match
	json   string
	err    error
}

// liveNativeMatches counts the C matches held by Match values (read by the tests: it returns to where it was once
// the matches are dropped and collected).
var liveNativeMatches atomic.Int64

func keepNative(m *C.lr_match) *nativeMatch {
	n := &nativeMatch{handle: m}
	liveNativeMatches.Add(1)
	runtime.SetFinalizer(n, (*nativeMatch).free)
	return n
}

func (n *nativeMatch) free() {
	if n.handle != nil {
		C.lr_match_free(n.handle)
		n.handle = nil
		liveNativeMatches.Add(-1)
	}
}

// text makes the JSON (once) and frees the C match.
func (n *nativeMatch) text() (string, error) {
	n.once.Do(func() {
		runtime.LockOSThread() // an lr_match_to_json failure is read from this thread's lr_last_error
		defer runtime.UnlockOSThread()
		var text *C.char
		if rc := C.lr_match_to_json(n.handle, &text); rc < 0 {
			n.err = lastError(rc)
		} else {
			n.json = takeString(text)
		}
		runtime.SetFinalizer(n, nil)
		n.free()
	})
	return n.json, n.err
}

// The fixed fields lrgo_match_fields reads, in its order, and its counts.
const (
	fieldTarget = iota
	fieldPattern
	fieldURL
	fieldRewritten
	fieldScheme
	fieldHost
	fieldPort
	fieldPath
	fieldFragment
	fieldName
	fieldMetadata
	fieldCount
)

const (
	countParams = iota
	countQuery
	countMeta
	countRequires
	countCount
)

// listLimit bounds each list length the library reports, so that their sum cannot overflow an int (the library's
// own limits are far lower).
const listLimit = math.MaxInt32

// newMatch copies the fields of m through the getters and keeps m for the JSON view: the Match owns m from here,
// whatever happens (an error frees it).
func newMatch(m *C.lr_match) (*Match, error) {
	var fields [fieldCount]*C.char
	var counts [countCount]C.size_t
	routeID := C.lrgo_match_fields(m, &fields[0], &counts[0])
	var lengths [countCount]int
	for i, what := range [...]string{"parameter count", "query pair count", "meta count", "requires count"} {
		if uint64(counts[i]) > listLimit {
			C.lr_match_free(m)
			return nil, &Error{Code: StatusLimit, Index: -1, Offset: -1,
				Message: fmt.Sprintf("the match's %s %d is more than the binding takes", what, uint64(counts[i]))}
		}
		lengths[i] = int(counts[i])
	}
	out := &Match{
		Target:    C.GoString(fields[fieldTarget]),
		Pattern:   C.GoString(fields[fieldPattern]),
		URL:       C.GoString(fields[fieldURL]),
		Rewritten: C.GoString(fields[fieldRewritten]),
		Scheme:    C.GoString(fields[fieldScheme]),
		Host:      C.GoString(fields[fieldHost]),
		Port:      C.GoString(fields[fieldPort]),
		Path:      C.GoString(fields[fieldPath]),
		Fragment:  C.GoString(fields[fieldFragment]),
		RouteID:   uint32(routeID),
		Params:    make(map[string]string, lengths[countParams]),
	}
	out.Name, out.HasName = goStringOr(fields[fieldName])
	out.Metadata, out.HasMetadata = goStringOr(fields[fieldMetadata])

	total := 2*(lengths[countParams]+lengths[countQuery]+lengths[countMeta]) + lengths[countRequires]
	if total > 0 {
		list := make([]*C.char, total)
		owns := make([]C.uchar, lengths[countParams]+1)
		C.lrgo_match_lists(m, &list[0], &owns[0], counts[countParams], counts[countQuery], counts[countMeta],
			counts[countRequires])
		rest := list
		take := func(n int) []*C.char { part := rest[:n]; rest = rest[n:]; return part }
		if n := lengths[countParams]; n > 0 {
			out.OrderedParams = pairs(take(2 * n))
			for i, p := range out.OrderedParams {
				if owns[i] != 0 { // Params agrees with lr_match_get (see lrgo_match_lists)
					out.Params[p.Name] = p.Value
				}
			}
		}
		if n := lengths[countQuery]; n > 0 {
			out.Query = pairs(take(2 * n))
		}
		if n := lengths[countMeta]; n > 0 {
			out.Meta = make(map[string]string, n)
			for _, p := range pairs(take(2 * n)) {
				out.Meta[p.Name] = p.Value
			}
		}
		if n := lengths[countRequires]; n > 0 {
			out.Requires = make([]string, n)
			for i, p := range take(n) {
				out.Requires[i], _ = goStringOr(p)
			}
		}
	}
	out.native = keepNative(m)
	return out, nil
}

// pairs reads names and values interleaved.
func pairs(list []*C.char) []Param {
	out := make([]Param, len(list)/2)
	for i := range out {
		// Within the counts the getters never give NULL; goStringOr keeps a NULL from ever being dereferenced.
		out[i].Name, _ = goStringOr(list[2*i])
		out[i].Value, _ = goStringOr(list[2*i+1])
	}
	return out
}

// Get is the value of merged parameter name (lr_match_get's answer), and whether it is present.
func (m *Match) Get(name string) (string, bool) {
	if m == nil {
		return "", false
	}
	v, ok := m.Params[name]
	return v, ok
}

// JSON is the match as lr_match_to_json writes it, made on first use (the same bytes for every language):
//
//	{"target", "pattern", "url", "rewritten", "scheme", "host", "port", "path", "fragment", ["name",] ["meta",]
//	 ["requires",] "params", "query"}
//
// whose "params" nests bracket keys. ErrMisuse for a Match the library did not make.
func (m *Match) JSON() (string, error) {
	if m == nil || m.native == nil {
		return "", &Error{Code: StatusMisuse, Message: "the JSON of a Match the library did not make", Index: -1,
			Offset: -1}
	}
	return m.native.text()
}

// NestedParams is the "params" object of JSON: the merged parameters with bracket keys nested, as the library
// builds them (info[nickname]=x&tags[]=a gives {"info": {"nickname": "x"}, "tags": ["a"]}). Values are string,
// []any and map[string]any; each call gives a new map.
func (m *Match) NestedParams() (map[string]any, error) {
	text, err := m.JSON()
	if err != nil {
		return nil, err
	}
	var doc struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("linkrouter: decoding the match's JSON: %w", err)
	}
	if doc.Params == nil {
		doc.Params = map[string]any{}
	}
	return doc.Params, nil
}

// String is a short description for logs: the target and the parameters.
func (m *Match) String() string {
	if m == nil {
		return "<no match>"
	}
	return fmt.Sprintf("%s %v", m.Target, m.OrderedParams)
}
