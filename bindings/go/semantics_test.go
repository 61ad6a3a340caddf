package linkrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Tests/Data/semantics.json: SPEC sections 2-4 as tables, run by the Swift, Python and Java suites too. `params`
// is the flat view (Match.Params); `nested`, when a row gives it, is the nested view (Match.NestedParams), which
// is `params` otherwise.
type semanticsTable struct {
	Routes     [][2]string `json:"routes"`
	Match      []matchRow  `json:"match"`
	Malformed  [][]any     `json:"malformed"` // pattern, offset, the whole message
	WellFormed []string    `json:"wellFormed"`
	Conflicts  [][]any     `json:"conflicts"` // existing, new, whether they conflict, the whole message or null
}

type matchRow struct {
	Group    string            `json:"group"`
	URL      string            `json:"url"`
	Target   *string           `json:"target"`
	Params   map[string]string `json:"params"`
	Nested   map[string]any    `json:"nested"`
	Extra    map[string]string `json:"extra"`
	Fragment *string           `json:"fragment"`
}

// repoFile is a file of the source tree; a missing one fails the test (never a skip).
func repoFile(t *testing.T, parts ...string) string {
	t.Helper()
	path := filepath.Join(append([]string{"..", ".."}, parts...)...)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	return path
}

func loadSemantics(t *testing.T) semanticsTable {
	t.Helper()
	data, err := os.ReadFile(repoFile(t, "Tests", "Data", "semantics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table semanticsTable
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatalf("semantics.json: %v", err)
	}
	return table
}

func newRouter(t *testing.T) *Router {
	t.Helper()
	r, err := NewRouter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// extras gives a row's extra parameters in name order (the table's object has no order of its own).
func extras(row matchRow) []Param {
	var out []Param
	for name, value := range row.Extra {
		out = append(out, Param{name, value})
	}
	sortParams(out)
	return out
}

func sortParams(ps []Param) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Name < ps[j-1].Name; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

func TestSemanticsMatchTable(t *testing.T) {
	table := loadSemantics(t)
	if len(table.Match) < 70 || len(table.Routes) < 10 {
		t.Fatalf("semantics.json has %d match rows and %d routes: too few", len(table.Match), len(table.Routes))
	}
	patternOf := map[string]string{}
	for _, route := range table.Routes {
		patternOf[route[1]] = route[0]
	}
	for _, order := range []string{"in order", "reversed"} {
		r := newRouter(t)
		for i := range table.Routes {
			route := table.Routes[i]
			if order == "reversed" {
				route = table.Routes[len(table.Routes)-1-i]
			}
			if err := r.Add(route[0], route[1]); err != nil {
				t.Fatalf("%s: %v", route[0], err)
			}
		}
		for _, row := range table.Match {
			row := row
			t.Run(order+"/"+row.URL, func(t *testing.T) { checkMatchRow(t, r, row, patternOf) })
		}
	}
}

func checkMatchRow(t *testing.T, r *Router, row matchRow, patternOf map[string]string) {
	m, err := r.ResolveWith(row.URL, extras(row)...)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	can, err := r.CanRoute(row.URL)
	if err != nil {
		t.Fatalf("can route: %v", err)
	}
	if can != (row.Target != nil) {
		t.Errorf("CanRoute = %v, want %v", can, row.Target != nil)
	}
	if row.Target == nil {
		if m != nil {
			t.Fatalf("matched %q, want no match", m.Target)
		}
		return
	}
	if m == nil {
		t.Fatalf("no match, want %q", *row.Target)
	}
	if m.Target != *row.Target {
		t.Errorf("target %q, want %q", m.Target, *row.Target)
	}
	want := row.Params
	if want == nil {
		want = map[string]string{}
	}
	if !reflect.DeepEqual(m.Params, want) {
		t.Errorf("params %v, want %v", m.Params, want)
	}
	for name, value := range want {
		if got, ok := m.Get(name); !ok || got != value {
			t.Errorf("Get(%q) = %q, %v; want %q", name, got, ok, value)
		}
	}
	if len(m.OrderedParams) != len(want) {
		t.Errorf("ordered params %v, want %d of them", m.OrderedParams, len(want))
	}
	wantNested := row.Nested
	if wantNested == nil {
		wantNested = map[string]any{}
		for k, v := range want {
			wantNested[k] = v
		}
	}
	nested, err := m.NestedParams()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nested, wantNested) {
		t.Errorf("nested params %v, want %v", nested, wantNested)
	}
	if m.URL != row.URL || m.Rewritten != row.URL {
		t.Errorf("url %q rewritten %q, want %q for both", m.URL, m.Rewritten, row.URL)
	}
	if m.Pattern != patternOf[*row.Target] {
		t.Errorf("pattern %q, want %q", m.Pattern, patternOf[*row.Target])
	}
	if row.Fragment != nil && m.Fragment != *row.Fragment {
		t.Errorf("fragment %q, want %q", m.Fragment, *row.Fragment)
	}
	if m.HasName || m.HasMetadata {
		t.Errorf("name %q metadata %q on a route added without them", m.Name, m.Metadata)
	}
	checkAgainstJSON(t, m)
}

// checkAgainstJSON: every field the binding copied through the getters equals the library's own JSON of the
// match (lr_match_to_json), which is the same bytes for every language.
func checkAgainstJSON(t *testing.T, m *Match) {
	t.Helper()
	text, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("JSON %q: %v", text, err)
	}
	fields := map[string]string{"target": m.Target, "pattern": m.Pattern, "url": m.URL, "rewritten": m.Rewritten,
		"scheme": m.Scheme, "host": m.Host, "port": m.Port, "path": m.Path, "fragment": m.Fragment}
	for key, got := range fields {
		if doc[key] != got {
			t.Errorf("%s: getter %q, JSON %v", key, got, doc[key])
		}
	}
	query := []any{}
	for _, p := range m.Query {
		query = append(query, []any{p.Name, p.Value})
	}
	if !reflect.DeepEqual(doc["query"], query) {
		t.Errorf("query: getters %v, JSON %v", query, doc["query"])
	}
}

func TestSemanticsMalformedPatterns(t *testing.T) {
	table := loadSemantics(t)
	if len(table.Malformed) == 0 {
		t.Fatal("no malformed rows")
	}
	for _, row := range table.Malformed {
		if len(row) != 3 {
			t.Fatalf("malformed row %v is not [pattern, offset, message]", row)
		}
		pattern, offset, message := row[0].(string), int(row[1].(float64)), row[2].(string)
		t.Run(fmt.Sprintf("%q", pattern), func(t *testing.T) {
			r := newRouter(t)
			err := r.Add(pattern, "T")
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrPattern) {
				t.Fatalf("error %v, want a pattern error", err)
			}
			if e.Code != StatusPattern || e.Offset != offset || e.Message != message {
				t.Errorf("code %d offset %d message %q, want offset %d message %q", e.Code, e.Offset, e.Message, offset, message)
			}
			if n, _ := r.Count(); n != 0 {
				t.Errorf("count %d after a refused add", n)
			}
		})
	}
}

func TestSemanticsWellFormedPatterns(t *testing.T) {
	table := loadSemantics(t)
	if len(table.WellFormed) == 0 {
		t.Fatal("no well-formed rows")
	}
	for _, pattern := range table.WellFormed {
		r := newRouter(t)
		if err := r.Add(pattern, pattern); err != nil {
			t.Errorf("%q: %v", pattern, err)
		}
		if n, err := r.Count(); n != 1 || err != nil {
			t.Errorf("%q: count %d, %v", pattern, n, err)
		}
	}
}

func TestSemanticsConflicts(t *testing.T) {
	table := loadSemantics(t)
	if len(table.Conflicts) == 0 {
		t.Fatal("no conflict rows")
	}
	for _, row := range table.Conflicts {
		if len(row) != 4 {
			t.Fatalf("conflict row %v is not [existing, new, conflicts, message]", row)
		}
		existing, added, conflicts := row[0].(string), row[1].(string), row[2].(bool)
		message, isText := row[3].(string)
		if conflicts != isText || !conflicts && row[3] != nil {
			t.Fatalf("conflict row %v: the message must be a string when they conflict, null when not", row)
		}
		r := newRouter(t)
		if err := r.Add(existing, "old"); err != nil {
			t.Fatalf("%q: %v", existing, err)
		}
		err := r.Add(added, "new")
		n, _ := r.Count()
		if conflicts {
			var e *Error
			if !errors.As(err, &e) || e.Code != StatusConflict || e.Message != message || n != 1 {
				t.Errorf("%q then %q: %v, count %d; want a conflict, %q", existing, added, err, n, message)
			}
		} else if err != nil || n != 2 {
			t.Errorf("%q then %q: %v, count %d; want both added", existing, added, err, n)
		}
	}
}
