package linkrouter

import (
	"errors"
	"strings"
	"testing"
)

var (
	amazon = RewriteRule{"(?:https://)?www.amazon.com/search/(.*)", "protocol://page/routerDetails?product=$1"}
	taobao = RewriteRule{"(?:https://)?www.taobao.com/search/(.*)", "protocol://page/routerDetails?product=$$1"}
	jd     = RewriteRule{"(?:https://)?www.jd.com/search/(.*)", "protocol://page/routerDetails?product=$#1"}
	baidu  = RewriteRule{`(?:https://)?www.baidu.com/wd/(\d+)`, "protocol://page/routerDetails?id=$1"}
)

// FFRouter's rewrite examples and the engine's rules (SPEC section 5), as in the Python suite.
func TestRewriteTable(t *testing.T) {
	all := []RewriteRule{amazon, taobao, jd, baidu}
	rows := []struct {
		name  string
		rules []RewriteRule
		url   string
		want  string // "" with ok false: no rule matches
		ok    bool
	}{
		{"amazon", []RewriteRule{amazon}, "https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb", true},
		{"amazon without scheme", []RewriteRule{amazon}, "www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb", true},
		{"taobao $$1", []RewriteRule{taobao}, "https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9", true},
		{"jd $#1", []RewriteRule{jd}, "https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹", true},
		{"baidu digits", []RewriteRule{baidu}, "https://www.baidu.com/wd/66666", "protocol://page/routerDetails?id=66666", true},
		{"baidu no digits", []RewriteRule{baidu}, "https://www.baidu.com/wd/abc", "", false},
		{"demo set: none", all, "https://www.example.com/search/x", "", false},
		{"${name}", []RewriteRule{{`/u/(?<id>\d+)`, "app://user/${id}"}}, "https://x.com/u/42", "app://user/42", true},
		{"$host", []RewriteRule{{"x", "$host"}}, "https://user:pw@Example.COM:8080/x?q#f", "Example.COM", true},
		{"$$query", []RewriteRule{{"x", "app://?u=$$query"}}, "https://h/x?a=1&b=2", "app://?u=a%3D1%26b%3D2", true},
		{`\$ is a dollar`, []RewriteRule{{"(x)", `\$1=$1`}}, "x", "$1=x", true},
		{"first in order wins", []RewriteRule{{"a", "first"}, {"ab", "second"}}, "xab", "first", true},
		{"same match replaces target", []RewriteRule{{"a", "one"}, {"b", "two"}, {"a", "three"}}, "b a", "three", true},
		{"anchored regex", []RewriteRule{{"^b", "hit"}}, "ab", "", false},
		{"empty target", []RewriteRule{{"x", ""}}, "x", "", true},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			together, oneByOne := newRouter(t), newRouter(t)
			if err := together.AddRewrites(row.rules); err != nil {
				t.Fatal(err)
			}
			for _, rule := range row.rules {
				if err := oneByOne.AddRewrite(rule.Match, rule.Target); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range []*Router{together, oneByOne} {
				got, ok, err := r.Rewrite(row.url)
				want := row.want
				if !row.ok {
					want = row.url // no rule: the URL as it is
				}
				if got != want || ok != row.ok || err != nil {
					t.Errorf("Rewrite = %q, %v, %v; want %q, %v", got, ok, err, want, row.ok)
				}
			}
		})
	}
}

func TestResolveRewritesFirst(t *testing.T) {
	r := newRouter(t)
	if err := r.Add("protocol://page/routerDetails", "Details"); err != nil {
		t.Fatal(err)
	}
	if err := r.AddRewrites([]RewriteRule{amazon, taobao, jd}); err != nil {
		t.Fatal(err)
	}
	rows := []struct{ url, rewritten, product string }{
		{"https://www.amazon.com/search/Atomic_bomb", "protocol://page/routerDetails?product=Atomic_bomb",
			"Atomic_bomb"},
		{"https://www.taobao.com/search/原子弹", "protocol://page/routerDetails?product=%E5%8E%9F%E5%AD%90%E5%BC%B9",
			"原子弹"},
		{"https://www.jd.com/search/%E5%8E%9F%E5%AD%90%E5%BC%B9", "protocol://page/routerDetails?product=原子弹", "原子弹"},
	}
	for _, row := range rows {
		m, err := r.Resolve(row.url)
		if err != nil || m == nil {
			t.Fatalf("%s: %v %v", row.url, m, err)
		}
		if m.URL != row.url || m.Rewritten != row.rewritten || m.Params["product"] != row.product ||
			m.Target != "Details" || m.Host != "page" || m.Scheme != "protocol" {
			t.Errorf("%s: %+v", row.url, m)
		}
		if ok, err := r.CanRoute(row.url); !ok || err != nil {
			t.Errorf("CanRoute(%s) = %v, %v", row.url, ok, err)
		}
	}
	if m, err := r.Resolve("https://www.example.com/"); m != nil || err != nil {
		t.Errorf("unrouted: %v %v", m, err)
	}
}

func TestRewriteRemoveAndClear(t *testing.T) {
	r := newRouter(t)
	if err := r.AddRewrites([]RewriteRule{{"a", "1"}, {"b", "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveRewrite("a"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.Rewrite("ab"); got != "2" {
		t.Errorf("after removing a: %q", got)
	}
	if err := r.RemoveRewrite("a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removing a twice: %v", err)
	}
	if err := r.ClearRewrites(); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := r.Rewrite("ab"); got != "ab" || ok || err != nil {
		t.Errorf("after clearing: %q %v %v", got, ok, err)
	}
}

func TestRewriteErrors(t *testing.T) {
	rows := []struct {
		rules  []RewriteRule
		err    error
		index  int // -1: a single AddRewrite
		offset int
		text   string // the whole message: a single AddRewrite's names no rule (it is the regex's or template's own)
	}{
		{[]RewriteRule{{"(abc", "x"}}, ErrRegex, -1, 4,
			"invalid rewrite regex '(abc' at byte 4: missing closing parenthesis (PCRE2 error 114)"},
		{[]RewriteRule{{"*a", "x"}}, ErrRegex, -1, 0,
			"invalid rewrite regex '*a' at byte 0: quantifier does not follow a repeatable item (PCRE2 error 109)"},
		{[]RewriteRule{{"[z-a]", "x"}}, ErrRegex, -1, 3,
			"invalid rewrite regex '[z-a]' at byte 3: range out of order in character class (PCRE2 error 108)"},
		{[]RewriteRule{{"(x)", "app://$hots"}}, ErrPattern, -1, 6,
			"malformed rewrite target 'app://$hots' at byte 6: unknown word '$hots' (expected a group number, ${name}, " +
				"$scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a literal dollar)"},
		{[]RewriteRule{{"(x)", "$1$2"}}, ErrPattern, -1, 2,
			"malformed rewrite target '$1$2' at byte 2: group 2 does not exist: the regex has 1 capture group"},
		{[]RewriteRule{{"(?<id>x)", "app://${ID}"}}, ErrPattern, -1, 6,
			"malformed rewrite target 'app://${ID}' at byte 6: the regex has no group named 'ID'"},
		{[]RewriteRule{{"x", "X"}, {"y", "Y"}, {"(", "bad"}}, ErrRegex, 2, -2,
			"rewrite rule 2: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)"},
		{[]RewriteRule{{"x", "X"}, {"(?<n>y)", "${m}"}, {"z", "Z"}}, ErrPattern, 1, -2,
			"rewrite rule 1: malformed rewrite target '${m}' at byte 0: the regex has no group named 'm'"},
		{[]RewriteRule{{"x", "X"}, {"\xed\xa0\x80", "Y"}}, ErrInvalid, 1, -2,
			"rewrite rule 1: lr_router_add_rewrites: matches[1] is not valid UTF-8"},
		{[]RewriteRule{{"x", "X"}, {"y", "Y\x00"}}, ErrInvalid, 1, -2,
			"rewrite rule 1: template contains a NUL byte at byte 1"},
		// A batch of one is a batch: its element is named and indexed (the library did not before 35c3e1d).
		{[]RewriteRule{{"(", "x"}}, ErrRegex, 0, 1,
			"rewrite rule 0: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)"},
		{[]RewriteRule{{"(x)", "$2"}}, ErrPattern, 0, 0,
			"rewrite rule 0: malformed rewrite target '$2' at byte 0: group 2 does not exist: the regex has 1 capture group"},
	}
	for _, row := range rows {
		r := newRouter(t)
		var err error
		if row.index < 0 {
			err = r.AddRewrite(row.rules[0].Match, row.rules[0].Target)
		} else {
			err = r.AddRewrites(row.rules)
		}
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, row.err) || e.Message != row.text ||
			e.Index != row.index || (row.offset != -2 && e.Offset != row.offset) {
			t.Errorf("%v: %#v; want %v, index %d, offset %d, %q", row.rules, err, row.err, row.index, row.offset, row.text)
		}
		if got, ok, _ := r.Rewrite("x"); ok {
			t.Errorf("%v: a refused batch left a rule: %q", row.rules, got)
		}
	}
}

// A catastrophic regex ends in ErrLimit, never a hang; the limits are the router's own.
func TestRewriteRegexLimits(t *testing.T) {
	r := newRouter(t)
	if err := r.AddRewrite("(a+)+$", "app://x"); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("app://x", "X"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a", 5000) + "b"
	if _, _, err := r.Rewrite(long); !errors.Is(err, ErrLimit) {
		t.Errorf("Rewrite: %v, want ErrLimit", err)
	}
	if _, err := r.Resolve(long); !errors.Is(err, ErrLimit) {
		t.Errorf("Resolve: %v, want ErrLimit", err)
	}
	if _, err := r.CanRoute(long); !errors.Is(err, ErrLimit) {
		t.Errorf("CanRoute: %v, want ErrLimit", err)
	}
	if m, err := r.Resolve("aaa"); err != nil || m == nil || m.Target != "X" {
		t.Errorf("aaa: %v %v", m, err)
	}

	small := newRouter(t)
	if err := small.AddRewrite("^(a+)+$", "hit"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		matchLimit uint
		err        error
	}{{10000, nil}, {5, ErrLimit}, {10000, nil}}
	for _, step := range steps {
		if err := small.SetLimit(LimitRegexMatch, step.matchLimit); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := small.Rewrite("aaaaaaaaab"); !errors.Is(err, step.err) || (err == nil && (ok || got != "aaaaaaaaab")) {
			t.Errorf("match limit %d: %q %v %v, want %v", step.matchLimit, got, ok, err, step.err)
		}
	}
}
