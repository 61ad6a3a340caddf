package linkrouter

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"linkrouter/internal/cheap"
)

// The binding frees what it allocates: C strings for arguments, matches, strings the library returns, routers.
// The C heap in use (glibc's mallinfo2) may not grow with the number of calls. A leak of one argument string per
// call would grow it by over 100 KiB here; the bound leaves room for the library's caches, which do not grow
// with the count.
func TestNoNativeMemoryGrowth(t *testing.T) {
	const rounds = 5000
	const bound = 96 << 10
	r := newRouter(t)
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
	}
	// One OS thread for the whole test: the library keeps some state per thread, which is not a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for n := 0; n < rounds/5; n++ {
		work(n)
	}
	before := cheap.InUse()
	for n := 0; n < rounds; n++ {
		work(n)
	}
	after := cheap.InUse()
	t.Logf("C heap: %d -> %d", before, after)
	if after > before && after-before > bound {
		t.Errorf("the C heap grew by %d bytes over %d rounds (%d per round)", after-before, rounds,
			(after-before)/rounds)
	}
}
