package linkrouter

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"linkrouter/internal/cheap"
)

// The binding frees what it allocates: C strings for arguments, matches (at once when their JSON is made, else by
// their finalizer), strings the library returns (exports, reports, URLs, explanations), routers. The C heap in use
// (glibc's mallinfo2) may not grow with the number of calls. A leak of one argument string per call would grow it
// by over 100 KiB here; the bound leaves room for the library's caches, which do not grow with the count.
func TestNoNativeMemoryGrowth(t *testing.T) {
	const rounds = 5000
	const bound = 96 << 10
	r := newRouter(t)
	shop := shopRouter(t)
	if err := r.AddRewrite(`^old://(.*)$`, "app://$1"); err != nil {
		t.Fatal(err)
	}
	work := func(n int) {
		if err := r.AddRoute(fmt.Sprintf("app://leak/%d/:id", n%10), "L", "name", "{}"); err != nil {
			t.Fatal(err)
		}
		m, err := r.ResolveWith(fmt.Sprintf("old://leak/%d/%d?a[b]=1&q=%d#f", n%10, n, n), Param{"e", "x"})
		if err != nil || m == nil {
			t.Fatalf("%v %v", m, err)
		}
		if _, _, err := r.Rewrite("old://x"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Resolve("not a url"); !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		if err := r.Add("app://a\x00", "T"); !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
		if err := r.AddMany([]Route{{"app://ok", "T"}, {"app://bad//x", "T"}}); !errors.Is(err, ErrPattern) {
			t.Fatal(err)
		}
		if err := r.Remove(fmt.Sprintf("app://leak/%d/:id", n%10)); err != nil {
			t.Fatal(err)
		}
		other, err := NewRouter()
		if err != nil {
			t.Fatal(err)
		}
		other.Close()
		tableCalls(t, shop, n)
	}
	// One OS thread for the whole test: the library keeps some state per thread, which is not a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for n := 0; n < rounds; n++ { // warm-up: the library's per-thread state and caches settle
		work(n)
	}
	settleMatches(t)
	before := cheap.InUse()
	for n := 0; n < rounds; n++ {
		work(n)
	}
	settleMatches(t)
	after := cheap.InUse()
	t.Logf("C heap: %d -> %d", before, after)
	if after > before && after-before > bound {
		t.Errorf("the C heap grew by %d bytes over %d rounds (%d per round)", after-before, rounds,
			(after-before)/rounds)
	}
}

// tableCalls makes every table call once, those that succeed and those that fail: loads (whose failures check
// the document again for Problems), checks, export, URL building, explain, and matches whose JSON is made and
// matches dropped without it.
func tableCalls(t *testing.T, shop *Router, n int) {
	t.Helper()
	doc := fmt.Sprintf(`{"version":1,"routes":[{"pattern":"app://t/%d/:id","target":"T","name":"t","meta":{"k":"v"}}]}`, n)
	r, err := NewRouterFromJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.LoadJSON(`{"version":1,"routes":[{"pattern":"a://x//y","target":3}]}`, false); !errors.Is(err, ErrTable) {
		t.Fatal(err)
	}
	if err := r.LoadFile("/nonexistent/table.json", true); !errors.Is(err, ErrIO) {
		t.Fatal(err)
	}
	if report, err := r.CheckJSON(doc, false); err != nil || report.Valid {
		t.Fatal(report, err)
	}
	if text, err := r.ToJSON(); err != nil || text == "" {
		t.Fatal(err)
	}
	if _, err := r.BuildURL("t", Param{"id", fmt.Sprint(n)}, Param{"?q", "a b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.BuildURL("t"); !errors.Is(err, ErrInvalid) {
		t.Fatal(err)
	}
	if _, err := shop.Explain(fmt.Sprintf("http://oldshop.example.com/item.php?id=%d", n)); err != nil {
		t.Fatal(err)
	}
	if _, err := shop.ExplainText("shop://orders/12/invoice"); err != nil {
		t.Fatal(err)
	}
	m, err := shop.Resolve(fmt.Sprintf("shop://push/order/%d/status?a[b]=1", n))
	if err != nil || m == nil || len(m.Requires) != 2 {
		t.Fatal(m, err)
	}
	if n%2 == 0 {
		if _, err := m.NestedParams(); err != nil {
			t.Fatal(err)
		}
	}
}

// settleMatches runs the collector until every dropped Match has had its C match freed by its finalizer (the
// finalizers run on their own goroutine, after a collection). Bounded by a count of rounds.
func settleMatches(t *testing.T) {
	t.Helper()
	for i := 0; i < 200 && liveNativeMatches.Load() > 0; i++ {
		runtime.GC()
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if n := liveNativeMatches.Load(); n > 0 {
		t.Fatalf("%d dropped matches still hold their C match after 200 collections", n)
	}
}
