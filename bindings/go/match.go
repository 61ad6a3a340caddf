package linkrouter

/*
#include "linkrouter.h"

// The fixed string fields of a match, in the order of the matchField constants (one cgo call instead of eleven).
static void lrgo_match_fields(const lr_match *m, const char **out) {
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
}

// The merged parameters (names[i] = values[i], i < count) and the query pairs, each as the getters give them.
static void lrgo_match_params(const lr_match *m, const char **names, const char **values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        names[i] = lr_match_param_name(m, i);
        values[i] = lr_match_param_value(m, i);
    }
}

static void lrgo_match_query(const lr_match *m, const char **names, const char **values, size_t count) {
    for (size_t i = 0; i < count; i++) {
        names[i] = lr_match_query_name(m, i);
        values[i] = lr_match_query_value(m, i);
    }
}
*/
import "C"

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Param is one name and value: a merged parameter, a query pair, or an extra given to ResolveWith.
type Param struct {
	Name  string
	Value string
}

// Match is the result of a lookup, copied out of the library's lr_match (which is freed at once): a plain,
// immutable Go value that outlives its router and may be shared between goroutines.
type Match struct {
	Target    string // the target the route was added with
	Pattern   string // the route's pattern as it was added
	URL       string // the URL as given
	Rewritten string // the URL after rewriting (the same as URL when no rule fired)
	Scheme    string // of the routed URL, lower-cased
	Host      string // lower-cased, without userinfo and port; "" when none
	Port      string // digits, "" when none
	Path      string // as written, not decoded
	Fragment  string // as written, "" when none; the fragment is never routed

	Name        string // the route's name (AddRoute); "" when HasName is false
	HasName     bool
	Metadata    string // the route's metadata (AddRoute); "" when HasMetadata is false
	HasMetadata bool

	// Params are the merged parameters (extra > path > query), each name once, with raw keys: the query pair
	// info[nickname]=x gives the key "info[nickname]" (lr_match_get's view). NestedParams gives the nested view.
	Params map[string]string
	// OrderedParams are the same parameters in the library's order: path parameters in pattern order, then query
	// keys by first appearance, then extras.
	OrderedParams []Param
	// Query is every query pair of the routed URL in order, repeated keys included, decoded.
	Query []Param
	// JSON is the match as lr_match_to_json writes it; "params" there nests bracket keys.
	JSON string
}

// The fixed fields lrgo_match_fields reads, in its order.
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

// copyMatch copies everything out of m; the caller frees m. The caller holds the goroutine on its OS thread (an
// lr_match_to_json failure is read from lr_last_error).
func copyMatch(m *C.lr_match) (*Match, error) {
	var fields [fieldCount]*C.char
	C.lrgo_match_fields(m, &fields[0])
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
	}
	out.Name, out.HasName = goStringOr(fields[fieldName])
	out.Metadata, out.HasMetadata = goStringOr(fields[fieldMetadata])

	count, err := goSize(C.lr_match_param_count(m), "parameter count")
	if err != nil {
		return nil, err
	}
	out.Params = make(map[string]string, count)
	if count > 0 {
		names, values := make([]*C.char, count), make([]*C.char, count)
		C.lrgo_match_params(m, &names[0], &values[0], C.size_t(count))
		out.OrderedParams = pairs(names, values)
		for _, p := range out.OrderedParams {
			out.Params[p.Name] = p.Value
		}
	}
	if count, err = goSize(C.lr_match_query_count(m), "query pair count"); err != nil {
		return nil, err
	}
	if count > 0 {
		names, values := make([]*C.char, count), make([]*C.char, count)
		C.lrgo_match_query(m, &names[0], &values[0], C.size_t(count))
		out.Query = pairs(names, values)
	}

	var text *C.char
	if rc := C.lr_match_to_json(m, &text); rc < 0 {
		return nil, lastError(rc)
	}
	out.JSON = takeString(text)
	return out, nil
}

func pairs(names, values []*C.char) []Param {
	out := make([]Param, len(names))
	for i := range names {
		// Within the counts the getters never give NULL; goStringOr keeps a NULL from ever being dereferenced.
		out[i].Name, _ = goStringOr(names[i])
		out[i].Value, _ = goStringOr(values[i])
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

// NestedParams is the "params" object of JSON: the merged parameters with bracket keys nested, as the library
// builds them (info[nickname]=x&tags[]=a gives {"info": {"nickname": "x"}, "tags": ["a"]}). Values are string,
// []any and map[string]any.
func (m *Match) NestedParams() (map[string]any, error) {
	if m == nil {
		return nil, &Error{Code: StatusMisuse, Message: "NestedParams of a nil *Match", Index: -1, Offset: -1}
	}
	var doc struct {
		Params map[string]any `json:"params"`
	}
	decoder := json.NewDecoder(bytes.NewReader([]byte(m.JSON)))
	if err := decoder.Decode(&doc); err != nil {
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
