package linkrouter

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
)

// The header's promise, from Go: goroutines resolve while another adds and removes routes and rules, and every
// answer is right for the table before or after each change. Work is bounded by counts, not by time.

const (
	stableRoutes = 100
	readers      = 4
	readsEach    = 3000
	churnRounds  = 60
)

func stableRouter(t *testing.T) *Router {
	t.Helper()
	r := newRouter(t)
	routes := make([]Route, stableRoutes)
	for i := range routes {
		routes[i] = Route{fmt.Sprintf("app://stable/%d/:id", i), "S" + strconv.Itoa(i)}
	}
	if err := r.AddMany(routes); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("app://nested/:id", "N"); err != nil {
		t.Fatal(err)
	}
	return r
}

// collect runs fns at once and returns the first error each reported.
func collect(fns ...func() error) []error {
	var wg sync.WaitGroup
	errs := make([]error, len(fns))
	for i, fn := range fns {
		wg.Add(1)
		go func(i int, fn func() error) {
			defer wg.Done()
			errs[i] = fn()
		}(i, fn)
	}
	wg.Wait()
	return errs
}

func reader(r *Router, seed int) func() error {
	return func() error {
		for n := 0; n < readsEach; n++ {
			i := (n*7 + seed*13) % stableRoutes
			m, err := r.ResolveWith(fmt.Sprintf("app://stable/%d/%d?x=%d", i, n, seed), Param{"t", strconv.Itoa(seed)})
			if err != nil || m == nil || m.Target != "S"+strconv.Itoa(i) || m.Params["id"] != strconv.Itoa(n) ||
				m.Params["t"] != strconv.Itoa(seed) || m.Params["x"] != strconv.Itoa(seed) {
				return fmt.Errorf("stable %d/%d: %v %v", i, n, m, err)
			}
			c := n % 50
			m, err = r.Resolve(fmt.Sprintf("app://churn/%d/%d", c, n))
			if err != nil || (m != nil && (m.Target != "C"+strconv.Itoa(c) || len(m.Params) != 1 || m.Params["id"] != strconv.Itoa(n))) {
				return fmt.Errorf("churn %d: %v %v", c, m, err)
			}
			// A rule that comes and goes: the URL is rewritten to a stable route, or not routed at all.
			m, err = r.Resolve(fmt.Sprintf("moved://%d", n))
			if err != nil || (m != nil && (m.Target != "N" || m.Rewritten != fmt.Sprintf("app://nested/%d", n))) {
				return fmt.Errorf("moved %d: %v %v", n, m, err)
			}
			m, err = r.Resolve(fmt.Sprintf("app://nested/1?a[b]=%d&a[c][]=x", n))
			if err != nil || m == nil {
				return fmt.Errorf("nested: %v %v", m, err)
			}
			if _, err := m.NestedParams(); err != nil {
				return err
			}
			if ok, err := r.CanRoute(fmt.Sprintf("app://stable/%d/x", i)); !ok || err != nil {
				return fmt.Errorf("can route %d: %v %v", i, ok, err)
			}
			// Errors are per call: a failing call on one goroutine never gives its message to another.
			want := fmt.Sprintf(`linkrouter: 'nourl-%d-%d' is not an absolute URL: it needs a scheme, as in 'app://...'`, seed, n)
			if _, err := r.Resolve(fmt.Sprintf("nourl-%d-%d", seed, n)); !errors.Is(err, ErrInvalid) || err.Error() != want {
				return fmt.Errorf("error of another call: %v", err)
			}
		}
		return nil
	}
}

func writer(r *Router) func() error {
	return func() error {
		for round := 0; round < churnRounds; round++ {
			for c := 0; c < 50; c++ {
				if err := r.Add(fmt.Sprintf("app://churn/%d/:id", c), "C"+strconv.Itoa(c)); err != nil {
					return err
				}
			}
			batch := make([]Route, 20)
			for k := range batch {
				batch[k] = Route{fmt.Sprintf("app://batch/%d/%d", round, k), "B"}
			}
			if err := r.AddMany(batch); err != nil {
				return err
			}
			if err := r.AddRewrite(`^moved://(\d+)$`, "app://nested/$1"); err != nil {
				return err
			}
			// A refused change in the middle of the churn leaves everything as it was.
			if err := r.Add("app://stable/0/:other", "dup"); !errors.Is(err, ErrConflict) {
				return fmt.Errorf("conflict: %v", err)
			}
			for c := 0; c < 50; c++ {
				if err := r.Remove(fmt.Sprintf("app://churn/%d/:id", c)); err != nil {
					return err
				}
			}
			if err := r.RemoveRewrite(`^moved://(\d+)$`); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestResolvesDuringAddsAndRemoves(t *testing.T) {
	r := stableRouter(t)
	fns := []func() error{writer(r)}
	for seed := 0; seed < readers; seed++ {
		fns = append(fns, reader(r, seed))
	}
	for i, err := range collect(fns...) {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if n, err := r.Count(); n != stableRoutes+1+20*churnRounds || err != nil {
		t.Errorf("count %d, %v", n, err)
	}
}

// Close while other goroutines are calling: each call either runs on the open router or gets ErrMisuse, and
// Close waits for the calls in flight; nothing crashes.
func TestCloseDuringCalls(t *testing.T) {
	for round := 0; round < 20; round++ {
		r := stableRouter(t)
		var started sync.WaitGroup
		started.Add(readers)
		fns := []func() error{}
		for seed := 0; seed < readers; seed++ {
			seed := seed
			fns = append(fns, func() error {
				started.Done()
				for n := 0; n < 500; n++ {
					m, err := r.Resolve(fmt.Sprintf("app://stable/%d/%d", seed, n))
					switch {
					case errors.Is(err, ErrMisuse):
						return nil // closed: every later call says so too
					case err != nil || m == nil || m.Target != "S"+strconv.Itoa(seed):
						return fmt.Errorf("%v %v", m, err)
					}
				}
				return nil
			})
		}
		fns = append(fns, func() error {
			started.Wait()
			return r.Close()
		})
		for i, err := range collect(fns...) {
			if err != nil {
				t.Fatalf("round %d, goroutine %d: %v", round, i, err)
			}
		}
		if _, err := r.Resolve("app://stable/0/1"); !errors.Is(err, ErrMisuse) {
			t.Fatalf("after Close: %v", err)
		}
	}
}
