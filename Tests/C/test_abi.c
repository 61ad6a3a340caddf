/*
 * test_abi.c -- the C ABI as a C program sees it: NULL safety, ownership, every status code, per-thread
 * errors, and one router shared by threads that resolve while another adds and removes routes.
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

static void test_version_and_codes(void)
{
    /* The library loaded is the one this header describes; the header's three spellings of the version agree
       (the string is written out separately, the number is computed: a typo in either shows here). */
    EXPECT_INT(lr_version_number(), LR_VERSION_NUMBER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", lr_version_number() / 10000, lr_version_number() / 100 % 100,
             lr_version_number() % 100);
    EXPECT_STR(version, LR_VERSION_STRING);
    EXPECT_INT(lr_version_number() / 10000, LR_VERSION_MAJOR);
    EXPECT_INT(lr_version_number() / 100 % 100, LR_VERSION_MINOR);
    EXPECT_INT(lr_version_number() % 100, LR_VERSION_PATCH);
    /* The status codes are fixed forever. */
    static const struct { int code, value; } fixed[] = {
        {LR_OK, 0}, {LR_NOMATCH, 1}, {LR_EMISUSE, -1}, {LR_EINVAL, -2}, {LR_EPATTERN, -3}, {LR_ECONFLICT, -4},
        {LR_EREGEX, -5}, {LR_ELIMIT, -6}, {LR_ENOTFOUND, -7}, {LR_ETABLE, -8}, {LR_EIO, -9}, {LR_ENOMEM, -10},
        {LR_DEFERRED, 2}, {LR_EDENIED, -11}, {LR_ETIMEOUT, -12}, {LR_EREPLIED, -13}, {LR_EHANDLER, -14},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        EXPECT_INT(fixed[i].code, fixed[i].value);
        const char *text = lr_errstr(fixed[i].code);
        if (!text || !*text || strcmp(text, lr_errstr(12345)) == 0) {
            fprintf(stderr, "lr_errstr(%d) is not a proper text\n", fixed[i].code);
            failures++;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(text, lr_errstr(fixed[j].code)) == 0) {
                fprintf(stderr, "lr_errstr(%d) == lr_errstr(%d)\n", fixed[i].code, fixed[j].code);
                failures++;
            }
    }
    EXPECT_STR(lr_errstr(12345), "unknown status code");
    /* The texts, which live with the codes in the core (RouterError.Code.text). */
    static const struct { int code; const char *text; } texts[] = {
        {LR_OK, "ok"},
        {LR_NOMATCH, "no match"},
        {LR_EMISUSE, "misuse (NULL handle or argument, or an argument out of range)"},
        {LR_EINVAL, "invalid URL or text (not an absolute URL, or not UTF-8)"},
        {LR_EPATTERN, "malformed pattern or template"},
        {LR_ECONFLICT, "conflicting route"},
        {LR_EREGEX, "invalid regex"},
        {LR_ELIMIT, "limit exceeded"},
        {LR_ENOTFOUND, "not found"},
        {LR_ETABLE, "malformed route table"},
        {LR_EIO, "I/O error"},
        {LR_ENOMEM, "out of memory"},
        {LR_DEFERRED, "deferred by a guard"},
        {LR_EDENIED, "denied by a guard"},
        {LR_ETIMEOUT, "timed out waiting for the handler's reply"},
        {LR_EREPLIED, "reply already completed or unknown"},
        {LR_EHANDLER, "handler failed"},
        {-15, "unknown status code"},
        {3, "unknown status code"},
        {-2147483647 - 1, "unknown status code"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) EXPECT_STR(lr_errstr(texts[i].code), texts[i].text);
    if (!lr_last_error()) { fprintf(stderr, "lr_last_error() is NULL\n"); failures++; }
}

static void test_null_safety(void)
{
    lr_router *r = NULL;
    lr_match *m = (lr_match *)1;
    char *s = (char *)1;
    size_t n = 7;

    lr_router_free(NULL);
    lr_match_free(NULL);
    lr_string_free(NULL);
    EXPECT_INT(lr_router_new(NULL), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_new: out is NULL");
    EXPECT_INT(lr_router_add(NULL, "app://x", "X"), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_add: the router is NULL");
    EXPECT_INT(lr_router_add_route(NULL, "app://x", "X", NULL, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_add_many(NULL, NULL, NULL, 0, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_remove(NULL, "app://x"), LR_EMISUSE);
    EXPECT_INT(lr_router_clear(NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_count(NULL, &n), LR_EMISUSE);
    EXPECT_INT(lr_router_can_route(NULL, "app://x"), LR_EMISUSE);
    EXPECT_INT(lr_router_resolve(NULL, "app://x", &m), LR_EMISUSE);
    EXPECT_INT(m == NULL, 1); /* out is cleared even on misuse */
    EXPECT_INT(lr_router_set_limit(NULL, LR_LIMIT_URL_LENGTH, 10), LR_EMISUSE);
    EXPECT_INT(lr_router_get_limit(NULL, LR_LIMIT_URL_LENGTH, &n), LR_EMISUSE);
    EXPECT_INT(lr_router_add_rewrite(NULL, "a", "b"), LR_EMISUSE);
    EXPECT_INT(lr_router_add_rewrites(NULL, NULL, NULL, 0, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_remove_rewrite(NULL, "a"), LR_EMISUSE);
    EXPECT_INT(lr_router_clear_rewrites(NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_rewrite(NULL, "a", &s), LR_EMISUSE);
    EXPECT_INT(s == NULL, 1);

    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, NULL, "X"), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_add: pattern is NULL");
    EXPECT_INT(lr_router_add(r, "app://x", NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_remove(r, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_can_route(r, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_resolve(r, NULL, &m), LR_EMISUSE);
    EXPECT_INT(lr_router_resolve(r, "app://x", NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_resolve_with(r, "app://x", NULL, NULL, 2, &m), LR_EMISUSE);
    EXPECT_INT(lr_router_count(r, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_get_limit(r, LR_LIMIT_URL_LENGTH, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_add_rewrite(r, NULL, "b"), LR_EMISUSE);
    EXPECT_INT(lr_router_rewrite(r, "a", NULL), LR_EMISUSE);
    const char *patterns[] = {"app://a", NULL};
    const char *targets[] = {"A", "B"};
    EXPECT_INT(lr_router_add_many(r, patterns, targets, 2, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_add_many(r, NULL, targets, 2, NULL), LR_EMISUSE);
    EXPECT_INT(lr_router_add_many(r, NULL, NULL, 0, NULL), LR_OK);
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 0);

    /* Getters given a NULL match never crash: "" for fields, 0 for counts, NULL for lookups. */
    EXPECT_STR(lr_match_target(NULL), "");
    EXPECT_STR(lr_match_pattern(NULL), "");
    EXPECT_STR(lr_match_url(NULL), "");
    EXPECT_STR(lr_match_rewritten(NULL), "");
    EXPECT_STR(lr_match_scheme(NULL), "");
    EXPECT_STR(lr_match_host(NULL), "");
    EXPECT_STR(lr_match_port(NULL), "");
    EXPECT_STR(lr_match_path(NULL), "");
    EXPECT_STR(lr_match_fragment(NULL), "");
    EXPECT_STR(lr_match_name(NULL), NULL);
    EXPECT_STR(lr_match_metadata(NULL), NULL);
    EXPECT_INT(lr_match_param_count(NULL), 0);
    EXPECT_STR(lr_match_param_name(NULL, 0), NULL);
    EXPECT_STR(lr_match_param_value(NULL, 0), NULL);
    EXPECT_STR(lr_match_get(NULL, "id"), NULL);
    EXPECT_INT(lr_match_query_count(NULL), 0);
    EXPECT_STR(lr_match_query_name(NULL, 0), NULL);
    EXPECT_STR(lr_match_query_value(NULL, 0), NULL);
    EXPECT_INT(lr_match_to_json(NULL, &s), LR_EMISUSE);
    lr_router_free(r);
}

/* One row per status code a router call can return. */
static void test_status_codes(void)
{
    lr_router *r;
    lr_match *m;
    char *s;
    size_t n;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:id", "User"), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:uid", "Dup"), LR_ECONFLICT);
    EXPECT_STR(lr_last_error(),
               "pattern 'app://user/:uid' conflicts with existing route 'app://user/:id': both match exactly the same URLs");
    EXPECT_INT(lr_router_add(r, "app://a//b", "X"), LR_EPATTERN);
    EXPECT_STR(lr_last_error(), "malformed pattern 'app://a//b' at byte 8: empty segment ('//' in a pattern)");
    EXPECT_INT(lr_router_add(r, "app://\xff", "X"), LR_EINVAL);
    EXPECT_INT(lr_router_add(r, "app://ok", "\xc3\x28"), LR_EINVAL);
    EXPECT_INT(lr_router_resolve(r, "app://user/42", &m), LR_OK);
    lr_match_free(m);
    EXPECT_INT(lr_router_resolve(r, "app://nobody", &m), LR_NOMATCH);
    EXPECT_INT(m == NULL, 1);
    EXPECT_INT(lr_router_resolve(r, "no scheme", &m), LR_EINVAL);
    EXPECT_STR(lr_last_error(), "'no scheme' is not an absolute URL: it needs a scheme, as in 'app://...'");
    EXPECT_INT(lr_router_resolve(r, "", &m), LR_EINVAL);
    EXPECT_INT(lr_router_resolve(r, "app://user/\xed\xa0\x80", &m), LR_EINVAL); /* a UTF-16 surrogate */
    EXPECT_STR(lr_last_error(), "URL is not valid UTF-8");
    EXPECT_INT(lr_router_can_route(r, "app://user/1"), 1);
    EXPECT_INT(lr_router_can_route(r, "app://user"), 0);
    EXPECT_INT(lr_router_can_route(r, "\xff"), LR_EINVAL);
    EXPECT_INT(lr_router_remove(r, "app://nothing"), LR_ENOTFOUND);
    EXPECT_INT(lr_router_remove(r, "app://user/:x"), LR_OK);
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 0);

    /* Limits */
    EXPECT_INT(lr_router_get_limit(r, LR_LIMIT_URL_LENGTH, &n), LR_OK);
    EXPECT_INT(n, 65536);
    EXPECT_INT(lr_router_get_limit(r, LR_LIMIT_REGEX_MATCH, &n), LR_OK);
    EXPECT_INT(n, 10000);
    EXPECT_INT(lr_router_get_limit(r, 99, &n), LR_EMISUSE);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 0), LR_EMISUSE);
    EXPECT_INT(lr_router_set_limit(r, 0, 5), LR_EMISUSE);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 16), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://*rest", "Any"), LR_OK);
    EXPECT_INT(lr_router_resolve(r, "app://0123456789", &m), LR_OK);
    lr_match_free(m);
    EXPECT_INT(lr_router_resolve(r, "app://0123456789abcdef", &m), LR_ELIMIT);
    EXPECT_STR(lr_last_error(), "URL of 22 bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, 16)");
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 65536), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, 2), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://a/b/c", "Deep"), LR_ELIMIT);

    /* Rewrites */
    EXPECT_INT(lr_router_add_rewrite(r, "(unclosed", "x"), LR_EREGEX);
    EXPECT_INT(lr_router_add_rewrite(r, "ok", "$nosuchword"), LR_EPATTERN);
    EXPECT_INT(lr_router_remove_rewrite(r, "never added"), LR_ENOTFOUND);
    EXPECT_INT(lr_router_add_rewrite(r, "^old://(.*)", "app://$1"), LR_OK);
    EXPECT_INT(lr_router_rewrite(r, "old://x/y", &s), LR_OK);
    EXPECT_STR(s, "app://x/y");
    lr_string_free(s);
    EXPECT_INT(lr_router_rewrite(r, "new://x", &s), LR_NOMATCH);
    EXPECT_INT(s == NULL, 1);
    EXPECT_INT(lr_router_clear_rewrites(r), LR_OK);
    EXPECT_INT(lr_router_rewrite(r, "old://x/y", &s), LR_NOMATCH);
    lr_router_free(r);
}

static void test_match_accessors_and_ownership(void)
{
    lr_router *r;
    lr_match *m;
    char *json;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add_route(r, "https://www.example.com/p/:id", "Product", "product", "{\"auth\":\"false\"}"), LR_OK);
    const char *names[] = {"from", "id"};
    const char *values[] = {"push", "extra-id"};
    EXPECT_INT(lr_router_resolve_with(r, "HTTPS://WWW.Example.com:8443/p/7?tab=a&tab=b&from=q&info[n]=%E4%BD%93#Top",
                                      names, values, 1, &m), LR_OK);
    lr_router_free(r); /* a match outlives its router */

    EXPECT_STR(lr_match_target(m), "Product");
    EXPECT_STR(lr_match_pattern(m), "https://www.example.com/p/:id");
    EXPECT_STR(lr_match_url(m), "HTTPS://WWW.Example.com:8443/p/7?tab=a&tab=b&from=q&info[n]=%E4%BD%93#Top");
    EXPECT_STR(lr_match_rewritten(m), lr_match_url(m));
    EXPECT_STR(lr_match_scheme(m), "https");
    EXPECT_STR(lr_match_host(m), "www.example.com");
    EXPECT_STR(lr_match_port(m), "8443");
    EXPECT_STR(lr_match_path(m), "/p/7");
    EXPECT_STR(lr_match_fragment(m), "Top");
    EXPECT_STR(lr_match_name(m), "product");
    EXPECT_STR(lr_match_metadata(m), "{\"auth\":\"false\"}");

    /* Merged: path id, then query keys by first appearance (tab=b, last wins), from overridden by the extra. */
    EXPECT_INT(lr_match_param_count(m), 4);
    EXPECT_STR(lr_match_param_name(m, 0), "id");
    EXPECT_STR(lr_match_param_value(m, 0), "7");
    EXPECT_STR(lr_match_param_name(m, 1), "tab");
    EXPECT_STR(lr_match_param_value(m, 1), "b");
    EXPECT_STR(lr_match_param_name(m, 2), "from");
    EXPECT_STR(lr_match_param_value(m, 2), "push");
    EXPECT_STR(lr_match_param_name(m, 3), "info[n]");
    EXPECT_STR(lr_match_param_value(m, 3), "体");
    EXPECT_STR(lr_match_param_name(m, 4), NULL);
    EXPECT_STR(lr_match_param_value(m, (size_t)-1), NULL);
    EXPECT_STR(lr_match_get(m, "id"), "7");
    EXPECT_STR(lr_match_get(m, "from"), "push");
    EXPECT_STR(lr_match_get(m, "nope"), NULL);
    EXPECT_STR(lr_match_get(m, NULL), NULL);

    EXPECT_INT(lr_match_query_count(m), 4);
    EXPECT_STR(lr_match_query_name(m, 0), "tab");
    EXPECT_STR(lr_match_query_value(m, 0), "a");
    EXPECT_STR(lr_match_query_value(m, 1), "b");
    EXPECT_STR(lr_match_query_value(m, 2), "q");
    EXPECT_STR(lr_match_query_name(m, 4), NULL);

    EXPECT_INT(lr_match_to_json(m, &json), LR_OK);
    EXPECT_STR(json,
               "{\"target\":\"Product\",\"pattern\":\"https://www.example.com/p/:id\","
               "\"url\":\"HTTPS://WWW.Example.com:8443/p/7?tab=a&tab=b&from=q&info[n]=%E4%BD%93#Top\","
               "\"rewritten\":\"HTTPS://WWW.Example.com:8443/p/7?tab=a&tab=b&from=q&info[n]=%E4%BD%93#Top\","
               "\"scheme\":\"https\",\"host\":\"www.example.com\",\"port\":\"8443\",\"path\":\"/p/7\",\"fragment\":\"Top\","
               "\"name\":\"product\",\"meta\":{\"auth\":\"false\"},"
               "\"params\":{\"id\":\"7\",\"tab\":\"b\",\"from\":\"push\",\"info\":{\"n\":\"体\"}},"
               "\"query\":[[\"tab\",\"a\"],[\"tab\",\"b\"],[\"from\",\"q\"],[\"info[n]\",\"体\"]]}");
    lr_string_free(json);
    EXPECT_INT(lr_match_to_json(m, NULL), LR_EMISUSE);
    lr_match_free(m);
}

static void test_bulk_add(void)
{
    lr_router *r;
    size_t failed = 99, n;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    const char *patterns[] = {"app://a", "app://b/:x", "app://b/:y", "app://c"};
    const char *targets[] = {"A", "B", "dup", "C"};
    EXPECT_INT(lr_router_add_many(r, patterns, targets, 4, &failed), LR_ECONFLICT);
    EXPECT_INT(failed, 2);
    EXPECT_STR(lr_last_error(),
               "route 2: pattern 'app://b/:y' conflicts with route 1 of this batch ('app://b/:x'): both match exactly the "
               "same URLs");
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 0); /* all or none */
    EXPECT_INT(lr_router_add_many(r, patterns, targets, 2, &failed), LR_OK);
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 2);
    /* A batch of one is a batch: its refused item is named and its index set (they were not: the Go/Java review). */
    const char *bad[] = {"app://x//y"}, *one_target[] = {"X"}, *bad_rule[] = {"(unclosed"};
    failed = 99;
    EXPECT_INT(lr_router_add_many(r, bad, one_target, 1, &failed), LR_EPATTERN);
    EXPECT_INT(failed, 0);
    EXPECT_STR(lr_last_error(), "route 0: malformed pattern 'app://x//y' at byte 8: empty segment ('//' in a pattern)");
    failed = 99;
    EXPECT_INT(lr_router_add_rewrites(r, bad_rule, one_target, 1, &failed), LR_EREGEX);
    EXPECT_INT(failed, 0);
    EXPECT_STR(lr_last_error(),
               "rewrite rule 0: invalid rewrite regex '(unclosed' at byte 9: missing closing parenthesis (PCRE2 error 114)");
    /* A single add's error is its own. */
    EXPECT_INT(lr_router_add(r, bad[0], "X"), LR_EPATTERN);
    EXPECT_STR(lr_last_error(), "malformed pattern 'app://x//y' at byte 8: empty segment ('//' in a pattern)");
    EXPECT_INT(lr_router_clear(r), LR_OK);
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 0);
    lr_router_free(r);
}

static uint32_t word(const unsigned char *buf, size_t i)
{
    const unsigned char *p = buf + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* String k of a packed result, copied into `out` (NUL-terminated) for comparison. */
static const char *packed_string(const unsigned char *buf, size_t k, char *out, size_t cap)
{
    uint32_t off = word(buf, 8 + 2 * k), len = word(buf, 8 + 2 * k + 1);
    if (len >= cap) len = (uint32_t)cap - 1;
    memcpy(out, buf + off, len);
    out[len] = 0;
    return out;
}

static void test_zero_allocation_and_packed(void)
{
    lr_router *r;
    lr_result res;
    lr_param_ref params[8];
    char scratch[LR_SCRATCH_SIZE(128)];
    size_t len;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:id/:tab", "User"), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://files/*path", "Files"), LR_OK);

    const char *url = "app://user/%E4%BD%93/posts?id=7&q=a+b&q=%41&flag";
    EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, 8, scratch, sizeof scratch), LR_OK);
    EXPECT_STR(res.target, "User");
    EXPECT_INT(res.target_len, 4);
    EXPECT_STR(res.pattern, "app://user/:id/:tab");
    EXPECT_INT(res.routed == url, 1);
    EXPECT_INT(res.rewritten, 0);
    EXPECT_INT(res.path_param_count, 2);
    EXPECT_INT(res.param_count, 5); /* id, tab, then q, q, flag (the query's id is taken by the path) */
    EXPECT_INT(params[0].name_len == 2 && memcmp(params[0].name, "id", 2) == 0, 1);
    EXPECT_INT(params[0].value_len == 3 && memcmp(params[0].value, "体", 3) == 0, 1);
    EXPECT_INT(params[1].value == url + 21, 1); /* "posts": no decoding, so a pointer into the URL */
    EXPECT_INT(params[2].value_len == 3 && memcmp(params[2].value, "a+b", 3) == 0, 1);
    EXPECT_INT(params[3].value_len == 1 && params[3].value[0] == 'A', 1);
    EXPECT_INT(params[4].name_len == 4 && params[4].value_len == 0, 1);
    EXPECT_INT(lr_result_get(&res, params, "id", &len) == params[0].value, 1);
    EXPECT_INT(lr_result_get(&res, params, "q", &len) == params[3].value, 1); /* the last q wins */
    EXPECT_INT(len, 1);
    EXPECT_INT(lr_result_get(&res, params, "nope", &len) == NULL, 1);

    /* Not NUL-terminated input: only url_len bytes are read. */
    EXPECT_INT(lr_router_resolve_into(r, "app://files/a/bXXXX", 15, &res, params, 8, scratch, sizeof scratch), LR_OK);
    EXPECT_INT(params[0].value_len == 3 && memcmp(params[0].value, "a/b", 3) == 0, 1);

    /* Too little room: LR_ELIMIT with the sizes that suffice, then a retry works. */
    EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, 2, scratch, sizeof scratch), LR_ELIMIT);
    EXPECT_INT(res.needed_params, 6);
    EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, 8, scratch, 10), LR_ELIMIT);
    EXPECT_INT(res.needed_scratch >= LR_SCRATCH_SIZE(strlen(url)), 1);
    EXPECT_INT(lr_router_resolve_into(r, "app://none", 10, &res, params, 8, scratch, sizeof scratch), LR_NOMATCH);
    EXPECT_INT(lr_router_resolve_into(r, "nourl", 5, &res, params, 8, scratch, sizeof scratch), LR_EINVAL);
    EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), NULL, params, 8, scratch, sizeof scratch), LR_EMISUSE);
    EXPECT_INT(lr_router_resolve_into(r, NULL, 3, &res, params, 8, scratch, sizeof scratch), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_resolve_into: url is NULL");
    EXPECT_INT(lr_router_resolve_into(r, NULL, SIZE_MAX, &res, params, 8, scratch, sizeof scratch), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_resolve_into: url length is out of range");
    EXPECT_INT(lr_router_resolve_into(r, url, SIZE_MAX, &res, params, 8, scratch, sizeof scratch), LR_EMISUSE);
    EXPECT_STR(lr_last_error(), "lr_router_resolve_into: url length is out of range");

    /* Rewritten URLs live in scratch. */
    EXPECT_INT(lr_router_add_rewrite(r, "^old://(\\w+)", "app://files/$1/x"), LR_OK);
    EXPECT_INT(lr_router_resolve_into(r, "old://doc", 9, &res, params, 8, scratch, sizeof scratch), LR_OK);
    EXPECT_INT(res.rewritten, 1);
    EXPECT_INT(res.routed_len == 17 && memcmp(res.routed, "app://files/doc/x", 17) == 0, 1);

    /* Packed */
    unsigned char buf[512];
    char s[64];
    size_t needed = 0;
    EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), buf, sizeof buf, &needed), LR_OK);
    EXPECT_INT(word(buf, 0), needed);
    EXPECT_INT(word(buf, 2), 0);               /* flags */
    EXPECT_INT(word(buf, 4), 2);               /* P */
    EXPECT_INT(word(buf, 5), 4);               /* Q: every pair */
    EXPECT_INT(word(buf, 6), 10 + 4 + 8);      /* S */
    EXPECT_STR(packed_string(buf, 0, s, sizeof s), "User");
    EXPECT_STR(packed_string(buf, 1, s, sizeof s), "app://user/:id/:tab");
    EXPECT_STR(packed_string(buf, 5, s, sizeof s), "app");
    EXPECT_STR(packed_string(buf, 6, s, sizeof s), "user");
    EXPECT_STR(packed_string(buf, 10, s, sizeof s), "id");
    EXPECT_STR(packed_string(buf, 12, s, sizeof s), "体");
    EXPECT_STR(packed_string(buf, 14, s, sizeof s), "id");   /* first query key */
    EXPECT_STR(packed_string(buf, 15, s, sizeof s), "7");
    EXPECT_STR(packed_string(buf, 19, s, sizeof s), "A");
    EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), buf, 20, &needed), LR_ELIMIT);
    EXPECT_INT(needed > 20, 1);
    EXPECT_INT(lr_router_resolve_packed(r, "app://none", 10, buf, sizeof buf, &needed), LR_NOMATCH);
    EXPECT_INT(lr_router_resolve_packed(r, "old://doc", 9, buf, sizeof buf, &needed), LR_OK);
    EXPECT_INT(word(buf, 2), 1);
    EXPECT_STR(packed_string(buf, 4, s, sizeof s), "app://files/doc/x");
    lr_router_free(r);
}

/* lr_last_error is per thread: a failure in another thread does not change this thread's message. */
static void *fail_in_thread(void *arg)
{
    lr_router *r = arg;
    lr_match *m;
    lr_router_resolve(r, "not-a-url", &m);
    return strcmp(lr_last_error(), "'not-a-url' is not an absolute URL: it needs a scheme, as in 'app://...'") == 0 ? NULL : (void *)1;
}

static void test_errors_are_per_thread(void)
{
    lr_router *r;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://a//", "X"), LR_EPATTERN);
    pthread_t t;
    void *result;
    pthread_create(&t, NULL, fail_in_thread, r);
    pthread_join(t, &result);
    EXPECT_INT(result == NULL, 1);
    EXPECT_STR(lr_last_error(), "malformed pattern 'app://a//' at byte 8: empty segment ('//' in a pattern)");
    lr_router_free(r);
}

/* Threads resolve while one adds and removes: stable routes always answer right, churned ones right or not at all. */
struct shared {
    lr_router *router;
    int wrong;
    pthread_mutex_t lock;
};

static void *reader(void *arg)
{
    struct shared *sh = arg;
    char url[64];
    for (int k = 0; k < 20000; k++) {
        lr_match *m;
        snprintf(url, sizeof url, "app://stable/%d/v%d", k % 50, k);
        int rc = lr_router_resolve(sh->router, url, &m);
        int ok = rc == LR_OK && strcmp(lr_match_target(m), "stable") == 0;
        if (rc == LR_OK) lr_match_free(m);
        snprintf(url, sizeof url, "app://churn/%d", k % 100);
        rc = lr_router_resolve(sh->router, url, &m);
        if (rc == LR_OK) {
            char want[32];
            snprintf(want, sizeof want, "churn%d", k % 100);
            ok = ok && strcmp(lr_match_target(m), want) == 0;
            lr_match_free(m);
        } else {
            ok = ok && rc == LR_NOMATCH;
        }
        if (!ok) {
            pthread_mutex_lock(&sh->lock);
            sh->wrong++;
            pthread_mutex_unlock(&sh->lock);
        }
    }
    return NULL;
}

static void *writer(void *arg)
{
    struct shared *sh = arg;
    char pattern[64], target[32];
    for (int round = 0; round < 20; round++)
        for (int i = 0; i < 100; i++) {
            snprintf(pattern, sizeof pattern, "app://churn/%d", i);
            snprintf(target, sizeof target, "churn%d", i);
            if (lr_router_add(sh->router, pattern, target) != LR_OK || lr_router_remove(sh->router, pattern) != LR_OK) {
                pthread_mutex_lock(&sh->lock);
                sh->wrong++;
                pthread_mutex_unlock(&sh->lock);
            }
        }
    return NULL;
}

static void test_threads(void)
{
    struct shared sh = {NULL, 0, PTHREAD_MUTEX_INITIALIZER};
    EXPECT_INT(lr_router_new(&sh.router), LR_OK);
    char pattern[64];
    for (int i = 0; i < 50; i++) {
        snprintf(pattern, sizeof pattern, "app://stable/%d/:id", i);
        EXPECT_INT(lr_router_add(sh.router, pattern, "stable"), LR_OK);
    }
    pthread_t threads[4];
    pthread_create(&threads[0], NULL, writer, &sh);
    for (int i = 1; i < 4; i++) pthread_create(&threads[i], NULL, reader, &sh);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    EXPECT_INT(sh.wrong, 0);
    size_t n;
    EXPECT_INT(lr_router_count(sh.router, &n), LR_OK);
    EXPECT_INT(n, 50);
    lr_router_free(sh.router);
}

/* Every parameter present in a result has non-NULL name and value pointers, however empty (an empty catch-all,
   a bare query key, "k=", "=v"), and lr_result_get finds it (NULL means absent). Each row runs in the quick lane
   and, with a rewrite rule that fires on nothing, in the general path. (B42) */
static void test_empty_values(void)
{
    static const struct { const char *url, *name, *value; size_t count; } rows[] = {
        {"app://files?flag&x=&=v", "path", "", 4}, /* empty catch-all */
        {"app://files?flag&x=&=v", "flag", "", 4}, /* bare key */
        {"app://files?flag&x=&=v", "x", "", 4},    /* k= */
        {"app://files?flag&x=&=v", "", "v", 4},    /* =v: an empty name */
        {"app://files/a?k=", "k", "", 2},
        {"app://files/a?flag", "flag", "", 2},
        {"app://files/a?%41", "A", "", 2},         /* a decoded bare key */
        {"app://user/7?=", "", "", 2},             /* empty name and value */
    };
    for (int lane = 0; lane < 2; lane++) {
        lr_router *r;
        EXPECT_INT(lr_router_new(&r), LR_OK);
        EXPECT_INT(lr_router_add(r, "app://files/*path", "Files"), LR_OK);
        EXPECT_INT(lr_router_add(r, "app://user/:id", "User"), LR_OK);
        if (lane == 1) EXPECT_INT(lr_router_add_rewrite(r, "^never://", "app://x"), LR_OK);
        for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
            lr_result res;
            lr_param_ref ps[8];
            char scratch[LR_SCRATCH_SIZE(64)];
            memset(ps, 0, sizeof ps);
            const char *url = rows[k].url;
            EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, ps, 8, scratch, sizeof scratch), LR_OK);
            EXPECT_INT(res.param_count, rows[k].count);
            for (size_t i = 0; i < res.param_count && i < 8; i++) {
                if (ps[i].name == NULL || ps[i].value == NULL) {
                    fprintf(stderr, "%s:%d: lane %d, %s: params[%zu] has a NULL %s\n", __FILE__, __LINE__, lane, url,
                            i, ps[i].name == NULL ? "name" : "value");
                    failures++;
                }
            }
            size_t n = 99;
            const char *v = lr_result_get(&res, ps, rows[k].name, &n);
            if (v == NULL || n != strlen(rows[k].value) || memcmp(v, rows[k].value, n) != 0) {
                fprintf(stderr, "%s:%d: lane %d, %s: lr_result_get(\"%s\") = %s (len %zu), expected \"%s\"\n",
                        __FILE__, __LINE__, lane, url, rows[k].name, v ? "a value" : "NULL", n, rows[k].value);
                failures++;
            }
            EXPECT_INT(lr_result_get(&res, ps, "absent", &n) == NULL, 1);
            /* lr_router_resolve agrees. */
            lr_match *m = NULL;
            EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
            EXPECT_STR(lr_match_get(m, rows[k].name), rows[k].value);
            lr_match_free(m);
        }
        lr_router_free(r);
    }
}

/* After LR_ELIMIT for want of room, ONE call with exactly the sizes reported succeeds: whichever of params and
   scratch was short, with decoding, with a rule that fires (its output in scratch). (B43) */
static void test_needed_suffices(void)
{
    static const char pairs20[] = "app://user/42?k0=%41%42&k1=v1&k2=%43&k3=v3&k4=v4&k5=v5&k6=%44%45%46&k7=v7&k8=v8"
                                  "&k9=v9&k10=v10&k11=v11&k12=%41&k13=v13&k14=v14&k15=v15&k16=v16&k17=v17&k18=v18&k19=%5A";
    static const struct {
        const char *routes[2], *match, *target, *url;
        size_t params_cap, scratch_cap;
    } rows[] = {
        {{"app://user/:id"}, NULL, NULL, "app://user/42?a=1&b=2&c=3", 2, LR_SCRATCH_SIZE(64)},
        {{"app://user/:id"}, NULL, NULL, "app://user/42?a=%41%42%43%44&b=%45%46%47", 1, 512},
        {{"app://user/:id"}, NULL, NULL, "app://user/4%32?a=%41%42&b=%43&id=9&c=x", 0, 0},
        {{"app://user/:id"}, NULL, NULL, "app://user/42?a=1", 8, 10},
        {{"app://user/:id"}, NULL, NULL, pairs20, 16, LR_SCRATCH_SIZE(512)}, /* the header's example sizes */
        {{"app://user/:id"}, NULL, NULL, pairs20, 0, 0},
        {{"app://files/*path", "app://user/:id"}, NULL, NULL, "app://files/a/%62/c?x=%31&y=2", 1, LR_SCRATCH_SIZE(64)},
        {{"app://user/:id"}, "^old://(\\w+)", "app://user/$1?a=%41%42&b=%43&c=3", "old://doc", 1, 512},
        {{"app://user/:id"}, "^old://(\\w+)", "app://user/$1?a=%41%42&b=%43&c=3", "old://doc", 8, 4},
        {{"app://user/:id"}, "^old://(\\w+)", "app://user/$1?a=%41%42&b=%43&c=3", "old://doc", 0, 0},
        {{"app://user/:id", "app://files/*path"}, "^s://(.*)", "app://files/$1?$1=$1", "s://a%41&b=%42&c=%43", 1, 64},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        lr_router *r;
        EXPECT_INT(lr_router_new(&r), LR_OK);
        for (int i = 0; i < 2 && rows[k].routes[i]; i++) EXPECT_INT(lr_router_add(r, rows[k].routes[i], "T"), LR_OK);
        if (rows[k].match) EXPECT_INT(lr_router_add_rewrite(r, rows[k].match, rows[k].target), LR_OK);
        const char *url = rows[k].url;
        lr_result res;
        lr_param_ref *ps = malloc((rows[k].params_cap ? rows[k].params_cap : 1) * sizeof *ps);
        char *scratch = malloc(rows[k].scratch_cap ? rows[k].scratch_cap : 1);
        int rc = lr_router_resolve_into(r, url, strlen(url), &res, rows[k].params_cap ? ps : NULL, rows[k].params_cap,
                                        rows[k].scratch_cap ? scratch : NULL, rows[k].scratch_cap);
        if (rc != LR_ELIMIT) {
            fprintf(stderr, "%s:%d: row %zu (%s): first call %d, expected LR_ELIMIT\n", __FILE__, __LINE__, k, url, rc);
            failures++;
        }
        size_t np = res.needed_params, ns = res.needed_scratch;
        EXPECT_INT(np > rows[k].params_cap || ns > rows[k].scratch_cap, 1); /* a shortfall, not a limit */
        free(ps);
        free(scratch);
        ps = malloc((np ? np : 1) * sizeof *ps);
        scratch = malloc(ns ? ns : 1);
        rc = lr_router_resolve_into(r, url, strlen(url), &res, np ? ps : NULL, np, ns ? scratch : NULL, ns);
        if (rc != LR_OK) {
            fprintf(stderr, "%s:%d: row %zu (%s): first (%zu, %zu) asked for (%zu, %zu); the retry with those: %d (%s)\n",
                    __FILE__, __LINE__, k, url, rows[k].params_cap, rows[k].scratch_cap, np, ns, rc, lr_last_error());
            failures++;
        }
        free(ps);
        free(scratch);
        lr_router_free(r);
    }
}

/* LR_ELIMIT for a limit no buffer cures: lr_router_resolve_packed sets *needed to 0 (so *needed <= cap tells it
   from a short buffer), lr_router_resolve_into sets needed_params and needed_scratch to 0. (B44) */
/* NULL params or scratch go with a zero capacity only: with a capacity they are LR_EMISUSE, on every URL (a
   retry with the needs an LR_ELIMIT would report could not help). */
static void test_null_with_capacity(void)
{
    lr_router *r;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:id", "User"), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://home", "Home"), LR_OK);
    const char *urls[] = {"app://user/42", "app://home", "app://home?a=1", "app://nowhere"};
    lr_param_ref ps[8];
    char scratch[LR_SCRATCH_SIZE(64)];
    for (size_t k = 0; k < sizeof urls / sizeof urls[0]; k++) {
        lr_result res;
        EXPECT_INT(lr_router_resolve_into(r, urls[k], strlen(urls[k]), &res, NULL, 8, scratch, sizeof scratch), LR_EMISUSE);
        EXPECT_STR(lr_last_error(), "lr_router_resolve_into: params is NULL but params_cap is 8");
        EXPECT_INT(lr_router_resolve_into(r, urls[k], strlen(urls[k]), &res, ps, 8, NULL, 100), LR_EMISUSE);
        EXPECT_STR(lr_last_error(), "lr_router_resolve_into: scratch is NULL but scratch_cap is 100");
        size_t needed = 12345;
        EXPECT_INT(lr_router_resolve_packed(r, urls[k], strlen(urls[k]), NULL, 64, &needed), LR_EMISUSE);
        EXPECT_STR(lr_last_error(), "lr_router_resolve_packed: buf is NULL but cap is 64");
        EXPECT_INT(needed, 0);
        EXPECT_INT(lr_router_resolve_packed(r, urls[k], strlen(urls[k]), NULL, 0, &needed), k == 3 ? LR_NOMATCH : LR_ELIMIT);
        EXPECT_INT(needed > 0, k == 3 ? 0 : 1);
    }
    lr_router_free(r);
}

static void test_needed_after_limit(void)
{
    lr_router *r;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:id", "User"), LR_OK);
    static const struct { int limit; size_t value; const char *url; } rows[] = {
        {LR_LIMIT_URL_LENGTH, 10, "app://user/42"},
        {LR_LIMIT_PARAMS, 2, "app://user/42?a=1&b=2&c=3"},
        {LR_LIMIT_SEGMENTS, 1, "app://user/42"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        EXPECT_INT(lr_router_set_limit(r, rows[k].limit, rows[k].value), LR_OK);
        const char *url = rows[k].url;
        unsigned char buf[512];
        size_t needed = 12345;
        EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), buf, sizeof buf, &needed), LR_ELIMIT);
        EXPECT_INT(needed, 0);
        needed = 12345;
        EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), NULL, 0, &needed), LR_ELIMIT);
        EXPECT_INT(needed, 0);
        lr_result res;
        lr_param_ref ps[8];
        char scratch[LR_SCRATCH_SIZE(64)];
        memset(&res, 0xAB, sizeof res);
        EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, ps, 8, scratch, sizeof scratch), LR_ELIMIT);
        EXPECT_INT(res.needed_params, 0);
        EXPECT_INT(res.needed_scratch, 0);
        memset(&res, 0xAB, sizeof res);
        EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, NULL, 0, NULL, 0), LR_ELIMIT);
        EXPECT_INT(res.needed_params, 0);
        EXPECT_INT(res.needed_scratch, 0);
        EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 65536), LR_OK);
        EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_PARAMS, 1024), LR_OK);
        EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, 1024), LR_OK);
    }
    /* A short buffer still says so: *needed > cap. */
    size_t needed = 0;
    EXPECT_INT(lr_router_resolve_packed(r, "app://user/42", 13, NULL, 0, &needed), LR_ELIMIT);
    EXPECT_INT(needed > 0, 1);
    lr_router_free(r);
}

/* Many path parameters and many query pairs (the hash-table filter of the query's keys, B45): the parameters
   equal those of a naive filter — the path's, then each pair whose key no path parameter takes, in order — and
   lr_router_resolve's view. Counts below and above the filter's threshold, in the quick lane and the general
   path. */
static void check_many(int n, int pairs, int lane)
{
    lr_router *r;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, (size_t)n + 10), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_PARAMS, (size_t)pairs + 10), LR_OK);
    char *pat = malloc((size_t)n * 12 + 32), *url = malloc((size_t)(n + pairs) * 24 + 32);
    size_t o = (size_t)sprintf(pat, "app://h");
    for (int i = 0; i < n; i++) o += (size_t)sprintf(pat + o, "/:p%d", i);
    EXPECT_INT(lr_router_add(r, pat, "T"), LR_OK);
    if (lane == 1) EXPECT_INT(lr_router_add_rewrite(r, "^never://", "app://x"), LR_OK);
    o = (size_t)sprintf(url, "app://h");
    for (int i = 0; i < n; i++) o += (size_t)sprintf(url + o, "/v%d", i);
    url[o++] = '?';
    /* Keys: a path name (every third), a repeated key, a fresh key, an empty value. */
    for (int j = 0; j < pairs; j++) {
        if (j % 3 == 0) o += (size_t)sprintf(url + o, "p%d=x%d&", (j * 7) % (n + 3), j); /* some p's are not names */
        else if (j % 3 == 1) o += (size_t)sprintf(url + o, "q=y%d&", j);
        else o += (size_t)sprintf(url + o, "k%d=&", j);
    }
    url[--o] = 0;
    size_t pcap = (size_t)(n + pairs), scap = LR_SCRATCH_SIZE(o);
    lr_param_ref *ps = malloc(pcap * sizeof *ps);
    char *scratch = malloc(scap);
    lr_result res;
    EXPECT_INT(lr_router_resolve_into(r, url, o, &res, ps, pcap, scratch, scap), LR_OK);
    EXPECT_INT(res.path_param_count, n);
    /* The naive filter, over the URL's own text. */
    size_t expected = (size_t)n, mismatches = 0;
    const char *q = strchr(url, '?') + 1;
    while (*q) {
        const char *amp = strchr(q, '&'), *end = amp ? amp : q + strlen(q), *eq = memchr(q, '=', (size_t)(end - q));
        size_t klen = (size_t)(eq - q);
        int taken = 0;
        if (klen > 1 && q[0] == 'p') {
            int idx = atoi(q + 1);
            taken = idx < n;
        }
        if (!taken) {
            if (expected >= res.param_count || ps[expected].name_len != klen || memcmp(ps[expected].name, q, klen) != 0
                || ps[expected].value_len != (size_t)(end - eq - 1) || memcmp(ps[expected].value, eq + 1, ps[expected].value_len) != 0)
                mismatches++;
            expected++;
        }
        q = amp ? amp + 1 : end;
    }
    if (mismatches || expected != res.param_count) {
        fprintf(stderr, "%s:%d: n=%d pairs=%d lane %d: %zu parameters, expected %zu; %zu differ\n", __FILE__, __LINE__,
                n, pairs, lane, res.param_count, expected, mismatches);
        failures++;
    }
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
    const char *names[] = {"p0", "p1", "q", "k2", "p5"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t len = 0;
        const char *v = lr_result_get(&res, ps, names[i], &len), *w = lr_match_get(m, names[i]);
        EXPECT_INT((v == NULL) == (w == NULL) && (!v || (len == strlen(w) && memcmp(v, w, len) == 0)), 1);
    }
    lr_match_free(m);
    free(ps);
    free(scratch);
    free(pat);
    free(url);
    lr_router_free(r);
}

/* The host a match reports (lr_match_host, and string 6 of a packed result) is the host the routes compared:
   percent-decoded and lower-cased, so a guard comparing it sees what the routes saw; as written (lower-cased)
   when its decoding is malformed, not UTF-8, or holds a NUL (which would cut the C string short). */
static void test_reported_host(void)
{
    lr_router *r;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "https://ads.example.net/:page", "Ads"), LR_OK);
    EXPECT_INT(lr_router_add(r, "https://*rest", "Any"), LR_OK);
    static const struct { const char *url, *target, *host; } rows[] = {
        {"https://ads.example.net/landing", "Ads", "ads.example.net"},
        {"https://%61ds.example.net/landing", "Ads", "ads.example.net"},
        {"https://ADS%2Eexample.net/landing", "Ads", "ads.example.net"},
        {"https://%41ds.example.net/landing?x=1", "Ads", "ads.example.net"},
        {"https://u@%61ds.Example.net:8443/landing#f", "Ads", "ads.example.net"},
        {"https://good.com%00.evil.com/x", "Any", "good.com%00.evil.com"},
        {"https://%ZZ.com/x", "Any", "%zz.com"},
        {"https://%FF.com/x", "Any", "%ff.com"},
        {"https://%C3%A9T%C3%A9.fr/x?q=1", "Any", "\xc3\xa9t\xc3\xa9.fr"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        const char *url = rows[k].url;
        lr_match *m = NULL;
        EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
        if (!m) continue;
        EXPECT_STR(lr_match_target(m), rows[k].target);
        EXPECT_STR(lr_match_host(m), rows[k].host);
        lr_match_free(m);
        unsigned char buf[512];
        char s[64];
        size_t needed = 0;
        EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), buf, sizeof buf, &needed), LR_OK);
        EXPECT_INT(word(buf, 0), needed);
        EXPECT_STR(packed_string(buf, 6, s, sizeof s), rows[k].host);
        EXPECT_STR(packed_string(buf, 0, s, sizeof s), rows[k].target);
    }
    lr_router_free(r);
}

static void test_many_parameters(void)
{
    static const int sizes[][2] = {{1, 30}, {8, 30}, {9, 8}, {9, 9}, {12, 40}, {15, 100}, {40, 40}, {300, 900}, {3000, 3000}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int lane = 0; lane < 2; lane++) check_many(sizes[k][0], sizes[k][1], lane);
}

int main(void)
{
    test_version_and_codes();
    test_null_safety();
    test_status_codes();
    test_match_accessors_and_ownership();
    test_bulk_add();
    test_zero_allocation_and_packed();
    test_empty_values();
    test_needed_suffices();
    test_needed_after_limit();
    test_null_with_capacity();
    test_many_parameters();
    test_reported_host();
    test_errors_are_per_thread();
    test_threads();
    if (failures) {
        fprintf(stderr, "test_abi: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_abi: all passed\n");
    return 0;
}
