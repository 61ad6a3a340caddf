/*
 * test_extremes.c -- every length argument at its extremes, every limit at its maximum, and every stored length at
 * its bound, each with the exact status expected (issue 14, "never crash, never hold on").
 *
 *   lengths     2^31, 2^32, 2^60, 2^62, 2^63 and SIZE_MAX for every size_t argument of the ABI, and the URL limit
 *               +-1: a length is checked against its limit before anything is read, sized or allocated from it
 *               (lr_router_resolve_packed with url_len 2^40 aborted the host, 2^60 trapped)
 *   limits      each LR_LIMIT_* at the largest value it accepts (and one more, refused), lookups still exact
 *   routes      a pattern, target, name or metadata of 64 MiB is stored, one byte more is LR_ELIMIT; a pattern of
 *               65,535 parameters is stored, 65,536 is LR_ELIMIT (the table counts them in 16 bits)
 *   results     lr_result_get on a caller-filled lr_result whose counts no lookup writes: NULL, not a trap
 *   messages    each function's errors name that function
 *   stacks      the deepest inputs the limits allow, on a thread with a 512 KiB stack
 *
 * Run by `make test` and, under ASan, TSan and valgrind, by `make reliability`.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkrouter.h"
#include "match_json.h"

static int failures;

#define EXPECT_INT(actual, expected)                                                                        \
    do {                                                                                                     \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                                      \
        if (a_ != e_) {                                                                                      \
            fprintf(stderr, "test_extremes.c:%d: %s = %lld, expected %lld [last error: %.300s]\n", __LINE__, \
                    #actual, a_, e_, lr_last_error());                                                       \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

#define EXPECT_TRUE(cond, what)                                                                             \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "test_extremes.c:%d: %s [last error: %.300s]\n", __LINE__, what, lr_last_error()); \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

/* lr_last_error() is `expected`, whole. */
#define EXPECT_ERROR(expected)                                                                              \
    do {                                                                                                     \
        const char *a_ = lr_last_error(), *e_ = (expected);                                                  \
        if (strcmp(a_, e_) != 0) {                                                                           \
            fprintf(stderr, "test_extremes.c:%d: lr_last_error() = \"%.300s\", expected \"%.300s\"\n", __LINE__, a_, \
                    e_);                                                                                     \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

/* lr_last_error() is the printf-style `format` filled in, whole. */
#define EXPECT_ERRORF(format, ...)                                                                          \
    do {                                                                                                     \
        char want_[512];                                                                                     \
        snprintf(want_, sizeof want_, format, __VA_ARGS__);                                                  \
        EXPECT_ERROR(want_);                                                                                 \
    } while (0)

/* The fixed bounds of a stored route (Include/linkrouter.h, lr_router_add). */
#define MAX_ROUTE_TEXT ((size_t)1 << 26)
#define MAX_ROUTE_PARAMS 65535

/* The largest value each limit accepts (Include/linkrouter.h, enum lr_limit). */
static const struct { int limit; size_t max; const char *name; } maxima[] = {
    {LR_LIMIT_URL_LENGTH, (size_t)1 << 30, "URL_LENGTH"},
    {LR_LIMIT_SEGMENTS, (size_t)1 << 20, "SEGMENTS"},
    {LR_LIMIT_PARAMS, (size_t)1 << 24, "PARAMS"},
    {LR_LIMIT_NESTING, 256, "NESTING"},
    {LR_LIMIT_REGEX_MATCH, 0xFFFFFFFFu, "REGEX_MATCH"},
    {LR_LIMIT_REGEX_DEPTH, 0xFFFFFFFFu, "REGEX_DEPTH"},
    {LR_LIMIT_REGEX_START, (size_t)1 << 30, "REGEX_START"},
};
#define NMAXIMA (sizeof maxima / sizeof maxima[0])

/* A string of `n` bytes: `head`, then `fill` repeated. */
static char *filled(const char *head, char fill, size_t n)
{
    size_t h = strlen(head);
    char *s = malloc(n + 1);
    if (!s) { fprintf(stderr, "test_extremes: out of memory for %zu bytes\n", n); exit(2); }
    memcpy(s, head, h < n ? h : n);
    if (n > h) memset(s + h, fill, n - h);
    s[n] = 0;
    return s;
}

static lr_router *new_router(void)
{
    lr_router *r = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://user/:id", "User"), LR_OK);
    EXPECT_INT(lr_router_add(r, "app://files/*path", "Files"), LR_OK);
    return r;
}

/* ------------------------------------------------------------------------------------------------------------
 * Lengths
 * ------------------------------------------------------------------------------------------------------------ */

/* Lengths no URL of this router can have; the first four fit in a ptrdiff_t, the last two do not. */
static const struct { size_t value; const char *name; int url_status; } huge[] = {
    {(size_t)1 << 31, "2^31", LR_ELIMIT},
    {(size_t)1 << 32, "2^32", LR_ELIMIT},
    {(size_t)1 << 60, "2^60", LR_ELIMIT},
    {(size_t)1 << 62, "2^62", LR_ELIMIT},
    {(size_t)1 << 63, "2^63", LR_EMISUSE},
    {SIZE_MAX, "SIZE_MAX", LR_EMISUSE},
};
#define NHUGE (sizeof huge / sizeof huge[0])

/* The URL length of both length-taking lookups, at every extreme, with the limit at its default and at its
   maximum. The URL is 13 bytes: nothing past them may be read (ASan watches), and nothing sized from the length. */
static void test_url_lengths(void)
{
    lr_router *r = new_router();
    const char url[] = "app://user/42"; /* 13 bytes */
    lr_result res;
    lr_param_ref params[4];
    char scratch[256];
    unsigned char buf[512];
    size_t needed;
    for (int raised = 0; raised < 2; raised++) {
        if (raised) EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, (size_t)1 << 30), LR_OK);
        for (size_t i = 0; i < NHUGE; i++) {
            EXPECT_INT(lr_router_resolve_into(r, url, huge[i].value, &res, params, 4, scratch, sizeof scratch),
                       huge[i].url_status);
            EXPECT_INT(lr_router_resolve_packed(r, url, huge[i].value, buf, sizeof buf, &needed), huge[i].url_status);
        }
        size_t limit = 0;
        EXPECT_INT(lr_router_get_limit(r, LR_LIMIT_URL_LENGTH, &limit), LR_OK);
        EXPECT_INT(lr_router_resolve_into(r, url, limit + 1, &res, params, 4, scratch, sizeof scratch), LR_ELIMIT);
        EXPECT_ERRORF("URL of %zu bytes is longer than maxURLLength (LR_LIMIT_URL_LENGTH, %zu)", limit + 1, limit);
        EXPECT_INT(lr_router_resolve_packed(r, url, limit + 1, buf, sizeof buf, &needed), LR_ELIMIT);
        EXPECT_INT(lr_router_resolve_into(r, url, 13, &res, params, 4, scratch, sizeof scratch), LR_OK);
        EXPECT_INT(lr_router_resolve_packed(r, url, 13, buf, sizeof buf, &needed), LR_OK);
    }
    /* At the limit and one past it, with real bytes: the default limit, 65,536. */
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 65536), LR_OK);
    char *at = filled("app://files/", 'x', 65536), *past = filled("app://files/", 'x', 65537);
    size_t cap = LR_SCRATCH_SIZE(65537);
    char *big = malloc(cap);
    unsigned char *packed = malloc(cap);
    EXPECT_INT(lr_router_resolve_into(r, at, 65536, &res, params, 4, big, cap), LR_OK);
    EXPECT_INT(lr_router_resolve_packed(r, at, 65536, packed, cap, &needed), LR_OK);
    EXPECT_INT(lr_router_resolve_into(r, past, 65537, &res, params, 4, big, cap), LR_ELIMIT);
    EXPECT_INT(lr_router_resolve_packed(r, past, 65537, packed, cap, &needed), LR_ELIMIT);
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(r, at, &m), LR_OK);
    lr_match_free(m);
    EXPECT_INT(lr_router_resolve(r, past, &m), LR_ELIMIT);
    EXPECT_INT(lr_router_can_route(r, past), LR_ELIMIT);
    free(at);
    free(past);
    free(big);
    free(packed);
    lr_router_free(r);
}

/* Capacities: the caller's word for the room it has, refused only when no array of that size fits in memory
   (more than PTRDIFF_MAX bytes). Only what the lookup needs is written, whatever the capacity says. */
/* An open refused for its arguments never calls `done`. */
static void never_done(const lr_outcome *outcome, void *data)
{
    (void)outcome;
    (void)data;
    failures++;
    fprintf(stderr, "test_extremes.c: done called for a refused open\n");
}

static void test_capacities(void)
{
    lr_router *r = new_router();
    const char *url = "app://user/42?a=1";
    lr_result res;
    lr_param_ref params[4];
    char scratch[256];
    unsigned char buf[512];
    size_t needed;
    static const struct { size_t value; int params_status, bytes_status; } caps[] = {
        {(size_t)1 << 31, LR_OK, LR_OK},       {(size_t)1 << 32, LR_OK, LR_OK},
        {(size_t)1 << 60, LR_EMISUSE, LR_OK},  /* 2^60 lr_param_refs are 2^65 bytes */
        {(size_t)1 << 62, LR_EMISUSE, LR_OK},  {(size_t)1 << 63, LR_EMISUSE, LR_EMISUSE},
        {SIZE_MAX, LR_EMISUSE, LR_EMISUSE},
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, caps[i].value, scratch, sizeof scratch),
                   caps[i].params_status);
        if (caps[i].params_status == LR_OK) EXPECT_INT(res.param_count, 2);
        EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, 4, scratch, caps[i].value),
                   caps[i].bytes_status);
        EXPECT_INT(lr_router_resolve_packed(r, url, strlen(url), buf, caps[i].value, &needed), caps[i].bytes_status);
    }
    /* Counts of the bulk and extra arrays: at most INT32_MAX elements, so 2^31 and up cannot be real. */
    const char *one[] = {"app://bulk"}, *rule[] = {"^bulk://"}, *target[] = {"app://x"};
    lr_match *m = NULL;
    size_t failed = 7;
    for (size_t i = 0; i < NHUGE; i++) {
        EXPECT_INT(lr_router_add_many(r, one, target, huge[i].value, &failed), LR_EMISUSE);
        EXPECT_INT(lr_router_add_rewrites(r, rule, target, huge[i].value, &failed), LR_EMISUSE);
        EXPECT_INT(lr_router_resolve_with(r, url, one, target, huge[i].value, &m), LR_EMISUSE);
        EXPECT_TRUE(m == NULL, "no match after a refused count");
        /* The counts inside structs too (size_t fields, 2^63 and up included: they trapped, B50). */
        lr_open_options opts = {0};
        opts.extra_count = huge[i].value;
        void *opened = &failed;
        EXPECT_INT(lr_router_open(r, url, &opts, &opened), LR_EMISUSE);
        EXPECT_ERRORF("lr_router_open: extra_count %zu is out of range", huge[i].value);
        EXPECT_TRUE(opened == NULL, "no open result after a refused count");
        EXPECT_INT(lr_router_open_async(r, url, &opts, never_done, NULL), LR_EMISUSE);
        lr_route rt = {0};
        rt.pattern = "app://counted";
        rt.requires_count = huge[i].value;
        failed = 99;
        EXPECT_INT(lr_router_add_routes(r, &rt, 1, &failed), LR_EMISUSE);
        EXPECT_ERRORF("route 0: lr_router_add_routes: requires_count %zu is out of range", huge[i].value);
        EXPECT_INT(failed, 0);
        rt.requires_count = 0;
        rt.meta_count = huge[i].value;
        failed = 99;
        EXPECT_INT(lr_router_add_routes(r, &rt, 1, &failed), LR_EMISUSE);
        EXPECT_ERRORF("route 0: lr_router_add_routes: meta_count %zu is out of range", huge[i].value);
        EXPECT_INT(failed, 0);
        failed = 7;
    }
    EXPECT_INT(failed, 7); /* a refused count names no element */
    /* Counts in range but past the arrays' end (a caller's slip): the first NULL element is refused before
       anything is sized from the count. 2^30 and 2^31 - 1 aborted the host on a failed allocation of 16 or 32
       bytes per element (found by the limits review). */
    const size_t past[] = {(size_t)1 << 30, (size_t)INT32_MAX};
    const char *none[] = {NULL};
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        EXPECT_INT(lr_router_add_many(r, none, none, past[i], NULL), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "route 0: lr_router_add_many: patterns[0] is NULL") == 0, lr_last_error());
        EXPECT_INT(lr_router_add_rewrites(r, none, none, past[i], NULL), LR_EMISUSE);
        EXPECT_INT(lr_router_resolve_with(r, url, none, none, past[i], &m), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "extra 0: lr_router_resolve_with: names[0] is NULL") == 0, lr_last_error());
        EXPECT_INT(lr_router_resolve_with(r, url, one, none, past[i], &m), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "extra 0: lr_router_resolve_with: values[0] is NULL") == 0, lr_last_error());
        lr_open_options opts = {0};
        opts.extra_names = none;
        opts.extra_values = none;
        opts.extra_count = past[i];
        EXPECT_INT(lr_router_open(r, url, &opts, NULL), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "extra 0: lr_router_open: extra_names[0] is NULL") == 0, lr_last_error());
        EXPECT_INT(lr_router_open_async(r, url, &opts, never_done, NULL), LR_EMISUSE);
        char *built = NULL;
        EXPECT_INT(lr_router_build_url(r, "x", none, none, past[i], &built), LR_EMISUSE);
        EXPECT_TRUE(built == NULL, "no URL after a refused count");
        lr_route rt = {0};
        rt.pattern = "app://counted";
        rt.requires = none;
        rt.requires_count = past[i];
        EXPECT_INT(lr_router_add_routes(r, &rt, 1, NULL), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "route 0: guard 0: lr_router_add_routes: requires[0] is NULL") == 0, lr_last_error());
        rt.requires_count = 0;
        rt.meta_keys = none;
        rt.meta_values = none;
        rt.meta_count = past[i];
        EXPECT_INT(lr_router_add_routes(r, &rt, 1, NULL), LR_EMISUSE);
        EXPECT_TRUE(strcmp(lr_last_error(), "route 0: meta 0: lr_router_add_routes: meta_keys[0] is NULL") == 0, lr_last_error());
    }
    size_t n = 0;
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 2);
    /* Indexes: out of range gives NULL, at any size. */
    EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
    for (size_t i = 0; i < NHUGE; i++) {
        EXPECT_TRUE(lr_match_param_name(m, huge[i].value) == NULL && lr_match_param_value(m, huge[i].value) == NULL,
                    "a huge parameter index gives NULL");
        EXPECT_TRUE(lr_match_query_name(m, huge[i].value) == NULL && lr_match_query_value(m, huge[i].value) == NULL,
                    "a huge query index gives NULL");
    }
    lr_match_free(m);
    lr_router_free(r);
}

/* ------------------------------------------------------------------------------------------------------------
 * Limits at their maxima
 * ------------------------------------------------------------------------------------------------------------ */

static void test_limit_maxima(void)
{
    lr_router *r = new_router();
    for (size_t i = 0; i < NMAXIMA; i++) {
        size_t v = 0, before = 0;
        EXPECT_INT(lr_router_get_limit(r, maxima[i].limit, &before), LR_OK);
        EXPECT_INT(lr_router_set_limit(r, maxima[i].limit, maxima[i].max + 1), LR_EMISUSE);
        for (size_t k = 0; k < NHUGE; k++)
            if (huge[k].value > maxima[i].max) EXPECT_INT(lr_router_set_limit(r, maxima[i].limit, huge[k].value), LR_EMISUSE);
        EXPECT_INT(lr_router_get_limit(r, maxima[i].limit, &v), LR_OK);
        EXPECT_INT(v, before); /* a refused value changes nothing */
        EXPECT_INT(lr_router_set_limit(r, maxima[i].limit, maxima[i].max), LR_OK);
        EXPECT_INT(lr_router_get_limit(r, maxima[i].limit, &v), LR_OK);
        EXPECT_INT(v, maxima[i].max);
    }
    /* Every limit at its maximum at once: lookups give exactly what they give at the defaults. */
    EXPECT_INT(lr_router_add_rewrite(r, "^old://(.*)$", "app://$1"), LR_OK);
    EXPECT_INT(lr_router_add_rewrite(r, "^evil://(a+)+$", "app://evil"), LR_OK);
    static const struct { const char *url; int status; const char *target; } rows[] = {
        {"app://user/42?a[b][c]=1", LR_OK, "User"}, {"app://files/a/b", LR_OK, "Files"},
        {"old://user/7", LR_OK, "User"},           {"app://nothing", LR_NOMATCH, NULL},
        {"nourl", LR_EINVAL, NULL},                 {"app://user/\xff", LR_EINVAL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        lr_match *m = NULL;
        EXPECT_INT(lr_router_resolve(r, rows[i].url, &m), rows[i].status);
        if (m && rows[i].target) EXPECT_TRUE(strcmp(lr_match_target(m), rows[i].target) == 0, rows[i].url);
        char *json = NULL;
        if (m) EXPECT_INT(lr_match_to_json(m, &json), LR_OK);
        lr_string_free(json);
        lr_match_free(m);
        lr_result res;
        lr_param_ref params[8];
        char scratch[LR_SCRATCH_SIZE(64) + 256];
        EXPECT_INT(lr_router_resolve_into(r, rows[i].url, strlen(rows[i].url), &res, params, 8, scratch, sizeof scratch),
                   rows[i].status);
        unsigned char buf[1024];
        size_t needed;
        EXPECT_INT(lr_router_resolve_packed(r, rows[i].url, strlen(rows[i].url), buf, sizeof buf, &needed), rows[i].status);
    }
    /* With the regex limits at their maxima a catastrophic regex still ends: the start offsets and the subject
       are short. (At the defaults the same regex ends in LR_ELIMIT on a long subject: test_badinput.c.) */
    char *evil = repeat("evil://", "a", 20, "!");
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(r, evil, &m), LR_NOMATCH); /* no rule fires, and no route takes evil:// */
    free(evil);
    lr_router_free(r);
}

/* ------------------------------------------------------------------------------------------------------------
 * What a route stores
 * ------------------------------------------------------------------------------------------------------------ */

static void test_route_text(void)
{
    lr_router *r = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    /* Each of pattern, target, name and metadata: 64 MiB is stored, 64 MiB + 1 is refused with LR_ELIMIT before
       it is copied, and the message says which string and does not quote it whole. */
    static const char *const what[] = {"pattern", "target", "name", "metadata"};
    for (size_t k = 0; k < 4; k++) {
        for (size_t extra = 0; extra < 2; extra++) {
            size_t n = MAX_ROUTE_TEXT + extra;
            /* Metadata is a JSON object of strings: {"k":"xxx...x"}, n bytes in all. */
            char *big = filled(k == 0 ? "app://big/" : k == 3 ? "{\"k\":\"" : "", 'x', n);
            if (k == 3) memcpy(big + n - 2, "\"}", 2);
            const char *pattern = k == 0 ? big : "app://text";
            const char *target = k == 1 ? big : "T";
            const char *name = k == 2 ? big : NULL;
            const char *metadata = k == 3 ? big : NULL;
            int rc = lr_router_add_route(r, pattern, target, name, metadata);
            EXPECT_INT(rc, extra ? LR_ELIMIT : LR_OK);
            if (rc == LR_ELIMIT) {
                EXPECT_ERRORF("lr_router_add_route: %s of %zu bytes is longer than %zu bytes", what[k], n, MAX_ROUTE_TEXT);
            }
            if (rc == LR_OK) {
                lr_match *m = NULL;
                EXPECT_INT(lr_router_resolve(r, k == 0 ? "app://big/x" : "app://text", &m), k == 0 ? LR_NOMATCH : LR_OK);
                if (m && k == 1) EXPECT_INT(strlen(lr_match_target(m)), n);
                if (m && k == 3) EXPECT_INT(strlen(lr_match_metadata(m)), n);
                lr_match_free(m);
                EXPECT_INT(lr_router_remove(r, pattern), LR_OK);
            }
            /* The refusal through lr_router_add and lr_router_add_many too, for pattern and target. */
            if (k < 2 && extra) {
                EXPECT_INT(lr_router_add(r, pattern, target), LR_ELIMIT);
                EXPECT_ERRORF("lr_router_add: %s of %zu bytes is longer than %zu bytes", what[k], n, MAX_ROUTE_TEXT);
                const char *ps[] = {"app://ok", pattern}, *ts[] = {"OK", target};
                size_t failed = 9;
                EXPECT_INT(lr_router_add_many(r, ps, ts, 2, &failed), LR_ELIMIT);
                EXPECT_INT(failed, 1);
                EXPECT_ERRORF("route 1: lr_router_add_many: %ss[1] of %zu bytes is longer than %zu bytes", what[k], n,
                              MAX_ROUTE_TEXT);
            }
            free(big);
        }
    }
    size_t count = 1;
    EXPECT_INT(lr_router_count(r, &count), LR_OK);
    EXPECT_INT(count, 0);
    lr_router_free(r);
}

/* "app://p" then `n` parameters "/:p<i>". */
static char *params_pattern(size_t n)
{
    size_t cap = 16 + n * 10, o = 0;
    char *p = malloc(cap);
    o += (size_t)snprintf(p, cap, "app://p");
    for (size_t i = 0; i < n; i++) o += (size_t)snprintf(p + o, cap - o, "/:p%zu", i);
    return p;
}

static void test_route_params(void)
{
    lr_router *r = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, (size_t)1 << 20), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, (size_t)1 << 30), LR_OK);
    /* 65,535 parameters are stored and matched (the pattern parser is linear in them); 65,536 are refused. */
    char *p = params_pattern(MAX_ROUTE_PARAMS);
    EXPECT_INT(lr_router_add(r, p, "Many"), LR_OK);
    char *url = repeat("app://p", "/v", MAX_ROUTE_PARAMS, "");
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(r, url, &m), LR_OK);
    EXPECT_INT(lr_match_param_count(m), MAX_ROUTE_PARAMS);
    EXPECT_TRUE(m && strcmp(lr_match_param_name(m, MAX_ROUTE_PARAMS - 1), "p65534") == 0, "the last parameter's name");
    lr_match_free(m);
    size_t cap = MAX_ROUTE_PARAMS + 1, scap = LR_SCRATCH_SIZE(strlen(url));
    lr_param_ref *params = malloc(cap * sizeof *params);
    char *scratch = malloc(scap);
    lr_result res;
    EXPECT_INT(lr_router_resolve_into(r, url, strlen(url), &res, params, cap, scratch, scap), LR_OK);
    EXPECT_INT(res.path_param_count, MAX_ROUTE_PARAMS);
    size_t len = 0;
    EXPECT_TRUE(lr_result_get(&res, params, "p65534", &len) == params[MAX_ROUTE_PARAMS - 1].value && len == 1,
                "lr_result_get finds the last parameter");
    free(params);
    free(scratch);
    free(url);
    free(p);
    p = params_pattern(MAX_ROUTE_PARAMS + 1);
    EXPECT_INT(lr_router_add(r, p, "TooMany"), LR_ELIMIT);
    /* The message quotes the pattern's first 100 bytes and gives its size. */
    EXPECT_ERRORF("pattern '%.100s... (%zu bytes)' has more than 65535 parameters, the most a pattern may have (a fixed limit)", p, strlen(p));
    free(p);
    size_t n = 0;
    EXPECT_INT(lr_router_count(r, &n), LR_OK);
    EXPECT_INT(n, 1);
    lr_router_free(r);
}

/* ------------------------------------------------------------------------------------------------------------
 * lr_result_get on results the caller filled
 * ------------------------------------------------------------------------------------------------------------ */

static void test_result_get(void)
{
    lr_param_ref params[3] = {
        {"id", 2, "7", 1}, {"q", 1, "a", 1}, {"q", 1, "b", 1},
    };
    lr_result res;
    memset(&res, 0, sizeof res);
    size_t len = 99;
    res.path_param_count = 1;
    res.param_count = 3;
    EXPECT_TRUE(lr_result_get(&res, params, "id", &len) == params[0].value && len == 1, "a path parameter");
    EXPECT_TRUE(lr_result_get(&res, params, "q", &len) == params[2].value, "the last query pair wins");
    /* Counts no lookup writes: NULL (they trapped building a range), with a message; params is never read. */
    static const struct { size_t path, count; } bad[] = {
        {3, 1},                           /* path_param_count > param_count */
        {1, (size_t)1 << 60},             /* more pairs than any limit allows */
        {(size_t)1 << 60, (size_t)1 << 61},
        {SIZE_MAX, SIZE_MAX},             /* negative as a ptrdiff_t */
        {0, SIZE_MAX},
        {65536, 65536},                   /* more path parameters than a route can have */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        res.path_param_count = bad[i].path;
        res.param_count = bad[i].count;
        len = 99;
        EXPECT_TRUE(lr_result_get(&res, params, "id", &len) == NULL, "a result no lookup writes gives NULL");
        EXPECT_INT(len, 99);
        EXPECT_ERRORF("lr_result_get: res holds path_param_count %zu and param_count %zu, which no lookup writes",
                      bad[i].path, bad[i].count);
    }
}

/* ------------------------------------------------------------------------------------------------------------
 * Messages name the function called
 * ------------------------------------------------------------------------------------------------------------ */

static void test_function_names(void)
{
    lr_match *m = NULL;
    const char *names[] = {"a"}, *values[] = {"b"};
    EXPECT_INT(lr_router_add(NULL, "app://x", "X"), LR_EMISUSE);
    EXPECT_ERROR("lr_router_add: the router is NULL");
    EXPECT_INT(lr_router_add_route(NULL, "app://x", "X", NULL, NULL), LR_EMISUSE);
    EXPECT_ERROR("lr_router_add_route: the router is NULL");
    EXPECT_INT(lr_router_resolve(NULL, "app://x", &m), LR_EMISUSE);
    EXPECT_ERROR("lr_router_resolve: the router is NULL");
    EXPECT_INT(lr_router_resolve_with(NULL, "app://x", names, values, 1, &m), LR_EMISUSE);
    EXPECT_ERROR("lr_router_resolve_with: the router is NULL");
    lr_router *r = new_router();
    EXPECT_INT(lr_router_add_route(r, "app://x", "\xff", NULL, NULL), LR_EINVAL);
    EXPECT_ERROR("lr_router_add_route: target is not valid UTF-8");
    EXPECT_INT(lr_router_resolve_with(r, "app://x", names, values, (size_t)1 << 40, &m), LR_EMISUSE);
    EXPECT_ERROR("lr_router_resolve_with: count 1099511627776 is out of range");
    EXPECT_INT(lr_router_resolve_with(r, "app://x", names, NULL, 1, &m), LR_EMISUSE);
    EXPECT_ERROR("lr_router_resolve_with: values is NULL");
    /* Limits: the function, and the limit by its C name. */
    size_t v = 0;
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, 0), LR_EMISUSE);
    EXPECT_TRUE(strcmp(lr_last_error(), "lr_router_set_limit: LR_LIMIT_URL_LENGTH = 0 is out of range 1...1073741824") == 0,
                "set_limit's range message");
    EXPECT_INT(lr_router_set_limit(r, 10, 5), LR_EMISUSE);
    EXPECT_TRUE(strcmp(lr_last_error(), "lr_router_set_limit: unknown limit 10 (see enum lr_limit)") == 0,
                "set_limit's unknown-limit message");
    /* A value past every range still names the limit, and an unknown limit is named as such whatever the value
       (both said "value 18446744073709551615 is out of range": found by the limits review). */
    EXPECT_INT(lr_router_set_limit(r, 99, SIZE_MAX), LR_EMISUSE);
    EXPECT_TRUE(strcmp(lr_last_error(), "lr_router_set_limit: unknown limit 99 (see enum lr_limit)") == 0, lr_last_error());
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, SIZE_MAX), LR_EMISUSE);
    EXPECT_TRUE(strcmp(lr_last_error(), "lr_router_set_limit: LR_LIMIT_URL_LENGTH = 18446744073709551615 is out of range "
                                        "1...1073741824") == 0, lr_last_error());
    EXPECT_INT(lr_router_get_limit(r, -1, &v), LR_EMISUSE);
    EXPECT_TRUE(strcmp(lr_last_error(), "lr_router_get_limit: unknown limit -1 (see enum lr_limit)") == 0,
                "get_limit's unknown-limit message");
    lr_router_free(r);
}

/* ------------------------------------------------------------------------------------------------------------
 * The deepest inputs the limits allow, on a thread with a 512 KiB stack (a secondary thread's size on macOS and in
 * many thread pools). Recursion once took a stack frame per segment (the matcher's search) and several per
 * nesting level (the query tree, the JSON writer), up to 2^20 and 65,536 of them.
 * ------------------------------------------------------------------------------------------------------------ */

#define SMALL_STACK (512 * 1024)

/* LR_STRESS_SCALE (valgrind sets 0.05) scales the segment count down where every instruction is slow. */
static double scale = 1.0;

static void on_small_stack(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SMALL_STACK);
    if (pthread_create(&t, &attr, fn, arg) != 0) {
        fprintf(stderr, "test_extremes: cannot start a thread\n");
        exit(2);
    }
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
}

struct deep { lr_router *router; const char *url; int status; const char *target; int resolve_only; };

/* lr_router_resolve and lr_match_to_json, then (unless `resolve_only`) the other lookups. */
static void *resolve_everywhere(void *arg)
{
    struct deep *d = arg;
    size_t n = strlen(d->url);
    lr_match *m = NULL;
    EXPECT_INT(lr_router_resolve(d->router, d->url, &m), d->status);
    if (m && d->target) EXPECT_TRUE(strcmp(lr_match_target(m), d->target) == 0, "the deep URL's target");
    char *json = NULL;
    if (m) EXPECT_INT(lr_match_to_json(m, &json), LR_OK);
    lr_string_free(json);
    lr_match_free(m);
    if (d->resolve_only) return NULL;
    EXPECT_INT(lr_router_can_route(d->router, d->url), d->status == LR_OK ? 1 : 0);
    lr_result res;
    lr_param_ref params[4];
    size_t cap = LR_SCRATCH_SIZE(n);
    char *scratch = malloc(cap);
    EXPECT_INT(lr_router_resolve_into(d->router, d->url, n, &res, params, 4, scratch, cap), d->status);
    size_t needed = 0;
    int rc = lr_router_resolve_packed(d->router, d->url, n, scratch, 64, &needed);
    EXPECT_INT(rc, d->status == LR_OK ? LR_ELIMIT : d->status);
    if (rc == LR_ELIMIT) {
        char *buf = realloc(scratch, needed);
        scratch = buf;
        EXPECT_INT(lr_router_resolve_packed(d->router, d->url, n, buf, needed, &needed), LR_OK);
    }
    free(scratch);
    return NULL;
}

/* A route 2^20 segments deep (the largest maxSegments, the host counted) that a URL follows to its last segment
   before it dead-ends: the full search goes all the way down, then back to the catch-all at the top. */
static void test_deep_search(void)
{
    size_t segments = (size_t)((double)((size_t)1 << 20) * scale);
    if (segments < 1000) segments = 1000;
    lr_router *r = NULL;
    EXPECT_INT(lr_router_new(&r), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_SEGMENTS, (size_t)1 << 20), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_URL_LENGTH, (size_t)1 << 30), LR_OK);
    char *pattern = repeat("deep://h", "/a", segments - 2, "/end");
    EXPECT_INT(lr_router_add(r, pattern, "Deep"), LR_OK);
    EXPECT_INT(lr_router_add(r, "deep://*rest", "Rest"), LR_OK);
    EXPECT_INT(lr_router_add(r, "deep://h/:p/b", "Param"), LR_OK);
    char *end = repeat("deep://h", "/a", segments - 2, "/end");
    char *miss = repeat("deep://h", "/a", segments - 2, "/zzz");
    /* Each lookup of a URL of 2^20 segments costs about 0.4 s here: the entry points share the search, so the
       first row alone goes through all of them. */
    struct deep rows[] = {
        {r, miss, LR_OK, "Rest", 0}, /* down 2^20 levels, back up, the catch-all */
        {r, end, LR_OK, "Deep", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) on_small_stack(resolve_everywhere, &rows[i]);
    EXPECT_INT(lr_router_remove(r, "deep://*rest"), LR_OK);
    struct deep none = {r, miss, LR_NOMATCH, NULL, 1};
    on_small_stack(resolve_everywhere, &none);
    free(pattern);
    free(end);
    free(miss);
    lr_router_free(r);
}

/* Query keys nested as deep as LR_LIMIT_NESTING allows at its maximum, as objects and as lists. */
static void test_deep_nesting(void)
{
    lr_router *r = new_router();
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_NESTING, 256), LR_OK);
    EXPECT_INT(lr_router_set_limit(r, LR_LIMIT_NESTING, 257), LR_EMISUSE);
    char *objects = repeat("app://user/1?k", "[x]", 256, "=v&k[y]=w");
    char *lists = repeat("app://user/1?l", "[]", 256, "=v&l[]=w");
    char *deeper = repeat("app://user/1?k", "[x]", 257, "=v");
    struct deep rows[] = {
        {r, objects, LR_OK, "User", 0}, {r, lists, LR_OK, "User", 0}, {r, deeper, LR_OK, "User", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) on_small_stack(resolve_everywhere, &rows[i]);
    /* 256 levels nest (the JSON holds 256 nested objects, k[y] beside the first x), 257 stay flat as written. */
    lr_match *m = NULL;
    char *json = NULL;
    EXPECT_INT(lr_router_resolve(r, objects, &m), LR_OK);
    EXPECT_INT(lr_match_to_json(m, &json), LR_OK);
    char *opened = repeat("\"k\":", "{\"x\":", 256, "\"v\""), *closed = repeat(opened, "}", 255, ",\"y\":\"w\"}");
    char *key = repeat("k", "[x]", 256, ""), *query = repeat("[[\"", key, 1, "\",\"v\"],[\"k[y]\",\"w\"]]");
    char *want = user1_json(objects, closed, query);
    EXPECT_TRUE(json && strcmp(json, want) == 0, "the JSON of 256 nested levels");
    free(opened);
    free(closed);
    free(key);
    free(query);
    free(want);
    lr_string_free(json);
    lr_match_free(m);
    EXPECT_INT(lr_router_resolve(r, deeper, &m), LR_OK);
    EXPECT_TRUE(m && lr_match_get(m, deeper + strlen("app://user/1?")) == NULL, "the key is taken as written, '=v' apart");
    EXPECT_INT(lr_match_to_json(m, &json), LR_OK);
    want = user1_flat_json(deeper, 257);
    EXPECT_TRUE(json && strcmp(json, want) == 0, "the JSON of 257 levels: the key stays flat");
    free(want);
    lr_string_free(json);
    lr_match_free(m);
    free(objects);
    free(lists);
    free(deeper);
    lr_router_free(r);
}

struct rule { lr_router *router; const char *match; int status; };

static void *add_rule(void *arg)
{
    struct rule *k = arg;
    EXPECT_INT(lr_router_add_rewrite(k->router, k->match, "app://user/nested"), k->status);
    char *out = NULL;
    EXPECT_INT(lr_router_rewrite(k->router, "xa", &out), k->status == LR_OK ? LR_OK : LR_NOMATCH);
    lr_string_free(out);
    if (k->status == LR_OK) EXPECT_INT(lr_router_remove_rewrite(k->router, k->match), LR_OK);
    return NULL;
}

/* Rewrite regexes nested as deep as PCRE2 compiles them (250 groups): the rule index reads groups recursively. */
static void test_deep_regex(void)
{
    lr_router *r = new_router();
    char *nested = repeat("", "(", 250, "a");
    char *closed = repeat(nested, ")", 250, "");
    char *deeper = repeat("", "(", 251, "a");
    char *deeper_closed = repeat(deeper, ")", 251, "");
    struct rule rows[] = {{r, closed, LR_OK}, {r, deeper_closed, LR_EREGEX}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) on_small_stack(add_rule, &rows[i]);
    free(nested);
    free(closed);
    free(deeper);
    free(deeper_closed);
    lr_router_free(r);
}

int main(void)
{
    const char *env = getenv("LR_STRESS_SCALE");
    if (env && atof(env) > 0 && atof(env) < 1) scale = atof(env);
    test_url_lengths();
    test_capacities();
    test_limit_maxima();
    test_route_text();
    test_route_params();
    test_result_get();
    test_function_names();
    test_deep_search();
    test_deep_nesting();
    test_deep_regex();
    if (failures) {
        fprintf(stderr, "test_extremes: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_extremes: all passed\n");
    return 0;
}
