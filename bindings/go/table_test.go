package linkrouter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Route tables through the Go binding: loading (file and text, replace and merge), problems, checks, export,
// URL building, explain, and the match fields a table gives (name, meta, requires, route id). Every answer is the
// library's; the tests hold the binding to what C gives (examples/c/tables.expected, test_table.c).

func shopTable(t *testing.T) string { return repoFile(t, "examples", "tables", "shop.json") }

func shopRouter(t *testing.T) *Router {
	t.Helper()
	r, err := NewRouterFromFile(shopTable(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func routeCount(t *testing.T, r *Router) int {
	t.Helper()
	n, err := r.Count()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLoadExportRoundTrip(t *testing.T) {
	r := shopRouter(t)
	if n := routeCount(t, r); n != 16 {
		t.Fatalf("%d routes, want 16", n)
	}
	exported, err := r.ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	// shop.json as the library writes it, byte for byte (Tests/C/test_table.c compares C's with the same file).
	want, err := os.ReadFile(repoFile(t, "Tests", "Data", "shop-export.expected"))
	if err != nil {
		t.Fatal(err)
	}
	if exported != string(want) {
		t.Errorf("export:\n%s", exported)
	}
	// load -> export -> load -> export: the same bytes.
	again, err := NewRouterFromJSON(exported)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if text, err := again.ToJSON(); text != exported || err != nil {
		t.Errorf("export of the export differs (%v):\n%s", err, text)
	}
	m, err := again.Resolve("http://oldshop.example.com/item.php?id=7")
	if err != nil || m == nil || m.Target != "ProductScreen" || m.Params["id"] != "7" {
		t.Errorf("%v %v", m, err)
	}
}

func TestLoadReplaceAndMerge(t *testing.T) {
	r := newRouter(t)
	if err := r.Add("app://old", "Old"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		doc     string
		replace bool
		count   int
		url     string
		target  string // "" for no match
	}{
		{`{"version": 1, "routes": [{"pattern": "app://a/:id", "target": "A"}]}`, true, 1, "app://old", ""},
		{`{"version": 1, "routes": [{"pattern": "app://b/:id", "target": "B"}]}`, false, 2, "app://a/1", "A"},
		{`{"version": 1, "rewrites": [{"match": "^x://(.*)", "target": "app://b/$1"}]}`, false, 2, "x://7", "B"},
		{`{"version": 1}`, true, 0, "x://7", ""},
	}
	for i, step := range steps {
		if err := r.LoadJSON(step.doc, step.replace); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		m, err := r.Resolve(step.url)
		if n := routeCount(t, r); n != step.count || err != nil || (m == nil) != (step.target == "") ||
			(m != nil && m.Target != step.target) {
			t.Errorf("step %d: %d routes, %s gives %v (%v)", i, n, step.url, m, err)
		}
	}
}

// Control characters in a pattern, regex or template: the message escapes them on its lines (\n, \t, \u001B),
// the check report has them as they are, and each problem still comes with its code and raw reason (found by the
// Go/Java review: such a problem paired no line and came back as StatusTable, its reason escaped).
func TestTableProblemsWithControlCharacters(t *testing.T) {
	r := newRouter(t)
	doc := `{"version":1,"routes":[` +
		`{"pattern":"app://a\nb//c","target":"x"},{"pattern":"app://t\tb//c","target":"x"},` +
		`{"pattern":"app://e\u001bx//y","target":"x"},{"pattern":"app://d\u007fx//y","target":"x"},` +
		`{"pattern":"app://r\rx//y","target":"x"},{"pattern":"app://q\\n//","target":"x"}],` +
		`"rewrites":[{"match":"(\t","target":"z"},{"match":"(a)\u0001","target":"app://\n$2"}]}`
	wantCodes := []Status{StatusPattern, StatusPattern, StatusPattern, StatusPattern, StatusPattern, StatusPattern,
		StatusRegex, StatusPattern}
	report, err := r.CheckJSON(doc, true)
	if err != nil || report.Valid || len(report.Problems) != len(wantCodes) {
		t.Fatalf("check: %v %+v", err, report)
	}
	err = r.LoadJSON(doc, true)
	var e *Error
	if !errors.As(err, &e) || e.Code != StatusTable {
		t.Fatalf("%v, want a table error", err)
	}
	if !reflect.DeepEqual(e.Problems, report.Problems) {
		t.Errorf("problems\n%q\nwant the check's\n%q", e.Problems, report.Problems)
	}
	lines := strings.Split(e.Message, "\n")
	for i, p := range e.Problems {
		if p.Code != wantCodes[i] {
			t.Errorf("%s: code %d, want %d", p.Pointer, p.Code, wantCodes[i])
		}
		if i < len(lines) && oneLine(p.String()) != lines[i] {
			t.Errorf("line %q is not problem %q escaped", lines[i], p)
		}
	}
	// The control characters escaped on the message's lines (a backslash as written stays one: route 5's '\n' is
	// two characters of the pattern).
	want := `/routes/0/pattern: malformed pattern 'app://a\nb//c' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/routes/1/pattern: malformed pattern 'app://t\tb//c' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/routes/2/pattern: malformed pattern 'app://e\u001Bx//y' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/routes/3/pattern: malformed pattern 'app://d\u007Fx//y' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/routes/4/pattern: malformed pattern 'app://r\rx//y' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/routes/5/pattern: malformed pattern 'app://q\n//' at byte 10: empty segment ('//' in a pattern)` + "\n" +
		`/rewrites/0/match: invalid rewrite regex '(\t' at byte 2: missing closing parenthesis (PCRE2 error 114)` + "\n" +
		`/rewrites/1/target: malformed rewrite target 'app://\n$2' at byte 7: group 2 does not exist: the regex has 1 ` +
		`capture group`
	if e.Message != want {
		t.Errorf("message\n%q\nwant\n%q", e.Message, want)
	}
	if want := "malformed pattern 'app://a\nb//c' at byte 10: empty segment ('//' in a pattern)"; e.Problems[0].Reason != want {
		t.Errorf("reason %q is not the raw one, %q", e.Problems[0].Reason, want)
	}
}

// A document with problems changes nothing, and the error lists every problem with its pointer, code and reason,
// in the order of the message's lines.
func TestTableProblems(t *testing.T) {
	r := shopRouter(t)
	exported, _ := r.ToJSON()
	bad := `{"version":1,"routes":[{"pattern":"a://x//y","target":"T"},{"pattern":"shop://cart","target":3}],"zz":1}`
	want := []TableProblem{
		{"/zz", StatusTable, "unknown key 'zz' (expected $schema, version, routes, rewrites)"},
		{"/routes/0/pattern", StatusPattern,
			"malformed pattern 'a://x//y' at byte 6: empty segment ('//' in a pattern)"},
		{"/routes/1/target", StatusTable, "expected a string, found a number"},
		{"/routes/1/pattern", StatusConflict,
			"pattern 'shop://cart' conflicts with existing route 'shop://cart': both match exactly the same URLs"},
	}
	for _, replace := range []bool{false, true} {
		err := r.LoadJSON(bad, replace)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrTable) || e.Code != StatusTable {
			t.Fatalf("replace %v: %v, want a table error", replace, err)
		}
		wantHere := want
		if replace { // replacing, the file's cart conflicts with no existing route
			wantHere = want[:3]
		}
		if !reflect.DeepEqual(e.Problems, wantHere) {
			t.Errorf("replace %v: problems\n%q\nwant\n%q", replace, e.Problems, wantHere)
		}
		lines := make([]string, len(e.Problems))
		for i, p := range e.Problems {
			lines[i] = p.String()
		}
		if e.Message != strings.Join(lines, "\n") || e.Offset != -1 || e.Index != -1 {
			t.Errorf("message %q (offset %d, index %d) is not the problems' lines", e.Message, e.Offset, e.Index)
		}
		if text, _ := r.ToJSON(); text != exported {
			t.Errorf("replace %v: a refused load changed the table", replace)
		}
	}
	// A problem of the document itself has no pointer.
	err := r.LoadJSON("{", true)
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0].Pointer != "" || e.Problems[0].Code != StatusTable ||
		e.Problems[0].Reason != "JSON syntax error at byte 1 (line 1, column 2): expected a member name in double quotes" {
		t.Errorf("%#v", err)
	}
	// Merging: a route conflicting with the router's, a name it already has; both named.
	err = r.LoadJSON(`{"version":1,"routes":[{"pattern":"shop://cart/","target":"X"},`+
		`{"pattern":"shop://new","target":"N","name":"home"}]}`, false)
	want = []TableProblem{
		{"/routes/0/pattern", StatusConflict,
			"pattern 'shop://cart/' conflicts with existing route 'shop://cart': both match exactly the same URLs"},
		{"/routes/1/name", StatusConflict, "route name 'home' is already used by existing route 'shop://home'"},
	}
	if !errors.As(err, &e) || !reflect.DeepEqual(e.Problems, want) {
		t.Errorf("merge: %v\n%q", err, e.Problems)
	}
}

// Lines the check does not give alike are read from the text (a pointer, then ": "), code StatusTable.
func TestProblemFromLine(t *testing.T) {
	rows := []struct {
		line string
		want TableProblem
	}{
		{"/routes/3/pattern: malformed: x", TableProblem{"/routes/3/pattern", StatusTable, "malformed: x"}},
		{"... and 5 more problems (only the first 1000 are listed)",
			TableProblem{"", StatusTable, "... and 5 more problems (only the first 1000 are listed)"}},
		{"/odd", TableProblem{"", StatusTable, "/odd"}},
	}
	for _, row := range rows {
		if got := problemFromLine(row.line); got != row.want {
			t.Errorf("%q: %q, want %q", row.line, got, row.want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	r := newRouter(t)
	dir := t.TempDir()
	notUTF8 := filepath.Join(dir, "latin1.json")
	if err := os.WriteFile(notUTF8, []byte("{\"version\": 1, \"$schema\": \"caf\xe9\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	rows := []struct {
		what string
		err  error
		call func() error
	}{
		{"missing file", ErrIO, func() error { return r.LoadFile(missing, true) }},
		{"file not UTF-8", ErrTable, func() error { return r.LoadFile(notUTF8, true) }},
		{"path with NUL", ErrInvalid, func() error { return r.LoadFile("a\x00b", true) }},
		{"text with NUL", ErrInvalid, func() error { return r.LoadJSON("{\"version\":1}\x00", true) }},
		{"text not UTF-8", ErrInvalid, func() error { return r.LoadJSON("{\"version\":\xff}", true) }},
		{"empty text", ErrTable, func() error { return r.LoadJSON("", true) }},
		{"new from missing file", ErrIO, func() error { _, err := NewRouterFromFile(missing); return err }},
		{"new from bad text", ErrTable, func() error { _, err := NewRouterFromJSON(`{"version":2}`); return err }},
	}
	for _, row := range rows {
		if err := row.call(); !errors.Is(err, row.err) {
			t.Errorf("%s: %v, want %v", row.what, err, row.err)
		}
	}
	var e *Error
	// The path is the test's temporary directory: the message is built from it.
	want := fmt.Sprintf("cannot open table file '%s': No such file or directory", missing)
	if err := r.LoadFile(missing, true); !errors.As(err, &e) || e.Message != want {
		t.Errorf("no OS reason: %v, want %q", err, want)
	}
	if err := r.LoadFile(notUTF8, true); !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0].Pointer != "" {
		t.Errorf("not UTF-8: %v %q", err, e.Problems)
	}
	if n := routeCount(t, r); n != 0 {
		t.Errorf("%d routes after failed loads", n)
	}
}

func TestCheck(t *testing.T) {
	r := newRouter(t)
	report, err := r.CheckFile(shopTable(t), true)
	if err != nil || !report.Valid || len(report.Problems) != 0 || len(report.Warnings) != 0 ||
		report.JSON != `{"valid":true,"problems":[],"warnings":[]}` {
		t.Errorf("shop.json: %+v %v", report, err)
	}
	doc := `{"version":1,"routes":[{"pattern":"app://docs","target":"D"},` +
		`{"pattern":"app://docs/:section/*rest","target":"S"},{"pattern":"app://docs/*path","target":"P"}],` +
		`"rewrites":[{"match":"^old://(\\d+)","target":"shop://orders/$1"}]}`
	report, err = r.CheckJSON(doc, true)
	wantWarnings := []TableWarning{
		{"/routes/2", "shadowed", "'app://docs/*path' never matches: 'app://docs', 'app://docs/:section/*rest' take " +
			"every URL it would (a route that ends there, then a :param, beat a catch-all)"},
		{"/rewrites/0/target", "rewrite_routes_nowhere",
			"'shop://orders/$1' routes nowhere: no route starts like 'shop://orders'"},
	}
	if err != nil || !report.Valid || !reflect.DeepEqual(report.Warnings, wantWarnings) {
		t.Errorf("warnings: %+v %v", report, err)
	}
	// An invalid document is a report, not an error; checking changes nothing.
	report, err = r.CheckJSON(`{"version":1,"routes":[{"pattern":"a://x//y","target":"T"}]}`, false)
	if err != nil || report.Valid || len(report.Problems) != 1 || report.Problems[0].Code != StatusPattern ||
		report.Problems[0].Pointer != "/routes/0/pattern" {
		t.Errorf("invalid: %+v %v", report, err)
	}
	if n := routeCount(t, r); n != 0 {
		t.Errorf("checking added %d routes", n)
	}
	if _, err := r.CheckFile(filepath.Join(t.TempDir(), "missing.json"), true); !errors.Is(err, ErrIO) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := r.CheckJSON("\xff", true); !errors.Is(err, ErrInvalid) {
		t.Errorf("not UTF-8: %v", err)
	}
}

func TestBuildURL(t *testing.T) {
	r := shopRouter(t)
	rows := []struct {
		name   string
		params []Param
		url    string
		err    error
	}{
		{"product", []Param{{"id", "42"}, {"?ref", "mail & push"}}, "shop://product/42?ref=mail%20%26%20push", nil},
		{"product", []Param{{"id", "4 2/x"}}, "shop://product/4%202%2Fx", nil},
		{"help", []Param{{"topic", "returns/late parcel"}}, "shop://help/returns/late%20parcel", nil},
		{"web.product", []Param{{"id", "7"}, {"?a", "1"}, {"?b", "2"}}, "https://shop.example.com/p/7?a=1&b=2", nil},
		{"home", nil, "shop://home", nil},
		{"nope", nil, "", ErrNotFound},
		{"product", nil, "", ErrInvalid},                                       // missing
		{"product", []Param{{"id", ""}}, "", ErrInvalid},                       // empty
		{"product", []Param{{"id", "1"}, {"slug", "x"}}, "", ErrInvalid},       // unknown
		{"product", []Param{{"id", "1"}, {"?id", "x"}}, "", ErrInvalid},        // a path parameter's name
		{"product", []Param{{"id", "a\x00b"}}, "", ErrInvalid},                 // NUL: the binding refuses it
		{"prod\x00uct", []Param{{"id", "1"}}, "", ErrInvalid},                  // NUL in the name
		{"product", []Param{{"id", "\xff"}}, "", ErrInvalid},                   // not UTF-8: the library refuses it
		{"help", []Param{{"topic", "a//b"}}, "", ErrInvalid},                   // an empty catch-all piece
		{"product", []Param{{"id", strings.Repeat("x", 70000)}}, "", ErrLimit}, // longer than the URL limit
	}
	for _, row := range rows {
		url, err := r.BuildURL(row.name, row.params...)
		if url != row.url || !errors.Is(err, row.err) || (row.err == nil && err != nil) {
			t.Errorf("%s %q: %q %v, want %q %v", row.name, row.params, url, err, row.url, row.err)
			continue
		}
		if err != nil || row.name == "help" {
			continue
		}
		// The round trip: the URL resolves to the route, with the values given.
		m, err := r.Resolve(url)
		if err != nil || m == nil || m.Name != row.name {
			t.Errorf("%s resolves to %v (%v)", url, m, err)
			continue
		}
		for _, p := range row.params {
			if got := m.Params[strings.TrimPrefix(p.Name, "?")]; got != p.Value {
				t.Errorf("%s: %s = %q, want %q", url, p.Name, got, p.Value)
			}
		}
	}
}

func TestExplain(t *testing.T) {
	r := shopRouter(t)
	e, err := r.Explain("http://oldshop.example.com/item.php?id=7")
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	if e.URL != "http://oldshop.example.com/item.php?id=7" || e.Result != "matched" || e.Error != nil ||
		e.Routed != "shop://product/7?from=legacy" || !reflect.DeepEqual(e.Sequence, []string{"product", "7"}) ||
		!reflect.DeepEqual(e.Rewrite.Fired, &zero) || len(e.Rewrite.Rules) != 4 || e.Rewrite.Rules[0].Outcome != "fired" ||
		e.Rewrite.Rules[1].Outcome != "not_tried" || e.OtherSchemeRoutes != 4 || e.CandidatesOmitted != 0 {
		t.Errorf("%+v", e)
	}
	wantRoute := &ExplainRoute{Pattern: "shop://product/:id", Target: "ProductScreen", Name: "product",
		Requires: []string{}, Meta: map[string]string{"class": "ProductViewController", "transition": "push"}}
	if !reflect.DeepEqual(e.Route, wantRoute) || !reflect.DeepEqual(e.Params, map[string]string{"id": "7", "from": "legacy"}) {
		t.Errorf("route %+v params %v", e.Route, e.Params)
	}
	if len(e.Candidates) != 12 || !e.Candidates[0].Matched || e.Candidates[0].Pattern != "shop://product/:id" ||
		e.Candidates[1] != (ExplainCandidate{"shop://product/:id/reviews", "ReviewsScreen", "product.reviews", false,
			"the URL ends after 2 elements; the pattern needs 3", 2}) {
		t.Errorf("candidates %+v", e.Candidates)
	}
	if !strings.HasPrefix(e.JSON, `{"url":"http://oldshop.example.com/item.php?id=7","result":"matched",`) {
		t.Errorf("JSON %s", e.JSON)
	}
	e, err = r.Explain("not a url")
	if err != nil || e.Result != "error" || e.Error == nil || e.Error.Code != StatusInvalid || e.Route != nil {
		t.Errorf("refused URL: %+v %v", e, err)
	}
	e, err = r.Explain("shop://orders/12/invoice")
	if err != nil || e.Result != "nomatch" || e.Route != nil || e.Rewrite.Fired != nil {
		t.Errorf("no match: %+v %v", e, err)
	}
	// The text is what C prints: examples/c/tables.c ends with this explanation.
	text, err := r.ExplainText("shop://orders/12/invoice")
	if err != nil {
		t.Fatal(err)
	}
	expected, err := os.ReadFile(repoFile(t, "examples", "c", "tables.expected"))
	if err != nil {
		t.Fatal(err)
	}
	if at := strings.Index(string(expected), "url         shop://orders/12/invoice\n"); at < 0 || string(expected[at:]) != text {
		t.Errorf("explain text differs from examples/c/tables.expected:\n%s", text)
	}
	for _, url := range []string{"a\x00b", "\xff"} {
		if _, err := r.Explain(url); !errors.Is(err, ErrInvalid) {
			t.Errorf("Explain(%q): %v", url, err)
		}
		if _, err := r.ExplainText(url); !errors.Is(err, ErrInvalid) {
			t.Errorf("ExplainText(%q): %v", url, err)
		}
	}
}

// The match fields a table gives: name, meta (a map, and the library's JSON of it), requires, route id.
func TestMatchFieldsFromTable(t *testing.T) {
	r := shopRouter(t)
	rows := []struct {
		url      string
		name     string
		meta     map[string]string
		metadata string
		requires []string
		routeID  uint32
	}{
		{"shop://push/order/9/status", "push.order", map[string]string{"source": "push", "transition": "present"},
			`{"source":"push","transition":"present"}`, []string{"login", "fresh-session"}, 14},
		{"shop://cart", "cart", map[string]string{"transition": "present"}, `{"transition":"present"}`,
			[]string{"login"}, 5},
		{"shop://orders/3", "order", nil, "", []string{"login"}, 7},
		{"shop://home", "home", nil, "", nil, 0},
	}
	for _, row := range rows {
		m, err := r.Resolve(row.url)
		if err != nil || m == nil {
			t.Fatalf("%s: %v %v", row.url, m, err)
		}
		if m.Name != row.name || !m.HasName || !reflect.DeepEqual(m.Meta, row.meta) || m.Metadata != row.metadata ||
			m.HasMetadata != (row.metadata != "") || !reflect.DeepEqual(m.Requires, row.requires) || m.RouteID != row.routeID {
			t.Errorf("%s: name %q meta %v metadata %q requires %q id %d", row.url, m.Name, m.Meta, m.Metadata,
				m.Requires, m.RouteID)
		}
		checkAgainstJSON(t, m)
	}
}

// The JSON view is made once, on first use, from any goroutine; copies of a Match share it; the C match is
// freed as soon as it is made.
func TestJSONIsLazyAndShared(t *testing.T) {
	r := shopRouter(t)
	m, err := r.Resolve("shop://search?filter[size][]=m&filter[size][]=l")
	if err != nil || m == nil {
		t.Fatal(m, err)
	}
	if m.native.handle == nil {
		t.Fatal("the C match is gone before the JSON was asked for")
	}
	copied := *m
	texts := make([]string, 8)
	var wg sync.WaitGroup
	for i := range texts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			source := m
			if i%2 == 1 {
				source = &copied
			}
			texts[i], _ = source.JSON()
		}(i)
	}
	wg.Wait()
	for _, text := range texts {
		if text != `{"target":"SearchScreen","pattern":"shop://search","url":"shop://search?filter[size][]=m&filter[size][]=l",`+
			`"rewritten":"shop://search?filter[size][]=m&filter[size][]=l","scheme":"shop","host":"search","port":"",`+
			`"path":"","fragment":"","name":"search","params":{"filter":{"size":["m","l"]}},`+
			`"query":[["filter[size][]","m"],["filter[size][]","l"]]}` {
			t.Errorf("JSON %q", text)
		}
	}
	if m.native.handle != nil {
		t.Error("the C match is kept after its JSON was made")
	}
	if _, err := (&Match{Target: "x"}).JSON(); !errors.Is(err, ErrMisuse) {
		t.Errorf("JSON of a Match made in Go: %v", err)
	}
}

// A load on one goroutine while others resolve: each resolve sees the old table or the new one, whole. Each
// table's rule only routes with its own routes, so a mix would be no match.
func TestLoadDuringResolves(t *testing.T) {
	tables := []string{
		`{"version":1,"routes":[{"pattern":"app://a/:id","target":"A"}],"rewrites":[{"match":"^x://(.*)","target":"app://a/$1"}]}`,
		`{"version":1,"routes":[{"pattern":"app://b/:id","target":"B"}],"rewrites":[{"match":"^x://(.*)","target":"app://b/$1"}]}`,
	}
	r := newRouter(t)
	if err := r.LoadJSON(tables[0], true); err != nil {
		t.Fatal(err)
	}
	const loads, resolvesEach = 200, 2000
	fns := []func() error{func() error {
		for i := 0; i < loads; i++ {
			if err := r.LoadJSON(tables[i%2], true); err != nil {
				return err
			}
		}
		return nil
	}}
	for g := 0; g < 2; g++ {
		fns = append(fns, func() error {
			for i := 0; i < resolvesEach; i++ {
				m, err := r.Resolve("x://7")
				if err != nil || m == nil || (m.Target != "A" && m.Target != "B") || m.Params["id"] != "7" {
					return errors.New("a resolve saw a mix of two tables: " + m.String())
				}
			}
			return nil
		})
	}
	for _, err := range collect(fns...) {
		if err != nil {
			t.Error(err)
		}
	}
}
