// The demo's links (examples/c/demo.c) through the Go binding: the same table, the same rule, the same answers.
// `make test-go` runs it and checks that its output is examples/c/demo.expected, byte for byte.
package main

import (
	"errors"
	"fmt"
	"os"

	"linkrouter"
)

var routes = []linkrouter.Route{
	// In-app deep links.
	{Pattern: "shop://product/:id", Target: "ProductPage"},
	{Pattern: "shop://product/:id/reviews", Target: "ReviewsPage"},
	{Pattern: "shop://product/new", Target: "NewArrivalsPage"}, // a literal beats :id, whatever the order
	{Pattern: "shop://user/:uid/orders/:order", Target: "OrderPage"},
	{Pattern: "shop://search", Target: "SearchPage"},
	{Pattern: "shop://help/*topic", Target: "HelpCenter"}, // the rest of the path, as written
	// Web links that the app opens natively; any other web link goes to a web view.
	{Pattern: "https://www.shop.example.com/p/:id", Target: "ProductPage"},
	{Pattern: "https://www.shop.example.com/u/:uid/orders/:order", Target: "OrderPage"},
	{Pattern: "https://*page", Target: "WebView"},   // any other https link: host and path
	{Pattern: "*://share/:id", Target: "SharePage"}, // share links, whatever the scheme
	// XKRouter-style links: the host says whether login is needed, the query names the target class.
	{Pattern: "xksquare://com.dynamic", Target: "OpenWithoutLogin"},
	{Pattern: "xksquare://com.authDynamic", Target: "OpenAfterLogin"},
}

var links = []string{
	"shop://product/8841?ref=push&campaign=black%20friday",
	"shop://product/new",
	"SHOP://Product/8841/reviews#latest",
	"shop://user/u-17/orders/A%2F2026-1138",
	"shop://search?q=%E5%8E%9F%E5%AD%90%E5%BC%B9&sort=price&sort=rating",
	"shop://help/returns/how-to",
	"https://WWW.shop.example.com/p/8841?utm_source=mail",
	"https://www.shop.example.com/u/u-17/orders/1138",
	"https://blog.example.com/2026/11/launch",
	"xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2",
	"xksquare://com.authDynamic?targetclass=OrderList&info[nickname]=x&info[level]=3",
	"myapp://share/77",
	"shop://nowhere/at/all",
	"not a url",
	"shop://campaign/winter", // through the rewrite rule
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-demo:", err)
		os.Exit(1)
	}
}

func run() error {
	router, err := linkrouter.NewRouter()
	if err != nil {
		return err
	}
	defer router.Close()
	if err := router.AddMany(routes); err != nil {
		return err
	}
	// A rule from the server: old campaign links now open the search page.
	if err := router.AddRewrite(`^shop://campaign/(\w+)`, "shop://search?q=$1&from=campaign"); err != nil {
		return err
	}

	fmt.Printf("%d routes, 1 rewrite rule\n\n", len(routes))
	for _, link := range links {
		fmt.Println(link)
		m, err := router.Resolve(link)
		var failure *linkrouter.Error
		switch {
		case errors.As(err, &failure):
			fmt.Printf("  -> %s: %s\n", failure.Code, failure.Message)
		case err != nil:
			return err
		case m == nil:
			fmt.Printf("  -> %s\n", linkrouter.StatusNoMatch)
		default:
			fmt.Printf("  -> %s  (%s)", m.Target, m.Pattern)
			for _, p := range m.OrderedParams {
				fmt.Printf("  %s=%s", p.Name, p.Value)
			}
			if m.Fragment != "" {
				fmt.Printf("  #%s", m.Fragment)
			}
			if m.Rewritten != m.URL {
				fmt.Printf("  [rewritten: %s]", m.Rewritten)
			}
			fmt.Println()
		}
	}
	return nil
}
