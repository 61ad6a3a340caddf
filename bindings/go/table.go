package linkrouter

// #include "linkrouter.h"
import "C"

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unsafe"
)

// Route tables (docs/TABLES.md): a router's whole table -- routes with their names, guards and meta, and the
// rewrite rules -- as one JSON document, loaded, checked and exported by the library alike in every language;
// URLs built from route names.
//
//	{"version": 1,
//	 "routes":   [{"pattern": "shop://product/:id", "target": "ProductScreen", "name": "product",
//	               "requires": ["login"], "meta": {"transition": "push"}}],
//	 "rewrites": [{"match": "^https://shop\\.example\\.com/p/(\\d+)", "target": "shop://product/$1"}]}

// TableProblem is one problem of a route table document: where it is and why it is refused.
type TableProblem struct {
	// Pointer is a JSON pointer (RFC 6901) to the value at fault, "/routes/3/pattern"; "" for the document.
	Pointer string `json:"pointer"`
	// Code is the status the problem alone would give: StatusPattern, StatusConflict, StatusRegex, StatusLimit or
	// StatusTable.
	Code Status `json:"code"`
	// Reason is the library's words: "malformed pattern 'shop://a//b' at byte 9: empty segment ('//' in a pattern)".
	Reason string `json:"reason"`
}

// String is "pointer: reason", as the check report gives both. The library's message writes it on one line, its
// control characters escaped (\n, \r, \t, \u001B), as Problems' lines.
func (p TableProblem) String() string {
	if p.Pointer == "" {
		return p.Reason
	}
	return p.Pointer + ": " + p.Reason
}

// TableWarning is something a valid table probably has wrong: Kind "shadowed" (a route that can never be the
// match), "overlap" (two routes that both match some URL, the winner decided by precedence) or
// "rewrite_routes_nowhere" (a rule whose target no route can match).
type TableWarning struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	Reason  string `json:"reason"`
}

// TableReport is what CheckJSON and CheckFile find: the problems that would make the load fail (Valid is false
// when there is any) and, for a valid document, warnings. JSON is the library's report as it wrote it.
type TableReport struct {
	Valid    bool           `json:"valid"`
	Problems []TableProblem `json:"problems"`
	Warnings []TableWarning `json:"warnings"`
	JSON     string         `json:"-"`
}

// loadFlags is LR_LOAD_REPLACE or LR_LOAD_MERGE.
func loadFlags(replace bool) C.int {
	if replace {
		return C.LR_LOAD_REPLACE
	}
	return C.LR_LOAD_MERGE
}

// textBytes lends the bytes of s to a (pointer, length) argument without a copy: the library reads them during
// the call only, and a NUL byte in s is the library's to refuse (LR_EINVAL names its offset). The caller keeps s
// alive across the call (it is its argument).
func textBytes(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	header := (*reflect.StringHeader)(unsafe.Pointer(&s))
	return (*C.char)(unsafe.Pointer(header.Data)), C.size_t(len(s))
}

// NewRouterFromJSON creates a router holding the route table document text. A document with problems is an
// *Error with Code StatusTable and every problem in Problems.
func NewRouterFromJSON(text string) (*Router, error) {
	return newLoadedRouter(func(r *Router) error { return r.LoadJSON(text, true) })
}

// NewRouterFromFile creates a router holding the route table file at path: StatusTable as NewRouterFromJSON, and
// ErrIO (with the OS's reason) when the file cannot be read.
func NewRouterFromFile(path string) (*Router, error) {
	return newLoadedRouter(func(r *Router) error { return r.LoadFile(path, true) })
}

func newLoadedRouter(load func(*Router) error) (*Router, error) {
	r, err := NewRouter()
	if err != nil {
		return nil, err
	}
	if err := load(r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// LoadJSON loads the route table document text into the router, all or nothing: with replace, its routes and
// rules replace the router's; without, they are added (merge: a conflict with an existing route is a problem, a
// rule whose regex exists gets the new target in place). Limits stay. A document with problems changes nothing and
// gives an *Error with Code StatusTable, Problems listing each (pointer, code, reason); ErrInvalid for text that
// is not UTF-8 or holds a NUL byte, ErrLimit over 256 MiB. A resolve on another goroutine sees the old table or
// the new one, whole.
func (r *Router) LoadJSON(text string, replace bool) error {
	p, n := textBytes(text)
	_, err := r.call(func(h *C.lr_router) C.int { return C.lr_router_load_json(h, p, n, loadFlags(replace)) })
	return r.withProblems(err, func() (*TableReport, error) { return r.CheckJSON(text, replace) })
}

// LoadFile is LoadJSON with the content of the file at path; also ErrIO when it cannot be read, and StatusTable
// (not ErrInvalid) when its content is not UTF-8.
func (r *Router) LoadFile(path string, replace bool) error {
	cPath, err := cString("path", path)
	if err != nil {
		return err
	}
	defer freeCString(cPath)
	_, err = r.call(func(h *C.lr_router) C.int { return C.lr_router_load_file(h, cPath, loadFlags(replace)) })
	return r.withProblems(err, func() (*TableReport, error) { return r.CheckFile(path, replace) })
}

// withProblems fills the Problems of a StatusTable error from a load. The message lists the problems one per line
// and is what the load found; the structured problems (exact pointers, each one's code, reasons as they are) come
// from checking the same document again, which lists them in the same order and form: a line is the problem's
// String with its control characters escaped (oneLine). A line the check does not give alike (the file or the
// router changed in between, or the line that says how many more problems there were) is read from the text:
// "pointer: reason", code StatusTable.
func (r *Router) withProblems(err error, check func() (*TableReport, error)) error {
	e, ok := err.(*Error)
	if !ok || e.Code != StatusTable {
		return err
	}
	lines := strings.Split(e.Message, "\n")
	var checked []TableProblem
	if report, checkErr := check(); checkErr == nil && report != nil {
		checked = report.Problems
	}
	e.Problems = make([]TableProblem, len(lines))
	for i, line := range lines {
		if i < len(checked) && oneLine(checked[i].String()) == line {
			e.Problems[i] = checked[i]
		} else {
			e.Problems[i] = problemFromLine(line)
		}
	}
	return e
}

// oneLine is text as the library's table error writes a problem's line (TableProblem.oneLine in the core): when it
// holds a control character (below 0x20, or 0x7F), each is escaped, \n \r \t or \u00XX in upper-case hex; nothing
// else is (a backslash stays as it is). Found by the Go/Java review: compared raw, a pattern or regex holding a
// newline or tab paired no line, and its problem came back with code StatusTable instead of StatusPattern or
// StatusRegex.
func oneLine(text string) string {
	if strings.IndexFunc(text, func(c rune) bool { return c < 0x20 || c == 0x7F }) < 0 {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7F:
			fmt.Fprintf(&b, `\u%04X`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// problemFromLine reads "pointer: reason" (a pointer starts with "/"), or a reason about the whole document.
func problemFromLine(line string) TableProblem {
	if strings.HasPrefix(line, "/") {
		if i := strings.Index(line, ": "); i >= 0 {
			return TableProblem{Pointer: line[:i], Code: StatusTable, Reason: line[i+2:]}
		}
	}
	return TableProblem{Code: StatusTable, Reason: line}
}

// CheckJSON judges the document text as LoadJSON(text, replace) would load it into this router, changing
// nothing: a report whose Valid says whether it would load. An invalid document is a report, not an error;
// errors are ErrInvalid, ErrLimit (as LoadJSON) and ErrMisuse.
func (r *Router) CheckJSON(text string, replace bool) (*TableReport, error) {
	p, n := textBytes(text)
	return r.check(func(h *C.lr_router, out **C.char) C.int {
		return C.lr_router_check_json(h, p, n, loadFlags(replace), out)
	})
}

// CheckFile is CheckJSON on the file at path; ErrIO when it cannot be read.
func (r *Router) CheckFile(path string, replace bool) (*TableReport, error) {
	cPath, err := cString("path", path)
	if err != nil {
		return nil, err
	}
	defer freeCString(cPath)
	return r.check(func(h *C.lr_router, out **C.char) C.int {
		return C.lr_router_check_file(h, cPath, loadFlags(replace), out)
	})
}

// check runs a check function; its report comes with LR_OK and with LR_ETABLE alike.
func (r *Router) check(run func(h *C.lr_router, out **C.char) C.int) (*TableReport, error) {
	var text string
	var written bool
	_, err := r.call(func(h *C.lr_router) C.int {
		var out *C.char
		rc := run(h, &out)
		if out != nil {
			text, written = takeString(out), true
		}
		return rc
	})
	if e, ok := err.(*Error); ok && e.Code == StatusTable && written {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	if !written {
		return nil, &Error{Code: StatusMisuse, Index: -1, Offset: -1, Message: "the library wrote no check report"}
	}
	report := &TableReport{JSON: text}
	if err := json.Unmarshal([]byte(text), report); err != nil {
		return nil, fmt.Errorf("linkrouter: decoding the check report: %w", err)
	}
	return report, nil
}

// text runs a function that writes a string for the caller and takes it.
func (r *Router) text(run func(h *C.lr_router, out **C.char) C.int) (string, error) {
	var text string
	_, err := r.call(func(h *C.lr_router) C.int {
		var out *C.char
		rc := run(h, &out)
		if out != nil {
			text = takeString(out)
		}
		return rc
	})
	if err != nil {
		return "", err
	}
	return text, nil
}

// ToJSON is the router's table as a document: routes in the order added, then the rewrite rules; keys in a
// fixed order, meta keys sorted, two-space indentation, a final newline. Loading it gives the same table, and
// exporting that gives the same bytes.
func (r *Router) ToJSON() (string, error) {
	return r.text(func(h *C.lr_router, out **C.char) C.int { return C.lr_router_to_json(h, out) })
}

// BuildURL builds the URL of the route called name (reverse routing). Each param names one of the pattern's
// parameters (":id" is "id", "*path" is "path") or, when it starts with "?", a query parameter ("?tab" appends
// tab=..., in the order given). Values are percent-encoded for their place, so the URL resolves back to the same
// route and values. ErrNotFound when no route has that name; ErrInvalid for a missing, unknown, repeated or empty
// parameter, a value that does not fit its type, an optional group given in part, or groups that would build a
// URL resolving to other values (the message says which; lr_router_build_url in the header lists every case);
// ErrLimit past the URL length limit.
func (r *Router) BuildURL(name string, params ...Param) (string, error) {
	cName, err := cString("name", name)
	if err != nil {
		return "", err
	}
	defer freeCString(cName)
	names := make([]string, len(params))
	values := make([]string, len(params))
	for i, p := range params {
		names[i], values[i] = p.Name, p.Value
	}
	cNames, err := cStrings(names, indexed("parameter", "name"))
	if err != nil {
		return "", err
	}
	defer freeCStrings(cNames)
	cValues, err := cStrings(values, indexed("parameter", "value"))
	if err != nil {
		return "", err
	}
	defer freeCStrings(cValues)
	return r.text(func(h *C.lr_router, out **C.char) C.int {
		return C.lr_router_build_url(h, cName, firstOf(cNames), firstOf(cValues), C.size_t(len(params)), out)
	})
}
