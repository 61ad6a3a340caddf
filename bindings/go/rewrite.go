package linkrouter

// #include "linkrouter.h"
import "C"

// Rewrite rules (FFRouter's engine, on PCRE2): rewriting runs before matching, once. A rule is a regex and a
// template; the first rule whose regex is found in the URL replaces the whole URL with its expanded template
// (Include/linkrouter.h, "Rewrite rules", lists the template's pieces).

// RewriteRule is a regex and its template, for AddRewrites.
type RewriteRule struct {
	Match  string // a PCRE2 regex (UTF mode)
	Target string // a template: $1, ${name}, $$1 (encoded), $#1 (decoded), $host, $query, ...
}

// AddRewrite adds a rule; a rule with the same regex gets the new template in place (keeping its position).
// ErrRegex (PCRE2's message and offset), ErrPattern (a bad template, with its offset), ErrInvalid.
func (r *Router) AddRewrite(match, target string) error {
	m, err := cString("regex", match)
	if err != nil {
		return err
	}
	defer freeCString(m)
	t, err := cString("template", target)
	if err != nil {
		return err
	}
	defer freeCString(t)
	// lr_router_add_rewrite, not a batch of one: a batch names its element ("rewrite rule 0: ...", Index 0).
	_, err = r.call(func(h *C.lr_router) C.int { return C.lr_router_add_rewrite(h, m, t) })
	return err
}

// AddRewrites adds rules in order, all or none; the error's Index names the refused rule.
func (r *Router) AddRewrites(rules []RewriteRule) error {
	matches := make([]string, len(rules))
	targets := make([]string, len(rules))
	for i, rule := range rules {
		matches[i], targets[i] = rule.Match, rule.Target
	}
	return r.addPairs(matches, targets, indexed("rewrite rule", "regex"), indexed("rewrite rule", "template"),
		func(h *C.lr_router, m, t **C.char, n C.size_t, failed *C.size_t) C.int {
			return C.lr_router_add_rewrites(h, m, t, n, failed)
		})
}

// RemoveRewrite removes the rule whose regex is exactly match: ErrNotFound when there is none.
func (r *Router) RemoveRewrite(match string) error {
	m, err := cString("regex", match)
	if err != nil {
		return err
	}
	defer freeCString(m)
	_, err = r.call(func(h *C.lr_router) C.int { return C.lr_router_remove_rewrite(h, m) })
	return err
}

// ClearRewrites removes every rewrite rule.
func (r *Router) ClearRewrites() error {
	_, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_clear_rewrites(h) })
	return err
}

// Rewrite applies the rules to url: (rewritten, true, nil) when a rule fired, (url, false, nil) when none
// matches. url need not be absolute: rules may turn "www.example.com/x" into an app URL.
func (r *Router) Rewrite(url string) (string, bool, error) {
	u, err := cString("url", url)
	if err != nil {
		return "", false, err
	}
	defer freeCString(u)
	var out string
	rc, err := r.call(func(h *C.lr_router) C.int {
		var text *C.char
		rc := C.lr_router_rewrite(h, u, &text)
		if rc == C.LR_OK {
			out = takeString(text)
		}
		return rc
	})
	if err != nil {
		return "", false, err
	}
	if rc == int(StatusNoMatch) {
		return url, false, nil
	}
	return out, true, nil
}
