package linkrouter

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Tests/Data/shop-urls.txt through the Go binding: every URL against examples/tables/shop.json, one line each,
// equal byte for byte to Tests/Data/shop-urls.expected, which Tests/C/test_shop_urls.c holds C to (and the Swift,
// Python and Java suites hold theirs to).
func TestSharedFixtureGivesTheCLines(t *testing.T) {
	r, err := NewRouterFromFile(repoFile(t, "examples", "tables", "shop.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	urls := fixtureURLs(t)
	expected := readLines(t, repoFile(t, "Tests", "Data", "shop-urls.expected"))
	if len(urls) != len(expected) || len(urls) < 20 {
		t.Fatalf("%d URLs, %d expected lines", len(urls), len(expected))
	}
	for i, url := range urls {
		if got := fixtureLine(t, r, url); got != expected[i] {
			t.Errorf("line %d (%s):\n  got      %s\n  expected %s", i+1, url, got, expected[i])
		}
	}
}

// fixtureURLs reads Tests/Data/shop-urls.txt: one URL a line, exactly as written; blank lines and "#" comments
// are not URLs.
func fixtureURLs(t *testing.T) []string {
	t.Helper()
	var urls []string
	for _, line := range readLines(t, repoFile(t, "Tests", "Data", "shop-urls.txt")) {
		if line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	return urls
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// fixtureLine is the line for url: the match's JSON, "nomatch <url>", or "error <code> <url>".
func fixtureLine(t *testing.T, r *Router, url string) string {
	t.Helper()
	m, err := r.Resolve(url)
	if e, ok := err.(*Error); ok {
		return fmt.Sprintf("error %d %s", int(e.Code), url)
	}
	if err != nil {
		t.Fatal(err)
	}
	if m == nil {
		return "nomatch " + url
	}
	text, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return text
}
