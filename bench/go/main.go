// peers-bench (Go): julienschmidt/httprouter and go-chi/chi on the LinkRouter datasets, one JSON line per
// (router, dataset) on stdout; see bench/README.md and harness.go.
//
//	peers_bench -router httprouter|chi
//
// Built by bench/runners/go-peers.sh from Debian's packages in GOPATH mode (GO111MODULE=off,
// GOPATH=/usr/share/gocode), no network. Exit status 1 if a router answered wrong (that table is not timed).
//
// Every router gets the URL without its scheme, host first, as a path (gh://get/repos/octocat/Hello-World ->
// /get/repos/octocat/Hello-World), prepared before timing, and the pattern converted the same way:
//
//	httprouter  /get/repos/:owner/:repo    Handle("GET", path, h); per lookup Lookup("GET", path) ->
//	                                       (Handle, Params, tsr), the handle called (it records its route) and
//	                                       every Param's Value read
//	chi         /get/repos/{owner}/{repo}  Mux.Get(path, h); per lookup rctx.Reset() + Mux.Match(rctx, "GET",
//	                                       path) on one chi.Context (chi's own BenchmarkTreeGet resets one
//	                                       context and calls the tree's FindRoute, which Match calls), the
//	                                       route read as its pattern (rctx.RoutePatterns) and every value of
//	                                       rctx.URLParams read
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"regexp"

	"github.com/go-chi/chi" // module github.com/go-chi/chi/v5, Debian's copy in GOPATH mode
	"github.com/julienschmidt/httprouter"
)

// Set with -ldflags "-X main.httprouterVersion=... -X main.chiVersion=..." from the Debian packages.
var (
	httprouterVersion = "?"
	chiVersion        = "?"
)

var colonParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// A router under test: verification lookup and timed pass for one dataset.
type builder func(ds *Dataset) (lookup func(i int) (Lookup, bool), pass PassFunc, extra []field, err error)

// reached is where an httprouter handle records which route it belongs to when called.
var reached int

func buildHTTPRouter(ds *Dataset) (lookup func(i int) (Lookup, bool), pass PassFunc, extra []field, err error) {
	defer func() {
		if p := recover(); p != nil { // httprouter panics on a route it cannot take
			err = fmt.Errorf("httprouter.Handle panicked: %v", p)
		}
	}()
	router := httprouter.New()
	for i, r := range ds.Rows {
		idx := i
		router.Handle(http.MethodGet, "/"+r.PatternPath, func(http.ResponseWriter, *http.Request, httprouter.Params) {
			reached = idx
		})
	}
	paths := make([]string, len(ds.Rows))
	for i, r := range ds.Rows {
		paths[i] = r.URLPath
	}
	lookup = func(i int) (Lookup, bool) {
		h, ps, _ := router.Lookup(http.MethodGet, paths[i])
		if h == nil {
			return Lookup{}, false
		}
		reached = -1
		h(nil, nil, ps)
		got := Lookup{Row: reached}
		for _, p := range ps {
			got.Names = append(got.Names, p.Key)
			got.Values = append(got.Values, p.Value)
		}
		return got, true
	}
	pass = func(order []int, n int) uint64 {
		var acc uint64
		for _, i := range order[:n] {
			h, ps, _ := router.Lookup(http.MethodGet, paths[i])
			if h == nil {
				continue
			}
			h(nil, nil, ps)
			acc += uint64(reached)
			for _, p := range ps {
				acc += uint64(len(p.Value))
				if len(p.Value) > 0 {
					acc += uint64(p.Value[0])
				}
			}
		}
		return acc
	}
	extra = []field{{"version", httprouterVersion},
		{"note", "Router.Lookup(\"GET\", path) + the returned handle called + every Params value read"}}
	return lookup, pass, extra, nil
}

func buildChi(ds *Dataset) (lookup func(i int) (Lookup, bool), pass PassFunc, extra []field, err error) {
	defer func() {
		if p := recover(); p != nil { // chi panics on a pattern it cannot take
			err = fmt.Errorf("chi Mux.Get panicked: %v", p)
		}
	}()
	mux := chi.NewRouter()
	routeOf := make(map[string]int, len(ds.Rows))
	noop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	for i, r := range ds.Rows {
		pattern := "/" + colonParam.ReplaceAllString(r.PatternPath, "{$1}")
		mux.Get(pattern, noop)
		routeOf[pattern] = i
	}
	paths := make([]string, len(ds.Rows))
	for i, r := range ds.Rows {
		paths[i] = r.URLPath
	}
	rctx := chi.NewRouteContext()
	lookup = func(i int) (Lookup, bool) {
		rctx.Reset()
		if !mux.Match(rctx, http.MethodGet, paths[i]) || len(rctx.RoutePatterns) == 0 {
			return Lookup{}, false
		}
		row, ok := routeOf[rctx.RoutePatterns[len(rctx.RoutePatterns)-1]]
		if !ok {
			row = -1
		}
		got := Lookup{Row: row}
		got.Names = append(got.Names, rctx.URLParams.Keys...)
		got.Values = append(got.Values, rctx.URLParams.Values...)
		return got, true
	}
	pass = func(order []int, n int) uint64 {
		var acc uint64
		for _, i := range order[:n] {
			rctx.Reset()
			if !mux.Match(rctx, http.MethodGet, paths[i]) {
				continue
			}
			acc += uint64(len(rctx.RoutePatterns[len(rctx.RoutePatterns)-1]))
			for _, v := range rctx.URLParams.Values {
				acc += uint64(len(v))
				if len(v) > 0 {
					acc += uint64(v[0])
				}
			}
		}
		return acc
	}
	extra = []field{{"version", chiVersion},
		{"note", "rctx.Reset() + Mux.Match(rctx, \"GET\", path) on one chi.Context (as chi's BenchmarkTreeGet) + " +
			"the route's pattern and every URLParams value read"}}
	return lookup, pass, extra, nil
}

var builders = map[string]builder{"httprouter": buildHTTPRouter, "chi": buildChi}

func main() {
	name := flag.String("router", "", "httprouter or chi")
	flag.Parse()
	build, ok := builders[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "usage: peers_bench -router httprouter|chi\n")
		os.Exit(2)
	}
	failures := 0
	for _, dsName := range datasetNames() {
		ds, err := loadDataset(dsName)
		if err != nil {
			errorRow(*name, dsName, 0, false, "dataset could not be read: "+err.Error())
			failures++
			continue
		}
		t0 := wallNs()
		lookup, pass, extra, err := build(ds)
		buildMs := float64(wallNs()-t0) / 1e6
		if err != nil {
			errorRow(*name, ds.Name, len(ds.Rows), false, err.Error())
			continue
		}
		if msg := verify(ds, lookup); msg != "" {
			logf("%s %s: VERIFICATION FAILED: %s", *name, ds.Name, msg)
			var version []field
			for _, f := range extra {
				if f.key == "version" {
					version = append(version, f)
				}
			}
			errorRow(*name, ds.Name, len(ds.Rows), true, msg, version...)
			failures++
			continue
		}
		timeRouter(*name, ds, pass, append(extra, field{"build_ms", round1(buildMs)})...)
	}
	if sink == 42 {
		logf("sink")
	}
	if failures > 0 {
		os.Exit(1)
	}
}
