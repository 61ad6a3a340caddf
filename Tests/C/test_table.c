/*
 * test_table.c -- route tables through the C ABI: load (text and file, replace and merge), every problem with
 * its JSON pointer in lr_last_error(), atomic failure, check reports, export round trips, URL building, explain,
 * bad arguments (NULL, NUL bytes, invalid UTF-8, lengths), and a reload while other threads resolve.
 * Run from the repository root (it reads examples/tables/shop.json).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkrouter.h"

static int failures;

#define EXPECT_INT(actual, expected)                                                                     \
    do {                                                                                                  \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                                   \
        if (a_ != e_) {                                                                                   \
            fprintf(stderr, "%s:%d: %s = %lld, expected %lld (last error: %s)\n", __FILE__, __LINE__,     \
                    #actual, a_, e_, lr_last_error());                                                    \
            failures++;                                                                                   \
        }                                                                                                 \
    } while (0)

#define EXPECT_STR(actual, expected)                                                                      \
    do {                                                                                                  \
        const char *a_ = (actual), *e_ = (expected);                                                      \
        if ((a_ == NULL) != (e_ == NULL) || (a_ && strcmp(a_, e_) != 0)) {                                \
            fprintf(stderr, "%s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #actual,        \
                    a_ ? a_ : "(null)", e_ ? e_ : "(null)");                                              \
            failures++;                                                                                   \
        }                                                                                                 \
    } while (0)

#define SHOP "examples/tables/shop.json"
#define SHOP_EXPORT "Tests/Data/shop-export.expected"

/* A whole text file, NUL-terminated (the test runs from the repository root; a file it cannot read ends it). */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (!text || fseek(f, 0, SEEK_SET) != 0 || fread(text, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(2);
    }
    fclose(f);
    text[size] = 0;
    return text;
}

static int load(lr_router *r, const char *json, int flags) { return lr_router_load_json(r, json, strlen(json), flags); }

static size_t count(lr_router *r)
{
    size_t n = 0;
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    return n;
}

static const char *target_of(lr_router *r, const char *url, char *buf, size_t cap)
{
    lr_match *m = NULL;
    int rc = lr_router_resolve(r, url, &m);
    snprintf(buf, cap, "%s", rc == LR_OK ? lr_match_target(m) : rc == LR_NOMATCH ? "(none)" : "(error)");
    lr_match_free(m);
    return buf;
}

static void test_load_and_export(void)
{
    lr_router *r, *again;
    char buf[64], *json = NULL, *json2 = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_load_file(r, SHOP, LR_LOAD_REPLACE), LR_OK);
    EXPECT_INT(count(r), 16);
    EXPECT_STR(target_of(r, "shop://product/42", buf, sizeof buf), "ProductScreen");
    EXPECT_STR(target_of(r, "http://oldshop.example.com/item.php?id=7", buf, sizeof buf), "ProductScreen");
    EXPECT_INT(lr_router_to_json(r, &json), LR_OK);
    char *exported = read_text(SHOP_EXPORT); /* shop.json as lr_router_to_json writes it, byte for byte */
    EXPECT_STR(json, exported);
    free(exported);
    /* load -> export -> load -> export: the same bytes. */
    EXPECT_INT(lr_router_new(&again), LR_OK);
    EXPECT_INT(load(again, json, LR_LOAD_REPLACE), LR_OK);
    EXPECT_INT(lr_router_to_json(again, &json2), LR_OK);
    EXPECT_STR(json2, json);
    lr_string_free(json);
    lr_string_free(json2);
    /* Merge adds; replace replaces. */
    EXPECT_INT(load(again, "{\"version\": 1, \"routes\": [{\"pattern\": \"extra://x\", \"target\": \"X\"}]}", LR_LOAD_MERGE), LR_OK);
    EXPECT_INT(count(again), 17);
    EXPECT_INT(load(again, "{\"version\": 1, \"routes\": [{\"pattern\": \"extra://x\", \"target\": \"X\"}]}", LR_LOAD_REPLACE), LR_OK);
    EXPECT_INT(count(again), 1);
    EXPECT_STR(target_of(again, "http://oldshop.example.com/item.php?id=7", buf, sizeof buf), "(none)");
    lr_router_free(again);
    lr_router_free(r);
}

/* The names and patterns of examples/tables/shop.json, in the file's order. */
static const char *const shop_routes[][2] = {
    {"home", "shop://home"},
    {"product", "shop://product/:id"},
    {"product.reviews", "shop://product/:id/reviews"},
    {"category", "shop://category/:slug"},
    {"search", "shop://search"},
    {"cart", "shop://cart"},
    {"orders", "shop://orders"},
    {"order", "shop://orders/:id"},
    {"settings", "shop://account/settings"},
    {"help", "shop://help/*topic"},
    {"web.product", "https://shop.example.com/p/:id"},
    {"web.category", "https://shop.example.com/c/:slug"},
    {"web.order", "https://shop.example.com/orders/:id"},
    {"web.home", "https://shop.example.com/"},
    {"push.order", "shop://push/order/:id/status"},
    {"push.promo", "shop://push/promo/:campaign"},
};

/* The check report of shop.json merged into a router that holds it: two problems per route, its name then its
   pattern, each naming the existing route. */
static const char *shop_merged_into_itself(void)
{
    static char report[8192];
    size_t o = (size_t)snprintf(report, sizeof report, "{\"valid\":false,\"problems\":[");
    for (size_t i = 0; i < sizeof shop_routes / sizeof shop_routes[0]; i++) {
        const char *name = shop_routes[i][0], *pattern = shop_routes[i][1];
        o += (size_t)snprintf(report + o, sizeof report - o,
                              "%s{\"pointer\":\"/routes/%zu/name\",\"code\":-4,"
                              "\"reason\":\"route name '%s' is already used by existing route '%s'\"},"
                              "{\"pointer\":\"/routes/%zu/pattern\",\"code\":-4,"
                              "\"reason\":\"pattern '%s' conflicts with existing route '%s': both match exactly the same URLs\"}",
                              i ? "," : "", i, name, pattern, i, pattern, pattern);
    }
    snprintf(report + o, sizeof report - o, "],\"warnings\":[]}");
    return report;
}

static void test_problems_and_atomicity(void)
{
    lr_router *r;
    char buf[64], *report = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_load_file(r, SHOP, LR_LOAD_REPLACE), LR_OK);
    const char *bad =
        "{\"version\": 1, \"routes\": [{\"pattern\": \"new://a\", \"target\": \"A\"}, {\"pattern\": \"app://a//b\", \"target\": \"B\"},"
        " {\"pattern\": \"x://y/:id\", \"target\": \"C\", \"name\": \"n\"}, {\"pattern\": \"x://y/:other\", \"target\": \"D\", \"name\": \"n\"}],"
        " \"rewrites\": [{\"match\": \"(\", \"target\": \"x://y\"}, {\"match\": \"a\", \"target\": \"x://$nope\"}], \"extra\": true}";
    EXPECT_INT(load(r, bad, LR_LOAD_REPLACE), LR_ETABLE);
    EXPECT_STR(lr_last_error(),
               "/extra: unknown key 'extra' (expected $schema, version, routes, rewrites)\n"
               "/routes/1/pattern: malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)\n"
               "/routes/3/name: route name 'n' is already used by /routes/2 ('x://y/:id')\n"
               "/routes/3/pattern: pattern 'x://y/:other' conflicts with /routes/2 ('x://y/:id'): both match exactly the same URLs\n"
               "/rewrites/0/match: invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)\n"
               "/rewrites/1/target: malformed rewrite target 'x://$nope' at byte 4: unknown word '$nope' (expected a group "
               "number, ${name}, $scheme, $host, $port, $path, $query, $fragment or $url; write \\$ for a literal dollar)");
    /* Nothing changed. */
    EXPECT_INT(count(r), 16);
    EXPECT_STR(target_of(r, "new://a", buf, sizeof buf), "(none)");
    EXPECT_STR(target_of(r, "shop://cart", buf, sizeof buf), "CartScreen");
    /* The same problems as JSON, from the check call (which changes nothing either). */
    EXPECT_INT(lr_router_check_json(r, bad, strlen(bad), LR_LOAD_REPLACE, &report), LR_ETABLE);
    EXPECT_STR(report,
               "{\"valid\":false,\"problems\":["
               "{\"pointer\":\"/extra\",\"code\":-8,"
               "\"reason\":\"unknown key 'extra' (expected $schema, version, routes, rewrites)\"},"
               "{\"pointer\":\"/routes/1/pattern\",\"code\":-3,"
               "\"reason\":\"malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)\"},"
               "{\"pointer\":\"/routes/3/name\",\"code\":-4,"
               "\"reason\":\"route name 'n' is already used by /routes/2 ('x://y/:id')\"},"
               "{\"pointer\":\"/routes/3/pattern\",\"code\":-4,"
               "\"reason\":\"pattern 'x://y/:other' conflicts with /routes/2 ('x://y/:id'): both match exactly the same URLs\"},"
               "{\"pointer\":\"/rewrites/0/match\",\"code\":-5,"
               "\"reason\":\"invalid rewrite regex '(' at byte 1: missing closing parenthesis (PCRE2 error 114)\"},"
               "{\"pointer\":\"/rewrites/1/target\",\"code\":-3,"
               "\"reason\":\"malformed rewrite target 'x://$nope' at byte 4: unknown word '$nope' (expected a group number, "
               "${name}, $scheme, $host, $port, $path, $query, $fragment or $url; write \\\\$ for a literal dollar)\"}],"
               "\"warnings\":[]}");
    lr_string_free(report);
    /* Merged into itself, every route of the file conflicts with itself, by name and by pattern. */
    EXPECT_INT(lr_router_check_file(r, SHOP, LR_LOAD_MERGE, &report), LR_ETABLE);
    EXPECT_STR(report, shop_merged_into_itself());
    lr_string_free(report);
    EXPECT_INT(lr_router_check_file(r, SHOP, LR_LOAD_REPLACE, &report), LR_OK);
    EXPECT_STR(report, "{\"valid\":true,\"problems\":[],\"warnings\":[]}");
    lr_string_free(report);
    EXPECT_INT(count(r), 16);
    /* Files that cannot be read. */
    EXPECT_INT(lr_router_load_file(r, "/nonexistent/t.json", LR_LOAD_REPLACE), LR_EIO);
    EXPECT_STR(lr_last_error(), "cannot open table file '/nonexistent/t.json': No such file or directory");
    EXPECT_INT(lr_router_check_file(r, "/tmp", LR_LOAD_REPLACE, &report), LR_EIO);
    EXPECT_STR(report, NULL);
    EXPECT_INT(count(r), 16);
    /* Names are unique per router. */
    EXPECT_INT(lr_router_add_route(r, "other://x", "X", "product", NULL), LR_ECONFLICT);
    EXPECT_STR(lr_last_error(), "route name 'product' is already used by route 'shop://product/:id'");
    lr_router_free(r);
}

static void test_bad_arguments(void)
{
    lr_router *r;
    char *out = (char *)1;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_load_json(NULL, "{}", 2, 0), LR_EMISUSE);
    EXPECT_INT(lr_router_load_json(r, NULL, 2, 0), LR_EMISUSE);
    EXPECT_INT(lr_router_load_json(r, NULL, 0, 0), LR_ETABLE); /* no text: a JSON syntax error */
    EXPECT_INT(lr_router_load_json(r, "{\"version\": 1}", 14, 2), LR_EMISUSE);
    EXPECT_INT(lr_router_load_json(r, "{\"version\": 1}", 14, -1), LR_EMISUSE);
    EXPECT_INT(lr_router_load_json(r, "{\"version\": 1}\0xx", 17, 0), LR_EINVAL);
    EXPECT_STR(lr_last_error(), "lr_router_load_json: the table text has a NUL byte at offset 14");
    EXPECT_INT(lr_last_error_offset(), 14);
    /* A JSON pointer names a meta key as the table spells it, NUL included (no quoting helper escapes it):
       lr_last_error writes the NUL as \u0000, so the message is whole. */
    EXPECT_INT(load(r, "{\"version\": 1, \"routes\": [{\"pattern\": \"a://b\", \"target\": \"T\", "
                       "\"meta\": {\"k\\u0000\": \"v\"}}]}", 0), LR_ETABLE);
    EXPECT_STR(lr_last_error(), "/routes/0/meta/k\\u0000: contains U+0000 (NUL), which C strings cannot carry");
    EXPECT_INT(lr_router_load_json(r, "{\"version\": 1, \"x\": \"\xff\"}", 24, 0), LR_EINVAL);
    EXPECT_INT(lr_router_load_json(r, "{}", (size_t)-1, 0), LR_ELIMIT);
    EXPECT_INT(lr_router_load_json(r, "{\"version\": 1}", 14, LR_LOAD_MERGE), LR_OK);
    EXPECT_INT(lr_router_load_file(r, NULL, 0), LR_EMISUSE);
    EXPECT_INT(lr_router_load_file(r, "", 0), LR_EIO);
    EXPECT_INT(lr_router_check_json(r, "{}", 2, 0, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_to_json(NULL, &out), LR_EMISUSE);
    EXPECT_STR(out, NULL);
    EXPECT_INT(lr_router_to_json(r, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_build_url(r, NULL, NULL, NULL, 0, &out), LR_EMISUSE);
    EXPECT_INT(lr_router_build_url(r, "x", NULL, NULL, 1, &out), LR_EMISUSE);
    EXPECT_INT(lr_router_build_url(r, "x", NULL, NULL, (size_t)-1, &out), LR_EMISUSE);
    EXPECT_INT(lr_router_build_url(r, "\xff", NULL, NULL, 0, &out), LR_EINVAL);
    EXPECT_INT(lr_router_build_url(r, "x", NULL, NULL, 0, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_explain(r, NULL, &out), LR_EMISUSE);
    EXPECT_INT(lr_router_explain(r, "app://\xc3", &out), LR_EINVAL);
    EXPECT_INT(lr_router_explain_text(r, "app://x", NULL), LR_EMISUSE);
    lr_router_free(r);
}

static void test_build_url(void)
{
    lr_router *r;
    char *url = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_load_file(r, SHOP, LR_LOAD_REPLACE), LR_OK);
    const char *names[] = {"id", "?ref", "?q"}, *values[] = {"4 2/é", "mail&push", "a=b+c"};
    EXPECT_INT(lr_router_build_url(r, "product", names, values, 3, &url), LR_OK);
    EXPECT_STR(url, "shop://product/4%202%2F%C3%A9?ref=mail%26push&q=a%3Db%2Bc");
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
    EXPECT_STR(lr_match_get(m, "id"), "4 2/é");
    EXPECT_STR(lr_match_get(m, "ref"), "mail&push");
    EXPECT_STR(lr_match_get(m, "q"), "a=b+c");
    lr_match_free(m);
    lr_string_free(url);
    const char *topic[] = {"topic"}, *path[] = {"orders/late delivery"};
    EXPECT_INT(lr_router_build_url(r, "help", topic, path, 1, &url), LR_OK);
    EXPECT_STR(url, "shop://help/orders/late%20delivery");
    lr_string_free(url);
    EXPECT_INT(lr_router_build_url(r, "product", NULL, NULL, 0, &url), LR_EINVAL);
    EXPECT_STR(url, NULL);
    EXPECT_STR(lr_last_error(), "cannot build the URL of route 'product' ('shop://product/:id'): parameter 'id' is missing");
    EXPECT_INT(lr_router_build_url(r, "nobody", NULL, NULL, 0, &url), LR_ENOTFOUND);
    const char *bad[] = {"id", NULL};
    EXPECT_INT(lr_router_build_url(r, "product", bad, values, 2, &url), LR_EMISUSE);
    lr_router_free(r);
}

/* explain's JSON, in pieces: shop.json's four rules (the last one's outcome given), and one candidate route. */
#define SHOP_RULE(index, match, target, outcome)                                                              \
    "{\"index\":" #index ",\"match\":\"" match "\",\"target\":\"" target "\",\"outcome\":\"" outcome            \
    "\",\"indexed\":true}"
#define SHOP_REWRITE(last_outcome, fired)                                                                     \
    "\"rewrite\":{\"rules\":["                                                                                \
    SHOP_RULE(0, "^https?://(?:www\\\\.)?oldshop\\\\.example\\\\.com/item\\\\.php\\\\?(?:.*&)?id=(\\\\d+)",       \
              "shop://product/$1?from=legacy", "no_match") ","                                                 \
    SHOP_RULE(1, "^https?://(?:www\\\\.)?oldshop\\\\.example\\\\.com/category/([^/?#]+)",                       \
              "shop://category/$1?from=legacy", "no_match") ","                                                \
    SHOP_RULE(2, "^https?://(?:www\\\\.)?oldshop\\\\.example\\\\.com/search\\\\?(?:.*&)?q=([^&#]*)",             \
              "shop://search?q=$1&from=legacy", "no_match") ","                                                \
    SHOP_RULE(3, "^https?://m\\\\.shop\\\\.example\\\\.com/(.*)", "https://shop.example.com/$1", last_outcome)  \
    "],\"fired\":" fired "}"
#define CANDIDATE(pattern, target, name, matched, reason, elements)                                           \
    "{\"pattern\":\"" pattern "\",\"target\":\"" target "\",\"name\":\"" name "\",\"matched\":" matched        \
    ",\"reason\":\"" reason "\",\"elements_matched\":" #elements "}"
#define HOST_NOT(pattern, target, name, host, literal)                                                        \
    CANDIDATE(pattern, target, name, "false", "the host '" host "' is not '" literal "'", 0)

static void test_explain(void)
{
    lr_router *r;
    char *json = NULL, *text = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_load_file(r, SHOP, LR_LOAD_REPLACE), LR_OK);
    EXPECT_INT(lr_router_explain(r, "https://m.shop.example.com/p/9", &json), LR_OK);
    EXPECT_STR(json,
               "{\"url\":\"https://m.shop.example.com/p/9\",\"result\":\"matched\","
               SHOP_REWRITE("fired", "3") ","
               "\"routed\":\"https://shop.example.com/p/9\",\"sequence\":[\"shop.example.com\",\"p\",\"9\"],"
               "\"candidates\":["
               CANDIDATE("https://shop.example.com/p/:id", "ProductScreen", "web.product", "true", "matched", 3) ","
               CANDIDATE("https://shop.example.com/c/:slug", "CategoryScreen", "web.category", "false",
                         "segment 1 'p' is not 'c'", 1) ","
               CANDIDATE("https://shop.example.com/orders/:id", "OrderScreen", "web.order", "false",
                         "segment 1 'p' is not 'orders'", 1) ","
               CANDIDATE("https://shop.example.com/", "HomeScreen", "web.home", "false",
                         "the URL has 3 elements, the pattern only 1 (left over: 'p/9')", 1)
               "],\"candidates_omitted\":0,\"other_scheme_routes\":12,"
               "\"route\":{\"pattern\":\"https://shop.example.com/p/:id\",\"target\":\"ProductScreen\","
               "\"name\":\"web.product\",\"requires\":[],"
               "\"meta\":{\"class\":\"ProductViewController\",\"source\":\"universal-link\"}},"
               "\"params\":{\"id\":\"9\"},\"requires\":[]}");
    lr_string_free(json);
    EXPECT_INT(lr_router_explain(r, "shop://orders/12/x", &json), LR_OK);
    EXPECT_STR(json,
               "{\"url\":\"shop://orders/12/x\",\"result\":\"nomatch\","
               SHOP_REWRITE("no_match", "null") ","
               "\"routed\":\"shop://orders/12/x\",\"sequence\":[\"orders\",\"12\",\"x\"],"
               "\"candidates\":["
               CANDIDATE("shop://orders/:id", "OrderScreen", "order", "false",
                         "the URL has 3 elements, the pattern only 2 (left over: 'x')", 2) ","
               CANDIDATE("shop://orders", "OrdersScreen", "orders", "false",
                         "the URL has 3 elements, the pattern only 1 (left over: '12/x')", 1) ","
               HOST_NOT("shop://home", "HomeScreen", "home", "orders", "home") ","
               HOST_NOT("shop://product/:id", "ProductScreen", "product", "orders", "product") ","
               HOST_NOT("shop://product/:id/reviews", "ReviewsScreen", "product.reviews", "orders", "product") ","
               HOST_NOT("shop://category/:slug", "CategoryScreen", "category", "orders", "category") ","
               HOST_NOT("shop://search", "SearchScreen", "search", "orders", "search") ","
               HOST_NOT("shop://cart", "CartScreen", "cart", "orders", "cart") ","
               HOST_NOT("shop://account/settings", "SettingsScreen", "settings", "orders", "account") ","
               HOST_NOT("shop://help/*topic", "HelpScreen", "help", "orders", "help") ","
               HOST_NOT("shop://push/order/:id/status", "OrderStatusScreen", "push.order", "orders", "push") ","
               HOST_NOT("shop://push/promo/:campaign", "PromoScreen", "push.promo", "orders", "push")
               "],\"candidates_omitted\":0,\"other_scheme_routes\":4,\"route\":null,\"params\":{},\"requires\":[]}");
    lr_string_free(json);
    EXPECT_INT(lr_router_explain(r, "no scheme", &json), LR_OK);
    EXPECT_STR(json,
               "{\"url\":\"no scheme\",\"result\":\"error\","
               "\"error\":{\"code\":-2,\"message\":\"'no scheme' is not an absolute URL: it needs a scheme, as in 'app://...'\"},"
               SHOP_REWRITE("no_match", "null") ","
               "\"routed\":\"no scheme\",\"sequence\":[],\"candidates\":[],\"candidates_omitted\":0,"
               "\"other_scheme_routes\":0,\"route\":null,\"params\":{},\"requires\":[]}");
    lr_string_free(json);
    EXPECT_INT(lr_router_explain_text(r, "shop://cart", &text), LR_OK);
    EXPECT_STR(text,
               "url         shop://cart\n"
               "rewrite     no rule fired (4 rules)\n"
               "sequence    cart\n"
               "result      matched shop://cart -> CartScreen (name cart)\n"
               "candidates  12 routes with this URL's scheme (4 with another scheme)\n"
               "  match     shop://cart\n"
               "  no        shop://home: the host 'cart' is not 'home'\n"
               "  no        shop://product/:id: the host 'cart' is not 'product'\n"
               "  no        shop://product/:id/reviews: the host 'cart' is not 'product'\n"
               "  no        shop://category/:slug: the host 'cart' is not 'category'\n"
               "  no        shop://search: the host 'cart' is not 'search'\n"
               "  no        shop://orders: the host 'cart' is not 'orders'\n"
               "  no        shop://orders/:id: the host 'cart' is not 'orders'\n"
               "  no        shop://account/settings: the host 'cart' is not 'account'\n"
               "  no        shop://help/*topic: the host 'cart' is not 'help'\n"
               "  no        shop://push/order/:id/status: the host 'cart' is not 'push'\n"
               "  no        shop://push/promo/:campaign: the host 'cart' is not 'push'\n"
               "params      (none)\n"
               "requires    login\n"
               "meta        transition=present\n");
    lr_string_free(text);
    lr_router_free(r);
}

/* Resolvers see table A or table B, whole, while the main thread reloads: table A's rule sends app://x/7 to
   A's "common" route, table B's to B's own route, so a mix would give "B-common" (or "A"). */
static const char *table_a =
    "{\"version\": 1, \"routes\": [{\"pattern\": \"app://common/:id\", \"target\": \"A-common\"}, {\"pattern\": \"app://a/:id\", \"target\": \"A\"}],"
    " \"rewrites\": [{\"match\": \"^app://x/(\\\\d+)\", \"target\": \"app://common/$1\"}]}";
static const char *table_b =
    "{\"version\": 1, \"routes\": [{\"pattern\": \"app://common/:id\", \"target\": \"B-common\"}, {\"pattern\": \"app://b/:id\", \"target\": \"B\"}],"
    " \"rewrites\": [{\"match\": \"^app://x/(\\\\d+)\", \"target\": \"app://b/$1\"}]}";

static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static int stop_flag;

static int stopped(void)
{
    pthread_mutex_lock(&stop_lock);
    int s = stop_flag;
    pthread_mutex_unlock(&stop_lock);
    return s;
}

struct reader { lr_router *r; int wrong, seen; };

static void *resolve_loop(void *arg)
{
    struct reader *rd = arg;
    char buf[64];
    while (rd->seen < 1000 || !stopped()) {
        const char *t = target_of(rd->r, "app://x/7", buf, sizeof buf);
        if (strcmp(t, "A-common") != 0 && strcmp(t, "B") != 0) rd->wrong++;
        rd->seen++;
    }
    return NULL;
}

static void test_hot_reload(void)
{
    lr_router *r;
    struct reader readers[3];
    pthread_t threads[3];
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(load(r, table_a, LR_LOAD_REPLACE), LR_OK);
    for (int i = 0; i < 3; i++) {
        readers[i] = (struct reader){r, 0, 0};
        pthread_create(&threads[i], NULL, resolve_loop, &readers[i]);
    }
    for (int i = 0; i < 200; i++) EXPECT_INT(load(r, i % 2 ? table_a : table_b, LR_LOAD_REPLACE), LR_OK);
    pthread_mutex_lock(&stop_lock);
    stop_flag = 1;
    pthread_mutex_unlock(&stop_lock);
    for (int i = 0; i < 3; i++) {
        pthread_join(threads[i], NULL);
        EXPECT_INT(readers[i].wrong, 0);
    }
    lr_router_free(r);
}

/* Overlaps: a typed and a plain parameter at one place, and a scheme catch-all hiding a '*://' route. */
#define OVERLAPS_EXPECTED                                                                                         \
    "[{\"kind\":\"typed\",\"winner\":\"shop://p/:id<uint>\",\"winner_index\":1,\"other\":\"shop://p/:slug\","             \
    "\"other_index\":0,\"example\":\"shop://p/1\",\"reason\":\"'shop://p/:slug' overlaps 'shop://p/:id<uint>': both "     \
    "match URLs such as 'shop://p/1', which go to 'shop://p/:id<uint>' (the parameter that comes first in "          \
    "precedence (more literal bytes, then the narrower type) wins)\"},"                                             \
    "{\"kind\":\"any_scheme\",\"winner\":\"shop://*rest\",\"winner_index\":3,\"other\":\"*://share/:id\","              \
    "\"other_index\":2,\"example\":\"shop://share/1\",\"reason\":\"'*://share/:id' overlaps 'shop://*rest': both match " \
    "URLs such as 'shop://share/1', which go to 'shop://*rest' (a scheme's own routes are tried before '*://' "   \
    "routes)\"}]"
static void test_overlaps(void)
{
    lr_router *r;
    char *json = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_overlaps(r, &json), LR_OK);
    EXPECT_STR(json, "[]");
    lr_string_free(json);
    EXPECT_INT(lr_router_add(r, "shop://p/:slug", "Slug"), LR_OK);
    EXPECT_INT(lr_router_add(r, "shop://p/:id<uint>", "Id"), LR_OK);
    EXPECT_INT(lr_router_add(r, "*://share/:id", "Share"), LR_OK);
    EXPECT_INT(lr_router_add(r, "shop://*rest", "Rest"), LR_OK);
    EXPECT_INT(lr_router_overlaps(r, &json), LR_OK);
    EXPECT_STR(json, OVERLAPS_EXPECTED);
    lr_string_free(json);
    EXPECT_INT(lr_router_overlaps(r, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_overlaps(NULL, &json), LR_EMISUSE);
    EXPECT_STR(json, NULL);
    lr_router_free(r);
}

int main(void)
{
    test_load_and_export();
    test_problems_and_atomicity();
    test_bad_arguments();
    test_build_url();
    test_overlaps();
    test_explain();
    test_hot_reload();
    if (failures) {
        fprintf(stderr, "test_table: %d failures\n", failures);
        return 1;
    }
    printf("test_table: all passed\n");
    return 0;
}
