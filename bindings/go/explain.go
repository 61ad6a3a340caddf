package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"encoding/json"
	"fmt"
)

// Explanation is what Explain reports about a URL: lr_router_explain's JSON, decoded. Slow (every route is
// checked): for debugging and tools.
type Explanation struct {
	URL    string        `json:"url"`
	Result string        `json:"result"` // "matched", "nomatch", or "error" (the URL is refused: see Error)
	Error  *ExplainError `json:"error"`  // why Resolve would refuse the URL; nil unless Result is "error"
	// Rewrite is each rewrite rule in order with its outcome, and the one that fired.
	Rewrite  ExplainRewrite `json:"rewrite"`
	Routed   string         `json:"routed"`   // the URL after rewriting
	Sequence []string       `json:"sequence"` // the host and segments matched, decoded
	// Candidates are the routes with the URL's scheme (or "*"), at most 20: the winner first, then routes that
	// match but are outranked, then the others by how far they got, each with its first difference.
	Candidates        []ExplainCandidate `json:"candidates"`
	CandidatesOmitted int                `json:"candidates_omitted"`
	OtherSchemeRoutes int                `json:"other_scheme_routes"`
	Route             *ExplainRoute      `json:"route"`    // the winner; nil when none
	Params            map[string]string  `json:"params"`   // merged (extra > path > query), raw keys; JSON has their order
	Requires          []string           `json:"requires"` // the winner's guards
	// JSON is the library's text, as it wrote it.
	JSON string `json:"-"`
}

// ExplainError is the status and message Resolve would give a refused URL.
type ExplainError struct {
	Code    Status `json:"code"`
	Message string `json:"message"`
}

// ExplainRewrite is what the rewrite rules did: Fired is the index of the rule that fired, nil when none did.
type ExplainRewrite struct {
	Rules []ExplainRule `json:"rules"`
	Fired *int          `json:"fired"`
}

// ExplainRule is one rewrite rule and its outcome: "fired", "no_match", "not_tried", "skipped" (left out by the
// rule index, not run) or "error" (its regex hit a PCRE2 limit); Indexed says whether the rule index picks it for
// this URL.
type ExplainRule struct {
	Index   int    `json:"index"`
	Match   string `json:"match"`
	Target  string `json:"target"`
	Outcome string `json:"outcome"`
	Indexed bool   `json:"indexed"`
}

// ExplainCandidate is one route looked at: whether it matches, and why not ("segment 1 'p' is not 'c'").
type ExplainCandidate struct {
	Pattern         string `json:"pattern"`
	Target          string `json:"target"`
	Name            string `json:"name"` // "" when the route has none
	Matched         bool   `json:"matched"`
	Reason          string `json:"reason"`
	ElementsMatched int    `json:"elements_matched"`
}

// ExplainRoute is the winning route.
type ExplainRoute struct {
	Pattern  string            `json:"pattern"`
	Target   string            `json:"target"`
	Name     string            `json:"name"` // "" when it has none
	Requires []string          `json:"requires"`
	Meta     map[string]string `json:"meta"`
}

// Explain explains what Resolve does with url: the rewrite rules tried, the match sequence, the candidate routes
// and why each did or did not match, the winner and its parameters. A URL Resolve refuses is an Explanation with
// Result "error", not an error; errors are ErrInvalid (not UTF-8, a NUL byte) and ErrMisuse.
func (r *Router) Explain(url string) (*Explanation, error) {
	u, err := cString("url", url)
	if err != nil {
		return nil, err
	}
	defer freeCString(u)
	text, err := r.text(func(h *C.lr_router, out **C.char) C.int { return C.lr_router_explain(h, u, out) })
	if err != nil {
		return nil, err
	}
	explanation := &Explanation{JSON: text}
	if err := json.Unmarshal([]byte(text), explanation); err != nil {
		return nil, fmt.Errorf("linkrouter: decoding the explanation: %w", err)
	}
	return explanation, nil
}

// ExplainText is Explain as text for people, one fact per line ("url", "rewrite", "sequence", "result", the
// candidates, "params", "requires", "meta"), as `linkrouter explain` prints it.
func (r *Router) ExplainText(url string) (string, error) {
	u, err := cString("url", url)
	if err != nil {
		return "", err
	}
	defer freeCString(u)
	return r.text(func(h *C.lr_router, out **C.char) C.int { return C.lr_router_explain_text(h, u, out) })
}
