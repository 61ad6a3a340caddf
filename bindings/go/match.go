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
static void lrgo_match_lists(const lr_match *m, const char **out, size_t params, size_t query, size_t meta,
                             size_t requires) {
    for (size_t i = 0; i < params; i++) {
        *out++ = lr_match_param_name(m, i);
        *out++ = lr_match_param_value(m, i);
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
	"strings"
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
// it when the JSON is never asked for); when the routed URL holds "%00", Params needs the JSON, which is then made
// at once.
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
	// A query key decoded from %00 holds a NUL, where the getters' C strings end: Params leaves it out, as
	// lr_match_get cannot find it (?id%00=x never stands for id); OrderedParams has it cut at the NUL, JSON whole.
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
	var madeJSON *string // the match's JSON when keptParams had to make it
	if total > 0 {
		list := make([]*C.char, total)
		C.lrgo_match_lists(m, &list[0], counts[countParams], counts[countQuery], counts[countMeta],
			counts[countRequires])
		rest := list
		take := func(n int) []*C.char { part := rest[:n]; rest = rest[n:]; return part }
		if n := lengths[countParams]; n > 0 {
			cParams := take(2 * n)
			out.OrderedParams = pairs(cParams)
			var kept []bool
			kept, madeJSON = keptParams(m, out.Rewritten, out.Pattern, out.OrderedParams, cParams)
			for i, p := range out.OrderedParams {
				if kept[i] { // Params agrees with lr_match_get (see keptParams)
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
	if madeJSON != nil { // the JSON view is made already: the C match is not needed any more
		out.native = &nativeMatch{json: *madeJSON}
		out.native.once.Do(func() {})
		C.lr_match_free(m)
	} else {
		out.native = keepNative(m)
	}
	return out, nil
}

// matchGetCalls counts the lr_match_get calls keptParams made (read by the tests).
var matchGetCalls atomic.Int64

// lookupBudget is how many name comparisons keptParams lets lr_match_get make (one call compares up to every
// parameter's name): below it, for a URL holding "%00", a call per name costs less than the match's JSON (which
// costs about a microsecond per query pair). The tests set it to 0 to read every such match through the JSON.
var lookupBudget = 1 << 16

// keptParams says which merged parameters Params keeps: the ones lr_match_get finds by their names, in O(parameters).
// (An lr_match_get per parameter, as the binding did first, costs O(parameters^2): found by review, 79 ms for 10,000
// parameters where C takes 1.3 ms.) Merged names are unique, and lr_match_get finds every one but a name holding a
// NUL, which a query key decoded from %00 does: its C string ends at the NUL (?id%00=evil gives "id") and must not
// take the place of the parameter whose whole name that is, nor stand for a name no parameter has. Path parameter
// names are pattern text and extras C strings, so a name can only hold a NUL when the routed URL holds "%00": else
// every parameter is kept. When it does, the match's JSON, whose "query" lists every pair whole, tells which names
// hold a NUL (see nulNames), and it is returned, made once for the Match's JSON view; for a small match, an
// lr_match_get per name is cheaper (see lookupBudget) and gives the answer directly. Among parameters that share a
// C string name, the one whose whole name it is has the place SPEC §4 gives it: a path parameter's, a query key's by
// first appearance (an extra of that name takes it over), or an extra's, last. lr_match_get decides where that place
// is not known: when the name may be a path parameter's (at most one call per parameter name of the pattern, however
// long the URL), or when the values are not the ones expected (never, by the library's rules).
func keptParams(m *C.lr_match, routed, pattern string, params []Param, cParams []*C.char) ([]bool, *string) {
	kept := make([]bool, len(params))
	if !strings.Contains(routed, "%00") {
		for i := range kept {
			kept[i] = true
		}
		return kept, nil
	}
	// The parameters of each C string name, in merged order.
	groups := make(map[string][]int, len(params))
	var order []string
	for i, p := range params {
		if _, seen := groups[p.Name]; !seen {
			order = append(order, p.Name)
		}
		groups[p.Name] = append(groups[p.Name], i)
	}
	var text string
	var nul nulNames
	fromJSON := uint64(len(order))*uint64(len(params)) > uint64(lookupBudget)
	if fromJSON {
		text, fromJSON = matchJSON(m)
	}
	if fromJSON {
		nul, fromJSON = readNulNames(text)
	}
	var pathNames map[string]bool // made when first needed
	for _, name := range order {
		members := groups[name]
		if fromJSON {
			if pathNames == nil && len(nul.values[name]) > 0 && len(members) > len(nul.values[name]) {
				pathNames = pathNameCandidates(pattern)
			}
			if owner, known := nul.owner(name, members, params, pathNames); known {
				if owner >= 0 {
					kept[members[owner]] = true
				}
				continue
			}
		}
		matchGetCalls.Add(1)
		found := C.lr_match_get(m, cParams[2*members[0]])
		for _, i := range members {
			kept[i] = found != nil && cParams[2*i+1] == found
		}
	}
	if !fromJSON {
		return kept, nil
	}
	return kept, &text
}

// matchJSON is lr_match_to_json's text of m; false when the library could not make it.
func matchJSON(m *C.lr_match) (string, bool) {
	var text *C.char
	rc := C.lr_match_to_json(m, &text)
	if text == nil {
		return "", false
	}
	taken := takeString(text)
	return taken, rc >= 0
}

// nulNames are the merged parameters whose names hold a NUL, read from the match's JSON: the distinct query keys
// that hold one (no path parameter or extra can have such a name, so none is replaced or dropped), in their merged
// order, by first appearance. Names and values are as the getters give them, up to the first NUL.
type nulNames struct {
	values map[string][]string // by C string name: the last value of each such key, in merged order
	before map[string]int      // for a query key without a NUL: how many such keys of its C string name came first
}

func readNulNames(text string) (nulNames, bool) {
	var doc struct {
		Query [][2]string `json:"query"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nulNames{}, false
	}
	last := make(map[string]string, len(doc.Query))
	var keys []string // distinct, by first appearance
	for _, pair := range doc.Query {
		if _, seen := last[pair[0]]; !seen {
			keys = append(keys, pair[0])
		}
		last[pair[0]] = pair[1]
	}
	out := nulNames{values: map[string][]string{}, before: map[string]int{}}
	for _, key := range keys {
		if name := cPrefix(key); name != key {
			out.values[name] = append(out.values[name], cPrefix(last[key]))
		} else {
			out.before[key] = len(out.values[key])
		}
	}
	return out, true
}

// owner finds, among the parameters members (in merged order) that share the C string name, the one whose whole
// name that is: its position in members, or -1 when every name holds a NUL. known is false when it cannot say: the
// name may be a path parameter's (pathNames), or the values are not the ones expected.
func (n nulNames) owner(name string, members []int, params []Param, pathNames map[string]bool) (owner int, known bool) {
	values := n.values[name]
	switch {
	case len(values) == 0 && len(members) == 1:
		return 0, true
	case len(members) == len(values):
		owner = -1
	case len(members) == len(values)+1 && pathNames != nil && !pathNames[name]:
		// A query key's place, or an extra's, after every query key.
		if before, ok := n.before[name]; ok {
			owner = before
		} else {
			owner = len(values)
		}
	default:
		return 0, false
	}
	j := 0
	for k, i := range members {
		if k == owner {
			continue
		}
		if params[i].Value != values[j] {
			return 0, false
		}
		j++
	}
	return owner, true
}

// pathNameCandidates are the names a path parameter of pattern can have, and perhaps a few more: each run of name
// bytes (letters, digits, '_') after a ':', '{' or '*', and "*" (a bare catch-all's name).
func pathNameCandidates(pattern string) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < len(pattern); i++ {
		if c := pattern[i]; c != ':' && c != '{' && c != '*' {
			continue
		}
		j := i + 1
		for j < len(pattern) && isNameByte(pattern[j]) {
			j++
		}
		if j > i+1 {
			out[pattern[i+1:j]] = true
		} else if pattern[i] == '*' {
			out["*"] = true
		}
	}
	return out
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// cPrefix is s up to its first NUL: what a C string of it reads.
func cPrefix(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
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
