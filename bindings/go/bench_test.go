package linkrouter

import "testing"

// Resolve's cost through the binding, for the figure in the README's Go section:
//
//	go test -run '^$' -bench Resolve
//
// Not run by make test: benchmarks measure, tests assert.

// benchRouter is examples/tables/shop.json's kind of table: a handful of routes, one named with meta.
func benchRouter(b *testing.B) *Router {
	b.Helper()
	r, err := NewRouter()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	for _, route := range []Route{{"shop://home", "Home"}, {"shop://product/:id/reviews", "Reviews"},
		{"shop://category/:slug", "Category"}, {"https://shop.example.com/p/:id", "WebProduct"}} {
		if err := r.Add(route.Pattern, route.Target); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.AddRoute("shop://product/:id", "Product", "product", `{"transition":"push"}`); err != nil {
		b.Fatal(err)
	}
	return r
}

func BenchmarkResolve(b *testing.B) {
	r := benchRouter(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m, err := r.Resolve("shop://product/42?ref=mail&campaign=spring")
		if err != nil || m == nil {
			b.Fatal(m, err)
		}
	}
}
