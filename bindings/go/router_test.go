package linkrouter

import (
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestVersionsAgree(t *testing.T) {
	if HeaderVersion/100 != LibraryVersion()/100 || versionError() != nil {
		t.Fatalf("header %d, library %d: %v", HeaderVersion, LibraryVersion(), versionError())
	}
}

func TestMatchReportsEveryPart(t *testing.T) {
	r := newRouter(t)
	if err := r.AddRoute("https://www.example.com/p/:id", "Product", "product", `{"auth":"true"}`); err != nil {
		t.Fatal(err)
	}
	m, err := r.Resolve("HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag")
	if err != nil || m == nil {
		t.Fatalf("%v, %v", m, err)
	}
	got := []string{m.Target, m.Pattern, m.URL, m.Rewritten, m.Scheme, m.Host, m.Port, m.Path, m.Fragment, m.Name, m.Metadata}
	want := []string{"Product", "https://www.example.com/p/:id", "HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag",
		"HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag", "https", "www.example.com", "8443", "/p/7", "Frag", "product",
		`{"auth":"true"}`}
	if !reflect.DeepEqual(got, want) || !m.HasName || !m.HasMetadata {
		t.Errorf("parts %q (name %v, metadata %v), want %q", got, m.HasName, m.HasMetadata, want)
	}
	if !reflect.DeepEqual(m.Query, []Param{{"x", "A"}}) {
		t.Errorf("query %v", m.Query)
	}
	text, err := m.JSON()
	if err != nil || text != `{"target":"Product","pattern":"https://www.example.com/p/:id",`+
		`"url":"HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag","rewritten":"HTTPS://u@WWW.Example.com:8443/p/7?x=%41#Frag",`+
		`"scheme":"https","host":"www.example.com","port":"8443","path":"/p/7","fragment":"Frag","name":"product",`+
		`"meta":{"auth":"true"},"params":{"id":"7","x":"A"},"query":[["x","A"]]}` {
		t.Errorf("JSON %s (%v)", text, err)
	}
}

func TestNameAndMetadataAbsent(t *testing.T) {
	r := newRouter(t)
	rows := []struct {
		pattern, name, metadata string
		hasName, hasMetadata    bool
	}{
		{"app://x", "", "", false, false},
		{"app://y", "why", "", true, false},
		{"app://z", "", `{"m":"eta"}`, false, true},
	}
	for _, row := range rows {
		if err := r.AddRoute(row.pattern, "T", row.name, row.metadata); err != nil {
			t.Fatal(err)
		}
		m, err := r.Resolve(row.pattern)
		if err != nil || m == nil {
			t.Fatalf("%s: %v %v", row.pattern, m, err)
		}
		if m.Name != row.name || m.HasName != row.hasName || m.Metadata != row.metadata || m.HasMetadata != row.hasMetadata {
			t.Errorf("%s: name %q/%v metadata %q/%v", row.pattern, m.Name, m.HasName, m.Metadata, m.HasMetadata)
		}
	}
}

// Path parameters in pattern order, then query keys by first appearance, then extras (an extra taking a query
// key's place keeps that place): the order of lr_match_param_name.
func TestParamsOrderQueryAndNesting(t *testing.T) {
	r := newRouter(t)
	if err := r.Add("app://u/:id/:tab", "T"); err != nil {
		t.Fatal(err)
	}
	m, err := r.ResolveWith("app://u/1/t?z=1&id=x&a=2&z=3&i[n]=v&l[]=p&l[]=q", Param{"e", "9"}, Param{"a", "8"})
	if err != nil || m == nil {
		t.Fatalf("%v %v", m, err)
	}
	wantOrdered := []Param{{"id", "1"}, {"tab", "t"}, {"z", "3"}, {"a", "8"}, {"i[n]", "v"}, {"l[]", "q"}, {"e", "9"}}
	if !reflect.DeepEqual(m.OrderedParams, wantOrdered) {
		t.Errorf("ordered %v, want %v", m.OrderedParams, wantOrdered)
	}
	wantQuery := []Param{{"z", "1"}, {"id", "x"}, {"a", "2"}, {"z", "3"}, {"i[n]", "v"}, {"l[]", "p"}, {"l[]", "q"}}
	if !reflect.DeepEqual(m.Query, wantQuery) {
		t.Errorf("query %v, want %v", m.Query, wantQuery)
	}
	nested, err := m.NestedParams()
	wantNested := map[string]any{"id": "1", "tab": "t", "z": "3", "a": "8", "e": "9",
		"i": map[string]any{"n": "v"}, "l": []any{"p", "q"}}
	if err != nil || !reflect.DeepEqual(nested, wantNested) {
		t.Errorf("nested %v (%v), want %v", nested, err, wantNested)
	}
	if v, ok := m.Get("i[n]"); !ok || v != "v" {
		t.Errorf("Get(i[n]) = %q, %v", v, ok)
	}
	if _, ok := m.Get("i"); ok {
		t.Error("Get(i) found a value: the flat view has raw keys only")
	}
}

func TestRemoveClearCount(t *testing.T) {
	r := newRouter(t)
	for _, p := range []string{"app://u/:id", "app://u/me", "app://u/*rest"} {
		if err := r.Add(p, p); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		remove string
		err    error
		url    string
		target string // "" for no match
	}{
		{"", nil, "app://u/me", "app://u/me"},
		{"app://u/me", nil, "app://u/me", "app://u/:id"},
		{"app://u/:other", nil, "app://u/me", "app://u/*rest"}, // the same URLs as app://u/:id
		{"app://u/:id", ErrNotFound, "app://u/me", "app://u/*rest"},
		{"app://nothing/here", ErrNotFound, "app://u/x", "app://u/*rest"},
		{"bad", ErrPattern, "app://u/x", "app://u/*rest"},
		{"app://u/*", nil, "app://u/x", ""},
	}
	for _, step := range steps {
		if step.remove != "" {
			if err := r.Remove(step.remove); !errors.Is(err, step.err) || (step.err == nil && err != nil) {
				t.Errorf("Remove(%q) = %v, want %v", step.remove, err, step.err)
			}
		}
		m, err := r.Resolve(step.url)
		if err != nil || (m == nil) != (step.target == "") || (m != nil && m.Target != step.target) {
			t.Errorf("after removing %q: %s gives %v (%v), want %q", step.remove, step.url, m, err, step.target)
		}
	}
	if n, err := r.Count(); n != 0 || err != nil {
		t.Errorf("count %d, %v", n, err)
	}
	if err := r.AddRewrite("^old://(.*)", "app://$1"); err != nil {
		t.Fatal(err)
	}
	if err := r.AddMany([]Route{{"app://a", "A"}, {"app://b", "B"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Clear(); err != nil {
		t.Fatal(err)
	}
	if n, _ := r.Count(); n != 0 {
		t.Errorf("count %d after Clear", n)
	}
	if out, ok, err := r.Rewrite("old://x"); out != "app://x" || !ok || err != nil {
		t.Errorf("Clear removed the rewrite rules: %q %v %v", out, ok, err)
	}
}

func TestAddManyIsAllOrNone(t *testing.T) {
	r := newRouter(t)
	if err := r.AddMany(nil); err != nil {
		t.Errorf("AddMany(nil) = %v", err)
	}
	rows := []struct {
		routes  []Route
		err     error
		index   int
		message string // names the route
	}{
		{[]Route{{"app://a", "A"}, {"app://b//c", "bad"}, {"app://c", "C"}}, ErrPattern, 1,
			"route 1: malformed pattern 'app://b//c' at byte 8: empty segment ('//' in a pattern)"},
		{[]Route{{"app://a", "A"}, {"app://b", "B"}, {"app://a/", "dup"}}, ErrConflict, 2,
			"route 2: pattern 'app://a/' conflicts with route 0 of this batch ('app://a'): both match exactly the same URLs"},
		{[]Route{{"app://a", "A"}, {"app://\xff", "B"}}, ErrInvalid, 1,
			"route 1: lr_router_add_many: patterns[1] is not valid UTF-8"},
		{[]Route{{"app://a", "A"}, {"app://b", "B\x00"}}, ErrInvalid, 1,
			"route 1: target contains a NUL byte at byte 1"},
		// A batch of one is a batch: its route is named and indexed (the library did not before 35c3e1d).
		{[]Route{{"app://b//c", "bad"}}, ErrPattern, 0,
			"route 0: malformed pattern 'app://b//c' at byte 8: empty segment ('//' in a pattern)"},
		{[]Route{{"app://\xff", "B"}}, ErrInvalid, 0, "route 0: lr_router_add_many: patterns[0] is not valid UTF-8"},
	}
	for _, row := range rows {
		err := r.AddMany(row.routes)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, row.err) || e.Index != row.index {
			t.Errorf("%v: %v (index %v), want %v at %d", row.routes, err, e, row.err, row.index)
			continue
		}
		if e.Message != row.message {
			t.Errorf("%v: message %q, want %q", row.routes, e.Message, row.message)
		}
		if n, _ := r.Count(); n != 0 {
			t.Errorf("count %d after a refused AddMany", n)
		}
	}
	routes := make([]Route, 1000)
	for i := range routes {
		routes[i] = Route{"app://many/" + strings.Repeat("x", i%7+1) + "/" + strconv.Itoa(i), "T" + strconv.Itoa(i)}
	}
	if routes[503].Pattern != "app://many/xxxxxxx/503" {
		t.Fatalf("route 503 is %q", routes[503].Pattern)
	}
	if err := r.AddMany(routes); err != nil {
		t.Fatal(err)
	}
	if n, _ := r.Count(); n != 1000 {
		t.Errorf("count %d, want 1000", n)
	}
	m, err := r.Resolve("app://many/xxxxxxx/503?q=1")
	if err != nil || m == nil || m.Target != "T503" {
		t.Errorf("%v %v", m, err)
	}
}

func TestLimits(t *testing.T) {
	r := newRouter(t)
	defaults := map[Limit]uint{LimitURLLength: 65536, LimitSegments: 1024, LimitParams: 1024, LimitNesting: 32,
		LimitRegexMatch: 10000, LimitRegexDepth: 1000, LimitRegexStart: 1024, LimitPending: 64, LimitReplyTimeoutMS: 10000}
	for limit, want := range defaults {
		if got, err := r.Limit(limit); got != want || err != nil {
			t.Errorf("limit %d = %d (%v), want %d", limit, got, err, want)
		}
	}
	if err := r.Add("app://user/:id", "User"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLimit(LimitURLLength, 20); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Limit(LimitURLLength); got != 20 {
		t.Errorf("URL length limit %d after setting 20", got)
	}
	if m, err := r.Resolve("app://user/123456789"); err != nil || m == nil {
		t.Errorf("20 bytes: %v %v", m, err)
	}
	if _, err := r.Resolve("app://user/1234567890"); !errors.Is(err, ErrLimit) {
		t.Errorf("21 bytes: %v, want ErrLimit", err)
	}
	misuse := []struct {
		limit Limit
		value uint
	}{{0, 1}, {10, 1}, {-1, 1}, {1 << 40, 1}, {LimitURLLength, 0}}
	for _, row := range misuse {
		if err := r.SetLimit(row.limit, row.value); !errors.Is(err, ErrMisuse) {
			t.Errorf("SetLimit(%d, %d) = %v, want ErrMisuse", row.limit, row.value, err)
		}
	}
	if _, err := r.Limit(99); !errors.Is(err, ErrMisuse) {
		t.Errorf("Limit(99) = %v", err)
	}
}

func TestErrorsCarryCodes(t *testing.T) {
	sentinels := []struct {
		err  *Error
		code Status
		text string
	}{
		{ErrMisuse, -1, "misuse (NULL handle or argument, or an argument out of range)"},
		{ErrInvalid, -2, "invalid URL or text (not an absolute URL, or not UTF-8)"},
		{ErrPattern, -3, "malformed pattern or template"}, {ErrConflict, -4, "conflicting route"},
		{ErrRegex, -5, "invalid regex"}, {ErrLimit, -6, "limit exceeded"}, {ErrNotFound, -7, "not found"},
		{ErrTable, -8, "malformed route table"}, {ErrIO, -9, "I/O error"}, {ErrNoMemory, -10, "out of memory"},
	}
	for _, s := range sentinels {
		if s.err.Code != s.code || s.err.Message != s.text {
			t.Errorf("sentinel %d: %+v", s.code, s.err)
		}
		for _, other := range sentinels {
			if errors.Is(s.err, other.err) != (s.code == other.code) {
				t.Errorf("errors.Is(%d, %d) wrong", s.code, other.code)
			}
		}
	}
	if StatusOK != 0 || StatusNoMatch != 1 || StatusNoMatch.String() != "no match" {
		t.Errorf("outcome codes: %d %d %q", StatusOK, StatusNoMatch, StatusNoMatch.String())
	}
	r := newRouter(t)
	err := r.Add("app://a//b", "T")
	var e *Error
	if !errors.As(err, &e) || e.Offset != 8 || e.Index != -1 || err.Error() != "linkrouter: "+e.Message {
		t.Errorf("%#v", err)
	}
	if Status(1<<40).String() == "" {
		t.Error("an out-of-range status has no text")
	}
}

func TestClosedAndNilRouters(t *testing.T) {
	r, err := NewRouter()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add("app://x", "X"); err != nil {
		t.Fatal(err)
	}
	m, _ := r.Resolve("app://x?k=v")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// A match is a Go value: it outlives its router.
	if m.Target != "X" || m.Params["k"] != "v" {
		t.Errorf("match after Close: %v", m)
	}
	var nilRouter *Router
	for _, router := range []*Router{r, nilRouter} {
		calls := map[string]error{
			"Add":          router.Add("app://y", "Y"),
			"Remove":       router.Remove("app://x"),
			"Clear":        router.Clear(),
			"AddRewrite":   router.AddRewrite("a", "b"),
			"SetLimit":     router.SetLimit(LimitURLLength, 10),
			"AddMany":      router.AddMany([]Route{{"app://z", "Z"}}),
			"ClearRewrite": router.ClearRewrites(),
		}
		_, calls["Resolve"] = router.Resolve("app://x")
		_, calls["CanRoute"] = router.CanRoute("app://x")
		_, calls["Count"] = router.Count()
		_, _, calls["Rewrite"] = router.Rewrite("a")
		_, calls["Limit"] = router.Limit(LimitURLLength)
		calls["LoadJSON"] = router.LoadJSON(`{"version":1}`, true)
		calls["LoadFile"] = router.LoadFile("x.json", false)
		_, calls["CheckJSON"] = router.CheckJSON(`{"version":1}`, true)
		_, calls["CheckFile"] = router.CheckFile("x.json", true)
		_, calls["ToJSON"] = router.ToJSON()
		_, calls["BuildURL"] = router.BuildURL("x")
		_, calls["Explain"] = router.Explain("app://x")
		_, calls["ExplainText"] = router.ExplainText("app://x")
		for name, err := range calls {
			if !errors.Is(err, ErrMisuse) {
				t.Errorf("%s on a closed or nil router: %v, want ErrMisuse", name, err)
			}
		}
	}
	if err := nilRouter.Close(); err != nil {
		t.Errorf("Close of a nil router: %v", err)
	}
	var nilMatch *Match
	if _, ok := nilMatch.Get("x"); ok || nilMatch.String() != "<no match>" {
		t.Error("nil match")
	}
	if _, err := nilMatch.NestedParams(); !errors.Is(err, ErrMisuse) {
		t.Errorf("NestedParams of nil: %v", err)
	}
}

// Routers dropped without Close are freed by their finalizer; the count of finalizers run is what is checked, as
// the library's memory is not visible from Go.
func TestFinalizerFreesUnclosedRouters(t *testing.T) {
	const routers = 200
	runtime.GC() // routers other tests dropped are finalized before counting
	for i := 0; i < routers; i++ {
		r, err := NewRouter()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add("app://user/:id", "User"); err != nil {
			t.Fatal(err)
		}
	}
	before := finalizedRouters.Load()
	for i := 0; i < 20 && finalizedRouters.Load()-before < routers; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := finalizedRouters.Load() - before; n < routers {
		t.Errorf("%d of %d unclosed routers freed after 20 collections", n, routers)
	}
}
